"""How evaluate, compare and the command line read files (issue 28): a TSV or TREC file has no quoting, so a `"` in
an id is a character; a CSV's quoting is DuckDB's, and a quote that joins lines into one row is refused, naming the
line (rows read always equal the lines that hold rows); `delimiter=` and `decimal=` for CSV files split on `;`
with numbers written 0,5, and a file read the wrong way says how it was read; a file mixing CRLF and LF line ends
is read (a copy with LF ones, removed afterwards) and gives the numbers of the clean file.

Expected values are worked by hand below, from the lines as written."""

from __future__ import annotations

import glob
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import sqlndcg
from sqlndcg.errors import InputError, SettingError

LOG2_3 = math.log2(3)
# q1 ranks "d1 (1), d2 (0), d3 (1): DCG@3 = 1 + 1/log2(4), IDCG@3 = 1 + 1/log2(3); q2 ranks d4" (1), d5 (0): 1.
Q1_NDCG3 = 1.5 / (1 + 1 / LOG2_3)
NDCG3 = (Q1_NDCG3 + 1.0) / 2
P3 = (2 / 3 + 1 / 3) / 2

QRELS = 'q1 0 "d1 1\nq1 0 d3 1\nq2 0 d4" 1\nq2 0 d5 0\n'  # TREC: no quoting, the quotes are in the ids
ROWS = [("q1", '"d1', "3"), ("q1", "d2", "2"), ("q1", "d3", "1"), ("q2", 'd4"', "2"), ("q2", "d5", "1")]


def lines(rows, sep: str, header=("query_id", "doc_id", "score")) -> list[str]:
    return [sep.join(header)] + [sep.join(r) for r in rows]


def write(path: Path, text: str | bytes) -> str:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


def means(res) -> dict[str, float]:
    row = res.summary.to_dicts()[0]
    return {m: row[m] for m in ("ndcg@3", "p@3")}


def run_rows(res) -> int:
    return res.account.to_dicts()[0]["run_rows"]


@pytest.fixture
def qrels(tmp_path):
    return write(tmp_path / "qrels.qrels", QRELS)


# -- a `"` in a TSV or TREC id is a character -------------------------------------------------------------------------

def test_a_quote_in_a_tsv_id_is_part_of_the_id(tmp_path, qrels):
    """DuckDB's sniffer took the `"` opening "d1 for a quoted field closed by the one ending d4": five rows were read
    as two, silently (the account said 2)."""
    run = write(tmp_path / "run.tsv", "\n".join(lines(ROWS, "\t")) + "\n")
    res = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"])
    assert run_rows(res) == 5
    assert means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)
    per_query = {r["query_id"]: r["ndcg@3"] for r in res.per_query.to_dicts()}
    assert per_query == pytest.approx({"q1": Q1_NDCG3, "q2": 1.0}, rel=1e-12)


def test_a_quote_in_a_trec_run_id_is_part_of_the_id(tmp_path, qrels):
    run = write(tmp_path / "run.run", "".join(f"{q} Q0 {d} {i} {s} sys\n" for i, (q, d, s) in enumerate(ROWS, 1)))
    res = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"])
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)


def test_a_txt_file_told_to_be_tsv_is_not_quoted_either(tmp_path, qrels):
    run = write(tmp_path / "run.txt", "\n".join(lines(ROWS, "\t")) + "\n")
    res = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"])
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)


# -- a CSV's quoting: a quote that joins lines is refused, naming the line ---------------------------------------------

def test_a_quote_left_open_in_a_csv_is_refused_naming_the_line(tmp_path, qrels):
    run = write(tmp_path / "run.csv", "\n".join(lines(ROWS, ",")) + "\n")
    with pytest.raises(InputError) as caught:
        sqlndcg.evaluate(run, qrels, ["ndcg@3"])
    said = str(caught.value)
    assert said.startswith("run file ") and "run.csv', line 2: a quote opens a field in 'q1,\"d1,3'" in said
    assert "runs on to line 5, so 5 lines were read as 2 rows" in said
    assert "doubled" in said and "run_format='tsv'" in said


def test_the_same_csv_read_without_quoting_gives_the_numbers(tmp_path, qrels):
    run = write(tmp_path / "run.csv", "\n".join(lines(ROWS, ",")) + "\n")
    res = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"], run_format="tsv", delimiter=",")
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)


def test_csv_quoting_as_written_still_reads(tmp_path, qrels):
    """Doubled quotes in a quoted field, a quoted delimiter: one row per line, read as CSV reads them."""
    text = 'query_id,doc_id,score\nq1,"""d1",3\nq1,"d2",2\nq1,d3,1\nq2,"d4""",2\nq2,d5,1\n'
    res = sqlndcg.evaluate(write(tmp_path / "run.csv", text), qrels, ["ndcg@3", "p@3"])
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)
    comma = 'query_id,doc_id,score\nq1,"d,1",1\n'
    res = sqlndcg.evaluate(write(tmp_path / "comma.csv", comma), write(tmp_path / "c.qrels", "q1 0 d,1 1\n"),
                           ["ndcg@3"])
    assert res.summary.to_dicts()[0]["ndcg@3"] == 1.0


def test_a_quoted_line_break_is_refused_too(tmp_path, qrels):
    """A field holding a line break is valid CSV, but then rows are not lines, and no id spans lines."""
    text = 'query_id,doc_id,score\nq1,"d\n1",3\nq1,d2,2\n'
    with pytest.raises(InputError, match=r"line 2: a quote opens a field in 'q1,\"d' that runs on to line 3, so 3 "
                                         r"lines were read as 2 rows"):
        sqlndcg.evaluate(write(tmp_path / "nl.csv", text), qrels, ["ndcg@3"])


def test_blank_and_comment_lines_are_not_rows_as_before(tmp_path, qrels):
    text = "query_id,doc_id,score\n" + "\n".join(",".join(r) for r in ROWS[:3]) + "\n\n#skipped\n" + \
        "\n".join(",".join(r) for r in ROWS[3:]).replace('"', "") + "\n\n"
    res = sqlndcg.evaluate(write(tmp_path / "blank.csv", text.replace('"d1', "d1")),
                           write(tmp_path / "b.qrels", QRELS.replace('"', "")), ["ndcg@3", "p@3"])
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)


# -- delimiter= and decimal= --------------------------------------------------------------------------------------------

SEMICOLON = "query_id;doc_id;score\nq1;d1;0,75\nq1;d2;0,5\nq1;d3;0,25\nq2;d4;1,5\nq2;d5;1,25\n"
PLAIN_QRELS = "q1 0 d1 1\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 0\n"


def test_semicolons_and_decimal_commas_read_with_delimiter_and_decimal(tmp_path):
    run = write(tmp_path / "run.csv", SEMICOLON)
    qrels = write(tmp_path / "q.qrels", PLAIN_QRELS)
    res = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"], delimiter=";", decimal=",")
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)
    sql = sqlndcg.to_sql(run, qrels, ["ndcg@3"], delimiter=";", decimal=",")
    assert "delim = ';'" in sql and "decimal_separator = ','" in sql


def test_a_semicolon_header_is_said_with_the_fix(tmp_path):
    run = write(tmp_path / "run.csv", SEMICOLON)
    with pytest.raises(InputError) as caught:
        sqlndcg.evaluate(run, write(tmp_path / "q.qrels", PLAIN_QRELS), ["ndcg@3"])
    said = str(caught.value)
    assert "has neither a score column nor a rank column" in said
    assert ("it was read as CSV split on ',', but its first line 'query_id;doc_id;score' splits on ';' into 3 "
            "fields: give delimiter=';', and for its numbers written with a decimal comma (0,5) give decimal=','"
            in said)
    with pytest.raises(InputError, match=r"its numbers are written with a decimal comma \(0,5\): give decimal=','"):
        sqlndcg.evaluate(run, write(tmp_path / "q.qrels", PLAIN_QRELS), ["ndcg@3"], delimiter=";")


def test_a_tab_in_a_csv_header_is_said(tmp_path):
    run = write(tmp_path / "run.csv", "\n".join(lines(ROWS, "\t")).replace('"', "") + "\n")
    with pytest.raises(InputError, match=r"split on ',', but its first line 'query_id\\tdoc_id\\tscore' splits on "
                                         r"'\\t' into 3 fields: give delimiter='\\t'"):
        sqlndcg.evaluate(run, write(tmp_path / "q.qrels", PLAIN_QRELS), ["ndcg@3"])
    res = sqlndcg.evaluate(run, write(tmp_path / "q.qrels", PLAIN_QRELS), ["ndcg@3"], delimiter="\t")
    assert run_rows(res) == 5


@pytest.mark.parametrize("given, said", [
    ({"decimal": ","}, "decimal=',' with run file .* split on ','.* give the file's delimiter too, e.g. delimiter=';'"),
    ({"delimiter": ""}, "delimiter='': the field delimiter of CSV and TSV files is a character"),
    ({"delimiter": "\n"}, "not a line end or a quote"),
    ({"delimiter": '"'}, "not a line end or a quote"),
    ({"decimal": ";"}, "decimal=';': the decimal separator of numbers in CSV and TSV files is '.' .* or ','"),
])
def test_delimiter_and_decimal_are_checked(tmp_path, given, said):
    run = write(tmp_path / "run.csv", SEMICOLON)
    with pytest.raises(SettingError, match=said):
        sqlndcg.evaluate(run, write(tmp_path / "q.qrels", PLAIN_QRELS), ["ndcg@3"], **given)


def test_explain_reads_semicolon_files(tmp_path):
    """Exponential against linear gain: labels 0 and 1 give the same gains, so nothing differs; q1's arithmetic
    shows the three documents read with their scores."""
    run = write(tmp_path / "run.csv", SEMICOLON)
    qrels = write(tmp_path / "q.qrels", PLAIN_QRELS)
    ex = sqlndcg.explain(run, qrels, ["ndcg@3"], a="trec_eval", b={"preset": "trec_eval", "gain": "exponential"},
                         delimiter=";", decimal=",")
    assert ex.queries == 2 and not ex.rows
    one = sqlndcg.explain(run, qrels, ["ndcg@3"], query="q1", delimiter=";", decimal=",").to_dict()
    assert [r[1] for r in one["views"][0]["ranking"]] == ["d1", "d2", "d3"]  # by the scores 0,75 0,5 0,25
    assert one["views"][0]["arithmetic"][-1].endswith(f"= {Q1_NDCG3:.6f}")
    done = cli("explain", "--run", run, "--judgments", qrels, "-m", "ndcg@3", "--query", "q1", "--delimiter", ";",
               "--decimal", ",", "--format", "json")
    assert done.returncode == 0, done.stderr


def test_compare_reads_semicolon_files(tmp_path):
    qrels = write(tmp_path / "q.qrels", PLAIN_QRELS)
    a = write(tmp_path / "a.csv", mixed(SEMICOLON))  # its line ends mixed too
    b = write(tmp_path / "b.csv", SEMICOLON.replace("0,75", "0,1"))  # q1: d2, d3, d1: DCG 1/log2(3) + 1/2
    c = sqlndcg.compare({"a": a, "b": b}, qrels, ["ndcg@3"], delimiter=";", decimal=",", permutations=10,
                        resamples=10)
    row = c.table.to_dicts()[0]
    b_q1 = (1 / LOG2_3 + 0.5) / (1 + 1 / LOG2_3)
    assert row["difference"] == pytest.approx((b_q1 - Q1_NDCG3) / 2, rel=1e-12)
    assert a in str(c.sql) and "sqlndcg-spill" not in str(c.sql)  # the statement shown reads the files


# -- a format told from the first line says so when the columns are wrong -----------------------------------------------

def test_a_trec_suffix_with_five_fields_says_what_was_sniffed(tmp_path):
    run = write(tmp_path / "run.trec", "q1 Q0 d1 1 3\nq1 Q0 d2 2 2\n")
    with pytest.raises(InputError) as caught:
        sqlndcg.evaluate(run, write(tmp_path / "q.qrels", PLAIN_QRELS), ["ndcg@3"])
    said = str(caught.value)
    assert ("it was read as CSV: its suffix '.trec' names no format, and its first line has 5 whitespace-separated "
            "field(s), where a TREC run line has at least 6 ('query_id Q0 doc_id rank score tag')") in said
    assert "run_format='trec_run'" in said


def test_a_txt_qrels_with_three_fields_says_what_was_sniffed(tmp_path):
    run = write(tmp_path / "run.run", "q1 Q0 d1 1 3 t\n")
    with pytest.raises(InputError, match=r"it was read as TSV: its suffix '.txt' names no format, and its first line "
                                         r"has 3 whitespace-separated field\(s\), where a TREC qrels line has 4 "
                                         r"\('query_id 0 doc_id rel'\).* judgments_format='trec_qrels'"):
        sqlndcg.evaluate(run, write(tmp_path / "qrels.txt", "q1 d1 1\nq1 d2 0\n"), ["ndcg@3"])
    with pytest.raises(InputError, match=r"has no rows .*\(it was read as TSV: .* where a TREC qrels line has 4"):
        sqlndcg.evaluate(run, write(tmp_path / "one.txt", "q1 d1 1\n"), ["ndcg@3"])


# -- mixed line ends: read, as the clean file ---------------------------------------------------------------------------

def mixed(text: str, every: int = 2) -> bytes:
    """Every `every`-th line ends in CRLF, the others in LF."""
    out = [line + ("\r\n" if i % every == 0 else "\n") for i, line in enumerate(text.rstrip("\n").split("\n"))]
    return "".join(out).encode()


CLEAN_RUN = "".join(f"{q} Q0 {d} {i} {s} sys\n" for i, (q, d, s) in enumerate(ROWS, 1)).replace('"', "")
CLEAN_QRELS = QRELS.replace('"', "")


def _copies() -> list[str]:
    return glob.glob(os.path.join(tempfile.gettempdir(), f"sqlndcg-spill-{os.getpid()}-lf-*"))


@pytest.mark.parametrize("name", ["run.run", "run.txt", "run.run.gz"])
def test_a_trec_run_and_qrels_mixing_crlf_and_lf_read_as_the_clean_files(tmp_path, name):
    data = mixed(CLEAN_RUN)
    assert b"\r\n" in data and b"2 sys\n" in data
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)
    qrels = write(tmp_path / "qrels.txt", mixed(CLEAN_QRELS))
    before = _copies()
    res = sqlndcg.evaluate(str(path), qrels, ["ndcg@3", "p@3"])
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)
    assert str(path) in res.sql and "sqlndcg-spill" not in res.sql  # the statement shown reads the file itself
    assert _copies() == before  # the copies are gone with the call


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t")])
@pytest.mark.parametrize("rows", [5, 60_000], ids=["sniffed", "past-the-sample"])
def test_a_csv_or_tsv_mixing_crlf_and_lf_reads_as_the_clean_file(tmp_path, suffix, sep, rows):
    """Mixed within DuckDB's sniffing sample, or only after 30,000 CRLF lines (its full read refused it then)."""
    extra = [(f"q{3 + i // 10}", f"x{i}", "0") for i in range(rows - 5)]  # unjudged queries: not scored
    body = "\n".join(lines(ROWS + extra, sep)).replace('"', "") + "\n"
    every = 2 if rows == 5 else 1
    data = mixed(body, every)
    if rows > 5:  # the first half CRLF, the rest LF
        half = body.split("\n")
        data = ("\r\n".join(half[:rows // 2]) + "\r\n" + "\n".join(half[rows // 2:])).encode()
    assert b"\r\n" in data and b"\r" not in data.split(b"\n")[-2]
    res = sqlndcg.evaluate(write(tmp_path / f"run{suffix}", data), write(tmp_path / "q.qrels", CLEAN_QRELS),
                           ["ndcg@3", "p@3"])
    assert run_rows(res) == rows and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)


def test_pure_crlf_files_read_as_before(tmp_path):
    run = write(tmp_path / "run.csv", "\n".join(lines(ROWS, ",")).replace('"', "").replace("\n", "\r\n") + "\r\n")
    res = sqlndcg.evaluate(run, write(tmp_path / "q.qrels", CLEAN_QRELS.replace("\n", "\r\n")), ["ndcg@3", "p@3"])
    assert run_rows(res) == 5 and means(res) == pytest.approx({"ndcg@3": NDCG3, "p@3": P3}, rel=1e-12)


# -- the command line ---------------------------------------------------------------------------------------------------

def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlndcg", *args], capture_output=True, text=True, timeout=300)


def test_the_command_line_takes_delimiter_and_decimal(tmp_path):
    run = write(tmp_path / "run.csv", SEMICOLON)
    qrels = write(tmp_path / "q.qrels", mixed(PLAIN_QRELS))
    done = cli("evaluate", "--run", run, "--judgments", qrels, "-m", "ndcg@3,p@3", "--delimiter", ";",
               "--decimal", ",", "--format", "json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"][0]
    assert summary["ndcg@3"] == pytest.approx(NDCG3, rel=1e-12) and summary["p@3"] == pytest.approx(P3, rel=1e-12)
    done = cli("evaluate", "--run", run, "--judgments", qrels, "-m", "ndcg@3")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "give --delimiter=';', and for its numbers written with a decimal comma (0,5) give --decimal=','" in \
        done.stderr
    assert "(formats:" not in done.stderr  # the generic hint is left out where the file's own reading is said


def test_the_command_line_reads_a_tab_written_backslash_t(tmp_path):
    run = write(tmp_path / "run.csv", "\n".join(lines(ROWS, "\t")).replace('"', "") + "\n")
    done = cli("evaluate", "--run", run, "--judgments", write(tmp_path / "q.qrels", CLEAN_QRELS), "-m", "ndcg@3",
               "--delimiter", "\\t", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"][0]["ndcg@3"] == pytest.approx(NDCG3, rel=1e-12)


# -- declared once ------------------------------------------------------------------------------------------------------

def test_every_verb_reading_files_takes_every_file_option():
    import inspect

    from sqlndcg.core.spec import file_options_declared
    from sqlndcg.verbs.compare import compare, evaluate_systems
    from sqlndcg.verbs.evaluate import evaluate, to_sql
    from sqlndcg.verbs.explain import explain

    declared = file_options_declared()
    for verb in (evaluate, to_sql, compare, evaluate_systems, explain):
        keywords = inspect.signature(verb).parameters
        for name in declared:
            assert name in keywords and keywords[name].default is None, (verb.__name__, name)


@pytest.mark.parametrize("verb", ["evaluate", "sql", "compare", "report", "explain"])
def test_every_verb_reading_files_has_every_file_flag(verb):
    from sqlndcg import cli as cli_module
    from sqlndcg.core.spec import file_options_declared

    parser = cli_module.parser_for([verb])
    sub = parser._subparsers._group_actions[0].choices[verb]
    flags = {option for action in sub._actions for option in action.option_strings}
    for name in file_options_declared():
        assert "--" + name.replace("_", "-") in flags, (verb, name)


def test_the_trec_eval_command_reads_mixed_line_ends_as_trec_eval_does(tmp_path):
    """trec_eval 10.0 reads such files (a CR before the LF is a blank); q1 finds both relevant documents first
    (NDCG 1, AP 1), q2 its one at rank 2 (NDCG 1/log2(3), AP 1/2)."""
    run = write(tmp_path / "m.run", b"q1 Q0 d1 1 3 t\r\nq1 Q0 d2 2 2 t\nq2 Q0 d1 1 2 t\r\nq2 Q0 d2 2 1 t\n")
    qrels = write(tmp_path / "m.qrels", b"q1 0 d1 1\r\nq1 0 d2 1\nq2 0 d2 1\r\n")
    done = cli("trec_eval", "-q", "-m", "ndcg", "-m", "map", qrels, run)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "map                   \tq1\t1.0000", "ndcg                  \tq1\t1.0000",
        "map                   \tq2\t0.5000", "ndcg                  \tq2\t0.6309",
        "map                   \tall\t0.7500", "ndcg                  \tall\t0.8155"]


def test_a_quote_past_the_sniffers_sample_is_a_character(tmp_path, qrels):
    """DuckDB decides a CSV's quoting from a sample: with none there, a later `"` is part of the id and every line
    is still a row (what lets the rows go uncounted when no quote is sniffed)."""
    filler = [(f"x{i}", f"y{i}", "0") for i in range(30_000)]
    run = write(tmp_path / "late.csv", "\n".join(lines(filler + ROWS, ",")) + "\n")
    res = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"])
    assert run_rows(res) == 30_005
    per_query = {r["query_id"]: r["ndcg@3"] for r in res.per_query.to_dicts()}
    assert per_query == pytest.approx({"q1": Q1_NDCG3, "q2": 1.0}, rel=1e-12)

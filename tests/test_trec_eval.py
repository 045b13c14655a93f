"""`sqlndcg trec_eval --trec-eval-version 9` is trec_eval 9.x: the installed command, run on files written here,
prints what pytrec_eval (trec_eval 9.x's own C code) computes, per query and in the `all` line, for every measure
pytrec_eval supports, with -c, -l 2, -M and -J; on data with score ties, unjudged and unretrieved documents, graded,
fractional and negative labels, queries without relevant documents and judged queries missing from the run.
The default, trec_eval 10.0, is checked against trec_eval 10.0 itself (test_trec_eval_10.py, its shipped tests;
test_trec_eval_binary.py, the binary built from its source); here, what differs between the two versions, the
command's errors, and the other engines."""

from __future__ import annotations

import gzip
import math
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pytrec_eval

#: The installed entry point (pyproject's [project.scripts]), next to the interpreter running the tests.
SQLNDCG = shutil.which("sqlndcg", path=os.path.dirname(sys.executable)) or shutil.which("sqlndcg")
PRINTED = 0.00005 + 1e-9  # values are printed with 4 decimals
NINE = ("--trec-eval-version", "9")  # trec_eval 9.x, which pytrec_eval wraps


def sqlndcg(*args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    assert SQLNDCG, "the sqlndcg entry point is not installed (pip install -e .)"
    return subprocess.run([SQLNDCG, *map(str, args)], capture_output=True, input=stdin, timeout=300)


def make_files(tmp: Path, seed: int = 7):
    """Qrels and run files in TREC format, and the same data as dicts for pytrec_eval (labels read as their
    integer part, as trec_eval does)."""
    rng = random.Random(seed)
    qrel_lines, run_lines = ["# judgments written by the test"], []
    qrels, run = {}, {}
    for qn in range(30):
        q = f"{300 + qn}"
        docs = [f"DOC-{rng.randint(1, 120)}" for _ in range(40)]
        docs = list(dict.fromkeys(docs))
        judged = qn % 10 != 9  # a few run queries without judgments
        answered = qn % 7 != 3  # a few judged queries missing from the run
        nothing = qn % 8 == 5  # queries without any relevant document
        if judged:
            for d in docs[: rng.randint(1, 20)]:
                label = rng.choice([0, 0, -1]) if nothing else rng.choice([-1, 0, 0, 1, 1, 1.5, 2, 3, 4])
                qrel_lines.append(f"{q} 0 {d} {label}")
                qrels.setdefault(q, {})[d] = int(float(label))
        if answered:
            start, length = rng.randint(0, 6), rng.choice([1, 3, 5, 8, 12, 25])
            for rank, d in enumerate(docs[start:start + length], 1):
                score = rng.choice([0.0, 0.5, 1.0, 1.0, 2.25, 3.0])  # many ties
                extra = " trailing fields" if rank % 5 == 0 else ""
                run_lines.append(f"{q}\tQ0\t{d}\t{rank}\t{score}\tsystemA{extra}")
                run.setdefault(q, {})[d] = score
    (tmp / "test.qrels").write_text("\n".join(qrel_lines) + "\n")
    (tmp / "test.run").write_text("\n".join(run_lines) + "\n")
    return tmp / "test.qrels", tmp / "test.run", qrels, run


def parse(out: str) -> dict[tuple[str, str], str]:
    found = {}
    for line in out.splitlines():
        name, query, value = line.split("\t")
        found[(name.strip(), query)] = value
    return found


def trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval's ranking: score descending, then doc id descending (as strings)."""
    return [d for d, _ in sorted(docs.items(), key=lambda x: (-x[1], [-b for b in x[0].encode()]))]


def reference(qrels, run, *, complete=False, level=1, depth=None, judged_only=False):
    """pytrec_eval's values per query (and which queries trec_eval prints), emulating -M by cutting the run and -c
    as trec_eval does (a missing query is evaluated on one unjudged document, then num_ret, utility are zeroed)."""
    run = {q: {d: run[q][d] for d in trec_order(docs)[:depth]} if depth else dict(docs) for q, docs in run.items()}
    evaluated = {q: docs for q, docs in run.items() if q in qrels}
    missing = [q for q in qrels if q not in run]
    if complete:
        for q in missing:
            evaluated[q] = {"ceci_nest_pas_un_docno": 1.0}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_nicknames["all_trec"],
                                               relevance_level=level, judged_docs_only_flag=judged_only)
    values = evaluator.evaluate(evaluated)
    for q in missing:
        if q in values:
            values[q]["num_ret"] = 0.0
            values[q]["utility"] = 0.0
    return values, sorted(q for q in run if q in qrels)


def check(out: str, values: dict, printed_queries: list[str], num_rel_all: int | None = None) -> int:
    """`num_rel_all`: trec_eval's `all` line of num_rel where it is not the sum of the per-query lines (-c: every
    judged label > 0, whatever -l; m_num_rel.c), which pytrec_eval's own summing does not know."""
    got = parse(out)
    checked = 0
    measures = sorted({m for q in values for m in values[q]} - {"runid", "relstring", "num_q"})
    for q in printed_queries:
        for m in measures:
            if m.startswith("gm_"):
                assert (m, q) not in got, "trec_eval prints gm_* only in the summary"
                continue
            ref = values[q][m]
            assert (m, q) in got, f"{m} for query {q} not printed"
            assert abs(float(got[(m, q)]) - ref) <= PRINTED, (m, q, got[(m, q)], ref)
            checked += 1
    assert {q for (_, q) in got} - {"all"} == set(printed_queries)
    for m in measures:
        ref = pytrec_eval.compute_aggregated_measure(m, [values[q][m] for q in values])
        if m == "num_rel" and num_rel_all is not None:
            ref = num_rel_all
        assert abs(float(got[(m, "all")]) - ref) <= PRINTED * max(1, abs(ref)), (m, got[(m, "all")], ref)
        checked += 1
    assert int(got[("num_q", "all")]) == len(values)
    assert got[("runid", "all")] == "systemA"
    return checked


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_files(tmp_path_factory.mktemp("trec_eval"))


@pytest.mark.parametrize("flags, options", [
    ([], {}),
    (["-c"], {"complete": True}),
    (["-l", "2"], {"level": 2}),
    (["-c", "-l", "2"], {"complete": True, "level": 2}),
    (["-M", "4"], {"depth": 4}),
    (["-J"], {"judged_only": True}),
    (["-c", "-M", "6", "-J"], {"complete": True, "depth": 6, "judged_only": True}),
], ids=["plain", "c", "l2", "c-l2", "M4", "J", "c-M6-J"])
def test_all_trec_equals_pytrec_eval_per_query_and_in_the_all_line(files, flags, options):
    qrels_path, run_path, qrels, run = files
    done = sqlndcg("trec_eval", *NINE, "-q", "-m", "all_trec", *flags, qrels_path, run_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""  # 9.x evaluates the queries in both without a word
    values, printed = reference(qrels, run, **options)
    labels_above_0 = sum(label > 0 for judged in qrels.values() for label in judged.values())
    if options.get("judged_only"):
        # a query whose retrieved documents are all unjudged retrieves nothing under -J: trec_eval's
        # iprec_at_recall and 11pt_avg divide 0 by 0 there (NaN); sqlndcg prints 0
        for q in values:
            for m, v in values[q].items():
                if isinstance(v, float) and math.isnan(v):
                    values[q][m] = 0.0
    assert check(done.stdout.decode(), values, printed,
                 labels_above_0 if options.get("complete") else None) > 1000


def test_output_format_is_trec_evals(files):
    qrels_path, run_path, _, _ = files
    out = sqlndcg("trec_eval", "-q", qrels_path, run_path).stdout.decode().splitlines()
    # official measures by default; per query first, then the summary, `%-22s\t%s\t%.4f`
    assert out[0].startswith("num_ret               \t300\t")
    assert "runid                 \tall\tsystemA" in out
    assert any(line.startswith("map                   \tall\t0.") for line in out)
    assert all(len(line.split("\t")[0]) >= 22 for line in out)
    summary = sqlndcg("trec_eval", qrels_path, run_path).stdout.decode().splitlines()
    assert [line.split("\t")[0].strip() for line in summary][:6] == ["runid", "num_q", "num_ret", "num_rel",
                                                                    "num_rel_ret", "map"]
    assert all(line.split("\t")[1] == "all" for line in summary)
    assert sqlndcg("trec_eval", "-n", "-q", qrels_path, run_path).stdout.decode().count("\tall\t") == 0


def test_measure_parameters_follow_trec_evals_spelling(files):
    qrels_path, run_path, qrels, run = files
    out = parse(sqlndcg("trec_eval", *NINE, "-q", "-m", "P.3,7", "-m", "iprec_at_recall.0.25", "-m", "Rprec_mult.0.5",
                        "-m", "ndcg_cut.3", "-m", "success.2", "-m", "11pt_avg.0.25,0.5", qrels_path,
                        run_path).stdout.decode())
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P.3,7", "iprec_at_recall.0.25", "Rprec_mult.0.5",
                                                       "ndcg_cut.3", "success.2", "11pt_avg.0.25,0.5"})
    values = evaluator.evaluate({q: d for q, d in run.items() if q in qrels})
    for q, measures in values.items():
        for m, v in measures.items():
            name = "11pt_avg_0.25,0.5" if m == "11pt_avg" else m  # pytrec_eval drops the parameters from the name
            assert abs(float(out[(name, q)]) - v) <= PRINTED, (m, q)
    assert ("P_3", "all") in out and ("P_5", "all") not in out


def test_stdin_gzip_comments_and_trailing_fields(files, tmp_path):
    qrels_path, run_path, _, _ = files
    expected = sqlndcg("trec_eval", "-m", "all_trec", qrels_path, run_path).stdout
    gz = tmp_path / "test.qrels.gz"
    gz.write_bytes(gzip.compress(qrels_path.read_bytes()))
    assert sqlndcg("trec_eval", "-m", "all_trec", gz, "-", stdin=run_path.read_bytes()).stdout == expected


def test_labels_are_read_as_their_integer_part(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1.5\n1 0 b 0.5\n1 0 c 2.9\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 x\n1 Q0 a 2 2 x\n1 Q0 c 3 1 x\n")
    got = parse(sqlndcg("trec_eval", *NINE, "-m", "ndcg_cut.5", "-m", "num_rel", tmp_path / "q",
                        tmp_path / "r").stdout.decode())
    evaluator = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "b": 0, "c": 2}}, {"ndcg_cut.5", "num_rel"})
    ref = evaluator.evaluate({"1": {"a": 2.0, "b": 3.0, "c": 1.0}})["1"]
    assert float(got[("ndcg_cut_5", "all")]) == pytest.approx(ref["ndcg_cut_5"], abs=PRINTED)
    assert got[("num_rel", "all")] == "2"


@pytest.mark.parametrize("files_text, args, message", [
    (("1 0 a 1\n", "1 Q0 a 1 2.0\n"), ["-m", "map"], "run file .* malformed line.*line 1"),
    (("1 0 a\n", "1 Q0 a 1 2.0 x\n"), ["-m", "map"], "qrels file .* malformed line.*line 1"),
    (("1 0 a 1\n\n", "1 Q0 a 1 2.0 x\n"), [], "qrels file .*: line 2 is blank; trec_eval 10.0 stops there too"),
    (("1 0 a 1\n", "1 Q0 a 1 nan x\n"), [], "run file .* score C's atof reads as nan"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-m", "nonsense"], "trec_eval measure 'nonsense' is not known"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-m", "utility.1,2"], "utility takes 4 coefficients"),
    (("# only a comment\n", "1 Q0 a 1 2.0 x\n"), [], "has no judgment lines"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-m", "ndcg@10"], "'ndcg@10' is not known: that is sqlndcg evaluate's "
     r"name, not trec_eval's; trec_eval's is ndcg_cut.10 \(-m ndcg_cut.10\)"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-m", "ndcg@10", "p@5"], "'p@5' after -m ndcg@10 is read as a file, since -m "
     r"takes one measure: .*\(sqlndcg evaluate's ndcg@10 is ndcg_cut.10, p@5 is P.5 in trec_eval\): -m ndcg_cut.10 -m P.5"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-R", "prefs"], "-R prefs: trec_eval's prefs judgments and their measures are "
     "not provided"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-Rfoo"], "-R foo: trec_eval: Illegal rel_format 'foo'"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-Z", "z.txt"], "-Z z.txt: trec_eval's z-scores .* are not provided"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-T", "other"], "-T other: sqlndcg trec_eval reads runs in trec_results"),
], ids=["run-5-fields", "qrels-3-fields", "qrels-blank-line", "score-nan", "unknown-measure", "utility-arity",
        "qrels-only-comments", "sqlndcg-name", "two-names-after-one-m", "R-prefs", "R-illegal", "Z", "T"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, files_text, args, message):
    import re

    (tmp_path / "q").write_text(files_text[0])
    (tmp_path / "r").write_text(files_text[1])
    done = sqlndcg("trec_eval", *args, tmp_path / "q", tmp_path / "r")
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err.startswith("sqlndcg: error: ") and err.count("\n") == 1, err
    assert re.search(message, err), err


def test_no_query_in_common_exits_4_with_trec_evals_words(tmp_path):
    """trec_eval 10.0 stops at the first judged query the run lacks: "result qid '2' not found in qrels", exit 4
    (its 'exit 7, no queries with both results and relevance info' is never reached); -c evaluates them, as 0."""
    (tmp_path / "q").write_text("2 0 a 1\n3 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 x\n")
    done = sqlndcg("trec_eval", tmp_path / "q", tmp_path / "r")
    assert done.returncode == 4 and done.stdout == b""
    assert done.stderr.decode() == (
        "sqlndcg: error: trec_eval: result qid '2' not found in qrels (trec_eval 10.0's words and exit status 4): "
        "the run and the qrels share no query: the qrels judge '2', '3', the run answers '1'; check that they are "
        "the same collection's files and write their query ids alike (-c evaluates every judged query, a missing "
        "one as 0)\n")
    complete = sqlndcg("trec_eval", "-c", "-m", "map", "-m", "num_q", tmp_path / "q", tmp_path / "r")
    assert complete.returncode == 0 and complete.stdout == b"num_q                 \tall\t2\nmap                   \tall\t0.0000\n"


def test_a_printed_line_name_given_to_m_is_read_with_a_note(tmp_path):
    """trec_eval refuses -m ndcg_cut_10 ("illegal measure", exit 1); sqlndcg reads it as ndcg_cut.10, merges the
    cutoffs of one family (-m P_5 -m P_10 is -m P.5,10) and says so on stderr."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    done = sqlndcg("trec_eval", "-m", "ndcg_cut_10", "-m", "P_5", "-m", "P_10", "-m", "iprec_at_recall_0.50",
                   tmp_path / "q", tmp_path / "r")
    assert done.returncode == 0, done.stderr
    same = sqlndcg("trec_eval", "-m", "ndcg_cut.10", "-m", "P.5,10", "-m", "iprec_at_recall.0.50", tmp_path / "q",
                   tmp_path / "r")
    assert done.stdout == same.stdout and b"P_10 " in done.stdout
    assert done.stderr.decode().splitlines() == [
        "sqlndcg: note: -m ndcg_cut_10 read as -m ndcg_cut.10: trec_eval 10.0 refuses it (\"illegal measure\", "
        "exit 1); its -m takes family.parameters, and ndcg_cut_10 is the name of a line it prints",
        "sqlndcg: note: -m P_5 -m P_10 read as -m P.5,10: trec_eval 10.0 refuses them (\"illegal measure\", exit 1); "
        "its -m takes family.parameters, and P_5 is the name of a line it prints",
        "sqlndcg: note: -m iprec_at_recall_0.50 read as -m iprec_at_recall.0.50: trec_eval 10.0 refuses it "
        "(\"illegal measure\", exit 1); its -m takes family.parameters, and iprec_at_recall_0.50 is the name of a "
        "line it prints"]


def test_missing_and_empty_files_exit_2(tmp_path):
    (tmp_path / "empty").write_text("")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 x\n")
    missing = sqlndcg("trec_eval", tmp_path / "nope", tmp_path / "r")
    assert missing.returncode == 2 and b"does not exist" in missing.stderr
    empty = sqlndcg("trec_eval", tmp_path / "empty", tmp_path / "r")
    assert empty.returncode == 2 and b"is empty" in empty.stderr


def test_missing_and_empty_run_files_and_stdin_exit_2(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "empty").write_text("")
    for args, stdin, message in (([tmp_path / "q", tmp_path / "nope"], None, r"run file '.*nope' does not exist"),
                                 ([tmp_path / "q", tmp_path / "empty"], None, r"run file '.*empty' is empty"),
                                 ([tmp_path / "q", "-"], b"", r"run from standard input is empty"),
                                 ([tmp_path / "q", "-"], b"# a comment only\n", "has no result lines")):
        done = sqlndcg("trec_eval", *args, stdin=stdin)
        err = done.stderr.decode()
        assert done.returncode == 2 and done.stdout == b"", err
        assert err.startswith("sqlndcg: error: ") and err.count("\n") == 1 and re.search(message, err), err


def test_a_document_listed_twice_is_refused_in_the_files_terms(tmp_path):
    """trec_eval refuses duplicate documents in a query (form_res_rels.c); the message names the file."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 x\n1 Q0 a 2 1.0 x\n")
    (tmp_path / "r1").write_text("1 Q0 a 1 2.0 x\n")
    (tmp_path / "q2").write_text("1 0 a 1\n1 0 a 0\n")
    for qrels, run, kind in (("q", "r", "run"), ("q2", "r1", "qrels")):
        done = sqlndcg("trec_eval", tmp_path / qrels, tmp_path / run)
        err = done.stderr.decode()
        assert done.returncode == 2 and err.count("\n") == 1, err
        assert re.search(rf"{kind} file '.*{run if kind == 'run' else qrels}': 1 \(query, document\) pair\(s\) occur "
                         r"more than once, e\.g\. query '1' document 'a' 2 times", err), err


# ------------------------------------------------------------------------------------------------------------
# measures pytrec_eval cannot check (ndcg with a gain map) or names differently (set_F.x): worked out by hand

def test_set_F_weight_is_trec_evals_x_not_squared(tmp_path):
    """trec_eval's m_set_F.c: set_F.x = (x + 1) * P * R / (x * P + R), x the weight of recall (x = 1: F1; x = 0: P),
    and 0 when nothing relevant is retrieved. Per query and the mean in the `all` line."""
    from fractions import Fraction as Fr

    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 1\nq1 0 d4 0\n"  # R = 3 (d1, d2, d3)
                                "q2 0 a 1\nq2 0 b 0\n"                         # R = 1
                                "q3 0 x 3\n")                                  # R = 1
    (tmp_path / "r").write_text("q1 Q0 d1 1 4 s\nq1 Q0 d4 2 3 s\nq1 Q0 d5 3 2 s\nq1 Q0 d2 4 1 s\n"
                                "q2 Q0 b 1 2 s\nq2 Q0 c 2 1 s\n"
                                "q3 Q0 x 1 1 s\n")
    # q1: 4 retrieved, 2 relevant among them (d1, d2): P = 2/4, R = 2/3
    # q2: 2 retrieved, none relevant: 0 whatever x
    # q3: 1 retrieved, relevant: P = R = 1, F = (x + 1) / (x + 1) = 1
    P, R = Fr(2, 4), Fr(2, 3)

    def f(x):
        return (x + 1) * P * R / (x * P + R)

    assert f(Fr(1, 2)) == Fr(6, 11)   # (3/2)(1/3) / (1/4 + 2/3) = (1/2) / (11/12)
    assert f(1) == Fr(4, 7)            # 2 (1/3) / (1/2 + 2/3) = (2/3) / (7/6)
    assert f(2) == Fr(3, 5)            # 3 (1/3) / (1 + 2/3) = 1 / (5/3)
    assert f(0) == P                   # x = 0 weighs precision only
    got = {}
    for spec in ("set_F.0.5", "set_F", "set_F.2", "set_F.0"):  # one -m each: trec_eval takes a family's first only
        done = sqlndcg("trec_eval", "-q", "-m", spec, tmp_path / "q", tmp_path / "r")
        assert done.returncode == 0, done.stderr.decode()
        got.update(parse(done.stdout.decode()))
    for name, x in (("set_F_0.5", Fr(1, 2)), ("set_F", 1), ("set_F_2", 2), ("set_F_0", 0)):
        want = {"q1": f(x), "q2": Fr(0), "q3": Fr(1)}
        for q, v in want.items():
            assert abs(float(got[(name, q)]) - float(v)) <= PRINTED, (name, q, got[(name, q)], v)
        assert abs(float(got[(name, "all")]) - float(sum(want.values()) / 3)) <= PRINTED, name
    assert got[("set_F_0.5", "q1")] == "0.5455" and got[("set_F_0.5", "all")] == "0.5152"  # 6/11; (6/11 + 1)/3
    # pytrec_eval (trec_eval's C code) agrees for set_F.0.5 (it keys the value as plain 'set_F')
    qrels = {"q1": {"d1": 1, "d2": 2, "d3": 1, "d4": 0}, "q2": {"a": 1, "b": 0}, "q3": {"x": 3}}
    run = {"q1": {"d1": 4.0, "d4": 3.0, "d5": 2.0, "d2": 1.0}, "q2": {"b": 2.0, "c": 1.0}, "q3": {"x": 1.0}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.5"}).evaluate(run)
    assert ref["q1"]["set_F"] == pytest.approx(6 / 11, abs=1e-12)


def test_ndcg_gain_map_follows_trec_evals_m_ndcg(tmp_path):
    """trec_eval's m_ndcg.c with `-m ndcg.1=3,2=9`: grade 1 gains 3, grade 2 gains 9, an unlisted grade gains its
    own value (3 gains 3), grade 0 and unjudged documents 0; labels are grades by their integer part (1.7 is 1,
    0.5 is 0). The ideal ranking orders every judged document of the query by its gain (so grade 2 before grade 3
    here), over the full list (ndcg has no cutoff). Gains listed for grades a query lacks change nothing."""
    from math import log2

    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 3\nq1 0 d4 0\nq1 0 d5 2\n"
                                "q2 0 a 0\nq2 0 b 1\nq2 0 c 1\n"
                                "q3 0 e 1.7\nq3 0 f 0.5\nq3 0 g 2\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 5 s\nq1 Q0 d4 2 4 s\nq1 Q0 d3 3 3 s\nq1 Q0 d2 4 2 s\nq1 Q0 dX 5 1 s\n"
                                "q2 Q0 a 1 2 s\nq2 Q0 b 2 1 s\n"
                                "q3 Q0 f 1 3 s\nq3 Q0 e 2 2 s\nq3 Q0 g 3 1 s\n")
    want = {
        # q1 ranked d1 (gain 3), d4 (0), d3 (3), d2 (9), dX (unjudged, 0);
        # ideal: d2, d5 (9 each), d1, d3 (3 each), d4 (0)
        "q1": (3 / log2(2) + 0 / log2(3) + 3 / log2(4) + 9 / log2(5))
              / (9 / log2(2) + 9 / log2(3) + 3 / log2(4) + 3 / log2(5)),
        # q2 ranked a (0), b (3); ideal b, c (3 each); c unretrieved
        "q2": (3 / log2(3)) / (3 / log2(2) + 3 / log2(3)),
        # q3 ranked f (0.5 is grade 0: 0), e (1.7 is grade 1: 3), g (9); ideal g, e
        "q3": (3 / log2(3) + 9 / log2(4)) / (9 / log2(2) + 3 / log2(3)),
    }
    # plain ndcg (gain = grade) orders the ideal by grade instead: d3 (3), d2, d5 (2 each), d1 (1)
    plain_q1 = (1 / log2(2) + 3 / log2(4) + 2 / log2(5)) / (3 / log2(2) + 2 / log2(3) + 2 / log2(4) + 1 / log2(5))
    got = {}
    for spec in ("ndcg.1=3,2=9", "ndcg"):  # one -m each: trec_eval takes a family's first only
        done = sqlndcg("trec_eval", "-q", "-m", spec, tmp_path / "q", tmp_path / "r")
        assert done.returncode == 0, done.stderr.decode()
        got.update(parse(done.stdout.decode()))
    for q, v in want.items():
        assert abs(float(got[("ndcg_1=3,2=9", q)]) - v) <= PRINTED, (q, got[("ndcg_1=3,2=9", q)], v)
    assert abs(float(got[("ndcg_1=3,2=9", "all")]) - sum(want.values()) / 3) <= PRINTED
    assert abs(float(got[("ndcg", "q1")]) - plain_q1) <= PRINTED
    assert got[("ndcg_1=3,2=9", "q1")] == "0.4794" and got[("ndcg", "q1")] == "0.5905"
    # a map listing grades no query has (and grade 0 with gain 0) leaves the plain numbers
    same = parse(sqlndcg("trec_eval", "-q", "-m", "ndcg.0=0,7=100", tmp_path / "q", tmp_path / "r").stdout.decode())
    assert {q: v for (m, q), v in same.items()} == {q: v for (m, q), v in got.items() if m == "ndcg"}


@pytest.mark.parametrize("spec, message", [
    ("ndcg.1=-2", r"gains >= 0 for grades >= 1 only"),
    ("ndcg.0=1", r"gains >= 0 for grades >= 1 only"),
    ("ndcg.1", r"gains are level=gain pairs"),
    ("set_F.-1", r"set_F's weight of recall must be 0 or more"),
])
def test_gain_maps_and_weights_sqlndcg_does_not_take_are_refused(tmp_path, spec, message):
    """trec_eval allows negative gains and a gain for grade 0; sqlndcg's gains are >= 0 for grades >= 1 (stated)."""
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 x\n")
    done = sqlndcg("trec_eval", "-m", spec, tmp_path / "q", tmp_path / "r")
    assert done.returncode == 2 and re.search(message, done.stderr.decode()), done.stderr.decode()


# ------------------------------------------------------------------------------------------------------------
# trec_eval 10.0 (the default) and 9.x (--trec-eval-version 9): what differs, worked out by hand

# Two queries: q5 has R = 5 relevant documents at positions 1, 3, 6, 10, 15 of its run (precision there 1, 2/3,
# 1/2, 2/5, 1/3), q3 has R = 3 at positions 1, 3, 7 (1, 2/3, 3/7). The precision falls from one relevant document to
# the next, so iprec reaching c relevant documents is exactly the precision at the c-th.
PLACES = {"q5": (1, 3, 6, 10, 15), "q3": (1, 3, 7)}
ROUNDING_QRELS = "".join(f"{q} 0 r{i} 1\n" for q, at in PLACES.items() for i in range(1, len(at) + 1))
ROUNDING_RUN = "".join(f"{q} Q0 {f'r{at.index(p) + 1}' if p in at else f'n{p}'} {p} {100 - p} s\n"
                       for q, at in PLACES.items() for p in range(1, at[-1] + 1))
IPREC_AT_C = {"q5": {1: "1.0000", 2: "0.6667", 3: "0.5000", 4: "0.4000", 5: "0.3333"},
              "q3": {1: "1.0000", 2: "0.6667", 3: "0.4286"}}
# (query, level x): (x * R in doubles, c = its lround as 10.0, c = floor(x * R + 0.9) as 9.x)
REACH = {("q5", "0.10"): (0.5, 1, 1),   # half-way: away from zero (half to even would give 0)
         ("q5", "0.25"): (1.25, 1, 2),
         ("q5", "0.30"): (1.5, 2, 2),
         ("q5", "0.45"): (2.25, 2, 3),
         ("q5", "0.50"): (2.5, 3, 3),   # half-way: 3 (half to even: 2)
         ("q5", "0.65"): (3.25, 3, 4),
         ("q5", "0.70"): (3.5, 4, 4),
         ("q3", "0.40"): (1.2000000000000002, 1, 2),
         ("q3", "0.50"): (1.5, 2, 2),
         # 0.7 * 3 is 2.0999999999999996 in doubles, + 0.9 is 2.9999999999999996: 9.x reaches 2, not 3
         ("q3", "0.70"): (2.0999999999999996, 2, 2)}


@pytest.mark.parametrize("version, column", [([], 1), (list(NINE), 2)], ids=["10.0", "9"])
def test_iprec_at_recall_reaches_lround_in_10_and_floor_plus_point_9_in_9(tmp_path, version, column):
    (tmp_path / "q").write_text(ROUNDING_QRELS)
    (tmp_path / "r").write_text(ROUNDING_RUN)
    for (q, x), (product, _, _) in REACH.items():
        assert float(x) * len(PLACES[q]) == product
    levels = sorted({x for _, x in REACH})
    done = sqlndcg("trec_eval", *version, "-q", "-m", "iprec_at_recall." + ",".join(levels), "-m", "11pt_avg",
                   tmp_path / "q", tmp_path / "r")
    assert done.returncode == 0, done.stderr.decode()
    got = parse(done.stdout.decode())
    for (q, x), reach in REACH.items():
        assert got[(f"iprec_at_recall_{x}", q)] == IPREC_AT_C[q][reach[column]], (q, x)
    # q5's 11pt_avg at 0, .1, ..., 1 (x * 5 = 0, .5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5): either version reaches
    # c = 0 (every position: the best precision, 1), 1, 1, 2, 2, 3, 3, 4, 4, 5, 5
    want = sum({1: 1, 2: 2 / 3, 3: 1 / 2, 4: 2 / 5, 5: 1 / 3}[c] for c in [1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]) / 11
    assert got[("11pt_avg", "q5")] == f"{want:.4f}"


def test_11pt_avg_takes_recall_levels_as_parameters(tmp_path):
    """trec_eval 10.0's `-m 11pt_avg..25,.5,.75` (out.test.meas_params): the mean of iprec at the levels given,
    printed as 11pt_avg_.25,.5,.75; levels out of ascending order are refused (m_11pt_avg.c assumes that order
    and gives other numbers without it)."""
    (tmp_path / "q").write_text(ROUNDING_QRELS)
    (tmp_path / "r").write_text(ROUNDING_RUN)
    done = sqlndcg("trec_eval", "-q", "-m", "11pt_avg..25,.5,.5,.65", tmp_path / "q", tmp_path / "r")
    assert done.returncode == 0, done.stderr.decode()
    # q3 (x * 3 = .75, 1.5, 1.5, 1.95): c = 1, 2, 2, 2: (1 + 2/3 + 2/3 + 2/3) / 4 = 0.75
    # q5 (x * 5 = 1.25, 2.5, 2.5, 3.25): c = 1, 3, 3, 3: (1 + 1/2 + 1/2 + 1/2) / 4 = 0.625
    assert done.stdout.decode().splitlines() == ["11pt_avg_.25,.5,.5,.65\tq3\t0.7500",
                                                 "11pt_avg_.25,.5,.5,.65\tq5\t0.6250",
                                                 "11pt_avg_.25,.5,.5,.65\tall\t0.6875"]
    refused = sqlndcg("trec_eval", "-m", "11pt_avg..5,.25", tmp_path / "q", tmp_path / "r")
    assert refused.returncode == 2 and b"give the recall levels in ascending order" in refused.stderr


def test_a_family_takes_the_parameters_of_its_first_m_as_trec_eval_does(tmp_path):
    """trec_eval's meas_init.c reads the first `-m family.params` of a family; a nickname names the family without
    parameters. Cutoffs are read by atol (23.4 is 23) and sorted; a cutoff or level given twice is refused, as
    trec_eval refuses it."""
    (tmp_path / "q").write_text(ROUNDING_QRELS)
    (tmp_path / "r").write_text(ROUNDING_RUN)
    done = sqlndcg("trec_eval", "-m", "official", "-m", "P.10,3", "-m", "P.5", "-m", "ndcg_cut.23.4",
                   tmp_path / "q", tmp_path / "r")
    assert done.returncode == 0, done.stderr.decode()
    names = [line.split("\t")[0].strip() for line in done.stdout.decode().splitlines()]
    assert [n for n in names if n.startswith(("P_", "ndcg_cut_"))] == ["P_3", "P_10", "ndcg_cut_23"]
    for spec in ("P.5,5", "ndcg_cut.23,23.4", "iprec_at_recall..5,0.5", "P.0"):
        refused = sqlndcg("trec_eval", "-m", spec, tmp_path / "q", tmp_path / "r")
        assert refused.returncode == 2 and refused.stderr.count(b"\n") == 1, spec


def test_relstring_alone_prints_its_per_query_lines(files):
    """relstring has no `all` line: alone it prints the per-query strings with -q and nothing without."""
    qrels_path, run_path, _, _ = files
    done = sqlndcg("trec_eval", "-q", "-c", "-m", "relstring.4", qrels_path, run_path)
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 27 and all(re.fullmatch(r"relstring_4 +\t\d+\t'[-.0-9>]{0,4}'", line) for line in lines)
    # with -c, a judged query the run lacks is trec_eval's one unjudged document: '-' (only plain `relstring`
    # is cleared to '' by name in trec_eval.c)
    assert "relstring_4           \t303\t'-'" in lines
    quiet = sqlndcg("trec_eval", "-m", "relstring", qrels_path, run_path)
    assert quiet.returncode == 0 and quiet.stdout == b""


@pytest.mark.parametrize("given, major", [("10", "10"), ("10.0", "10"), ("9", "9"), ("9.0.8", "9")])
def test_the_trec_eval_version_is_10_or_9(given, major):
    from sqlndcg.verbs import trec_eval

    assert trec_eval.version(given) == major


def test_another_trec_eval_version_is_refused(files):
    qrels_path, run_path, _, _ = files
    done = sqlndcg("trec_eval", "--trec-eval-version", "8", qrels_path, run_path)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1
    assert err.startswith("sqlndcg: error: trec_eval version '8': sqlndcg reproduces trec_eval 10"), err


# ------------------------------------------------------------------------------------------------------------
# other engines: --database; the files are read by DuckDB, the measures computed there

ENGINE_MEASURES = ["-m", "all_trec", "-m", "ndcg.1=3,2=9", "-m", "set_F.0.5"]


def duckdb_output(files, *flags) -> subprocess.CompletedProcess:
    qrels_path, run_path, _, _ = files
    done = sqlndcg("trec_eval", "-q", *ENGINE_MEASURES, *flags, qrels_path, run_path)
    assert done.returncode == 0, done.stderr.decode()
    return done


def assert_same_output(got: subprocess.CompletedProcess, want: subprocess.CompletedProcess, label: str) -> None:
    """The same lines, and the same words on stderr (without -c: the note naming the judged queries the run
    lacks)."""
    assert got.returncode == 0, got.stderr.decode()
    assert got.stderr == want.stderr
    got_lines, want_lines = got.stdout.decode().splitlines(), want.stdout.decode().splitlines()
    assert len(got_lines) == len(want_lines) > 2000, label
    for g, w in zip(got_lines, want_lines):
        assert g == w, f"{label}: {g!r} != DuckDB {w!r}"


@pytest.mark.parametrize("flags", [[], ["-c", "-l", "2"], ["-c", "-M", "6", "-J"]], ids=["plain", "c-l2", "c-M6-J"])
def test_database_sqlite_prints_what_duckdb_prints(files, tmp_path, flags):
    import sqlite3

    qrels_path, run_path, _, _ = files
    path = tmp_path / "warehouse.db"
    sqlite3.connect(path).execute("CREATE TABLE kept (x INTEGER)").connection.close()
    done = sqlndcg("trec_eval", "--database", f"sqlite:///{path}", "-q", *ENGINE_MEASURES, *flags, qrels_path, run_path)
    assert_same_output(done, duckdb_output(files, *flags), f"SQLite {flags}")
    # the rows went into temporary tables: the database file holds what it held
    assert sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall() == [("kept",)]


def test_database_duckdb_file_prints_what_duckdb_prints(files, tmp_path):
    import duckdb

    qrels_path, run_path, _, _ = files
    path = tmp_path / "warehouse.duckdb"
    duckdb.connect(str(path)).close()
    done = sqlndcg("trec_eval", "--database", path, "-q", *ENGINE_MEASURES, qrels_path, run_path)
    assert_same_output(done, duckdb_output(files), "DuckDB file")


def test_database_postgres_prints_what_duckdb_prints(files, postgres):
    """On a database whose collation is linguistic (ICU en-US): ties still break by document id in byte order."""
    qrels_path, run_path, _, _ = files
    for flags in ([], ["-c", "-M", "6", "-J"]):
        done = sqlndcg("trec_eval", "--database", postgres.url(postgres.dbname_icu), "-q", *ENGINE_MEASURES, *flags,
                       qrels_path, run_path)
        assert_same_output(done, duckdb_output(files, *flags), f"PostgreSQL {flags}")
    with postgres.connect(postgres.dbname_icu) as con:  # temporary tables only: nothing left behind
        assert con.execute("SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE 'sqlndcg_trec_eval%'").fetchone()[0] == 0


def test_compute_on_a_connection_the_caller_keeps(files):
    """The library form: compute(options, con) on a SQLite connection leaves no table behind on it."""
    import sqlite3

    from sqlndcg.verbs import trec_eval

    qrels_path, run_path, _, _ = files
    con = sqlite3.connect(":memory:")
    statements = []
    con.set_trace_callback(statements.append)
    options = trec_eval.Options(qrels=str(qrels_path), run=str(run_path), measures=["official"], per_query=True)
    out = trec_eval.compute(options, con)
    # the measures ran on SQLite, over the rows loaded there
    assert any(s.lstrip().upper().startswith("WITH") and 'FROM "sqlndcg_trec_eval_run"' in s for s in statements)
    assert con.execute("SELECT COUNT(*) FROM sqlite_temp_master").fetchone()[0] == 0
    want = sqlndcg("trec_eval", "-q", qrels_path, run_path).stdout.decode()
    assert trec_eval.format_lines(out.per_query) + trec_eval.format_lines(out.summary) == want
    assert out.missing == ["303", "310", "317", "324"]  # judged queries the run lacks


@pytest.mark.parametrize("database, message", [
    ("sqlite:///{tmp}/nope.db", r"no such SQLite database file"),
    ("{tmp}/nope.duckdb", r"no such DuckDB database file"),
    ("mysql://u@h/db", r"unknown scheme 'mysql'"),
])
def test_database_that_cannot_be_opened_exits_2(files, tmp_path, database, message):
    qrels_path, run_path, _, _ = files
    done = sqlndcg("trec_eval", "--database", database.format(tmp=tmp_path), qrels_path, run_path)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and re.search(message, err), err


def test_database_with_a_table_name_instead_of_a_file_says_how_to_evaluate_tables(files, tmp_path):
    """QRELS and RUN are files, with --database too (trec_eval's command line); the error says what to use for tables."""
    import sqlite3

    qrels_path, _, _, _ = files
    path = tmp_path / "w.db"
    sqlite3.connect(path).close()
    done = sqlndcg("trec_eval", "--database", f"sqlite:///{path}", qrels_path, "runs")
    err = done.stderr.decode()
    assert done.returncode == 2 and "run file 'runs' does not exist" in err
    assert "sqlndcg evaluate --database ... --run TABLE --judgments TABLE --preset trec_eval" in err


# ------------------------------------------------------------------------------------------------------------
# DuckDB's progress bar: never (it draws on stdout, so a piped trec_eval would carry it); the command line's own
# progress line is on standard error, on a terminal only (tests/test_progress.py)

def test_duckdbs_progress_bar_is_off_whatever_the_terminal(files, monkeypatch):
    """trec_eval's DuckDB connection never has DuckDB's progress bar on (DuckDB's own default is on), terminal or
    not: the one display is the command line's progress line."""
    from sqlndcg.run import connect
    from sqlndcg.verbs import trec_eval

    qrels_path, run_path, _, _ = files
    seen = []
    opened = connect.open_database

    def spy(text=None, **kwargs):
        con = opened(text, **kwargs)
        seen.append(con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0])
        return con

    monkeypatch.setattr(connect, "open_database", spy)
    options = trec_eval.Options(qrels=str(qrels_path), run=str(run_path), measures=["P.5"])
    for terminal in (True, False):
        monkeypatch.setattr(sys.stdout, "isatty", lambda terminal=terminal: terminal, raising=False)
        monkeypatch.setattr(sys.stderr, "isatty", lambda terminal=terminal: terminal, raising=False)
        seen.clear()
        trec_eval.compute(options)
        assert seen == [False]
    assert connect.open_database(None, progress=True).execute(
        "SELECT current_setting('enable_progress_bar')").fetchone()[0] is True


def test_piped_output_is_only_trec_eval_lines(files):
    """stdout has only trec_eval's lines; stderr only the note on the judged queries the run lacks, which trec_eval
    10.0 would stop at without -c (and nothing with -c, or as 9.x, which evaluated the queries in both silently)."""
    qrels_path, run_path, _, _ = files
    for flags, note in (([], True), (["-c"], False), (list(NINE), False)):
        done = sqlndcg("trec_eval", *flags, "-q", "-m", "all_trec", qrels_path, run_path)
        assert done.returncode == 0
        assert all(re.fullmatch(r"\S+ *\t\S+\t\S.*", line) for line in done.stdout.decode().splitlines())
        if note:
            assert done.stderr.decode() == (
                "sqlndcg: note: the run has no results for 4 judged queries ('303', '310', '317', ...): trec_eval "
                "10.0 stops there (exit 4); evaluated over the queries in both, as trec_eval 9 did; -c counts the "
                "missing ones as 0\n")
        else:
            assert done.stderr == b"", flags


def run_in_a_terminal(*args, timeout: float = 300) -> tuple[int, str]:
    """Run the installed command with stdin, stdout and stderr on a pseudo-terminal; (exit status, what it drew)."""
    import pty
    import select
    import time

    master, slave = pty.openpty()
    proc = subprocess.Popen([SQLNDCG, *map(str, args)], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        status = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return status, b"".join(chunks).decode(errors="replace")


def test_in_a_terminal_it_completes_and_prints_the_same_lines(files):
    """Under a pseudo-terminal the progress bar is allowed (it shows only on work longer than DuckDB's 2 s); the
    measure lines are the piped ones (the terminal turns '\\n' into '\\r\\n')."""
    qrels_path, run_path, _, _ = files
    status, drawn = run_in_a_terminal("trec_eval", "-q", "-m", "official", qrels_path, run_path)
    assert status == 0, drawn
    piped = sqlndcg("trec_eval", "-q", "-m", "official", qrels_path, run_path).stdout.decode().splitlines()
    lines = [part for line in drawn.replace("\r\n", "\n").split("\n") for part in line.split("\r")]
    assert [line for line in lines if re.fullmatch(r"\S+ *\t\S+\t\S.*", line)] == piped

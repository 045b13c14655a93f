"""`sqlndcg trec_eval` is trec_eval: the installed command, run on files written here, prints what pytrec_eval
(trec_eval's own C code) computes, per query and in the `all` line, for every measure pytrec_eval supports,
with -c, -l 2, -M and -J; on data with score ties, unjudged and unretrieved documents, graded, fractional and
negative labels, queries without relevant documents and judged queries missing from the run."""

from __future__ import annotations

import gzip
import math
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

#: The installed entry point (pyproject's [project.scripts]), next to the interpreter running the tests.
SQLNDCG = shutil.which("sqlndcg", path=os.path.dirname(sys.executable)) or shutil.which("sqlndcg")
PRINTED = 0.00005 + 1e-9  # values are printed with 4 decimals


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


def check(out: str, values: dict, printed_queries: list[str]) -> int:
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
    done = sqlndcg("trec_eval", "-q", "-m", "all_trec", *flags, qrels_path, run_path)
    assert done.returncode == 0, done.stderr.decode()
    values, printed = reference(qrels, run, **options)
    if options.get("judged_only"):
        # a query whose retrieved documents are all unjudged retrieves nothing under -J: trec_eval's
        # iprec_at_recall and 11pt_avg divide 0 by 0 there (NaN); sqlndcg prints 0
        for q in values:
            for m, v in values[q].items():
                if isinstance(v, float) and math.isnan(v):
                    values[q][m] = 0.0
    assert check(done.stdout.decode(), values, printed) > 1000


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
    out = parse(sqlndcg("trec_eval", "-q", "-m", "P.3,7", "-m", "iprec_at_recall.0.25", "-m", "Rprec_mult.0.5",
                        "-m", "ndcg_cut.3", "-m", "success.2", qrels_path, run_path).stdout.decode())
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P.3,7", "iprec_at_recall.0.25", "Rprec_mult.0.5",
                                                       "ndcg_cut.3", "success.2"})
    values = evaluator.evaluate({q: d for q, d in run.items() if q in qrels})
    for q, measures in values.items():
        for m, v in measures.items():
            assert abs(float(out[(m, q)]) - v) <= PRINTED, (m, q)
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
    got = parse(sqlndcg("trec_eval", "-m", "ndcg_cut.5", "-m", "num_rel", tmp_path / "q", tmp_path / "r").stdout.decode())
    evaluator = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "b": 0, "c": 2}}, {"ndcg_cut.5", "num_rel"})
    ref = evaluator.evaluate({"1": {"a": 2.0, "b": 3.0, "c": 1.0}})["1"]
    assert float(got[("ndcg_cut_5", "all")]) == pytest.approx(ref["ndcg_cut_5"], abs=PRINTED)
    assert got[("num_rel", "all")] == "2"


@pytest.mark.parametrize("files_text, args, message", [
    (("1 0 a 1\n", "1 Q0 a 1 2.0\n"), ["-m", "map"], "run file .* malformed line.*line 1"),
    (("1 0 a\n", "1 Q0 a 1 2.0 x\n"), ["-m", "map"], "qrels file .* malformed line.*line 1"),
    (("1 0 a one\n", "1 Q0 a 1 2.0 x\n"), [], "qrels file .* malformed"),
    (("1 0 a 1\n", "1 Q0 a 1 high x\n"), [], "run file .* malformed"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-m", "nonsense"], "trec_eval measure 'nonsense' is not known"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-m", "utility.1,2"], "utility takes 4 coefficients"),
    (("# only a comment\n", "1 Q0 a 1 2.0 x\n"), [], "has no judgment lines"),
    (("2 0 a 1\n", "1 Q0 a 1 2.0 x\n"), [], "no queries with both results and relevance"),
], ids=["run-5-fields", "qrels-3-fields", "label-text", "score-text", "unknown-measure", "utility-arity",
        "qrels-only-comments", "no-common-query"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, files_text, args, message):
    import re

    (tmp_path / "q").write_text(files_text[0])
    (tmp_path / "r").write_text(files_text[1])
    done = sqlndcg("trec_eval", *args, tmp_path / "q", tmp_path / "r")
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err.startswith("sqlndcg: error: ") and err.count("\n") == 1, err
    assert re.search(message, err), err


def test_missing_and_empty_files_exit_2(tmp_path):
    (tmp_path / "empty").write_text("")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 x\n")
    missing = sqlndcg("trec_eval", tmp_path / "nope", tmp_path / "r")
    assert missing.returncode == 2 and b"does not exist" in missing.stderr
    empty = sqlndcg("trec_eval", tmp_path / "empty", tmp_path / "r")
    assert empty.returncode == 2 and b"is empty" in empty.stderr

"""`sqlndcg trec_eval` prints what the real trec_eval 10.0 prints, byte for byte: the binary is built here from the
vendored source (tests/trec_eval_10, `make`, gcc) once per test session, and both run on generated files (fixed
seed) with score ties, graded, fractional and negative labels, unjudged and unretrieved documents, queries with
nothing relevant, lists that -J empties, judged queries missing from the run and run queries without judgments,
under -q, -c, -l 2, -M, -J, -N, -n, -m all_trec and parameterized measures.

One difference is by design (docs/SEMANTICS.md): where -J leaves a query no document, trec_eval's
iprec_at_recall and 11pt_avg divide 0 by 0 and print nan (and so does their `all` line); sqlndcg prints 0. The
comparison allows exactly that and counts it."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TREC_EVAL_10 = Path(__file__).parent / "trec_eval_10"
SQLNDCG = shutil.which("sqlndcg", path=os.path.dirname(sys.executable)) or shutil.which("sqlndcg")

pytestmark = pytest.mark.slow  # a dozen all_trec runs of the command: about a minute


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory) -> Path:
    """trec_eval 10.0 built from tests/trec_eval_10 with its own Makefile; a failed build fails the tests."""
    missing = [tool for tool in ("make", "gcc") if shutil.which(tool) is None]
    assert not missing, f"building trec_eval 10.0 needs {' and '.join(missing)} (.ci/run installs them)"
    build = tmp_path_factory.mktemp("trec_eval_10")
    shutil.copytree(TREC_EVAL_10, build, dirs_exist_ok=True)
    done = subprocess.run(["make", "trec_eval"], cwd=build, capture_output=True, timeout=600)
    assert done.returncode == 0, f"make trec_eval failed:\n{done.stdout.decode()}\n{done.stderr.decode()}"
    version = subprocess.run([build / "trec_eval", "-v"], capture_output=True, timeout=60)
    assert version.stderr == b"trec_eval version 10.0-rc3\n", version
    return build / "trec_eval"


def test_the_built_binary_passes_trec_evals_own_quicktest(trec_eval):
    done = subprocess.run(["make", "quicktest"], cwd=trec_eval.parent, capture_output=True, timeout=600)
    assert done.returncode == 0 and done.stdout.endswith(b"Test succeeeded\n"), done.stdout.decode()[-3000:]


def write_files(folder: Path, seed: int = 20260618) -> dict[str, Path]:
    """qrels and run files in TREC format (fixed seed); also the qrels of the answered queries only (trec_eval
    10.0 without -c stops at a judged query the run lacks)."""
    rng = random.Random(seed)
    # ids whose byte order is not their numeric or case-insensitive order: d9 > d10, 'D' < 'd', 'é' above ASCII
    docs = [f"d{n}" for n in range(1, 60)] + [f"D{n}" for n in range(1, 15)] + ["dé1", "dé2", "d-x", "d.y"]
    qrels, run = ["# qrels written by tests/test_trec_eval_binary.py"], []
    answered_qrels = list(qrels)
    queries = [f"q{n}" for n in range(1, 31)] + ["301", "4", "40", "Q5"]
    for qn, q in enumerate(queries):
        pool = rng.sample(docs, 45)
        judged = qn % 9 != 8  # run queries without judgments
        answered = qn % 7 != 3  # judged queries the run lacks
        nothing = qn % 6 == 5  # judged, nothing relevant
        empty_under_j = qn % 11 == 4  # answered only with unjudged documents: -J leaves nothing
        lines = []
        if judged:
            for d in pool[: rng.randint(3, 35)]:
                label = (rng.choice(["0", "-1", "0.5"]) if nothing
                         else rng.choice(["-2", "-1", "0", "0", "0", "1", "1", "1.5", "2", "2.7", "3", "4"]))
                lines.append(f"{q} 0 {d} {label}")
            rng.shuffle(lines)
            qrels.extend(lines)
            if answered:
                answered_qrels.extend(lines)
        if answered:
            listed = pool[40:45] if empty_under_j else pool[rng.randint(0, 8):][: rng.choice([1, 2, 4, 7, 12, 20, 30])]
            for rank, d in enumerate(listed, 1):
                score = rng.choice(["3", "3.0", "2.5", "2.50", "1", "1e0", "0.25", "-1", "-0.75", "10"])
                extra = " extra fields" if rank % 6 == 0 else ""
                run.append(f"{q}\tQ0\t{d}\t{rank}\t{score}\tsysA{extra}")
    # one long list: cutoffs 100..1000 and -M
    for rank in range(1, 1201):
        run.append(f"long Q0 L{rank:04d} {rank} {round(1 / rank, 3)} sysA")
    for d in (7, 150, 151, 999, 1000, 1001, 1150):
        qrels.append(f"long 0 L{d:04d} {1 + d % 3}")
        answered_qrels.append(f"long 0 L{d:04d} {1 + d % 3}")
    rng.shuffle(run)
    run.insert(len(run) // 2, "# a comment line in the run")
    paths = {}
    for name, lines in (("qrels", qrels), ("answered.qrels", answered_qrels), ("run", run)):
        paths[name] = folder / name
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return write_files(tmp_path_factory.mktemp("generated"))


def run_both(trec_eval: Path, args: list[str]) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    assert SQLNDCG, "the sqlndcg entry point is not installed (pip install -e .)"
    binary = subprocess.run([trec_eval, *args], capture_output=True, timeout=300)
    ours = subprocess.run([SQLNDCG, "trec_eval", *args], capture_output=True, timeout=600)
    return binary, ours


def is_nan(value: str) -> bool:
    return value.strip().lstrip("-") == "nan"  # printf("%6.4f") pads it: "  -nan"


def compare(want: bytes, got: bytes, emptied: set[str]) -> int:
    """Byte equality line by line, except trec_eval's nan for iprec_at_recall and 11pt_avg of a list -J emptied
    (sqlndcg: 0.0000) and in their `all` lines. Returns how many lines were allowed that difference."""
    want_lines, got_lines = want.decode().splitlines(), got.decode().splitlines()
    assert len(got_lines) == len(want_lines), (len(got_lines), len(want_lines))
    allowed = 0
    for w, g in zip(want_lines, got_lines):
        if w == g:
            continue
        name, query, value = w.split("\t")
        g_name, g_query, g_value = g.split("\t")
        assert (g_name, g_query) == (name, query), f"line order: {g!r} where trec_eval has {w!r}"
        name = name.strip()
        assert is_nan(value) and (name.startswith("iprec_at_recall_") or name.startswith("11pt_avg")), \
            f"sqlndcg {g!r} != trec_eval {w!r}"
        assert query == "all" or (query in emptied and g_value == "0.0000"), f"sqlndcg {g!r} != trec_eval {w!r}"
        allowed += 1
    return allowed


PARAMETERIZED = ["-m", "all_trec", "-m", "11pt_avg..1,.35,.5,.5,.9", "-m", "iprec_at_recall..05,.35,.58,1",
                 "-m", "Rprec_mult.0.35,1.5", "-m", "ndcg.1=2,2=5,3=7", "-m", "ndcg_cut.3,8,23.4", "-m", "P.3,7",
                 "-m", "P.100", "-m", "success.2", "-m", "set_F.0.5", "-m", "rbp.p=0.8", "-m", "relstring.15",
                 "-m", "utility.2,-1,-0.5,0.25", "-m", "recall.20,2000", "-m", "G.2=3", "-m", "Rndcg.1=4"]

CASES = {
    "q-all_trec": (["-q", "-m", "all_trec"], "answered.qrels"),
    "q-c-all_trec": (["-q", "-c", "-m", "all_trec"], "qrels"),
    "q-c-l2": (["-q", "-c", "-l", "2", "-m", "all_trec"], "qrels"),
    "q-l2-M5": (["-q", "-l2", "-M5", "-m", "all_trec"], "answered.qrels"),
    "q-c-M5": (["-q", "-c", "-M", "5", "-m", "all_trec"], "qrels"),
    "q-c-N": (["-q", "-c", "-N", "2000", "-m", "all_trec"], "qrels"),
    "q-J": (["-q", "-J", "-m", "all_trec"], "answered.qrels"),
    "q-c-J-M8-l2": (["-q", "-c", "-J", "-M", "8", "-l", "2", "-m", "all_trec"], "qrels"),
    "official": ([], "answered.qrels"),
    "c-official": (["-c"], "qrels"),
    "q-n-c-set": (["-q", "-n", "-c", "-m", "set"], "qrels"),
    "q-c-parameterized": (["-q", "-c", *PARAMETERIZED], "qrels"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_sqlndcg_prints_what_the_trec_eval_binary_prints(trec_eval, files, case):
    flags, qrels = CASES[case]
    binary, ours = run_both(trec_eval, [*flags, files[qrels], files["run"]])
    assert binary.returncode == 0, binary.stderr.decode()
    assert ours.returncode == 0, ours.stderr.decode()
    assert ours.stderr == b"" and binary.stderr == b""
    # the queries left without any document (-J drops every unjudged one; -c evaluates a missing query on one
    # unjudged document): trec_eval prints num_ret 0 for them
    emptied = {line.split("\t")[1] for line in binary.stdout.decode().splitlines()
               if line.startswith("num_ret ") and line.endswith("\t0")}
    allowed = compare(binary.stdout, ours.stdout, emptied)
    assert len(binary.stdout.splitlines()) > (30 if "-q" in flags else 10)
    if "-J" in flags:
        assert emptied - {"all"} and allowed > 0  # the data has such queries, and the difference shows exactly there
    else:
        assert allowed == 0


def test_without_c_a_judged_query_the_run_lacks_stops_trec_eval_and_sqlndcg_says_so(trec_eval, files):
    """trec_eval 10.0 exits 4 there ("result qid ... not found in qrels", its wording reversed); sqlndcg evaluates
    the queries in both, as 9.x did, and says on stderr which judged queries the run lacks."""
    binary, ours = run_both(trec_eval, ["-q", "-m", "all_trec", files["qrels"], files["run"]])
    assert binary.returncode == 4 and b"not found in qrels" in binary.stderr
    assert ours.returncode == 0
    err = ours.stderr.decode()
    assert err.startswith("sqlndcg: note: the run has no results for 4 judged queries ('4', 'q11', 'q25', ...)")
    assert err.count("\n") == 1
    # the same lines as trec_eval 10.0 on the qrels of the answered queries
    answered, _ = run_both(trec_eval, ["-q", "-m", "all_trec", files["answered.qrels"], files["run"]])
    assert ours.stdout == answered.stdout

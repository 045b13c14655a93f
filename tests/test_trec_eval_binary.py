"""`sqlndcg trec_eval` prints what the real trec_eval 10.0 prints, byte for byte: the binary is built here from the
vendored source (tests/trec_eval_10, `make`, gcc) once per test session, and both run on generated files (fixed
seed) with score ties, graded, fractional and negative labels, unjudged and unretrieved documents, queries with
nothing relevant, lists that -J empties (trec_eval's 0 / 0: -nan for iprec_at_recall and 11pt_avg), judged
queries missing from the run and run queries without judgments, under -q, -c, -l 2, -M, -J, -N, -n, -m all_trec
and parameterized measures; on large random files (hundreds of thousands of lines, where DuckDB's parallel and
windowed sums once grouped AP's additions differently); and to the last bit: a second binary, built to print
%.17g instead of %.4f, against the command's unrounded values. Tiny files check trec_eval's reading of numbers
(C's atof and atol), comments and blank lines, and its exit statuses."""

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

def build_trec_eval(folder: Path, full_precision: bool = False) -> Path:
    """trec_eval 10.0 built from tests/trec_eval_10 with its own Makefile (a failed build fails the tests); with
    ``full_precision``, its printing of values changed from %6.4f to %.17g (meas_print_single.c,
    meas_print_final.c), which shows every bit of a double."""
    missing = [tool for tool in ("make", "gcc") if shutil.which(tool) is None]
    assert not missing, f"building trec_eval 10.0 needs {' and '.join(missing)} (.ci/run installs them)"
    shutil.copytree(TREC_EVAL_10, folder, dirs_exist_ok=True)
    if full_precision:
        for name in ("meas_print_single.c", "meas_print_final.c"):
            source = folder / name
            text = source.read_text()
            assert text.count("%6.4f\\n") >= 4
            source.write_text(text.replace("%6.4f\\n", "%.17g\\n"))
    done = subprocess.run(["make", "trec_eval"], cwd=folder, capture_output=True, timeout=600)
    assert done.returncode == 0, f"make trec_eval failed:\n{done.stdout.decode()}\n{done.stderr.decode()}"
    version = subprocess.run([folder / "trec_eval", "-v"], capture_output=True, timeout=60)
    assert version.stderr == b"trec_eval version 10.0-rc3\n", version
    return folder / "trec_eval"


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory) -> Path:
    """trec_eval 10.0, built once per session (a few seconds)."""
    return build_trec_eval(tmp_path_factory.mktemp("trec_eval_10"))


@pytest.fixture(scope="session")
def trec_eval_17g(tmp_path_factory) -> Path:
    """trec_eval 10.0 printing every value with %.17g."""
    return build_trec_eval(tmp_path_factory.mktemp("trec_eval_10_17g"), full_precision=True)


@pytest.mark.slow
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


def compare(want: bytes, got: bytes) -> None:
    """Byte equality, failing on the first line that differs (and how many do)."""
    want_lines, got_lines = want.decode().splitlines(), got.decode().splitlines()
    differing = [(w, g) for w, g in zip(want_lines, got_lines) if w != g]
    assert not differing, f"{len(differing)} lines differ, e.g. sqlndcg {differing[0][1]!r}, trec_eval {differing[0][0]!r}"
    assert len(got_lines) == len(want_lines), (len(got_lines), len(want_lines))
    assert got == want


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


@pytest.mark.slow  # a dozen all_trec runs of the command: about a minute
@pytest.mark.parametrize("case", list(CASES))
def test_sqlndcg_prints_what_the_trec_eval_binary_prints(trec_eval, files, case):
    flags, qrels = CASES[case]
    binary, ours = run_both(trec_eval, [*flags, files[qrels], files["run"]])
    assert binary.returncode == 0, binary.stderr.decode()
    assert ours.returncode == 0, ours.stderr.decode()
    assert ours.stderr == b"" and binary.stderr == b""
    compare(binary.stdout, ours.stdout)
    assert len(binary.stdout.splitlines()) > (30 if "-q" in flags else 10)
    if "-J" in flags:  # the data has lists -J empties: trec_eval's 0 / 0, printed as it prints it
        assert b"\t  -nan\n" in ours.stdout or b"\t   nan\n" in ours.stdout


@pytest.mark.slow
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


def write_ap_case(folder: Path, queries: int) -> tuple[Path, Path]:
    """``queries`` queries alike: 20 retrieved, the relevant ones (4 judged) at ranks 2, 5, 8 and 20, so AP is
    (1/2 + 2/5 + 3/8 + 4/20) / 4 = 0.36875 exactly; added in rank order, as m_map.c adds, it is the double just
    below (0.36874999999999997, printed 0.3687), other groupings of the additions give 0.36875 (printed 0.3688)."""
    qrels, run = folder / "ap.qrels", folder / "ap.run"
    with open(qrels, "w") as q, open(run, "w") as r:
        for n in range(queries):
            for rank in (2, 5, 8, 20):
                q.write(f"q{n:05d} 0 d{rank} 1\n")
            for rank in range(1, 21):
                r.write(f"q{n:05d} Q0 d{rank} {rank} {100 - rank} run\n")
    return qrels, run


def test_ap_of_0_36875_prints_as_trec_eval_prints_it_among_20000_queries(trec_eval, tmp_path):
    """DuckDB's running window sums grouped AP's additions by where a query's rows fell among the others: alone
    the query printed 0.3687, as trec_eval does, among 20,000 a few of them printed 0.3688."""
    qrels, run = write_ap_case(tmp_path, 20_000)
    binary, ours = run_both(trec_eval, ["-q", "-m", "map", "-m", "map_cut.10,20", qrels, run])
    assert binary.returncode == ours.returncode == 0, ours.stderr.decode()
    assert binary.stdout.count(b"\t0.3687\n") == 2 * 20_001
    compare(binary.stdout, ours.stdout)


def random_files(folder: Path, queries: int, seed: int) -> dict[str, Path]:
    """Large random TREC files (about 15 run lines and 12 qrels lines a query): lists of 1 to 60 documents with
    score ties (scores of two decimals, integers), graded, negative and fractional labels, unjudged documents,
    judged queries the run lacks and run queries without judgments; the qrels of the answered queries too."""
    rng = random.Random(seed)
    qrels, answered_qrels, run = [], [], []
    labels = ["0", "0", "0", "1", "1", "2", "3", "-1", "1.5", "4"]
    for n in range(queries):
        q = f"q{n}"
        length = rng.choice([1, 3, 5, 10, 12, 15, 20, 30, 60])
        docs = list(dict.fromkeys(f"d{rng.randint(1, 4 * length)}" for _ in range(2 * length)))
        judged = rng.random() > 0.02
        answered = rng.random() > 0.02
        lines = [f"{q} 0 {d} {rng.choice(labels)}" for d in docs[: rng.randint(1, len(docs))]] if judged else []
        qrels.extend(lines)
        if answered:
            answered_qrels.extend(lines)
            for rank, d in enumerate(docs[rng.randint(0, 5):][:length] or docs[:1], 1):
                score = rng.choice([f"{rng.random():.2f}", str(rng.randint(0, 30)), "0.5"])
                run.append(f"{q} Q0 {d} {rank} {score} big")
    rng.shuffle(run)
    paths = {}
    for name, lines in (("qrels", qrels), ("answered.qrels", answered_qrels), ("run", run)):
        paths[name] = folder / name
        paths[name].write_text("\n".join(lines) + "\n")
    return paths


@pytest.mark.slow  # three runs of the command on 300,000-line runs: about a minute
def test_large_random_files_byte_for_byte(trec_eval, tmp_path):
    """Hundreds of thousands of lines, with -q, -c, -J, -M, -l: every line as trec_eval prints it, whatever the
    size (DuckDB's parallel and windowed sums once made a few of them differ there, and only there)."""
    files = random_files(tmp_path, 20_000, seed=28)
    assert len(files["run"].read_text().splitlines()) > 250_000
    for flags, qrels in ((["-q", "-c", "-m", "all_trec"], "qrels"),
                         (["-q", "-c", "-J", "-M", "40", "-l", "2", "-m", "all_trec"], "qrels"),
                         # not rbp alone here: m_rbp.c reads its min and max uninitialized, so trec_eval's rbp
                         # depends on what ran before it (all_trec and -m rbp alone print sqlndcg's numbers)
                         (["-q", "-m", "official", "-m", "ndcg_cut.10", "-m", "set_F.0.5"], "answered.qrels")):
        binary, ours = run_both(trec_eval, [*flags, files[qrels], files["run"]])
        assert binary.returncode == ours.returncode == 0, ours.stderr.decode()
        compare(binary.stdout, ours.stdout)


def full_precision(monkeypatch, args: list[str]) -> str:
    """The command's output with every value printed %.17g, as trec_eval_17g prints (in this process)."""
    import io
    from contextlib import redirect_stdout

    from sqlndcg.verbs import trec_eval as command

    def text(line, value):
        if value != value:
            return command._NAN.strip()  # %.17g has no width
        return str(int(round(value))) if command.tables().about[line.family]["integer"] else "%.17g" % value

    monkeypatch.setattr(command, "_text", text)
    out = io.StringIO()
    with redirect_stdout(out):
        from sqlndcg.cli import main
        assert main(["trec_eval", *map(str, args)]) == 0
    return out.getvalue()


@pytest.mark.slow  # the %.17g binary's build and six runs of the command in this process: about a minute
def test_every_value_is_trec_evals_to_the_last_bit(trec_eval_17g, files, tmp_path, monkeypatch):
    """Every per-query and `all` value the command prints, to the last bit, equals trec_eval 10.0's: each computed
    in its m_*.c's order of operations (sums in rank order, p^i as a running product, m_infap.c's terms, 11pt_avg
    added from the top level down, gain / log2(i + 1)), the `all` lines added in its query order."""
    large = random_files(tmp_path, 3_000, seed=7)
    for flags, paths in ((["-q", "-c", "-m", "all_trec"], large),
                         (["-q", "-c", "-J", "-M", "7", "-l", "2", "-m", "all_trec"], large),
                         (["-q", "-c", *PARAMETERIZED], files),
                         (["-q", "-c", "-J", "-m", "all_trec"], files)):
        want = subprocess.run([trec_eval_17g, *flags, paths["qrels"], paths["run"]], capture_output=True, timeout=300)
        assert want.returncode == 0, want.stderr.decode()
        compare(want.stdout, full_precision(monkeypatch, [*flags, paths["qrels"], paths["run"]]).encode())


#: Tiny files trec_eval reads its own way, each run by both: (qrels, run, flags).
TINY = {
    # C's atol for labels (3abc is 3, 1e2 is 1, 1_0 is 1, -0.5 is 0, abc is 0), C's atof for scores (1e2 is 100)
    "atol-atof": ("q1 0 d1 3abc\nq1 0 d2 1e2\nq1 0 d3 1_0\nq1 0 d4 -0.5\nq1 0 d5 abc\nq1 0 d6 2.7\n",
                  "q1 Q0 d1 1 3abc r\nq1 Q0 d2 1 1e2 r\nq1 Q0 d3 1 1_0 r\nq1 Q0 d4 1 abc r\nq1 Q0 d5 1 -1e-3 r\n"
                  "q1 Q0 d6 1 .5 r\n", ["-q", "-m", "relstring", "-m", "num_rel", "-m", "map", "-m", "ndcg"]),
    # an indented '#' line is a judgment (query '#'); a run's indented '#' line, and its blank lines, are skipped
    "indented-hash": ("q1 0 d1 1\n  # 0 d2 1\nq1 0 d3 0\n", "q1 Q0 d1 1 2 r\n\n   \n  # a comment\n# 0 Q0 d2 1 1 r\n",
                      ["-q", "-c", "-m", "num_rel", "-m", "num_ret", "-m", "map"]),
    # of two '#' lines in a row, get_qrels.c reads the second as a judgment
    "two-hash-lines": ("# judgments\n# 0 d9 1\nq1 0 d1 1\n", "q1 Q0 d1 1 2 r\n", ["-q", "-c", "-m", "num_rel"]),
}


@pytest.mark.parametrize("case", list(TINY))
def test_tiny_files_are_read_as_trec_eval_reads_them(trec_eval, tmp_path, case):
    qrels_text, run_text, flags = TINY[case]
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    binary, ours = run_both(trec_eval, [*flags, tmp_path / "q", tmp_path / "r"])
    assert binary.returncode == ours.returncode == 0, ours.stderr.decode()
    compare(binary.stdout, ours.stdout)


def test_numbers_read_loosely_are_named_on_stderr(trec_eval, tmp_path):
    qrels_text, run_text, flags = TINY["atol-atof"]
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    _, ours = run_both(trec_eval, [*flags, tmp_path / "q", tmp_path / "r"])
    err = ours.stderr.decode().splitlines()
    assert err == [
        f"sqlndcg: warning: qrels file '{tmp_path / 'q'}': 4 label(s) not written as a plain number, read as "
        "trec_eval reads them (C's atol: its leading integer, 0 if none): line 1 '3abc' -> 3, line 2 '1e2' -> 1, "
        "line 3 '1_0' -> 1, line 5 'abc' -> 0; sqlndcg evaluate refuses them",
        f"sqlndcg: warning: run file '{tmp_path / 'r'}': 3 score(s) not written as a plain number, read as "
        "trec_eval reads them (C's atof: its leading number, 0 if none): line 1 '3abc' -> 3, line 3 '1_0' -> 1, "
        "line 4 'abc' -> 0; sqlndcg evaluate refuses them"]


@pytest.mark.parametrize("qrels_text, run_text, status, theirs", [
    # a blank qrels line: trec_eval counts the lines it reads ("Malformed line 2" is the file's third)
    ("# c\nq1 0 d1 1\n\nq1 0 d2 0\n", "q1 Q0 d1 1 2 r\n", 2, "trec_eval.get_qrels: Malformed line 2"),
    ("q1 0 d1 1\n   \n", "q1 Q0 d1 1 2 r\n", 2, "trec_eval.get_qrels: Malformed line 2"),
    # no query in common: 10.0 stops at the first judged query (its words reversed), exit 4
    ("1 0 d1 1\n", "2 Q0 d1 1 2 r\n", 4, "trec_eval: result qid '1' not found in qrels"),
    # a run line without its tag
    ("q1 0 d1 1\n", "q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1\n", 2, "trec_eval.get_results: Malformed line 2"),
], ids=["blank-after-comment", "spaces-line", "no-common-query", "run-5-fields"])
def test_files_trec_eval_refuses_are_refused_with_its_words_and_exit_status(trec_eval, tmp_path, qrels_text,
                                                                              run_text, status, theirs):
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    binary, ours = run_both(trec_eval, [tmp_path / "q", tmp_path / "r"])
    assert binary.returncode == ours.returncode == status
    assert theirs in binary.stderr.decode() and theirs in ours.stderr.decode(), ours.stderr.decode()
    assert ours.stdout == binary.stdout == b""
    assert ours.stderr.decode().startswith("sqlndcg: error: ") and ours.stderr.count(b"\n") == 1


def test_a_qrels_file_ending_in_a_comment_crashes_trec_eval_and_is_read_with_a_warning(trec_eval, tmp_path):
    (tmp_path / "q").write_text("q1 0 d1 1\n# the end\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\n")
    binary, ours = run_both(trec_eval, ["-m", "map", tmp_path / "q", tmp_path / "r"])
    assert binary.returncode < 0 or binary.returncode >= 128  # get_qrels.c reads past the end: SIGSEGV
    assert ours.returncode == 0 and ours.stdout == b"map                   \tall\t1.0000\n"
    assert ours.stderr.decode() == (f"sqlndcg: warning: qrels file '{tmp_path / 'q'}': its last line (line 2) is a "
                                    "'#' comment, which trec_eval 10.0 cannot end on (get_qrels.c reads past the end "
                                    "of the file and crashes); skipped\n")

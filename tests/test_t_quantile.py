"""_t975_expression(df), the 97.5% quantile of Student's t as a SQL expression, against SciPy; and stats.t975."""

from __future__ import annotations

import math
import re
import sqlite3
from pathlib import Path

import duckdb
import jinja2
import pytest
import sqlglot

from tools import t975_generator
from sqlndcg.stats import distributions as stats

import scipy.stats as scipy_stats

MACRO_FILE = Path(__file__).resolve().parent.parent / "sql" / "macros" / "stats" / "t975_expression.sql"
N = stats.T975_TABLE_MAX

# Every integer df from 1 to 5000, then about 3000 integers spread geometrically up to 10^9 (and its neighbours).
SMALL_DFS = list(range(1, 5001))
LARGE_DFS = sorted({round(5000 * (10**9 / 5000) ** (i / 3000)) for i in range(1, 3001)} | {10**9 - 1, 10**9})


class _Namespace:
    """The ``sqlndcg`` namespace the macros see when rendered: only double() is needed here."""

    def __init__(self, double: str = "DOUBLE") -> None:
        self._double = double

    def double(self) -> str:
        return self._double


def render_t975(df_sql: str, double: str = "DOUBLE") -> str:
    env = jinja2.Environment(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
    env.globals["sqlndcg"] = _Namespace(double)
    template = env.from_string(MACRO_FILE.read_text(encoding="utf-8"))
    context = template.new_context()
    for _ in template.root_render_func(context):  # defines the file's macros (a private one is not exported)
        pass
    return str(context.vars["_t975_expression"](df_sql)).strip()


def scipy_t975(dfs):
    return [float(v) for v in scipy_stats.t.ppf(0.975, dfs)]


@pytest.fixture(scope="module")
def duckdb_results():
    con = duckdb.connect()
    dfs = SMALL_DFS + LARGE_DFS
    con.execute("CREATE TABLE dfs AS SELECT UNNEST(?::BIGINT[]) AS df", [dfs])
    rows = con.execute(f"SELECT df, {render_t975('df')} AS t FROM dfs ORDER BY df").fetchall()
    con.close()
    return rows


def test_duckdb_equals_scipy_for_every_small_df_and_a_sample_up_to_1e9(duckdb_results):
    dfs = [df for df, _ in duckdb_results]
    assert dfs == sorted(SMALL_DFS + LARGE_DFS)
    errors = [abs(t - ref) for (_, t), ref in zip(duckdb_results, scipy_t975(dfs))]
    assert max(errors) < 1e-9
    # Measured: ~1e-13 (scipy itself is within ~1e-14 of 40-digit values), far inside the required 1e-9.
    assert max(errors) < 1e-12


def test_table_size_is_enough_for_the_expansion():
    """The N chosen: the expansion alone is within 1e-10 (in fact 1e-12) of SciPy from df = N + 1 on (its error
    falls as df^-9 there), but not at df = 12, say, which is why the small df come from the table."""
    def series(df):
        u = 1.0 / df
        acc = 0.0
        for c in reversed(stats._T975_SERIES):
            acc = u * (c + acc)
        return stats._T975_Z + acc

    dfs = list(range(N + 1, 5001))
    errors = [abs(series(df) - ref) for df, ref in zip(dfs, scipy_t975(dfs))]
    assert errors[0] < 1e-10
    assert max(errors) < 1e-12
    assert abs(series(12) - scipy_t975([12])[0]) > 1e-10


def test_null_for_df_below_1_null_or_fractional_up_to_n():
    con = duckdb.connect()
    cases = ["NULL", "CAST(NULL AS INTEGER)", "0", "-1", "-1000000", "0.5", "2.5", f"{N - 1}.5"]
    for case in cases:
        assert con.execute(f"SELECT {render_t975(case)}").fetchone()[0] is None, case
    # Above the table any real df works (the expansion is in 1/df).
    value = con.execute(f"SELECT {render_t975(f'CAST({N + 0.5} AS DOUBLE)')}").fetchone()[0]
    assert value == pytest.approx(float(scipy_stats.t.ppf(0.975, N + 0.5)), abs=1e-12)
    # Integral DOUBLE and small integer types hit the table too.
    for case in ("CAST(3 AS DOUBLE)", "CAST(3 AS TINYINT)", "CAST(3 AS HUGEINT)"):
        assert con.execute(f"SELECT {render_t975(case)}").fetchone()[0] == stats._T975_TABLE[2]
    con.close()


def test_python_t975_is_the_same_formula(duckdb_results):
    for df, t in duckdb_results:
        assert abs(stats.t975(df) - t) <= 1e-12, df
    # In fact the same bits, but for a rounding of a decimal literal, which DuckDB need not do correctly.
    same = sum(stats.t975(df) == t for df, t in duckdb_results)
    assert same >= 0.99 * len(duckdb_results)


def test_python_t975_rejects_what_sql_maps_to_null():
    for bad in (0, -1, 2.5, math.nan, None, "3", True):
        with pytest.raises(ValueError):
            stats.t975(bad)
    assert stats.t975(3.0) == stats.t975(3) == stats._T975_TABLE[2]


def test_mean_interval_still_uses_the_bisection_quantile():
    low, high = stats.mean_interval(0.5, 0.1, 10)
    assert high - 0.5 == pytest.approx(stats.t_quantile(0.975, 9) * 0.1 / math.sqrt(10), abs=0)


def test_constants_are_what_the_generators_produce():
    # The table is scipy.stats.t.ppf(0.975, df) (to a few ulps, in case SciPy's last bits move between versions).
    for df, value in enumerate(stats._T975_TABLE, start=1):
        assert value == pytest.approx(float(scipy_stats.t.ppf(0.975, df)), rel=1e-14, abs=0)
    # The series coefficients are the exact Cornish-Fisher coefficients at z = Phi^-1(0.975), rounded once.
    assert list(stats._T975_SERIES) == t975_generator._t975_series_from_derivation(len(stats._T975_SERIES))
    assert stats._T975_Z == float(t975_generator._T975_Z_DIGITS)
    from statistics import NormalDist

    assert stats._T975_Z == pytest.approx(NormalDist().inv_cdf(0.975), abs=1e-15)
    # The SQL file is the generator's output for these constants, byte for byte.
    assert MACRO_FILE.read_text(encoding="utf-8") == t975_generator.t975_macro_text()


def test_expansion_polynomials_match_abramowitz_and_stegun():
    from fractions import Fraction as F

    g = t975_generator._t_quantile_expansion(4)
    # A&S 26.7.5: g1 = (z^3 + z)/4, g2 = (5z^5 + 16z^3 + 3z)/96, g3 = (3z^7 + 19z^5 + 17z^3 - 15z)/384,
    # g4 = (79z^9 + 776z^7 + 1482z^5 - 1920z^3 - 945z)/92160.
    expected = [
        {1: 1, 3: 1, "d": 4},
        {1: 3, 3: 16, 5: 5, "d": 96},
        {1: -15, 3: 17, 5: 19, 7: 3, "d": 384},
        {1: -945, 3: -1920, 5: 1482, 7: 776, 9: 79, "d": 92160},
    ]
    for poly, want in zip(g, expected):
        d = want.pop("d")
        assert poly == [F(want.get(i, 0), d) for i in range(len(poly))]


def test_the_expression_is_plain_portable_sql():
    sql = render_t975("df")
    words = set(re.findall(r"[A-Za-z_]+", sql))
    assert words <= {"CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "AS", "DOUBLE", "df"}
    for dialect in ("postgres", "spark", "snowflake", "bigquery", "redshift", "clickhouse", "sqlite", "tsql"):
        sqlglot.transpile(
            f"SELECT {sql} AS t FROM dfs", read="duckdb", write=dialect, unsupported_level=sqlglot.ErrorLevel.RAISE
        )


def test_sqlite_gives_the_same_numbers():
    # The expression needs no math functions (only CASE, CAST and arithmetic), so the SQLite bundled with Python
    # runs it whether or not it was compiled with SQLITE_ENABLE_MATH_FUNCTIONS; nothing is registered here.
    # SQLite maps the type name DOUBLE to REAL affinity, and CAST(1 AS DOUBLE) / CAST(df AS DOUBLE) divides reals.
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE dfs (df INTEGER)")
    dfs = SMALL_DFS[:200] + LARGE_DFS[::10] + [10**9]
    con.executemany("INSERT INTO dfs VALUES (?)", [(df,) for df in dfs])
    rows = con.execute(f"SELECT df, {render_t975('df')} FROM dfs ORDER BY df").fetchall()
    reference = dict(zip(dfs, scipy_t975(dfs)))
    assert len(rows) == len(dfs)
    for df, t in rows:
        assert abs(t - reference[df]) < 1e-9, df
        assert abs(t - stats.t975(df)) < 1e-12, df
    for case in ("NULL", "0", "-5", "2.5"):
        assert con.execute(f"SELECT {render_t975(case)}").fetchone()[0] is None, case
    con.close()

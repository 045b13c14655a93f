"""A frame as a Snowflake table, for the tests that run on fakesnow."""

from __future__ import annotations


def load_snowflake(con, name, frame):
    """A table of quoted (case-kept) names: Snowflake folds unquoted ones to upper case."""
    kinds = {"i": "BIGINT", "f": "DOUBLE", "b": "BOOLEAN"}
    cur = con.cursor()
    cur.execute(f'DROP TABLE IF EXISTS "{name}"')
    cur.execute(f'CREATE TABLE "{name}" ('
                + ", ".join(f'"{c}" {kinds.get(frame[c].dtype.kind, "VARCHAR")}' for c in frame.columns) + ")")
    cur.executemany(f'INSERT INTO "{name}" VALUES ({", ".join(["%s"] * len(frame.columns))})',
                    [tuple(None if v != v else v for v in r) for r in frame.itertuples(index=False, name=None)])  # NaN: NULL
    return name

import pytest

# Session-scoped engine fixtures (throwaway PostgreSQL and MariaDB servers, a fakesnow connection, a local
# SparkSession) and the hook that marks the tests using them `engine`; see tests/servers.py. Imported by name so
# pytest registers them from here.
from servers import (  # noqa: F401
    fakesnow, mariadb, postgres, pytest_collection_modifyitems, spark, spark_cluster, spark_connect)


# --- helpers for the reference-comparison tests (test_worked_example.py, test_reference_*.py) ------------------

def frame_from_tuples(rows, columns):
    """A pandas DataFrame from an iterable of tuples, one tuple per row, in the order of ``columns``."""
    import pandas as pd

    return pd.DataFrame.from_records(list(rows), columns=list(columns))


@pytest.fixture
def tuples_to_frame():
    """Fixture form of :func:`frame_from_tuples` (tests need not import conftest)."""
    return frame_from_tuples

import pytest


# --- helpers for the reference-comparison tests (test_worked_example.py, test_reference_*.py) ------------------

def frame_from_tuples(rows, columns):
    """A pandas DataFrame from an iterable of tuples, one tuple per row, in the order of ``columns``."""
    import pandas as pd

    return pd.DataFrame.from_records(list(rows), columns=list(columns))


@pytest.fixture
def tuples_to_frame():
    """Fixture form of :func:`frame_from_tuples` (tests need not import conftest)."""
    return frame_from_tuples

"""One exception type per kind of mistake, so callers can catch exactly what they can fix."""

from __future__ import annotations


class SqlndcgError(Exception):
    """Base class: every error sqlndcg raises on purpose is one of these."""


class MetricError(SqlndcgError, ValueError):
    """A metric name that cannot be parsed, or a metric that a setting does not allow."""


class SettingError(SqlndcgError, ValueError):
    """A setting with a value outside the allowed ones, or settings that contradict each other."""


class InputError(SqlndcgError, ValueError):
    """An input that cannot be read or lacks what is needed: missing table, file, column, or rows."""


class DataError(SqlndcgError, ValueError):
    """Rows that would make a number wrong: duplicates, NULL or non-finite values, labels out of range."""


class EmptyQueryError(DataError):
    """A query with nothing to find (IDCG or R is 0) under ``empty="error"``."""


class ResourceError(SqlndcgError, RuntimeError):
    """The engine ran out of memory or of temporary disk space: the input is fine, the machine (or a limit) is not."""


class MissingDependency(SqlndcgError, ImportError):
    """An optional package a feature needs (an extra, such as matplotlib for plots) is not installed."""


#: The name plots have raised it under.
MissingExtra = MissingDependency

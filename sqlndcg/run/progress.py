"""Which step a long call is in, told to whoever listens: the command line shows it on a terminal; the library itself
prints nothing. A step is announced where the work is (the verbs, the resampling), and the display lives with the
interface (:mod:`sqlndcg.cli.progress`)."""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Callable, Iterator

_listener: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("sqlndcg_progress",
                                                                                          default=None)


def announce(step: str) -> None:
    """Say that the work has moved on to ``step`` (a few words: "evaluating 2 systems")."""
    listener = _listener.get()
    if listener is not None:
        listener(step)


@contextmanager
def listening(listener: Callable[[str], None]) -> Iterator[None]:
    """Send the steps announced in this context (this thread, or task) to ``listener``."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)

"""A progress line on a terminal for work that takes a while: the current step and the seconds spent, shown only
after a grace period (a quick command prints nothing extra), on standard error, and wiped when the work ends, so
pipes and files never see it."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator, TextIO

from ..run.progress import listening

#: Seconds of work before the line appears, and between its updates.
GRACE = 2.0
TICK = 0.5


class _Line:
    """The line itself: one writer thread, redrawn in place with a carriage return."""

    def __init__(self, stream: TextIO, verb: str) -> None:
        self.stream, self.verb = stream, verb
        self.step = "starting"
        self.started = time.monotonic()
        self.shown = False
        self.stop = threading.Event()

    def text(self) -> str:
        return f"sqlndcg {self.verb}: {self.step} ... {time.monotonic() - self.started:.0f} s"

    def run(self) -> None:
        if self.stop.wait(GRACE):
            return
        while True:
            self.stream.write("\r\033[K" + self.text())
            self.stream.flush()
            self.shown = True
            if self.stop.wait(TICK):
                return

    def wipe(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


@contextmanager
def shown(verb: str, stream: TextIO | None = None, *, force: bool = False) -> Iterator[None]:
    """Show the steps the work announces while it runs, when ``stream`` (standard error) is a terminal (``force``:
    whatever it is, for tests)."""
    stream = stream or sys.stderr
    if not (force or stream.isatty()):
        yield
        return
    line = _Line(stream, verb)

    def moved_on(step: str) -> None:
        line.step = step

    writer = threading.Thread(target=line.run, name="sqlndcg-progress", daemon=True)
    writer.start()
    try:
        with listening(moved_on):
            yield
    finally:
        line.stop.set()
        writer.join()
        line.wipe()

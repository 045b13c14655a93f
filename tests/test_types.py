"""The package is type-clean under the settings pyproject.toml gives mypy ([tool.mypy]: the files, and
check_untyped_defs, so the bodies of unannotated functions are checked too): mypy, from the test extra, as
docs/maintaining.md says to run it. Its cache (.mypy_cache) makes a second run take about a second."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

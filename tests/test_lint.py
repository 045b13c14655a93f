"""The code is lint-clean under the rules pyproject.toml selects ([tool.ruff]): ruff, from the test extra, over the
package, the tests, the benchmarks and the development tools."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "sqlndcg", "tests", "benchmarks",
                           "tools"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

"""The README's Python examples run as written, and its set-up commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_python_examples():
    assert len(PYTHON_BLOCKS) >= 2


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))])
def test_python_example_runs(block, capsys):
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()  # every example prints something


def test_ci_runs_the_readme_test_command():
    bash_blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    test_command = next(line for block in bash_blocks for line in block.splitlines() if "pytest" in line)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command.split("#")[0].strip() in ci

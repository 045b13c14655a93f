"""Every verb's --help ends with a worked example, and the example is a valid command line of that verb (parsed by
the real parser, so a renamed flag breaks this test, not a reader); setting flags show their declared defaults."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from sqlndcg.cli import parser_for
from sqlndcg.cli.common import EXAMPLES
from sqlndcg.core.spec import settings_declared

VERBS = sorted(EXAMPLES)


def test_every_verb_has_an_example():
    parser = parser_for(every_verb=True)
    verbs = set(parser._subparsers._group_actions[0].choices)
    assert verbs == set(EXAMPLES), f"verbs without an example: {sorted(verbs - set(EXAMPLES))}"


@pytest.mark.parametrize("verb", VERBS)
def test_the_example_is_in_the_help_and_parses(verb):
    out = subprocess.run([sys.executable, "-m", "sqlndcg", verb, "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    for line in EXAMPLES[verb]:
        assert f"  {line}\n" in out.stdout
        argv = shlex.split(line)[1:]
        args = parser_for(argv).parse_args(argv)
        assert args.command == verb


def test_setting_flags_show_their_declared_defaults():
    out = subprocess.run([sys.executable, "-m", "sqlndcg", "evaluate", "--help"], capture_output=True, text=True,
                         timeout=120, env={"COLUMNS": "1000", "PATH": ""}).stdout
    declared = settings_declared()
    for name in ("gain", "ideal", "ties", "short_lists", "empty", "queries", "query_id", "rel"):
        assert f"(default: {declared[name]['default']})" in out, name
    assert "(default: 1)" in out  # threshold 1.0, shown as a whole number

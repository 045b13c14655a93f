"""The settings are declared once (``settings_declared()`` in sql/macros/spec/settings.sql); everything else follows it.

The public verbs keep explicit keyword signatures (an editor can only show keywords that are written out), so
these tests hold them to the declaration by construction: every expected name comes from iterating the
declaration, never from a list written here.
"""

from __future__ import annotations

import inspect
import typing
from typing import Literal

import pytest

import sqlndcg
from sqlndcg.core import spec as spec_module
from sqlndcg.verbs.compare import compare
from sqlndcg.verbs.evaluate import evaluate, to_sql
from sqlndcg.verbs.explain import explain
from sqlndcg.verbs.positions import positions
from sqlndcg.core.settings import PositionSettings, Settings

DECLARED = spec_module.settings_declared()


def _keywords(verb) -> dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(verb).parameters.items() if p.kind is p.KEYWORD_ONLY}


def test_the_typed_settings_are_the_declared_ones():
    """Settings (the verbs' ``**settings: Unpack[Settings]``) has one key per declared setting, and each list of
    allowed values in its type is the declaration's."""
    hints = typing.get_type_hints(Settings)
    assert list(hints) == list(DECLARED)
    for name, about in DECLARED.items():
        literals = [a for part in typing.get_args(hints[name]) or (hints[name],) if typing.get_origin(part) is Literal
                    for a in typing.get_args(part)]
        if typing.get_origin(hints[name]) is Literal:
            literals = list(typing.get_args(hints[name]))
        assert literals == list(about.get("values", [])), name
        if about.get("flag"):
            assert hints[name] is bool, name
        if about.get("optional"):
            assert type(None) in typing.get_args(hints[name]), name


def test_positions_settings_are_settings_of_the_same_type():
    mine, every = typing.get_type_hints(PositionSettings), typing.get_type_hints(Settings)
    assert mine and all(mine[name] == every[name] for name in mine)


@pytest.mark.parametrize("verb", [evaluate, to_sql, compare, explain, positions], ids=lambda v: v.__name__)
def test_every_verb_takes_the_settings_by_one_declaration(verb):
    """No setting is written out as a keyword of a verb: each takes them as ``**settings`` typed by the one
    TypedDict, so a new setting is settings.sql, core/settings.py, the templates that read it and the docs."""
    parameters = inspect.signature(verb).parameters
    assert not set(parameters) & set(DECLARED), verb.__name__
    settings = [p for p in parameters.values() if p.kind is p.VAR_KEYWORD]
    assert len(settings) == 1 and "Unpack[" in str(settings[0].annotation), verb.__name__


@pytest.mark.parametrize("verb", [evaluate, to_sql, compare, explain, positions], ids=lambda v: v.__name__)
def test_a_misspelt_setting_is_refused_with_the_closest_one(verb):
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'gian'; did you mean gain=\?"):
        verb(sqlndcg.example("run"), sqlndcg.example("qrels"), gian="linear")
    with pytest.raises(TypeError, match=r"'zzz_nothing_like_it'; the settings are in docs/SEMANTICS.md"):
        verb(sqlndcg.example("run"), sqlndcg.example("qrels"), zzz_nothing_like_it=1)


@pytest.mark.parametrize("verb", [evaluate, to_sql, compare], ids=lambda v: v.__name__)
def test_the_settings_reach_the_spec_by_their_keyword(verb, monkeypatch):
    """Each declared setting given to the verb arrives in make_spec under its own name."""
    seen = {}

    class Stop(Exception):
        pass

    def fake_make_spec(metrics, **settings):
        seen.update(settings)
        raise Stop

    monkeypatch.setattr(inspect.getmodule(verb), "make_spec", fake_make_spec)
    given = {name: [f"value of {name}"] if name == "group_by" else f"value of {name}" for name in DECLARED}
    with pytest.raises(Stop):
        verb("run", "judgments", ["ndcg@10"], **given)
    for name in DECLARED:
        if name == "group_by":  # compare adds the system column to the strata
            assert list(seen[name])[:1] == given[name]
        else:
            assert seen[name] == given[name], name


def test_spec_attributes_are_the_declared_settings():
    spec = spec_module.make_spec(["ndcg@10"])
    for name in DECLARED:
        if DECLARED[name].get("column"):
            assert getattr(spec.columns, name) is not None or DECLARED[name].get("optional")
        else:
            assert getattr(spec, name) == spec.data[name] or name in ("group_by",)
    with pytest.raises(AttributeError):
        _ = spec.no_such_setting


def test_the_module_constants_follow_the_declaration():
    assert spec_module.SETTINGS == DECLARED
    assert spec_module.GAINS == tuple(DECLARED["gain"]["values"])
    assert spec_module.COLUMN_SETTINGS == tuple(n for n, a in DECLARED.items() if a.get("column"))
    assert sqlndcg.PRESETS == spec_module.presets()


def _verb_flags(name: str) -> set[str]:
    from sqlndcg import cli

    parser = cli.parser_for([name])
    verb = parser._subparsers._group_actions[0].choices[name]
    return {option for action in verb._actions for option in action.option_strings}


@pytest.mark.parametrize("verb", ["evaluate", "sql", "compare", "report", "explain"])
def test_every_declared_setting_is_a_flag_of_the_verb(verb):
    from sqlndcg.cli.common import flag_of

    flags = _verb_flags(verb)
    for name, about in DECLARED.items():
        assert flag_of(name, about) in flags, (verb, name)

"""What every command line verb reads the same way."""

from __future__ import annotations

import argparse

from ..core.spec import SETTINGS


def gain_flag(text: str):
    """``--gain``: ``exponential``, ``linear``, or a map ``1:1,2:3,3:7``."""
    if text in SETTINGS["gain"]["values"]:
        return text
    try:
        return {float(g): float(v) for g, v in (pair.split(":") for pair in text.split(","))}
    except ValueError:
        # argparse shows an ArgumentTypeError's text as it is (other errors as "invalid gain_flag value")
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: use exponential, linear, or a map of grade to "
                                         "gain like 1:1,2:3,3:7") from None


def add_memory_flags(parser) -> None:
    """``--memory-limit`` and ``--temp-directory``: DuckDB's memory limit and where it spills (by default a private
    temporary directory, bounded in size, removed afterwards)."""
    parser.add_argument("--memory-limit", help="DuckDB's memory limit, e.g. 4GB (larger inputs spill to disk)")
    parser.add_argument("--temp-directory", help="where DuckDB spills (default: a private temporary directory)")

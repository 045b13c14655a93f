"""The plotting API under the name the docs use, ``import sqlndcg.plots`` (or ``from sqlndcg import plots``):
:func:`plot_cutoffs`, :func:`plot_differences`, :func:`plot_over_time`, :func:`plot_propensities` and :func:`save`,
which live in :mod:`sqlndcg.present.plots`. Needs matplotlib, an optional extra: ``pip install 'sqlndcg[plots]'``;
importing this module does not import matplotlib (a plot drawn without it names the extra).
"""

from __future__ import annotations

from .errors import MissingExtra
from .present.plots import (FORMATS, MAX_K, MAX_PANELS, checked_max_k, plot_cutoffs, plot_differences, plot_over_time,
                            plot_propensities, save, time_column)

__all__ = ["plot_cutoffs", "plot_differences", "plot_over_time", "plot_propensities", "save", "time_column", "checked_max_k", "FORMATS",
           "MAX_K", "MAX_PANELS", "MissingExtra"]

"""The house-rules study's analysis under its former import path.

The statistics, plots and report are modules of the study package:
:mod:`training.study.stats` (per-deal cell data, estimates, the family of effects),
:mod:`training.study.plots` and :mod:`training.study.report` (``results.csv``,
``effects.csv``, the plots and ``report.md``). This module re-exports their public names so
that ``from training import study_report`` keeps working.
"""

from __future__ import annotations

from training.study import plots, report, stats
from training.study.plots import *  # noqa: F403
from training.study.report import *  # noqa: F403
from training.study.stats import *  # noqa: F403

__all__ = [*stats.__all__, *plots.__all__, *report.__all__]

"""Reading a study spec whole: its fields, the plan's size and a named sweep's finished runs.

:func:`parse_spec` and :func:`load_spec` are how a study reads its spec: the fields as
:func:`training.study.spec.parse_spec_fields` checks them, then what needs more than the
spec: the plan's size and its deal seeds (:func:`training.study.planning.check_spec_size`)
and, for a study that names a sweep, the policy the sweep trained for every cell
(:func:`training.sweep.sweep_models`, kept in :attr:`StudySpec.swept`); a cell the sweep did
not train is refused here, when the spec is read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from training import sweep as sweeps  # the module: training.sweep reads the study's spec fields
from uno_env import files

from .planning import check_spec_size
from .spec import SpecError, StudySpec, default_spec_path, parse_spec_fields


def parse_spec(data: Mapping[str, Any], source: str = "spec") -> StudySpec:
    """Validate spec data (a parsed TOML table) and return the spec.

    Raises:
        SpecError: naming the offending key, switch, value, style or player count, a plan too
            large to run, or a cell the named sweep has no finished run for.
    """
    spec = parse_spec_fields(data, source)
    variants = spec.variants()
    check_spec_size(spec, len(variants), source)
    if not spec.sweep:
        return spec
    swept = sweeps.sweep_models(Path(spec.sweep), variants, spec.players, source)
    return dataclasses.replace(spec, swept=swept)


def load_spec(path: str | Path | None = None) -> StudySpec:
    """Read and validate a spec file (``None``: the built-in default spec)."""
    path = default_spec_path() if path is None else Path(path)
    data = files.read_toml(path, "study spec", error=SpecError)  # bounded, regular files only
    return parse_spec(data, source=str(path))

"""An atlas folder's batch files: which are finished, which are still to run, and all of them.

:func:`scan_batches` tells finished batches from those to run again and refuses files of
another design; :func:`models_of` reads the fitted win-chance weights from the fit batches;
:func:`load_batches` reads every planned batch of a finished folder (what the report reads).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.runner import read_results

from .planning import TRACED, AtlasTask, fit_tasks, measure_tasks, task_key, traced_count
from .spec import AtlasSpec, AtlasSpecError, load_spec

ModelKey = tuple[str, int, str]


def scan_batches(tasks: Sequence[AtlasTask], out: Path) -> tuple[dict[str, dict[str, Any]], list[AtlasTask]]:
    """The usable result files of ``tasks`` by id, and the tasks still to run; a file of another
    design (the folder's ``spec.toml`` was edited) raises :class:`AtlasSpecError`."""
    found, todo = read_results(
        tasks, lambda t: out / "batches" / f"{t.id}.json", "batch file", "running it again"
    )
    done: dict[str, dict[str, Any]] = {}
    for task, path, result in found:
        if result["key"] != task_key(task):
            raise AtlasSpecError(
                f"{path} was computed for another design ({task.variant} at {task.players} players): "
                f"{out / 'spec.toml'} was changed since the atlas started, or the folder mixes two atlases. "
                "Restore the spec, or start a new atlas in a new folder; batches of two designs are never "
                "mixed"
            )
        done[task.id] = result
    return done, todo


def models_of(spec: AtlasSpec, fits: dict[str, dict[str, Any]]) -> dict[ModelKey, tuple[float, ...]]:
    """The fitted weights of every traced kind of every cell, from the fit batches' results."""
    out = {}
    for task in fit_tasks(spec):
        result = fits.get(task.id)
        if result is not None:
            out[(task.variant, task.players, task.kind)] = tuple(float(w) for w in result["weights"])
    return out


def load_batches(out: Path) -> tuple[AtlasSpec, list[dict[str, Any]]]:
    """The folder's spec and every planned batch's result (all must be there, of this design)."""
    spec = load_spec(out / "spec.toml")
    first = [*fit_tasks(spec), *(t for t in measure_tasks(spec) if t.kind not in TRACED)]
    done, missing = scan_batches(first, out)
    traced = [t for t in measure_tasks(spec, models_of(spec, done)) if t.kind in TRACED]
    more, missing_traced = scan_batches(traced, out)
    missing += missing_traced
    if missing or len(traced) != traced_count(spec):
        first_missing = missing[0].id if missing else "a traced batch"
        raise AtlasSpecError(
            f"{out}: {max(len(missing), 1)} batches are missing or unreadable (first {first_missing}); "
            "resume the atlas"
        )
    done.update(more)
    return spec, [done[key] for key in sorted(done)]

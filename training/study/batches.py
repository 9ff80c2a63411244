"""A study folder's batch files: which are finished, which are still to run, and all of them.

:func:`scan_batches` tells finished batches from those to run again and refuses files of
another design; :func:`load_batches` reads every planned batch of a finished folder (what the
report reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from training.runner import read_results

from .load import load_spec
from .planning import BatchTask, plan, task_key
from .spec import SpecError, StudySpec


def scan_batches(spec: StudySpec, out: Path) -> tuple[dict[str, dict[str, Any]], list[BatchTask]]:
    """The usable result files of ``out/batches`` by batch id, and the batches still to run.

    A missing file is to run; an unreadable or truncated one (or one from an older version
    that does not record its key) is to run again, with a message on stderr
    (:func:`training.runner.read_results`). A file whose :func:`task_key` differs from the
    plan's was computed for another design or seed (the folder's ``spec.toml`` was edited
    since): :class:`SpecError`, nothing is mixed.
    """
    found, todo = read_results(
        plan(spec), lambda task: out / "batches" / f"{task.id}.json", "batch file", "running it again"
    )
    done: dict[str, dict[str, Any]] = {}
    for task, path, result in found:
        if result["key"] != task_key(task):
            seed = result.get("seed")
            raise SpecError(
                f"{path} was computed for another design (seed {seed!r}; this study's spec.toml says seed "
                f"{spec.seed}, {task.variant} at {task.players} players): {out / 'spec.toml'} was changed "
                "since the study started, or the folder mixes two studies. Restore the spec, or start a "
                "new study in a new folder; batches of two designs are never mixed"
            )
        done[task.id] = result
    return done, todo


def missing_batches(spec: StudySpec, out: Path) -> list[BatchTask]:
    """The batches of ``spec`` still to run in ``out`` (see :func:`scan_batches`)."""
    return scan_batches(spec, out)[1]


def load_batches(out: Path) -> list[dict[str, Any]]:
    """The result files of the batches the folder's ``spec.toml`` plans, sorted by batch id
    (every one must be there and of this design: :func:`scan_batches`)."""
    spec = load_spec(out / "spec.toml")
    done, missing = scan_batches(spec, out)
    if missing:
        raise SpecError(
            f"{out}: {len(missing)} batches are missing or unreadable (first {missing[0].id}); resume "
            "the study"
        )
    return [done[key] for key in sorted(done)]

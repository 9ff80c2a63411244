"""Running a study: the output folder, the batches still to run, resume and assembly.

:func:`run_study` writes ``spec.toml``, runs the missing batches on the chosen executor
(each result written atomically as it finishes), logs timings to ``log.jsonl`` and
assembles the results; :func:`scan_batches` tells finished batches from those to run again
and refuses files of another design.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from training.runner import (
    Progress,
    append_line,
    check_executor,
    default_workers,
    run_batches,
    using_folder,
    write_json_atomic,
)
from uno_env.compiling import compiling

if TYPE_CHECKING:
    import pandas as pd
from .checkpoints import check_checkpoints, check_trust
from .planning import BatchTask, plan, task_key
from .play import run_batch, warm_up
from .spec import SpecError, StudySpec, load_spec


def default_out_dir(spec: StudySpec, root: Path = Path("runs")) -> Path:
    """``runs/study__<name>__<seed>__<UTC time>``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return root / f"study__{spec.name}__{spec.seed}__{stamp}"


def write_spec(spec: StudySpec, out: Path) -> None:
    """Write the normalised spec to ``out/spec.toml`` (what ``--resume`` reads)."""
    import tomli_w

    out.mkdir(parents=True, exist_ok=True)
    target = out / "spec.toml"
    tmp = out / ".spec.toml.tmp"
    tmp.write_text(tomli_w.dumps(spec.to_dict()), encoding="utf-8")
    tmp.replace(target)


def scan_batches(spec: StudySpec, out: Path) -> tuple[dict[str, dict[str, Any]], list[BatchTask]]:
    """The usable result files of ``out/batches`` by batch id, and the batches still to run.

    A missing file is to run; an unreadable or truncated one (or one from an older version
    that does not record its key) is to run again, with a message on stderr. A file whose
    :func:`task_key` differs from the plan's was computed for another design or seed (the
    folder's ``spec.toml`` was edited since): :class:`SpecError`, nothing is mixed.
    """
    done: dict[str, dict[str, Any]] = {}
    todo = []
    for task in plan(spec):
        path = out / "batches" / f"{task.id}.json"
        if not path.exists():
            todo.append(task)
            continue
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            result, why = None, f"unreadable ({type(exc).__name__}: {exc})"
        else:
            why = "not a batch result of this version (no design key)"
        recorded = result.get("key") if isinstance(result, dict) else None
        if result is None or recorded is None:
            print(f"batch file {path} is {why}; running it again", file=sys.stderr)
            todo.append(task)
            continue
        if recorded != task_key(task):
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


def run_study(
    spec: StudySpec,
    out: Path,
    *,
    executor: str = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    resume: bool = False,
    progress: bool = True,
    report: bool = True,
    trust_checkpoints: bool = False,
) -> Path:
    """Run (or resume) a study into ``out`` and assemble its results; return ``out``.

    Args:
        spec: The validated spec.
        out: Output folder; must not hold another study's batches unless ``resume``.
        executor: ``"process"`` (default), ``"ray"`` or ``"serial"``.
        workers: Pool processes or local Ray CPUs (default: the cores).
        ray_address: An existing Ray cluster's address for ``executor="ray"``.
        resume: Continue a study in ``out`` (its ``spec.toml`` must equal ``spec``).
        progress: Show a progress line on stderr.
        report: Write the results files, plots and report at the end.
        trust_checkpoints: Load learned policies this installation did not sign
            (``--trust-checkpoint``; SB3 checkpoints are pickles, :mod:`agents.trust`).

    One run at a time uses ``out`` (:func:`training.runner.lock_folder`); a file-system
    error ends the run with one :class:`training.runner.RunFolderError` line.
    """
    workers = default_workers() if workers is None else workers
    check_executor(executor, workers)
    check_trust(spec, trust_checkpoints)
    if resume and not (out / "spec.toml").is_file():
        raise SpecError(f"{out} holds no study to resume (no spec.toml)")
    with using_folder(out, "study"):
        spec_file = out / "spec.toml"
        if spec_file.exists():
            recorded = load_spec(spec_file)
            if not resume:
                raise SpecError(f"{out} already holds a study; resume it with --resume {out}")
            if recorded != spec:
                raise SpecError(f"{out} holds a study of another spec; resume it with its own spec.toml")
        elif resume:
            raise SpecError(f"{out} holds no study to resume (no spec.toml)")
        write_spec(spec, out)
        check_checkpoints(spec, out)
        (out / "batches").mkdir(exist_ok=True)
        for stale in (out / "batches").glob(".*.tmp"):  # a write cut short by a kill
            stale.unlink()
        tasks = {task.id: task for task in plan(spec)}
        todo = scan_batches(spec, out)[1]
        total = len(tasks)
        log = out / "log.jsonl"
        start = time.perf_counter()
        append_line(
            log,
            json.dumps(
                {
                    "event": "start",
                    "time": time.time(),
                    "batches": total,
                    "todo": len(todo),
                    "executor": executor,
                    "workers": workers,
                }
            ),
        )
        if progress:
            print(
                f"study {spec.name!r}: {len(spec.variants())} variants x {len(spec.players)} player counts, "
                f"{len(spec.styles)} styles, {len(todo)} of {total} batches to run -> {out}",
                file=sys.stderr,
            )
        if todo:  # compile (or load) the batch loop first: the progress estimate counts games only
            with compiling("batch", enabled=progress):
                warm_up(spec)
        bar = Progress(len(todo), enabled=progress)

        def store(result: dict[str, Any]) -> None:
            task = tasks[result["id"]]  # the file names its seed and design: never mixed on resume
            result = {**result, "seed": task.seed, "key": task_key(task)}
            write_json_atomic(out / "batches" / f"{result['id']}.json", result)
            bar.update(result["games"])
            event = {"event": "batch", "id": result["id"], "seconds": round(bar.seconds, 3)}
            append_line(log, json.dumps(event))

        run_batches(
            run_batch,
            todo,
            store,
            executor=executor,
            workers=workers,
            ray_address=ray_address,
        )
        seconds = time.perf_counter() - start
        append_line(log, json.dumps({"event": "done", "seconds": round(seconds, 3), "games": bar.games}))
        if report:
            assemble(out)
    return out


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


def assemble(out: Path) -> pd.DataFrame:
    """Write the results tables, plots and report of a finished study folder
    (:func:`training.study_report.assemble`); return the results table."""
    from training.study_report import assemble as assemble_report

    return assemble_report(out)

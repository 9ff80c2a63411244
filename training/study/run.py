"""Running a study: the output folder, the batches still to run, resume and assembly.

:func:`run_study` writes ``spec.toml``, runs the missing batches on the chosen executor
(each result written atomically as it finishes), logs timings to ``log.jsonl`` and
assembles the results; :func:`training.study.batches.scan_batches` tells finished batches
from those to run again and refuses files of another design.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from os import PathLike
from pathlib import Path
from typing import Any

from agents.policy_agent import checkpoint_path, metadata_path
from agents.spec import parse_agent
from training.common import plural
from training.runner import (
    Progress,
    claim_run_folder,
    default_run_folder,
    log_event,
    results_folder,
    run_batches,
    workers_for,
    write_json_atomic,
    write_toml_atomic,
)
from uno_env.compiler.compiling import compiling

from .batches import scan_batches
from .checkpoints import check_checkpoints, check_trust
from .load import load_spec
from .planning import BatchTask, plan, task_key
from .play import run_batch, warm_up
from .report import assemble
from .spec import LEARNED, SpecError, StudySpec, check_agents_reach_workers


def default_out_dir(spec: StudySpec, root: Path = Path("runs")) -> Path:
    """``runs/study__<name>__<seed>__<UTC time>``."""
    return default_run_folder("study", spec.name, spec.seed, root=root)


def write_spec(spec: StudySpec, out: Path) -> None:
    """Write the normalised spec to ``out/spec.toml`` (what ``--resume`` reads)."""
    write_toml_atomic(out / "spec.toml", spec.to_dict())


def run_study(
    spec: StudySpec,
    out: str | PathLike[str],
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
    out = Path(out)  # a str from Python callers, as the docs' examples pass
    workers = workers_for(executor, workers, ray_address)
    check_trust(spec, trust_checkpoints)
    check_objects(spec, executor)
    with claim_run_folder(out, "study", "spec.toml", spec, load_spec, resume=resume, error=SpecError):
        write_spec(spec, out)
        check_checkpoints(spec, out)
        batches = results_folder(out / "batches")
        tasks = {task.id: task for task in plan(spec)}
        todo = scan_batches(spec, out)[1]
        total = len(tasks)
        log = out / "log.jsonl"
        start = time.perf_counter()
        log_event(
            log, "start", time=time.time(), batches=total, todo=len(todo), executor=executor, workers=workers
        )
        if progress:
            print(
                f"study {spec.name!r}: {plural(len(spec.variants()), 'variant')} x "
                f"{plural(len(spec.players), 'player count')}, "
                f"{plural(len(spec.styles), 'style')}, {len(todo)} of {total} batches to run -> {out}\n"
                f"each finished batch is kept in {out / 'batches'}; after an interruption "
                f"uno-env study --resume {out} plays only the missing ones",
                file=sys.stderr,
            )
        if todo:  # compile (or load) the batch loop first: the progress estimate counts games only
            with compiling("batch", enabled=progress):
                warm_up(spec)
        bar = Progress(len(todo), enabled=progress)

        def store(result: dict[str, Any]) -> None:
            task = tasks[result["id"]]  # the file names its seed and design: never mixed on resume
            result = {**result, "seed": task.seed, "key": task_key(task)}
            write_json_atomic(batches / f"{result['id']}.json", result, compact=True)
            bar.update(result["games"])
            log_event(log, "batch", id=result["id"], seconds=round(bar.seconds, 3))

        nodes = run_batches(
            run_batch,
            todo,
            store,
            executor=executor,
            workers=workers,
            ray_address=ray_address,
            files=checkpoint_files(todo),
            progress=progress,
        )
        if nodes:
            log_event(log, "nodes", nodes=[dataclasses.asdict(node) for node in nodes])
        seconds = time.perf_counter() - start
        log_event(log, "done", seconds=round(seconds, 3), games=bar.games)
        if report:
            assemble(out)
    return out


def check_objects(spec: StudySpec, executor: str) -> None:
    """Refuse, before anything runs, a study whose agent objects are named but not given (a
    ``spec.toml`` keeps only their names), or cannot reach worker processes (the process
    pool pickles each batch with its agents: an agent or factory defined at a module's top
    level pickles by name; a lambda or a function defined inside another does not)."""
    missing = spec.missing_objects()
    if missing:
        raise SpecError(
            f"style(s) {', '.join(missing)} are agents given as Python objects, and a spec file keeps only "
            "their names: run or resume this study from Python with the same objects in styles "
            "(training.study.parse_spec({..., 'styles': [..., agent]}), then run_study(spec, out, "
            "resume=True))"
        )
    check_agents_reach_workers(spec.agents, executor)


def checkpoint_files(tasks: list[BatchTask]) -> list[str]:
    """The files the batches read (sent to Ray nodes): the checkpoints with their metadata,
    exported policies and Python file agents the styles and the reference name, and the
    sweep's players (:meth:`agents.spec.AgentSpec.files`)."""
    files: set[str] = set()
    for learned in {task.learned for task in tasks if task.learned}:
        if learned.endswith(".npz"):
            files.update(parse_agent(learned).files())
            continue
        files.add(str(checkpoint_path(learned)))
        if metadata_path(learned).is_file():
            files.add(str(metadata_path(learned)))
    objects = {agent.text for task in tasks for agent in task.agents}  # they travel in the tasks
    named = {style for task in tasks for style in (*task.styles, task.reference)}
    for style in sorted(named - objects - {"", LEARNED}):
        files.update(parse_agent(style).files())
    return sorted(files)

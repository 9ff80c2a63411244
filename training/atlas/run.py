"""Running an atlas: the output folder, the batches still to run, the two stages, resume and assembly.

:func:`run_atlas` writes ``spec.toml``, runs stage 1 (the win-chance fits, with every untraced
measuring batch alongside) and stage 2 (the traced batches, each with its cell's fitted
model) on the chosen executor, writing each result atomically as it arrives
(:mod:`training.runner`: the same folder lock, executors, progress line and disk-error
handling as the study), logs timings to ``log.jsonl`` and assembles the results. A resumed
run reads the finished batches, checks that each was computed for this design
(:func:`training.atlas.batches.scan_batches`) and runs only the rest.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from agents.spec import parse_agent
from training.common import plural
from training.runner import (
    Progress,
    check_agent_files,
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

from .batches import models_of, scan_batches
from .planning import TRACED, AtlasTask, fit_tasks, measure_tasks, task_key, traced_count
from .play import CPU_KEY, run_task, warm_up
from .report import assemble
from .spec import AtlasSpec, AtlasSpecError, load_spec


def default_out_dir(spec: AtlasSpec, root: Path = Path("runs")) -> Path:
    """``runs/atlas__<name>__<seed>__<UTC time>``."""
    return default_run_folder("atlas", spec.name, spec.seed, root=root)


def agent_files(tasks: Sequence[AtlasTask]) -> list[str]:
    """The driver's files the agents of ``tasks`` read (exported policies such as a sweep's
    players, a search's guide network, a Python agent's file; :meth:`agents.spec.AgentSpec.files`):
    what Ray nodes without the driver's folders are sent."""
    names = dict.fromkeys(agent for task in tasks for table in task.tables for agent in table)
    return sorted({path for name in names for path in parse_agent(name).files()})


def run_atlas(
    spec: AtlasSpec,
    out: str | PathLike[str],
    *,
    executor: str = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    resume: bool = False,
    progress: bool = True,
    report: bool = True,
) -> Path:
    """Run (or resume) an atlas into ``out`` and assemble its results; return ``out``.

    Args:
        spec: The validated spec.
        out: Output folder; must not hold another atlas unless ``resume``.
        executor: ``"process"`` (default), ``"ray"`` or ``"serial"``.
        workers: Pool processes or local Ray CPUs (default: the cores).
        ray_address: An existing Ray cluster's address for ``executor="ray"``.
        resume: Continue the atlas in ``out`` (its ``spec.toml`` must equal ``spec``).
        progress: Show a progress line on stderr.
        report: Write the tables, plots and report at the end.
    """
    out = Path(out)
    workers = workers_for(executor, workers, ray_address)
    with claim_run_folder(out, "atlas", "spec.toml", spec, load_spec, resume=resume, error=AtlasSpecError):
        write_toml_atomic(out / "spec.toml", spec.to_dict())
        every = [*fit_tasks(spec), *measure_tasks(spec, {})]  # every agent; a file replaced since: refused
        check_agent_files(out, agent_files(every), "atlas", error=AtlasSpecError)
        batches = results_folder(out / "batches")
        log = out / "log.jsonl"
        untraced = [t for t in measure_tasks(spec) if t.kind not in TRACED]
        first = [*fit_tasks(spec), *untraced]
        done, todo = scan_batches(first, out)
        total = len(first) + traced_count(spec)
        # the traced batches' ids do not depend on their models: count those already written
        pending = {(v.id, n, k): () for v, n in spec.cells() for k in TRACED}
        kept = sum(
            (batches / f"{t.id}.json").exists() for t in measure_tasks(spec, pending) if t.kind in TRACED
        )
        log_event(log, "start", time=time.time(), batches=total, executor=executor, workers=workers)
        cells = spec.cells()
        if progress:
            print(
                f"atlas {spec.name!r}: {plural(len(spec.variants()), 'variant')}, "
                f"{plural(len(cells), 'cell')} "
                f"({', '.join(map(str, spec.players))} players), {total} batches -> {out}\n"
                f"each finished batch is kept in {out / 'batches'}; after an interruption "
                f"uno-env atlas --resume {out} plays only the missing ones",
                file=sys.stderr,
            )
        bar = Progress(len(todo) + traced_count(spec) - kept, enabled=progress)
        tasks: dict[str, AtlasTask] = {t.id: t for t in first}
        start = time.perf_counter()

        def store(result: dict[str, Any]) -> None:
            task = tasks[result["id"]]
            cpu = result.pop(CPU_KEY, None)  # a timing: the log's, never the result file's
            result = {**result, "seed": task.seed, "key": task_key(task)}
            write_json_atomic(batches / f"{result['id']}.json", result, compact=True)
            done[task.id] = result
            bar.update(task.games)
            log_event(
                log, "batch", id=task.id, seconds=round(bar.seconds, 3), cpu_seconds=cpu, games=task.games
            )

        if todo:
            with compiling("batch", enabled=progress):
                warm_up(spec)
        run_batches(
            run_task, todo, store, executor=executor, workers=workers, ray_address=ray_address,
            files=agent_files(todo),
        )  # fmt: skip
        traced = [t for t in measure_tasks(spec, models_of(spec, done)) if t.kind in TRACED]
        tasks.update({t.id: t for t in traced})
        todo_traced = scan_batches(traced, out)[1]
        bar.total = bar.done + len(todo_traced)
        run_batches(
            run_task, todo_traced, store, executor=executor, workers=workers, ray_address=ray_address,
            files=agent_files(todo_traced),
        )  # fmt: skip
        log_event(log, "done", seconds=round(time.perf_counter() - start, 3), games=bar.games)
        if report:
            assemble(out)
    return out

"""Running many independent batches of games: executors, atomic result files, progress.

The study (:mod:`training.study`) and the tournament (:mod:`training.tournament`) split their
work into *batches*: picklable task objects that a top-level function turns into a small,
JSON-serialisable result. :func:`run_batches` runs them

- on a local process pool (``executor="process"``, :class:`concurrent.futures.ProcessPoolExecutor`
  with ``workers`` processes; forked on Linux after the parent has loaded the compiled code,
  so workers start warm),
- as Ray tasks (``executor="ray"``: a local instance of ``workers`` CPUs, or a cluster at
  ``ray_address``, joined, checked and given the compiled engine by :mod:`training.cluster`;
  the same function, no other change),
- or in this process (``executor="serial"``),

and hands every result to a callback *in the driver* as soon as it arrives. The callers write
each result to its own file with :func:`write_json_atomic` (write to a temporary file in the
same folder, fsync, ``os.replace``), so a result file either exists whole or not at all: an
interrupted run loses only the batches still in flight, and a resumed run computes only the
batches whose files are missing.

Robustness, shared by the study and the tournament:

- pool workers die with the driver: each asks the kernel for SIGKILL when its parent dies
  (Linux ``prctl(PR_SET_PDEATHSIG)``; elsewhere a thread that watches the parent's pid), so a
  killed run (even SIGKILL) leaves no orphan processes; an error in the driver (a full disk)
  cancels the batches not yet started instead of waiting for them;
- :func:`lock_folder`: one run at a time per output folder, with an advisory lock
  (``fcntl.flock``) on ``<folder>/.lock`` that the kernel releases when the holder dies, so
  a second run or ``--resume`` is refused with the holder's pid, and a lock left by a killed
  run is recognised as stale and taken over;
- :func:`folder_errors`: file-system errors (full disk, read-only folder, a file where a
  folder should be) become one :class:`RunFolderError` line naming the folder and the file;
- :func:`check_size`: plans of more than :data:`MAX_BATCHES` batches, or batches of more than
  :data:`MAX_BATCH_GAMES` games, are refused before anything runs.

The run folder, shared by the study, the sweep and the tournament: :func:`default_run_folder`
names a new one, :func:`claim_run_folder` holds it and checks its record file (a new run
needs an empty folder, ``--resume`` one of the same design), :func:`results_folder` prepares
the folder of the result files, :func:`read_results` tells finished tasks from those to run
(again), :func:`log_event` appends to ``log.jsonl``, and :func:`write_frame` and
:func:`write_toml_atomic` write tables and specs atomically.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import json
import multiprocessing
import os
import pickle
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import tomli_w

from training.cluster import PROGRESS_BOARD, check_address, run_ray
from training.cluster import node_file as node_file  # where tasks read the driver's files
from uno_env import files

if TYPE_CHECKING:
    import pandas as pd

    from training.cluster import NodeReport

EXECUTORS = ("process", "ray", "serial")
"""Accepted ``executor`` names."""
MAX_BATCHES = 100_000
"""Most batches in one plan: their task objects and result files must fit (a plan of 10**15
games would otherwise build hundreds of millions of tasks before the first game)."""
MAX_BATCH_GAMES = 1_000_000
"""Most games in one batch: a batch's per-game arrays live in one worker's memory."""

T = TypeVar("T")
R = TypeVar("R")


def write_file_atomic(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write ``path`` atomically: ``write`` fills a temporary file in the same folder, which is
    flushed to disk and replaces ``path`` in one ``os.replace``, so readers see the old file or
    the complete new one (a kill leaves a ``.<name>.*.tmp`` file, :func:`results_folder`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def json_file_text(data: Any, *, compact: bool = False) -> str:
    """The text :func:`write_json_atomic` writes for ``data``: strict JSON
    (:func:`uno_env.files.json_text`), sorted keys, one value per line or with ``compact`` on
    one line, ending in a newline (what a file's recorded digest is taken of)."""
    return files.json_text(data, sort_keys=True, indent=None if compact else 1) + "\n"


def write_json_atomic(path: Path, data: Any, *, compact: bool = False) -> None:
    """Write ``data`` as JSON (:func:`json_file_text`) to ``path`` atomically
    (:func:`write_file_atomic`): one value per line, or with ``compact`` on one line (for
    result files of many thousand numbers: Python's JSON writer indents in Python code, five
    times slower than its compact writer in C)."""
    text = json_file_text(data, compact=compact)
    write_file_atomic(path, lambda handle: handle.write(text.encode("utf-8")))


def write_toml_atomic(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` as TOML to ``path`` atomically (through ``.<name>.tmp`` in the same folder)."""

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
    tmp.replace(path)


def write_frame(frame: pd.DataFrame, stem: Path, parquet: bool = True) -> None:
    """``stem.csv`` and, when ``parquet`` and pyarrow is installed, ``stem.parquet``; each
    written atomically (six decimals in the CSV)."""
    tmp = stem.with_name(f".{stem.name}.csv.tmp")
    frame.to_csv(tmp, index=False, float_format="%.6f", lineterminator="\n")
    tmp.replace(stem.with_suffix(".csv"))
    if parquet and importlib.util.find_spec("pyarrow") is not None:
        tmp = stem.with_name(f".{stem.name}.parquet.tmp")
        frame.to_parquet(tmp, index=False)
        tmp.replace(stem.with_suffix(".parquet"))


class RunFolderError(ValueError):
    """An output folder that cannot be used: locked by another run, or a file-system error."""


@contextlib.contextmanager
def folder_errors(folder: Path) -> Iterator[None]:
    """Turn a file-system error (full disk, read-only folder, ...) into one :class:`RunFolderError`
    line; a user's file that cannot be read (:class:`uno_env.files.FileError`) keeps its own."""
    try:
        yield
    except ConnectionError:  # a network error (a Ray cluster lost) is not the folder's
        raise
    except files.FileError:  # nor is a file a task reads (a missing policy file: its own message)
        raise
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        raise RunFolderError(
            f"cannot write the results in {folder}: {exc.strerror or exc}{where}; finished batches are "
            "kept: free space or fix the folder and continue with --resume"
        ) from None


@contextlib.contextmanager
def lock_folder(folder: Path, what: str) -> Iterator[None]:
    """Hold ``folder/.lock`` while the body runs; refuse if another live run holds it.

    The lock is ``fcntl.flock`` on the file, released by the kernel when its holder exits
    in any way (so a SIGKILLed run leaves a stale file, not a held lock); the file records
    the holder's pid, host and start time for the messages.
    """
    import fcntl

    path = folder / ".lock"
    handle: IO[str] = path.open("a+", encoding="utf-8")
    acquired = False
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise RunFolderError(
                f"{folder} is in use by another {what} run ({holder}); wait for it to finish, or stop it "
                "and continue with --resume"
            ) from None
        acquired = True
        handle.seek(0)
        stale = handle.read().strip()
        if stale:
            print(
                f"note: {folder} has the stale lock of a run that was killed ({stale}); taking it over",
                file=sys.stderr,
            )
        handle.seek(0)
        handle.truncate()
        started = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"pid {os.getpid()} on {socket.gethostname()}, started {started}\n")
        handle.flush()
        yield
    finally:
        if acquired:  # a run that ends in any way but a kill leaves an empty lock file
            with contextlib.suppress(OSError):
                handle.seek(0)
                handle.truncate()
        handle.close()


def make_run_folder(folder: Path, what: str) -> None:
    """Create the folder of a ``what`` run (and its parents) before anything runs; a path that
    cannot be one (a file there or above it, a folder that cannot be written) is one
    :class:`RunFolderError` line naming it, not a traceback nor a ``--resume`` of a run that
    never started."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        for path in (folder, *folder.parents):
            with contextlib.suppress(OSError):
                if path.exists() and not path.is_dir():
                    reason = f"{path} is a file, not a folder" if path == folder else f"{path} is a file"
                    break
        raise RunFolderError(
            f"cannot create the {what} folder {folder}: {reason}; allowed: a folder that can be created "
            "and written (nothing was run)"
        ) from None


@contextlib.contextmanager
def using_folder(folder: Path, what: str) -> Iterator[None]:
    """Create ``folder`` (:func:`make_run_folder`) and hold it for one ``what`` run
    (:func:`lock_folder`, :func:`folder_errors`)."""
    make_run_folder(folder, what)
    with folder_errors(folder), lock_folder(folder, what):
        yield


def default_run_folder(kind: str, *parts: object, root: Path = Path("runs")) -> Path:
    """A new run's folder: ``root/<kind>__<part>__...__<UTC time>``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return root / "__".join([kind, *(str(part) for part in parts), stamp])


@contextlib.contextmanager
def claim_run_folder(
    folder: Path,
    what: str,
    record: str,
    expected: Any,
    read: Callable[[Path], Any],
    *,
    resume: bool,
    error: type[Exception] = ValueError,
) -> Iterator[None]:
    """Hold ``folder`` for one ``what`` run (:func:`using_folder`) whose design is recorded in
    ``folder/record``.

    A new run needs a folder without that record; ``resume`` needs one whose record, read with
    ``read``, equals ``expected``. Otherwise ``error`` names the folder and the way out, and
    nothing is written.
    """
    path = folder / record
    missing = f"{folder} holds no {what} to resume (no {record})"
    a_what = f"{'an' if what[:1].lower() in 'aeiou' else 'a'} {what}"  # an atlas, a study
    if resume and not path.is_file():
        raise error(missing)
    with using_folder(folder, what):
        if path.exists():
            if not resume:
                raise error(f"{folder} already holds {a_what}; continue it with --resume {folder}")
            found = read(path)
            if found != expected:
                differs = _differing_keys(found, expected)
                raise error(
                    f"{folder} holds {a_what} of another design ({record} differs{differs}): resume it "
                    f"with its own {record}, or start a new {what} in a new folder"
                )
        elif resume:
            raise error(missing)
        yield


def _differing_keys(found: Any, expected: Any) -> str:
    """``": in a, b"``: the top-level keys whose values differ between two records (both
    dicts), so a refused resume says what changed; empty otherwise."""
    if not (isinstance(found, dict) and isinstance(expected, dict)):
        return ""
    keys = sorted(k for k in {*found, *expected} if found.get(k) != expected.get(k))
    return f": in {', '.join(map(str, keys))}" if keys else ""


AGENT_FILES = "agent_files.json"
"""A run folder's record of the SHA-256 of every file its agents read (:func:`check_agent_files`)."""
AGENT_FILE_LIMIT = 1 << 30
"""The largest agent file hashed (a checkpoint's own bound, :data:`agents.trust.CHECKPOINT_LIMIT`)."""


def check_agent_files(
    folder: Path, paths: Sequence[str], what: str, *, error: type[ValueError] = ValueError
) -> None:
    """Record the SHA-256 of the files a run's agents read (exported policies and their
    sidecars, checkpoints, ``FILE.py`` agents) in ``folder/agent_files.json``, or, when the
    record exists (a resume), refuse a file changed since the run started: the batches
    already played and those still to play would otherwise mix two agents under one name.
    A run from before the record starts it on resume."""
    if not paths:
        return
    digests = {
        path: files.file_sha256(path, AGENT_FILE_LIMIT, "agent file", error=error)
        for path in sorted(set(paths))
    }
    target = folder / AGENT_FILES
    changed = hold_digests(target, digests, "agent file digests", error=error)
    if changed:
        raise error(
            f"{folder}: agent file(s) {', '.join(changed)} changed since the {what} started (SHA-256 "
            f"recorded in {target}); allowed: the files it started with: restore them, or start a new "
            f"{what} in a new folder for the new agent"
        )


def hold_digests(
    target: Path, digests: Mapping[str, str], what: str, *, error: type[ValueError] = ValueError
) -> list[str]:
    """Keep a run's record of file digests (path -> SHA-256) in JSON file ``target``: write it
    when there is none (the run's start), else return the paths whose digest differs from the
    record, sorted (the caller refuses the resume). Paths the record lacks (a run from before
    they were recorded) join it when nothing changed."""
    if not target.exists():
        write_json_atomic(target, dict(digests))
        return []
    recorded = files.read_json_object(target, what, error=error)
    changed = sorted(path for path in digests if recorded.get(path, digests[path]) != digests[path])
    if not changed and set(digests) - set(recorded):
        write_json_atomic(target, {**recorded, **digests})
    return changed


def results_folder(folder: Path) -> Path:
    """Create the folder of a run's result files and delete the temporary files of writes cut
    short by a kill (:func:`write_json_atomic`); return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(".*.tmp"):
        stale.unlink()
    return folder


def read_results(
    tasks: Sequence[T], path_of: Callable[[T], Path], what: str, again: str
) -> tuple[list[tuple[T, Path, dict[str, Any]]], list[T]]:
    """The tasks' JSON result files: ``(task, path, result)`` for each readable one that
    records its design ``key`` (for the caller to check), and the tasks to run: those without
    a file, and those whose file is unreadable or has no key (cut short, or written by an older
    version), with a line on stderr: the file's one-line refusal (:mod:`uno_env.files`) or
    ``<what> <path> is not a result of this version ...``, then ``; <again>``."""
    found: list[tuple[T, Path, dict[str, Any]]] = []
    todo: list[T] = []
    for task in tasks:
        path = path_of(task)
        if not path.exists():
            todo.append(task)
            continue
        try:
            result = files.read_json(path, what, files.RESULT_LIMIT)
        except ValueError as exc:
            problem = str(exc)
        else:
            if isinstance(result, dict) and "key" in result:
                found.append((task, path, result))
                continue
            problem = f"{what} {path} is not a result of this version (no design key)"
        print(f"{problem}; {again}", file=sys.stderr)
        todo.append(task)
    return found, todo


def check_size(batches: int, largest_batch: int, what: str, advice: str) -> None:
    """Raise ValueError when a plan exceeds :data:`MAX_BATCHES` or :data:`MAX_BATCH_GAMES`."""
    if batches > MAX_BATCHES:
        raise ValueError(
            f"{what} would need {batches:,} batches; at most {MAX_BATCHES:,} are allowed "
            f"(batches of at most {MAX_BATCH_GAMES:,} games): {advice}"
        )
    if largest_batch > MAX_BATCH_GAMES:
        raise ValueError(
            f"{what} has batches of {largest_batch:,} games; at most {MAX_BATCH_GAMES:,} games per "
            f"batch are allowed: {advice}"
        )


def die_with_parent(parent: int) -> None:
    """Pool-worker initializer: exit when the driver process ``parent`` dies, however it dies.

    Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, then a check that the parent did not die
    before that call. Elsewhere: a daemon thread that polls the parent pid once a second.
    """
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: fall back to polling
            pass
        else:
            if os.getppid() != parent:
                os._exit(1)
            return

    def watch() -> None:  # pragma: no cover - not Linux
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="watch-parent").start()


def log_event(log: Path, event: str, **fields: Any) -> None:
    """Append ``{"event": event, **fields}`` as one JSON line to the run's log (:func:`append_line`)."""
    append_line(log, json.dumps({"event": event, **fields}))


def append_line(path: Path, line: str) -> None:
    """Append one whole line to ``path`` with a single ``os.write`` (a log, not results)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8"))
    finally:
        os.close(fd)


class Progress:
    """A one-line progress display on stderr: batches done, games, elapsed time and ETA."""

    def __init__(self, total: int, label: str = "batches", enabled: bool = True) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled
        self.done = 0
        self.games = 0
        self.start = time.perf_counter()
        self._tty = sys.stderr.isatty()

    def update(self, games: int) -> None:
        """Count one finished batch of ``games`` games and redraw the line."""
        self.done += 1
        self.games += games
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        line = (
            f"{self.done}/{self.total} {self.label}, {self.games:,} games, "
            f"{elapsed:.0f} s elapsed, ~{eta:.0f} s left"
        )
        if self._tty:
            end = "\n" if self.done == self.total else ""
            print(f"\r{line}   ", end=end, file=sys.stderr, flush=True)
        elif self.done == self.total or self.done % max(1, self.total // 20) == 0:
            print(line, file=sys.stderr, flush=True)

    @property
    def seconds(self) -> float:
        """Wall time since the display started."""
        return time.perf_counter() - self.start


def check_executor(executor: str, workers: int, ray_address: str | None = None) -> None:
    """Raise ValueError for an unknown executor, a worker count below 1, or a Ray cluster's
    address with another executor than ``"ray"`` (which would run the work here instead)."""
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; allowed: {', '.join(EXECUTORS)}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if ray_address is not None and executor != "ray":
        raise ValueError(
            f"--ray-address {ray_address} is only for --executor ray (the executor is {executor!r}, which "
            "runs the work on this machine): add --executor ray to run on the cluster, or drop --ray-address"
        )


def check_agents_reach_workers(
    agents: Sequence[Any], executor: str, *, error: type[ValueError] = ValueError
) -> None:
    """Raise ``error`` before anything runs for an agent object (``AgentSpec`` of kind
    ``object``) that cannot reach worker processes: the process pool pickles each task with its
    agents, and a class or function defined at a module's top level pickles by name, a lambda
    or a class or function defined inside another does not. Serial runs keep everything in
    this process and Ray pickles functions by value (cloudpickle), so only
    ``executor="process"`` is checked."""
    if executor != "process":
        return
    for agent in agents:
        if getattr(agent, "kind", None) != "object":
            continue
        try:
            pickle.dumps(agent.obj)
        except Exception as exc:  # pickling raises whatever the object's reduction raises
            raise error(
                f"agent {agent.text!r} cannot be sent to the worker processes ({type(exc).__name__}: {exc}); "
                "define it (a class, or a function returning an agent) at the top level of a module, or "
                "run with executor='serial'"
            ) from None


def workers_for(executor: str, workers: int | None, ray_address: str | None = None) -> int:
    """The worker count of a run (``None``: :func:`default_workers`), checked with the executor
    and the Ray address (:func:`check_executor`)."""
    workers = default_workers() if workers is None else workers
    check_executor(executor, workers, ray_address)
    if ray_address is not None and ray_address != "auto":
        # before a job writes anything to its folder: a cluster refused later would leave a spec
        # behind, and the same --out would then ask for --resume
        check_address(ray_address)
    return workers


def default_workers() -> int:
    """Worker processes by default: the CPU cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def report_progress(key: str, value: Any) -> None:
    """From a task: tell the driver how far it is (``run_batches(on_progress=...)`` gets
    ``key, value`` in the driver, the latest value per key, about once a second).

    For Ray tasks, whose folders the driver does not see. Elsewhere (the process pool,
    serial) this does nothing: there the driver reads the task's files itself.
    """
    if PROGRESS_BOARD:
        PROGRESS_BOARD[0].put.remote(key, value)


def run_batches(
    function: Callable[[T], R],
    tasks: Sequence[T],
    on_result: Callable[[R], None],
    *,
    executor: str = "process",
    workers: int = 1,
    ray_address: str | None = None,
    warm_up: Callable[[], None] | None = None,
    files: Sequence[str] = (),
    progress: bool = False,
    on_progress: Callable[[str, Any], None] | None = None,
) -> list[NodeReport]:
    """Run ``function`` on every task and call ``on_result`` in this process as each finishes.

    This is the one executor API of the long jobs (the study, the sweep, the transfer matrix,
    the tournament): a job turns its work into picklable tasks and a top-level function, and
    writes each result in ``on_result``; where the tasks run is the caller's choice.

    Args:
        function: A top-level (picklable) function of one task. Its module must be importable
            where the task runs (the package installed on every Ray node), and it must not
            rely on files of the driver: what it needs travels in the task, what it makes in
            the result (results come back to the driver; no shared folder is needed).
        tasks: The batches to run; results arrive in completion order, not task order.
        on_result: Called in the driver with each result (write it to disk here). An
            exception here stops the run: the tasks not yet started are dropped.
        executor: ``"process"``, ``"ray"`` or ``"serial"`` (see the module docstring).
        workers: Processes of the local pool, or CPUs of a local Ray instance.
        ray_address: Address of an existing Ray cluster (:mod:`training.cluster`: checked,
            authenticated, the compiled engine shipped); ``None`` starts a local instance
            with ``num_cpus=workers``.
        warm_up: Called once in the driver before the tasks start: before a process pool
            forks (workers start warm), and before a Ray job ships the driver's compiled
            engine to the nodes. Compile there what the tasks run.
        files: Files of the driver the tasks read (:func:`node_file`): sent to the Ray
            nodes with the run.
        progress: Print the Ray cluster's nodes at the start and what each did at the end.
        on_progress: Called in the driver with what Ray tasks send with
            :func:`report_progress` (``key, value``), while they run.

    Returns:
        One :class:`training.cluster.NodeReport` per Ray node (tasks, compiles), or ``[]``
        for the local executors.
    """
    check_executor(executor, workers, ray_address)
    if not tasks:
        return []
    if executor == "serial" or (executor == "process" and (workers == 1 or len(tasks) == 1)):
        for task in tasks:
            on_result(function(task))
        return []
    if executor == "process":
        if warm_up is not None:
            warm_up()
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        pool = ProcessPoolExecutor(
            max_workers=min(workers, len(tasks)),
            mp_context=context,
            initializer=die_with_parent,
            initargs=(os.getpid(),),
        )
        try:
            pending: set[Future[R]] = {pool.submit(function, task) for task in tasks}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=id):
                    on_result(future.result())
        except BaseException:
            # an error here (a full disk, Ctrl-C, a failed batch): drop the batches not yet
            # started rather than computing them all before the error is reported
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return []
    if warm_up is not None:
        warm_up()
    return run_ray(
        function,
        tasks,
        on_result,
        workers=workers,
        address=ray_address,
        files=files,
        progress=progress,
        on_progress=on_progress,
    )

"""The ``"ray"`` executor: batches as Ray tasks, on a local Ray instance or a cluster.

:func:`run_ray` is what :func:`training.runner.run_batches` calls for ``executor="ray"``.
With no address it starts a local instance (``ray.init(address="local", num_cpus=workers)``:
never a cluster that happens to run on the machine). With an address it joins that cluster,
in this order, and ends with one :class:`ClusterError` line at the first thing that fails:

1. **The address.** ``host:port`` of the head (its GCS port, ``ray start --head --port``).
   Ray replaces ``127.0.0.1`` and ``localhost`` with the machine's network address, in
   ``ray start`` and in ``ray.init`` alike, so a cluster on one machine that must stay on
   loopback runs on the other loopback addresses (``127.0.0.2``, ...); those are refused here
   with that advice rather than silently used as another address. For a loopback head the
   driver's own node address is pinned to the same host (``ray.init(_node_ip_address=...)``),
   and every node the cluster reports must be on loopback too.
2. **Can it be reached.** A TCP connection to the head's port (a few seconds), instead of
   Ray's 20 to 40 s of retries before a generic ``ConnectionError``.
3. **Authentication.** Ray's token authentication (``RAY_AUTH_MODE=token``) is on by default
   for clusters started by Ray 2.59 and later whenever a token exists. The driver uses the
   token the way Ray documents it (``RAY_AUTH_TOKEN``, else the file named by
   ``RAY_AUTH_TOKEN_PATH``, else ``~/.ray/auth_token``); Ray itself sends it only when
   ``RAY_AUTH_MODE=token`` is set or the address is ``auto``, so when a token exists and
   ``RAY_AUTH_MODE`` is unset, this sets it (a cluster without authentication accepts a
   token). A refusal names where the token came from, or that there is none.
4. **Versions.** The cluster's Ray and Python versions (from its GCS) must equal the
   driver's, as Ray requires; a mismatch names both.
5. **Every node.** A small task pinned to each live node (:mod:`training.node_check`, sent
   by value so it runs where the package is missing) reports the node's address, versions,
   package and compiled engine. A node without the package, of another package source, or
   not on loopback when the head is, is refused by name.

**The compiled engine.** The driver compiles (or loads) what the run needs first, then
ships its compiled engine with the job's runtime environment (``py_modules``: Ray uploads it
once and unpacks it once per node): each node's first task copies it into the node's own
cache directory when it fits (same package source, numba, Python, machine and code target:
:func:`uno_env.compiler.cache.seed_from_compiled_engine`), so nodes load the engine instead of
compiling it. A wheel's own compiled engine serves as well. Every task counts what numba
compiled in it, and the run ends with one line per node: tasks run, functions compiled and
the time spent compiling, and what became of the shipped engine.

**Results and failures.** Each task's result travels back to the driver, which writes it
(no shared folder needed). Ray re-runs a task whose worker or node died
(:data:`TASK_RETRIES` times); the driver writes each task's result once, when its task
finishes, so nothing is lost or counted twice. A failure beyond that, or a driver killed
mid-run, keeps every finished result for ``--resume``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import io
import ipaddress
import json
import logging
import os
import re
import shutil
import socket
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from agents.spec import set_file_resolver
from training import node_check
from training.node_check import SHIPPED_ENGINE_MODULE, seed_shipped_engine
from uno_env.compiler import cache as _cache

SHIPPED_FILES: dict[str, Any] = {}
"""In a Ray task: the driver's files sent with the run (path -> object ref), read through
:func:`node_file`."""
PROGRESS_BOARD: list[Any] = []
"""In a Ray task of a run that follows progress: the driver's progress board
(:func:`training.runner.report_progress`)."""
DRIVER_FOLDERS: list[tuple[str, str]] = []
"""In a Ray task: the driver's working folder and home, which the relative and ``~`` paths the
task names are relative to (:func:`driver_path`)."""


def node_file(path: str | Path) -> Path:
    """Where this process finds the driver's file ``path`` (also :func:`training.runner.node_file`).

    A task reads the files the driver names (a checkpoint, a sweep's trained model) through
    this: in the driver's own processes (the process pool, serial) it is ``path`` itself; in
    a Ray task it is the node's copy of a file given to :func:`training.runner.run_batches` in
    ``files`` (sent by the driver, so the nodes need no shared folder), or ``path`` for other files.
    """
    key = str(path)
    if key not in SHIPPED_FILES and DRIVER_FOLDERS:
        # a task names the driver's files as the user wrote them (runs/p.npz, mine.py): relative
        # to the driver's folder, not the node's, which is where `ray start` ran
        key = driver_path(key, *DRIVER_FOLDERS[0])
    if key not in SHIPPED_FILES:
        return Path(path)
    return materialize(key, SHIPPED_FILES)


def driver_path(path: str, cwd: str, home: str) -> str:
    """``path`` of the driver as an absolute, normalised path: ``~`` is the driver's ``home``, a
    relative path is relative to the driver's working folder ``cwd`` (the key a shipped file is
    sent under, computed alike on the driver and on a node)."""
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return os.path.normpath(os.path.join(cwd, path))


def driver_folders() -> tuple[str, str]:
    """This process's working folder and home: what the driver's relative and ``~`` paths mean."""
    return os.getcwd(), os.path.expanduser("~")


T = TypeVar("T")
R = TypeVar("R")

TASK_RETRIES = 3
"""How often Ray runs a task again after its worker process or node died."""
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the head's port to accept a TCP connection."""
REWRITTEN_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Hosts Ray replaces with the machine's network address (``ray._private.services.
resolve_ip_for_localhost``, in ``ray start`` and ``ray.init``)."""
NODE_ALIVE = 0
"""The state of a live node in the GCS's node table (``GcsNodeInfo.GcsNodeState.ALIVE``)."""
PACKAGE_MODULES = ("uno_env", "training", "agents")
"""This project's top-level packages (an import error naming one means a node lacks it)."""


class ClusterError(ValueError):
    """The Ray cluster cannot run this job: one line naming what failed and what to do."""


# ================================================================ the address
def parse_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` for IPv6) of a Ray head; :class:`ClusterError` otherwise."""
    text = address.strip()
    advice = (
        "give HOST:PORT, the host and the GCS port of `ray start --head --port=PORT` (ray status on the "
        "head prints it), or 'auto' for the cluster started last on this machine"
    )
    scheme, found, _ = text.partition("://")
    if found:
        kind = "a Ray Client address (ray://), which uno-env does not use" if scheme == "ray" else "a URL"
        raise ClusterError(f"--ray-address {address!r} is {kind}, not the address of a Ray head: {advice}")
    host, sep, port = text.rpartition(":")
    bracketed = host.startswith("[") and host.endswith("]")
    host = host[1:-1] if bracketed else host
    # a host is a name or an IP address; an IPv6 address is written in brackets ([::1]:6379)
    plain_host = re.fullmatch(r"[A-Za-z0-9._-]+", host) is not None
    if not (plain_host or (bracketed and re.fullmatch(r"[0-9A-Fa-f:.]+", host))):
        host = ""
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"--ray-address {address!r} is not an address of a Ray head: {advice}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an IP address or a name) is this machine's loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_loopback_host(host: str, port: int) -> None:
    """Refuse the loopback hosts Ray would replace by the machine's network address."""
    if host in REWRITTEN_HOSTS:
        raise ClusterError(
            f"--ray-address {host}:{port}: Ray replaces {host} with this machine's network address (in "
            "ray start and ray.init alike), so the cluster would not stay on loopback; start the nodes "
            "on another loopback address (ray start --head --node-ip-address=127.0.0.2 --port="
            f"{port} ...) and give --ray-address 127.0.0.2:{port}"
        )


def check_reachable(host: str, port: int, timeout: float = CONNECT_TIMEOUT) -> None:
    """A TCP connection to the head's port, or :class:`ClusterError` saying why not."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise ClusterError(
            f"cannot connect to the Ray cluster at {host}:{port} ({why} within {timeout:.0f} s): start it "
            f"with `ray start --head --node-ip-address={host} --port={port}`, or give the address its head "
            "prints (ray status on the head)"
        ) from None


def check_address(address: str) -> tuple[str, int]:
    """The head's ``(host, port)`` of a cluster address (not ``"auto"``), checked as far as it can
    be without Ray: well formed, a loopback host Ray keeps, a port that accepts a connection.
    :class:`ClusterError` otherwise."""
    host, port = parse_address(address)
    if is_loopback(host):
        check_loopback_host(host, port)
    check_reachable(host, port)
    return host, port


# ================================================================ authentication
def token_source() -> str | None:
    """Where Ray would read this process's authentication token from (None: no token).

    Ray's own order: ``RAY_AUTH_TOKEN``, then the file ``RAY_AUTH_TOKEN_PATH``, then
    ``~/.ray/auth_token``.
    """
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    if path:
        return f"RAY_AUTH_TOKEN_PATH={path}"
    default = Path.home() / ".ray" / "auth_token"
    if default.is_file() and default.stat().st_size > 0:
        return str(default)
    return None


def use_token_if_present() -> str | None:
    """Send the token Ray finds (:func:`token_source`) when connecting to an address.

    Ray sends it only under ``RAY_AUTH_MODE=token`` (or for ``address="auto"``); when the
    mode is unset and a token exists, set it, as a cluster without authentication accepts a
    token too. An explicit ``RAY_AUTH_MODE`` is kept. Returns the token's source.
    """
    source = token_source()
    if source is not None and not os.environ.get("RAY_AUTH_MODE"):
        os.environ["RAY_AUTH_MODE"] = "token"
        # Ray reads its settings once per process: re-read them, as Ray does when it turns
        # token authentication on itself (authentication_token_setup._enable_token_auth)
        with contextlib.suppress(ImportError, AttributeError):
            raylet: Any = importlib.import_module("ray._raylet")
            raylet.Config.initialize("")
            raylet.AuthenticationTokenLoader.instance().reset_cache()
    return source


def _auth_error(address: str, source: str | None) -> ClusterError:
    mode = os.environ.get("RAY_AUTH_MODE", "")
    if source is None or mode.lower() != "token":
        had = "no token was found (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token)"
        if source is not None:
            had = f"RAY_AUTH_MODE={mode} keeps the token of {source} from being sent"
    else:
        had = f"the token of {source} was refused"
    return ClusterError(
        f"not authenticated by the Ray cluster at {address}: it uses token authentication and {had}; "
        "copy the head's token (`ray get-auth-token` on the head prints it) to ~/.ray/auth_token here, "
        "or set RAY_AUTH_TOKEN_PATH=FILE"
    )


def check_cluster(address: str, source: str | None, pinned: str | None = None) -> dict[str, str]:
    """Authenticate with the head's GCS and compare its Ray and Python versions with this process's.

    ``pinned``: the node address the driver is pinned to (a loopback head's host), at which a
    live node must run: the driver joins the cluster through the node at its own address, and
    ``ray.init`` would otherwise wait a minute for one and fail with a generic message.
    Uses Ray's GCS client directly (fast, and its errors say what failed); a Ray whose client
    differs skips these checks and lets ``ray.init`` report (see :func:`connect_error`).
    Returns the cluster's metadata (``ray_version``, ``python_version``), or ``{}``.
    """

    import ray

    try:
        gcs_client: Any = importlib.import_module("ray._raylet").GcsClient
        from ray.exceptions import AuthenticationError
    except (ImportError, AttributeError):  # pragma: no cover - another Ray layout: ray.init's own errors
        return {}
    try:
        client = gcs_client(address=address)
        raw = client.internal_kv_get(b"CLUSTER_METADATA", namespace=b"cluster", timeout=CONNECT_TIMEOUT)
    except AuthenticationError:
        raise _auth_error(address, source) from None
    except TypeError:  # pragma: no cover - another Ray's client signature
        return {}
    except Exception as exc:
        raise ClusterError(f"cannot connect to the Ray cluster at {address}: {_first_line(exc)}") from None
    if pinned is not None:
        _check_pinned_node(client, address, pinned)
    if not raw:
        return {}
    metadata = json.loads(raw)
    here = (ray.__version__, ".".join(str(part) for part in sys.version_info[:3]))
    there = (str(metadata.get("ray_version")), str(metadata.get("python_version")))
    if here != there:
        raise ClusterError(
            f"version mismatch: the Ray cluster at {address} runs Ray {there[0]} on Python {there[1]}, this "
            f"driver Ray {here[0]} on Python {here[1]}; Ray needs the same versions on the driver and every "
            f"node: pip install 'ray=={there[0]}' here (uno-env[ray] allows the range it was tested with), "
            "or start the cluster with this environment"
        )
    return {"ray_version": there[0], "python_version": there[1]}


def _check_pinned_node(client: Any, address: str, host: str) -> None:
    """:class:`ClusterError` unless a live node of the cluster runs at ``host`` (:func:`check_cluster`)."""
    try:
        nodes = client.get_all_node_info(timeout=CONNECT_TIMEOUT)
    except Exception:  # another Ray's client, or no answer: ray.init reports
        return
    alive = sorted({str(n.node_manager_address) for n in nodes.values() if n.state == NODE_ALIVE})
    if alive and host not in alive:
        port = address.rpartition(":")[2]
        raise ClusterError(
            f"the Ray cluster at {address} has no node at {host} (its nodes: {', '.join(alive)}); on "
            f"loopback the driver joins through the node at the address's host: give --ray-address "
            f"{alive[0]}:{port} (a node's --node-ip-address, the head's --port)"
        )


def _first_line(exc: BaseException, limit: int = 300) -> str:
    """An exception as one line: its type and its message's lines joined (at most ``limit``
    characters of them)."""
    text = " ".join(str(exc).split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}".rstrip(": ")


def connect_error(address: str, exc: BaseException, source: str | None) -> ClusterError:
    """One line for an error of ``ray.init(address=...)``, by kind."""
    text = str(exc)
    if "uthenticat" in text or "InvalidAuthToken" in text:
        return _auth_error(address, source)
    if "ersion mismatch" in text:
        return ClusterError(f"version mismatch with the Ray cluster at {address}: {_first_line(exc)}")
    return ClusterError(f"cannot connect to the Ray cluster at {address}: {_first_line(exc)}")


# ================================================================ the compiled engine
@contextlib.contextmanager
def shipped_engine() -> Iterator[tuple[str | None, str]]:
    """The driver's compiled engine as a ``py_modules`` folder for the job's runtime environment.

    Yields the folder (None: nothing to ship) and a note saying what is shipped or why not.
    The folder lives until the context ends (``ray.init`` uploads it). ``UNO_ENV_SHIP_ENGINE=0``
    ships nothing (nodes use their own: a wheel's compiled engine, or they compile).
    """

    if os.environ.get("UNO_ENV_SHIP_ENGINE", "1") == "0":
        yield None, "the driver's compiled engine is not shipped (UNO_ENV_SHIP_ENGINE=0)"
        return
    with tempfile.TemporaryDirectory(prefix="uno_env-engine-") as tmp:
        package = Path(tmp) / SHIPPED_ENGINE_MODULE
        package.mkdir()
        (package / "__init__.py").write_text(
            '"""The compiled uno_env engine a Ray job ships to its nodes (training.cluster)."""\n',
            encoding="utf-8",
        )
        try:
            manifest = _cache.write_compiled_engine(package / "compiled")
        except (ValueError, OSError) as exc:
            yield (
                None,
                f"the driver's compiled engine is not shipped ({_first_line(exc)}); nodes compile their own",
            )
            return
        size = sum(path.stat().st_size for path in package.rglob("*") if path.is_file())
        parts = ", ".join(manifest.get("parts", [])) or "no part marked warm"
        yield (
            str(package),
            f"the driver's compiled engine ({parts}; {size / 2**20:.1f} MiB) ships with the job",
        )


# ================================================================ on the nodes
class _CompileCounter:
    """Counts what numba compiles in this process, and the wall time of the outermost compiles."""

    def __init__(self) -> None:
        self.functions = 0
        self.seconds = 0.0
        self._depth = 0
        self._start = 0.0
        self._lock = threading.Lock()

    def on_start(self, event: Any) -> None:
        with self._lock:
            self.functions += 1
            if self._depth == 0:
                self._start = time.perf_counter()
            self._depth += 1

    def on_end(self, event: Any) -> None:
        with self._lock:
            self._depth = max(0, self._depth - 1)
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._start


_NODE_STATE: dict[str, Any] = {}


def _node_state() -> dict[str, Any]:
    """Once per worker process: seed the shipped engine, start counting compiles."""
    if not _NODE_STATE:
        import ray
        from numba.core import event

        counter = _CompileCounter()
        listener = type(
            "CountCompiles", (event.Listener,), {"on_start": counter.on_start, "on_end": counter.on_end}
        )
        event.register("numba:compile", listener())
        _NODE_STATE.update(
            engine=seed_shipped_engine(), counter=counter, address=ray.util.get_node_ip_address()
        )
    return _NODE_STATE


def run_on_node(
    function: Callable[[T], R],
    task: T,
    files: dict[str, Any],
    board: Any = None,
    driver: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """One Ray task: ``function(task)`` after :func:`_node_state`; the result and what compiled.

    ``files`` maps the driver's absolute paths (:func:`driver_path`) to object refs of their
    bytes (:func:`node_file`); ``board`` is the driver's progress board
    (:func:`training.runner.report_progress`); ``driver`` the driver's working folder and home
    (:func:`driver_folders`).
    """
    state = _node_state()
    counter: _CompileCounter = state["counter"]
    functions, seconds = counter.functions, counter.seconds
    SHIPPED_FILES.clear()
    SHIPPED_FILES.update(files)
    DRIVER_FOLDERS[:] = [] if driver is None else [driver]
    set_file_resolver(node_file)  # agent specs read the driver's files from the node's copies
    PROGRESS_BOARD[:] = [] if board is None else [board]
    result = function(task)
    return {
        "result": result,
        "address": state["address"],
        "engine": state["engine"],
        "compiled": counter.functions - functions,
        "compile_seconds": counter.seconds - seconds,
    }


# ================================================================ the driver
@dataclass
class NodeReport:
    """What one node did in a run: tasks finished, functions compiled, time spent compiling."""

    address: str
    engine: str = ""
    tasks: int = 0
    compiled: int = 0
    compile_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        """``node 127.0.0.3: 12 tasks, nothing compiled (shipped engine: used)``."""
        work = (
            "nothing compiled"
            if self.compiled == 0
            else f"compiled {self.compiled} functions in {self.compile_seconds:.1f} s"
        )
        return (
            f"node {self.address}: {self.tasks} tasks, {work} (compiled engine: {self.engine or 'unknown'})"
        )


def materialize(path: str, files: dict[str, Any]) -> Path:
    """The node's copy of the driver's file ``path`` (``files``: driver path -> object ref).

    The files of one driver folder land in one folder of the node, together (a checkpoint
    finds its metadata beside it), under the temporary directory, each written once per node
    through a temporary name and a rename.
    """

    import ray

    def local(name: str) -> Path:
        parent = hashlib.sha256(str(Path(name).parent).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / "uno_env-shipped" / parent / Path(name).name

    wanted = local(path)
    for name, ref in files.items():
        target = local(name)
        if target.parent != wanted.parent:
            continue
        data = ray.get(ref)
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        staging.write_bytes(data)
        os.replace(staging, target)
    return wanted


def _fail_on_nodes(nodes: list[dict[str, Any]], driver_source: str, loopback: bool, address: str) -> None:
    """Refuse nodes without the package, of other source, or off loopback (by address)."""
    for node in nodes:
        where = f"node {node['address']} of the Ray cluster at {address}"
        if "error" in node:
            raise ClusterError(
                f"{where} cannot import uno_env ({node['error']}, Python {node['executable']}): install the "
                "same uno-env on every node (pip install 'uno-env[ray]' of this version) before ray start"
            )
        if node["source"] != driver_source:
            raise ClusterError(
                f"{where} runs uno-env {node['package']} with another engine source (digest "
                f"{node['source']}, this driver {driver_source}): install the same uno-env version on "
                "every node, so every node plays the same rules"
            )
        if loopback and not is_loopback(node["address"]):
            raise ClusterError(
                f"{where} is not on loopback although the head is: start every node with a loopback "
                "--node-ip-address (127.0.0.2, 127.0.0.3, ...)"
            )


def probe_nodes() -> list[dict[str, Any]]:
    """:func:`training.node_check.describe_node` on every live node of the connected cluster.

    A node the cluster still lists as alive but that has left (a killed node is listed until
    the head's health check gives up on it) cannot take the task pinned to it: it is left out,
    as it will be of the run.
    """
    import ray
    import ray.exceptions as rex
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ray.cloudpickle.register_pickle_by_value(node_check)
    try:
        describe: Any = ray.remote(num_cpus=0, max_retries=0)(node_check.describe_node)
        refs = [
            describe.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
            ).remote()
            for node in ray.nodes()
            if node["Alive"]
        ]
        nodes = []
        for ref in refs:
            try:
                nodes.append(ray.get(ref))
            except rex.TaskUnschedulableError:
                continue
        return nodes
    finally:
        ray.cloudpickle.unregister_pickle_by_value(node_check)


def _task_error(exc: BaseException, address: str | None) -> BaseException:
    """A failed Ray task's error as this project reports it: the task's own exception, or one line."""
    import ray.exceptions as rex

    cause = getattr(exc, "cause", None)
    if isinstance(exc, rex.RayTaskError) and isinstance(cause, BaseException):
        if isinstance(cause, ModuleNotFoundError) and (cause.name or "").split(".")[0] in PACKAGE_MODULES:
            return ClusterError(
                f"a node of the Ray cluster cannot import {cause.name}: install the same uno-env on every "
                "node"
            )
        return cause
    where = f"the Ray cluster at {address}" if address else "the local Ray instance"
    kind = type(exc).__name__
    if isinstance(exc, rex.WorkerCrashedError | rex.NodeDiedError | rex.ObjectLostError | rex.OwnerDiedError):
        return ClusterError(
            f"a task failed on {where} after {TASK_RETRIES} retries ({kind}: a node or worker died); "
            "finished results are kept: continue with --resume"
        )
    if isinstance(exc, rex.RaySystemError | rex.RpcError | ConnectionError):
        return ClusterError(
            f"lost {where} ({_first_line(exc)}); finished results are kept: continue with --resume"
        )
    return exc


def _connect(address: str | None, workers: int, progress: bool) -> tuple[bool, list[dict[str, Any]]]:
    """``ray.init`` for :func:`run_ray`; returns whether this call started Ray, and for a
    cluster what each node reported (:func:`probe_nodes`)."""

    import ray

    if ray.is_initialized():
        return False, []
    if address is None:
        ray.init(
            address="local",
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
        return True, []

    options: dict[str, Any] = {}
    loopback = False
    label = address
    source = use_token_if_present()
    if address != "auto":
        host, port = check_address(address)
        loopback = is_loopback(host)
        if loopback:
            options["_node_ip_address"] = host
        label = f"{host}:{port}"
        check_cluster(label, source, pinned=host if loopback else None)
    with shipped_engine() as (package, note):
        if package is not None:
            options["runtime_env"] = {"py_modules": [package]}
        try:
            with _quiet_ray_logs():
                ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING, **options)
        except (ClusterError, KeyboardInterrupt):
            raise
        except Exception as exc:
            raise connect_error(label, exc, source) from None
    try:
        nodes = probe_nodes()
        _fail_on_nodes(nodes, _cache.SOURCE_DIGEST, loopback, label)
    except BaseException:
        ray.shutdown()
        raise
    if progress:
        print(f"Ray cluster at {label}: {len(nodes)} nodes; {note}", file=sys.stderr)
        for node in sorted(nodes, key=lambda n: n["address"]):
            print(
                f"  node {node['address']}: uno-env {node['package']}, Ray {node['ray']}, Python "
                f"{node['python']}; compiled engine: {node['engine']}",
                file=sys.stderr,
            )
    return True, nodes


@contextlib.contextmanager
def _quiet_ray_logs() -> Iterator[None]:
    """Keep Ray's INFO lines (connecting, uploading the runtime environment) off the driver's stderr."""

    loggers = [logging.getLogger(name) for name in ("ray", "ray._private.runtime_env.packaging")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _progress_board() -> Any:
    """A Ray actor holding the latest value per key that tasks report (no CPU of its own)."""
    import ray

    class ProgressBoard:
        def __init__(self) -> None:
            self.values: dict[str, Any] = {}

        def put(self, key: str, value: Any) -> None:
            self.values[key] = value

        def take(self) -> dict[str, Any]:
            values, self.values = self.values, {}
            return values

    return ray.remote(num_cpus=0)(ProgressBoard).remote()


def run_ray(
    function: Callable[[T], R],
    tasks: Sequence[T],
    on_result: Callable[[R], None],
    *,
    workers: int,
    address: str | None,
    files: Sequence[str] = (),
    progress: bool = False,
    on_progress: Callable[[str, Any], None] | None = None,
) -> list[NodeReport]:
    """One Ray task per item of ``tasks``; ``on_result`` in the driver as each finishes.

    ``address``: a cluster (see the module docstring), or None for a local instance of
    ``workers`` CPUs. ``files``: files of the driver the tasks read; each is sent once to
    the cluster's object store, and a task finds its node's copy with
    :func:`training.runner.node_file`. ``on_progress``: gets what tasks report with
    :func:`training.runner.report_progress` while they run.
    Returns what each node did (one :class:`NodeReport` per node address), also printed
    when ``progress``.
    """
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - the ray extra is optional
        raise ValueError("--executor ray needs Ray: pip install -e '.[ray]'") from exc
    started, nodes = _connect(address, workers, progress)
    reports = {node["address"]: NodeReport(node["address"], engine=node["engine"]) for node in nodes}
    try:
        driver = driver_folders()
        shipped = {
            driver_path(str(path), *driver): ray.put(Path(path).read_bytes()) for path in dict.fromkeys(files)
        }
        board = _progress_board() if on_progress is not None else None
        remote: Any = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False)(run_on_node)
        pending = [remote.remote(function, task, shipped, board, driver) for task in tasks]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=None if board is None else 1.0)
                if board is not None and on_progress is not None:
                    for key, value in ray.get(board.take.remote()).items():
                        on_progress(key, value)
                for ref in done:
                    try:
                        envelope = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        raise _task_error(exc, address) from None
                    report = reports.setdefault(
                        envelope["address"], NodeReport(envelope["address"], engine=envelope["engine"])
                    )
                    report.tasks += 1
                    report.compiled += envelope["compiled"]
                    report.compile_seconds += envelope["compile_seconds"]
                    on_result(envelope["result"])
        except BaseException:
            for ref in pending:  # a driver error (a full disk, Ctrl-C): drop the tasks not yet done
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
    finally:
        if started:
            ray.shutdown()
    if progress and address is not None:
        for report in sorted(reports.values(), key=lambda r: r.address):
            print(report.line(), file=sys.stderr)
    return sorted(reports.values(), key=lambda r: r.address)


def ship_folder(folder: Path) -> bytes:
    """``folder`` as an uncompressed tar archive (names relative to it), to send between nodes."""

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for path in sorted(folder.rglob("*")):
            archive.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return buffer.getvalue()


def unpack_folder(data: bytes, folder: Path) -> None:
    """Unpack a :func:`ship_folder` archive into ``folder``, replacing it whole (through a
    temporary sibling and renames, so a kill leaves the old folder or the new one)."""

    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r") as archive:
            archive.extractall(staging, filter="data")
        old = folder.with_name(f".{folder.name}.old")
        if old.exists():
            shutil.rmtree(old)
        if folder.exists():
            os.replace(folder, old)
        os.replace(staging, folder)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def ray_available() -> bool:
    """Whether Ray is installed (the ``ray`` extra)."""
    return importlib.util.find_spec("ray") is not None

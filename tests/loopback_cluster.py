"""A real multi-node Ray cluster on loopback addresses, started with ``ray start`` (tests, benchmarks).

Every node is a ``ray start --block`` process of its own session, so stopping one (SIGTERM)
or killing it (SIGKILL to its process group: raylet and workers) touches nothing else on the
machine; ``ray stop`` would stop every Ray instance of the user. Each cluster keeps its
session files in its own ``--temp-dir`` (so no ``ray.init()`` elsewhere on the machine finds
it), picks free ports on its own loopback addresses, and turns Ray's usage statistics off.
Nodes run with the environment given (``HOME``, ``RAY_AUTH_MODE``, ``UNO_ENV_CACHE_DIR``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent
"""This environment's scripts (``ray``, ``uno-env``)."""


def free_port(host: str) -> int:
    """A TCP port nothing listens on at ``host`` (bound and released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class LoopbackCluster:
    """``ray start`` nodes on loopback addresses; :meth:`run` adds the per-test options."""

    root: Path
    env: dict[str, str]
    nodes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    address: str = ""

    @property
    def temp_dir(self) -> Path:
        """Ray's session files (short: Ray's socket paths must fit in 107 characters)."""
        return self.root / "t"

    def start(
        self,
        command: str,
        *,
        extra_env: Mapping[str, str] | None = None,
        python: Path | None = None,
        timeout: float = 120,
    ) -> str:
        """Start the node of ``command`` (``ray start ...``, as a user types it) and wait until it
        is up; returns its node address. Adds ``--block`` (the process is the node), its own
        ``--temp-dir`` for the head, and free ports for what ``ray start`` would otherwise bind
        at fixed ports (the ray client server, the dashboard agent). ``python``: the interpreter
        that runs ``ray start`` (its workers run on it too); default: this one's ``ray``."""
        argv = shlex.split(command)
        assert argv[:2] == ["ray", "start"], command
        host = next(a.split("=", 1)[1] for a in argv if a.startswith("--node-ip-address="))
        if python is None:
            argv[0] = str(BIN / "ray")
        else:
            argv[:1] = [
                str(python),
                "-c",
                "import sys; from ray.scripts.scripts import main; sys.argv[0] = 'ray'; main()",
            ]
        argv += ["--block", f"--dashboard-agent-listen-port={free_port(host)}"]
        if "--head" in argv:
            argv += [f"--temp-dir={self.temp_dir}", f"--ray-client-server-port={free_port(host)}"]
        log = (self.root / f"node-{host}.log").open("wb")
        process = subprocess.Popen(
            argv,
            env={**self.env, **(extra_env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=self.root,
        )
        self.nodes[host] = process
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = (self.root / f"node-{host}.log").read_text(errors="replace")
            if "Ray runtime started" in text:
                return host
            if process.poll() is not None:
                break
            time.sleep(0.5)
        raise RuntimeError(f"ray start on {host} did not come up:\n{text[-3000:]}")

    def kill(self, host: str) -> None:
        """SIGKILL a node's process group (the ``ray start`` process, its raylet and workers)."""
        process = self.nodes.pop(host)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        """Stop every node this cluster started (workers first, then the head)."""
        for host in reversed(list(self.nodes)):
            process = self.nodes.pop(host)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@contextlib.contextmanager
def loopback_cluster(root: Path, env: Mapping[str, str]) -> Iterator[LoopbackCluster]:
    """A :class:`LoopbackCluster` stopped when the block ends, however it ends."""
    cluster = LoopbackCluster(root, dict(env))
    try:
        yield cluster
    finally:
        cluster.stop()


def base_env(home: Path) -> dict[str, str]:
    """The environment of a test cluster's processes: this environment's scripts first, a home
    of its own (its ``~/.ray/auth_token``, an empty ``~/.cache``), no usage statistics, and
    none of the caller's Ray settings (an address, a token, an authentication mode)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "UNO_ENV_", "NUMBA_"))}
    env.pop("XDG_CACHE_HOME", None)
    env.update(
        HOME=str(home),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        RAY_USAGE_STATS_ENABLED="0",
        PYTHONUNBUFFERED="1",
    )
    return env


def page_files(page: Path) -> dict[str, str]:
    """The TOML files a documentation page gives (``<!-- doc-test: file NAME -->`` blocks)."""
    pattern = re.compile(r"<!-- doc-test: file (\S+) -->\n```toml\n(.*?)```", re.S)
    return {name: text for name, text in pattern.findall(page.read_text(encoding="utf-8"))}

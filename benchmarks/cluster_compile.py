"""Compile time per node of a Ray cluster, without and with the engine the driver ships.

A loopback cluster (a head on 127.0.0.2 and a second node on 127.0.0.3, two CPUs each,
token authentication on, started with ``ray start`` as in ``docs/cluster.md``) whose nodes
start with empty compiled-engine caches, runs a job through ``--ray-address`` twice, each
time on a fresh cluster: first with ``UNO_ENV_SHIP_ENGINE=0`` (the nodes compile what they
run, as before the driver shipped its engine), then as ``uno-env`` runs by default (the
driver's compiled engine goes out with the job's runtime environment). The driver uses this
environment's warm cache. Per node: the tasks it ran, the functions numba compiled in them
and the wall seconds spent compiling (the job's ``log.jsonl``, event ``nodes``), and the
job's wall time::

    python benchmarks/cluster_compile.py                 # the study of docs/cluster.md
    python benchmarks/cluster_compile.py --job sweep     # its sweep (training on the nodes)

Progress goes to stderr, the Markdown table to stdout. A tool run on demand, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.loopback_cluster import BIN, base_env, free_port, loopback_cluster, page_files  # noqa: E402


def run(job: str, ship: bool) -> tuple[list[dict[str, object]], float]:
    """One job on a fresh loopback cluster; the per-node report and the job's wall seconds."""
    from uno_env.compiler import cache as _cache

    root = Path(tempfile.mkdtemp(prefix="ucb-", dir="/tmp"))
    try:
        home, work = root / "home", root / "work"
        home.mkdir()
        work.mkdir()
        for name, text in page_files(ROOT / "docs" / "cluster.md").items():
            (work / name).write_text(text, encoding="utf-8")
        env = {**base_env(home), "RAY_AUTH_MODE": "token"}
        subprocess.run(
            [str(BIN / "ray"), "get-auth-token", "--generate"], env=env, check=True, capture_output=True
        )
        port = free_port("127.0.0.2")
        with loopback_cluster(root, env) as cluster:
            options = "--num-cpus=2 --disable-usage-stats"
            cluster.start(f"ray start --head --node-ip-address=127.0.0.2 --port={port} {options}")
            cluster.start(f"ray start --address=127.0.0.2:{port} --node-ip-address=127.0.0.3 {options}")
            driver = {**env, "UNO_ENV_CACHE_DIR": str(_cache.CACHE_DIR.parent)}
            if not ship:
                driver["UNO_ENV_SHIP_ENGINE"] = "0"
            spec = "cluster_study.toml" if job == "study" else "cluster_sweep.toml"
            argv = [
                str(BIN / "uno-env"),
                job,
                spec,
                "--executor",
                "ray",
                "--ray-address",
                f"127.0.0.2:{port}",
            ]
            argv += ["--out", "out", "--quiet"]
            if job == "sweep":
                argv.append("--no-transfer")
            start = time.perf_counter()
            done = subprocess.run(argv, cwd=work, env=driver, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if done.returncode != 0:
                raise SystemExit(done.stderr[-3000:])
        events = [json.loads(line) for line in (work / "out" / "log.jsonl").read_text().splitlines()]
        nodes = [node for event in events if event["event"] == "nodes" for node in event["nodes"]]
        return nodes, seconds
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--job", choices=("study", "sweep"), default="study")
    args = parser.parse_args()
    rows = []
    for ship in (False, True):
        label = "engine shipped by the driver" if ship else "nothing shipped (UNO_ENV_SHIP_ENGINE=0)"
        print(f"{args.job}: {label} ...", file=sys.stderr, flush=True)
        nodes, seconds = run(args.job, ship)
        for node in sorted(nodes, key=lambda n: str(n["address"])):
            rows.append((label, node, seconds))
    load = os.getloadavg()
    print(
        f"| {args.job} on 2 loopback nodes, empty node caches | node | tasks | functions compiled | "
        "seconds compiling | job wall s |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for label, node, seconds in rows:
        print(
            f"| {label} | {node['address']} | {node['tasks']} | {node['compiled']} | "
            f"{float(node['compile_seconds']):.1f} | {seconds:.1f} |"  # type: ignore[arg-type]
        )
    print(f"\nload average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)")


if __name__ == "__main__":
    main()

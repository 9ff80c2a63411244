"""The Ray cluster path on a real multi-node cluster on loopback addresses (``docs/cluster.md``).

One module-scoped cluster, started with the page's own commands (``ray start`` for a head on
127.0.0.2 and a second node on 127.0.0.3, token authentication on, the token in the
cluster's own ``~/.ray/auth_token``): the page's study and sweep run through
``--ray-address`` and must equal the process pool's results; every node is on loopback; the
nodes (empty caches) get the driver's compiled engine and compile nothing; each failure kind
is one line; a node killed mid-study loses nothing and counts nothing twice; a killed driver
resumes. ``tests/loopback_cluster.py`` starts and stops the nodes (never ``ray stop``).

Budget: the cluster starts in about 15 s; the page's study and sweep, each twice (cluster,
process pool), about a minute; the failure lines a few seconds each. The page's sweep, a
``file.py:Name`` agent's tournament (its file shipped to the nodes; equal to the in-process
run, about 20 s) and the node-kill, driver-kill and missing-package tests run with
``-m cluster`` (``make test-cluster``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.loopback_cluster import BIN, LoopbackCluster, base_env, free_port, loopback_cluster
from tests.test_readme import ROOT, commands, readme_blocks
from training.cluster import is_loopback

pytest.importorskip("ray")
pytest.importorskip("pandas")
pytestmark = pytest.mark.xdist_group(
    "loopback_cluster"
)  # one worker, one cluster (make unit: --dist loadgroup)

PAGE = ROOT / "docs" / "cluster.md"
DOC_PORT = "6391"
"""The head's port in the page's commands (the tests use a free port instead)."""


@dataclass
class DocCluster:
    """The page's cluster: its nodes, the driver's environment, the page's driver commands."""

    nodes: LoopbackCluster
    env: dict[str, str]
    work: Path
    address: str
    driver_commands: list[list[str]]
    outputs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)

    def uno_env(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        """``uno-env ARGS`` as the driver on the head's machine, in the page's folder."""
        return subprocess.run(
            [str(BIN / "uno-env"), *args],
            cwd=self.work,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def page_blocks() -> tuple[list[str], dict[str, str]]:
    """The page's cluster commands and its spec files (name -> text)."""
    blocks = readme_blocks(path=PAGE)
    cluster = [command for block in blocks if block.marker == "cluster" for command in commands(block)]
    files = {
        block.marker.split(maxsplit=1)[1]: block.code
        for block in blocks
        if block.lang == "toml" and (block.marker or "").startswith("file ")
    }
    return cluster, files


@pytest.fixture(scope="module")
def doc_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocCluster]:
    """The page's commands up to the driver's: the token, the head and the second node."""
    from uno_env.compiler import cache as _cache

    root = Path(tempfile_short())
    home, work = root / "home", root / "work"
    home.mkdir(parents=True)
    work.mkdir()
    env = base_env(home)
    cluster_commands, files = page_blocks()
    for name, text in files.items():
        (work / name).write_text(text, encoding="utf-8")
    port = str(free_port("127.0.0.2"))
    driver: list[list[str]] = []
    with loopback_cluster(root, env) as nodes:
        for command in cluster_commands:
            command = command.replace(DOC_PORT, port)
            argv = shlex.split(command)
            if argv[0] == "export":
                key, _, value = argv[1].partition("=")
                nodes.env[key] = value
            elif argv[:2] == ["ray", "start"]:
                # each node a cache of its own, as on separate machines (all start empty)
                host = next(a.split("=", 1)[1] for a in argv if a.startswith("--node-ip-address="))
                nodes.start(command, extra_env={"UNO_ENV_CACHE_DIR": str(root / f"cache-{host}")})
            elif argv[:2] == ["ray", "get-auth-token"]:
                subprocess.run([str(BIN / "ray"), *argv[1:]], env=nodes.env, check=True, capture_output=True)
            elif argv[0] == "uno-env":
                driver.append(argv[1:])
            elif argv[:2] == ["ray", "stop"]:
                continue  # the fixture stops the nodes it started (ray stop would stop every Ray here)
            else:
                raise AssertionError(f"{PAGE.name}: a command the test cannot run: {command}")
        assert len(nodes.nodes) >= 2 and (home / ".ray" / "auth_token").is_file()
        # the driver: the page's environment (its token in ~/.ray, RAY_AUTH_MODE=token) and the
        # warm cache of this checkout; the nodes' caches (in the cluster's home) start empty
        driver_env = {**nodes.env, "UNO_ENV_CACHE_DIR": str(_cache.CACHE_DIR.parent)}
        yield DocCluster(nodes, driver_env, work, f"127.0.0.2:{port}", driver)
    import shutil

    shutil.rmtree(root, ignore_errors=True)


def tempfile_short() -> str:
    """A short temporary folder (Ray's socket paths under it must fit in 107 characters)."""
    import tempfile

    return tempfile.mkdtemp(prefix="uc-", dir="/tmp")


def events(out: Path, kind: str) -> list[dict[str, Any]]:
    """The ``kind`` events of a run's ``log.jsonl``."""
    lines = (out / "log.jsonl").read_text(encoding="utf-8").splitlines()
    return [event for event in map(json.loads, lines) if event["event"] == kind]


def cluster_nodes(doc: DocCluster) -> list[str]:
    """Every node address the cluster's GCS reports (alive or not)."""
    script = (
        "import json, sys, ray\n"
        f"ray.init(address={doc.address!r}, _node_ip_address='127.0.0.2', log_to_driver=False,"
        " logging_level='WARNING')\n"
        "print(json.dumps([n['NodeManagerAddress'] for n in ray.nodes()]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**doc.env, "RAY_AUTH_MODE": "token"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


# ---------------------------------------------------------------- the page, end to end
def run_page_command(doc: DocCluster, job: str) -> Path:
    """The page's ``uno-env JOB ...`` command on the cluster; its output folder."""
    (argv,) = [argv for argv in doc.driver_commands if argv[0] == job]
    argv = [doc.address if a.startswith("127.0.0.2:") else a for a in argv]
    done = doc.uno_env(*argv)
    assert done.returncode == 0, f"uno-env {' '.join(argv)}\n{done.stderr[-4000:]}"
    assert "cannot write the results" not in done.stderr
    doc.outputs[job] = done
    return doc.work / argv[argv.index("--out") + 1]


def test_the_pages_study_runs_on_the_loopback_cluster(doc_cluster: DocCluster) -> None:
    doc = doc_cluster
    assert [argv[0] for argv in doc.driver_commands] == ["study", "sweep"]
    out = run_page_command(doc, "study")
    assert (out / "results.csv").read_bytes() == pool_results(doc)  # the process pool's, byte for byte
    # every node on loopback: the cluster's own list, and the nodes the run used
    assert sorted(cluster_nodes(doc)) == ["127.0.0.2", "127.0.0.3"]
    nodes = events(out, "nodes")[0]["nodes"]
    assert {node["address"] for node in nodes} == {"127.0.0.2", "127.0.0.3"}
    assert sum(node["tasks"] for node in nodes) == 112
    # the nodes started with empty caches: the driver's engine was copied in, nothing compiled
    err = doc.outputs["study"].stderr
    assert re.search(r"ships with the job", err)
    for host in ("127.0.0.2", "127.0.0.3"):
        assert re.search(rf"node {re.escape(host)}: uno-env .*; compiled engine: used", err), err[-3000:]
    assert all(node["compiled"] == 0 and node["engine"] == "used" for node in nodes), nodes


@pytest.mark.cluster
def test_the_pages_sweep_runs_on_the_loopback_cluster(doc_cluster: DocCluster) -> None:
    doc = doc_cluster
    out = run_page_command(doc, "sweep")
    pool = doc.uno_env("sweep", "cluster_sweep.toml", "--workers", "2", "--quiet", "--out", "runs/pool_sweep")
    assert pool.returncode == 0, pool.stderr[-3000:]
    same_sweep(doc.work / "runs/pool_sweep", out)
    for event in events(out, "nodes"):  # the training runs and the transfer tasks
        assert {node["address"] for node in event["nodes"]} <= {"127.0.0.2", "127.0.0.3"}
    assert all(is_loopback(a) for a in cluster_nodes(doc))


def same_sweep(a: Path, b: Path) -> None:
    """Two sweep folders hold the same runs (configs, evaluations, parameters) and tables."""
    import torch

    from training.common import load_model
    from training.train import read_eval_rows

    runs = sorted(p.name for p in (a / "runs").iterdir())
    assert runs == sorted(p.name for p in (b / "runs").iterdir()) and runs
    for run in runs:
        for name in ("config.json", "rules.txt", "env.json"):
            assert (a / "runs" / run / name).read_bytes() == (b / "runs" / run / name).read_bytes(), (
                run,
                name,
            )

        def rows(folder: Path) -> list[dict[str, object]]:
            return [
                {k: v for k, v in r.items() if k != "seconds"} for r in read_eval_rows(folder / "eval.csv")
            ]

        assert rows(a / "runs" / run) == rows(b / "runs" / run)
        pa = load_model(a / "runs" / run / "model.zip").policy.state_dict()
        pb = load_model(b / "runs" / run / "model.zip").policy.state_dict()
        assert pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)
        ra = json.loads((a / "results" / f"{run}.json").read_text())
        rb = json.loads((b / "results" / f"{run}.json").read_text())
        ra.pop("seconds"), rb.pop("seconds")
        assert ra == rb
    assert (a / "transfer.csv").read_bytes() == (b / "transfer.csv").read_bytes()


def tournament_here_and_on_the_cluster(
    doc: DocCluster, monkeypatch: pytest.MonkeyPatch, agents: list[str], games: int, seed: int, name: str
) -> None:
    """``uno-env tournament`` of ``agents`` on the cluster (``runs/NAME``), then in this process
    from the driver's folder (``runs/NAME_here``): the same games and standings, byte for byte."""
    import pandas as pd

    from training.tournament import run_tournament

    done = doc.uno_env(
        "tournament", "--rules", "uno", "--players", "2", "--agents", ",".join(agents),
        "--games", str(games), "--seed", str(seed), "--executor", "ray", "--ray-address", doc.address,
        "--quiet", "--out", f"runs/{name}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    monkeypatch.chdir(doc.work)  # the same spec texts, read from the driver's folder
    here = Path("runs") / f"{name}_here"
    run_tournament("uno", 2, agents, games=games, seed=seed, out=here, executor="serial", progress=False)
    played = pd.read_csv(doc.work / "runs" / name / "games.csv")
    assert len(played) == 2 * games
    pd.testing.assert_frame_equal(played, pd.read_csv(doc.work / here / "games.csv"))
    assert (doc.work / "runs" / name / "standings.csv").read_bytes() == (
        doc.work / here / "standings.csv"
    ).read_bytes()


@pytest.mark.cluster
def test_a_file_agent_plays_a_tournament_on_the_loopback_cluster(
    doc_cluster: DocCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's ``FILE.py:NAME`` agent seated by ``uno-env tournament --ray-address``: its file
    travels with the job, the nodes build it, and every game equals the in-process run."""
    import shutil

    shutil.copy(ROOT / "tests" / "user_agents" / "seeded_agent.py", doc_cluster.work / "mine.py")
    tournament_here_and_on_the_cluster(doc_cluster, monkeypatch, ["mine.py:Seeded", "greedy"], 6, 3, "mine")


@pytest.mark.cluster
def test_a_search_guided_by_a_network_file_plays_on_the_loopback_cluster(
    doc_cluster: DocCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``search:net=./nets/mine.npz`` in a tournament on the cluster: the network file and its
    sidecar travel with the job (the nodes run in another folder), and every game equals the
    in-process run."""
    import shutil

    from uno_env.sim.learned import shipped_policies

    nets = doc_cluster.work / "nets"
    nets.mkdir(exist_ok=True)
    shipped = Path(shipped_policies()["expert_uno_2p"])
    shutil.copy(shipped, nets / "mine.npz")
    shutil.copy(shipped.with_suffix(".json"), nets / "mine.json")
    agents = ["search:sims=30,net=./nets/mine.npz,top=2", "greedy"]
    tournament_here_and_on_the_cluster(doc_cluster, monkeypatch, agents, 4, 5, "guided")


# ---------------------------------------------------------------- one line per failure kind
def fails(doc: DocCluster, address: str, env: dict[str, str], out: str, python: str = "") -> str:
    """The study command's one error line (its exit code must be 2)."""
    argv = [
        "study",
        "cluster_study.toml",
        "--executor",
        "ray",
        "--ray-address",
        address,
        "--out",
        out,
        "--quiet",
    ]
    if python:  # a driver whose Ray says another version
        command = [
            sys.executable,
            "-c",
            python + f"from training.cli import main; raise SystemExit(main({argv!r}))",
        ]
        done = subprocess.run(command, cwd=doc.work, env=env, capture_output=True, text=True, timeout=120)
    else:
        done = doc.uno_env(*argv, env=env, timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.startswith("uno-env: error:")]
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert "cannot write the results" not in lines[0]
    return lines[0]


def test_each_failure_kind_is_one_line(doc_cluster: DocCluster, tmp_path: Path) -> None:
    doc = doc_cluster
    env = dict(doc.env)
    # nothing at the address: one TCP attempt instead of Ray's retries, never "cannot write the results"
    line = fails(doc, f"127.0.0.2:{free_port('127.0.0.2')}", env, "runs/e1")
    assert (
        "cannot connect to the Ray cluster at 127.0.0.2:" in line
        and "(Connection refused within 5 s)" in line
    )
    # the head's port on a loopback address without a node: refused at once, not after ray.init's minute
    line = fails(doc, doc.address.replace("127.0.0.2", "127.0.0.9"), env, "runs/e6")
    assert "has no node at 127.0.0.9 (its nodes: 127.0.0.2, 127.0.0.3)" in line
    # 127.0.0.1: Ray would leave loopback; refused with the way to stay on it
    line = fails(doc, "127.0.0.1:6391", env, "runs/e2")
    assert "Ray replaces 127.0.0.1 with this machine's network address" in line
    assert "--node-ip-address=127.0.0.2" in line
    # no token at all (another home, no RAY_AUTH_MODE)
    empty = tmp_path / "home"
    empty.mkdir()
    bare = {k: v for k, v in env.items() if k != "RAY_AUTH_MODE"} | {"HOME": str(empty)}
    line = fails(doc, doc.address, bare, "runs/e3")
    assert "not authenticated by the Ray cluster at 127.0.0.2:" in line and "no token was found" in line
    # a wrong token
    line = fails(doc, doc.address, {**bare, "RAY_AUTH_TOKEN": "0" * 64}, "runs/e4")
    assert "the token of RAY_AUTH_TOKEN was refused" in line
    # the page's token found in ~/.ray with RAY_AUTH_MODE unset: the driver sends it itself
    unset = {k: v for k, v in env.items() if k != "RAY_AUTH_MODE"}
    line = fails(doc, doc.address, unset, "runs/e5", python="import ray; ray.__version__ = '2.59.0'\n")
    assert re.search(
        r"version mismatch: the Ray cluster at 127\.0\.0\.2:\d+ runs Ray 2\.60\.\d+ on Python", line
    )
    assert "this driver Ray 2.59.0" in line
    for out in ("e1", "e2", "e3", "e4", "e5", "e6"):  # nothing written for a cluster that cannot run it
        assert not (doc.work / "runs" / out / "batches").exists() or not any(
            (doc.work / "runs" / out / "batches").iterdir()
        )


# ---------------------------------------------------------------- nodes and drivers that die
def start_study(doc: DocCluster, out: str, *extra: str) -> subprocess.Popen[str]:
    """The page's study on the cluster, in the background (progress lines on stderr)."""
    argv = [str(BIN / "uno-env"), "study", "cluster_study.toml", "--executor", "ray", "--ray-address"]
    return subprocess.Popen(
        [*argv, doc.address, "--out", out, *extra],
        cwd=doc.work,
        env=doc.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_batches(out: Path, count: int, process: subprocess.Popen[str], timeout: float = 300) -> int:
    """Wait until ``count`` batch files are written (the run still going); how many there are."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = len(list((out / "batches").glob("*.json"))) if (out / "batches").is_dir() else 0
        if done >= count:
            return done
        assert process.poll() is None, process.communicate()[1][-3000:]
        time.sleep(0.1)
    raise AssertionError(f"{out}: fewer than {count} batches after {timeout} s")


def pool_results(doc: DocCluster) -> bytes:
    """The page's study on the process pool (run once per module)."""
    out = doc.work / "runs/pool_study"
    if not (out / "results.csv").is_file():
        done = doc.uno_env(
            "study", "cluster_study.toml", "--workers", "2", "--quiet", "--out", "runs/pool_study"
        )
        assert done.returncode == 0, done.stderr[-3000:]
    return (out / "results.csv").read_bytes()


def once_each(out: Path) -> None:
    """Every planned batch written exactly once, over every run of the folder."""
    written = [event["id"] for event in events(out, "batch")]
    assert len(written) == len(set(written)) == 112, sorted(written)


@pytest.mark.cluster
def test_a_node_killed_mid_study_loses_nothing_and_counts_nothing_twice(doc_cluster: DocCluster) -> None:
    doc = doc_cluster
    command = (
        f"ray start --address={doc.address} --node-ip-address=127.0.0.4 --num-cpus=2 --disable-usage-stats"
    )
    doc.nodes.start(command)
    out = doc.work / "runs/node_killed"
    study = start_study(doc, "runs/node_killed")
    try:
        wait_for_batches(out, 30, study)
        doc.nodes.kill("127.0.0.4")  # SIGKILL: its raylet and the workers running batches
        _, err = study.communicate(timeout=600)
    finally:
        if study.poll() is None:
            study.kill()
    assert study.returncode == 0, err[-3000:]
    assert (out / "results.csv").read_bytes() == pool_results(doc)
    once_each(out)
    report = {node["address"]: node for node in events(out, "nodes")[0]["nodes"]}
    assert report["127.0.0.4"]["tasks"] >= 1  # it ran batches before it died
    assert sum(node["tasks"] for node in report.values()) == 112
    assert "127.0.0.4" in cluster_nodes(doc)  # the GCS knows it (dead), and no node left loopback
    assert all(is_loopback(a) for a in cluster_nodes(doc))


@pytest.mark.cluster
def test_a_killed_driver_resumes_on_the_cluster(doc_cluster: DocCluster) -> None:
    doc = doc_cluster
    out = doc.work / "runs/driver_killed"
    study = start_study(doc, "runs/driver_killed", "--quiet")
    try:
        before = wait_for_batches(out, 20, study)
        study.send_signal(signal.SIGKILL)
        study.wait()
    finally:
        if study.poll() is None:
            study.kill()
    assert before < 112
    done = doc.uno_env(
        "study", "--resume", "runs/driver_killed", "--executor", "ray", "--ray-address", doc.address
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "results.csv").read_bytes() == pool_results(doc)
    once_each(out)
    assert events(out, "start")[-1]["todo"] <= 112 - before  # the resumed run ran only what was missing


@pytest.mark.cluster
def test_a_node_without_the_package_is_named(doc_cluster: DocCluster, tmp_path: Path) -> None:
    """A node whose Python has Ray (and numba) but not this package: one line naming it."""
    import site

    doc = doc_cluster
    venv = Path(tempfile_short())
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = next(Path(p) for p in site.getsitepackages() if "site-packages" in p)
    target = next((venv / "lib").glob("python3*/site-packages"))
    # the other environment's packages as a plain path: its .pth files (the editable install
    # of this package) are not read from there, so Ray and numba import and uno_env does not
    (target / "ray_only.pth").write_text(f"{purelib}\n", encoding="utf-8")
    command = (
        f"ray start --address={doc.address} --node-ip-address=127.0.0.5 --num-cpus=1 --disable-usage-stats"
    )
    doc.nodes.start(command, python=venv / "bin" / "python")
    try:
        line = fails(doc, doc.address, doc.env, "runs/no_package")
    finally:
        doc.nodes.kill("127.0.0.5")
        import shutil

        shutil.rmtree(venv, ignore_errors=True)
    assert "node 127.0.0.5 of the Ray cluster at 127.0.0.2:" in line
    assert (
        "cannot import uno_env (ModuleNotFoundError" in line
        and "install the same uno-env on every node" in line
    )


# ---------------------------------------------------------------- the pieces, without a cluster
@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("127.0.0.2:6391", ("127.0.0.2", 6391)),
        ("[::1]:7000", ("::1", 7000)),
        ("head.example:6379", ("head.example", 6379)),
    ],
)
def test_addresses_are_parsed(address: str, expected: tuple[str, int]) -> None:
    from training.cluster import parse_address

    assert parse_address(address) == expected


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.2", "127.0.0.2:", ":6391", "127.0.0.2:port", "127.0.0.2:70000", "",
        # a host with a colon or a slash was taken as a host name ("Name or service not known")
        "127.0.0.2:6391:1", "::1:7000", "head/x:6391", "127.0.0.2 x:6391",
    ],
)  # fmt: skip
def test_a_malformed_address_is_one_line(address: str) -> None:
    from training.cluster import ClusterError, parse_address

    with pytest.raises(ClusterError, match=r"is not an address of a Ray head: give HOST:PORT"):
        parse_address(address)


@pytest.mark.parametrize(
    ("address", "kind"),
    [("ray://127.0.0.2:10001", "a Ray Client address"), ("http://127.0.0.2:6391", "a URL")],
)
def test_an_address_with_a_scheme_is_refused_by_name(address: str, kind: str) -> None:
    """A Ray Client address or a URL was taken for HOST:PORT with the host ``ray://127.0.0.2``:
    the message said the name was unknown and advised ``--node-ip-address=ray://127.0.0.2``."""
    from training.cluster import ClusterError, parse_address

    with pytest.raises(ClusterError, match=rf"{re.escape(repr(address))} is {kind}.*give HOST:PORT"):
        parse_address(address)


def test_a_ray_address_without_the_ray_executor_is_refused() -> None:
    """``--ray-address`` with the process pool (the default executor) or serial ran the whole job
    on this machine without a word: refused, naming the way to run on the cluster."""
    from training.runner import run_batches, workers_for

    for executor in ("process", "serial"):
        with pytest.raises(ValueError, match=r"--ray-address 127.0.0.2:6391 is only for --executor ray"):
            workers_for(executor, 2, "127.0.0.2:6391")
        with pytest.raises(ValueError, match=rf"the executor is {executor!r}"):
            run_batches(str, [1], print, executor=executor, workers=2, ray_address="127.0.0.2:6391")
    import socket

    with socket.create_server(("127.0.0.2", 0)) as head:  # a port that accepts connections
        listening = f"127.0.0.2:{head.getsockname()[1]}"
        assert workers_for("ray", 2, listening) == 2 and workers_for("process", 2) == 2


def test_a_cluster_refused_before_the_run_leaves_its_folder_free(tmp_path: Path) -> None:
    """A run on a cluster address where nothing answers wrote its spec before it connected, so
    the same --out then asked for --resume of a run that never ran. The address is checked first
    (in the executor check every long job makes before it writes): nothing is written, and the
    same --out runs at once on the process pool."""
    from training.cli import main

    out = tmp_path / "run"
    address = f"127.0.0.2:{free_port('127.0.0.2')}"
    tournament = ["tournament", "--agents", "greedy", "--field", "random", "--games", "2", "--quiet"]
    assert main([*tournament, "--executor", "ray", "--ray-address", address, "--out", str(out)]) == 2
    assert not out.exists()
    assert main([*tournament, "--workers", "1", "--out", str(out)]) == 0
    assert (out / "results.csv").is_file() or any(out.iterdir())


def test_a_loopback_address_without_a_node_is_refused_at_once() -> None:
    """A loopback address whose host runs no node of the cluster (127.0.0.3 for a head on
    127.0.0.2: the head's port answers on every loopback address) pins the driver to a node that
    does not exist: ray.init waited a minute and said it could not connect. Refused with the
    nodes there are."""
    from types import SimpleNamespace

    from training.cluster import NODE_ALIVE, ClusterError, _check_pinned_node

    nodes = {
        b"a": SimpleNamespace(node_manager_address="127.0.0.2", state=NODE_ALIVE),
        b"b": SimpleNamespace(node_manager_address="127.0.0.4", state=NODE_ALIVE + 1),  # dead
    }
    client = SimpleNamespace(get_all_node_info=lambda timeout: nodes)
    message = (
        "the Ray cluster at 127.0.0.3:6391 has no node at 127.0.0.3 (its nodes: 127.0.0.2); on loopback "
        "the driver joins through the node at the address's host: give --ray-address 127.0.0.2:6391"
    )
    with pytest.raises(ClusterError, match=re.escape(message)):
        _check_pinned_node(client, "127.0.0.3:6391", "127.0.0.3")
    with pytest.raises(ClusterError, match=re.escape("has no node at 127.0.0.4")):
        _check_pinned_node(client, "127.0.0.4:6391", "127.0.0.4")  # a dead node takes no driver
    _check_pinned_node(client, "127.0.0.2:6391", "127.0.0.2")


def test_loopback_hosts() -> None:
    from training.cluster import ClusterError, check_loopback_host

    assert (
        is_loopback("127.0.0.2")
        and is_loopback("127.1.2.3")
        and is_loopback("::1")
        and is_loopback("localhost")
    )
    assert not is_loopback("192.0.2.2") and not is_loopback("head.example")
    check_loopback_host("127.0.0.2", 6391)
    for host in ("127.0.0.1", "localhost", "::1"):
        with pytest.raises(ClusterError, match="Ray replaces"):
            check_loopback_host(host, 6391)


def test_the_token_is_found_where_ray_looks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from training.cluster import token_source, use_token_if_present

    for name in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert token_source() is None and use_token_if_present() is None and "RAY_AUTH_MODE" not in os.environ
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("a" * 64)
    assert token_source() == str(tmp_path / ".ray" / "auth_token")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", "/somewhere/token")
    assert token_source() == "RAY_AUTH_TOKEN_PATH=/somewhere/token"
    monkeypatch.setenv("RAY_AUTH_TOKEN", "b" * 64)
    assert token_source() == "RAY_AUTH_TOKEN"
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # an explicit mode is the user's: kept
    assert use_token_if_present() == "RAY_AUTH_TOKEN" and os.environ["RAY_AUTH_MODE"] == "disabled"


def test_ray_init_errors_are_classified() -> None:
    from training.cluster import connect_error

    auth = connect_error(
        "h:1", ConnectionError("Unauthenticated: RPC error: InvalidAuthToken: missing"), None
    )
    assert str(auth).startswith(
        "not authenticated by the Ray cluster at h:1"
    ) and "no token was found" in str(auth)
    version = connect_error(
        "h:1", RuntimeError("Version mismatch: The cluster was started with:\n  Ray: 2.59.0"), None
    )
    assert str(version).startswith("version mismatch with the Ray cluster at h:1") and "\n" not in str(
        version
    )
    other = connect_error("h:1", ConnectionError("Failed to connect to Ray cluster at h:1"), None)
    expected = (
        "cannot connect to the Ray cluster at h:1: ConnectionError: Failed to connect to Ray cluster at h:1"
    )
    assert str(other) == expected


def test_a_lost_connection_is_not_reported_as_a_folder_problem(tmp_path: Path) -> None:
    from training.runner import RunFolderError, folder_errors

    with pytest.raises(ConnectionError), folder_errors(tmp_path):
        raise ConnectionError("Failed to connect to Ray cluster at 127.0.0.2:6391")
    with pytest.raises(RunFolderError, match="cannot write the results"), folder_errors(tmp_path):
        raise OSError(28, "No space left on device", str(tmp_path / "x.json"))


def parse_on_a_node(names: list[str]) -> list[str]:
    """A node task of the test below: each agent parsed from its text, built, and the file it reads."""
    from agents.spec import local_file, parse_agent

    out = []
    for name in names:
        agent = parse_agent(name)
        read = agent.policy if agent.compiled else local_file(name.rsplit(":", 1)[0])
        out.append(f"{agent.text}: {type(agent.make(seed=1)).__name__} from {read}")
    return out


def test_a_node_reads_the_files_a_task_names_relative_to_the_drivers_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The study and the atlas send agents by their text (``runs/p.npz``, ``mine.py:Seeded``),
    which the node parses again: in the node's working folder (where ``ray start`` ran), a
    relative path named nothing, so a node refused the driver's policy file as missing ("exported
    policy nets/pol.npz does not exist"). Paths are the driver's (relative to its folder, ``~``
    its home), read from the node's copy."""
    import shutil

    import ray

    from training import cluster
    from uno_env.sim.learned import shipped_policies

    driver, node = tmp_path / "driver", tmp_path / "node"
    (driver / "nets").mkdir(parents=True)
    node.mkdir()
    shipped = Path(shipped_policies()["distilled_uno_2p"])
    shutil.copy(shipped, driver / "nets" / "pol.npz")
    shutil.copy(shipped.with_suffix(".json"), driver / "nets" / "pol.json")
    shutil.copy(ROOT / "tests" / "user_agents" / "seeded_agent.py", driver / "mine.py")
    names = ["./nets/pol.npz", "mine.py:Seeded"]
    home = str(tmp_path / "home")
    paths = ["nets/pol.npz", "nets/pol.json", str(driver / "mine.py")]  # what AgentSpec.files() names
    files = {cluster.driver_path(p, str(driver), home): (driver / p).read_bytes() for p in paths}
    state = {"engine": "used", "counter": cluster._CompileCounter(), "address": "127.0.0.2"}
    monkeypatch.setattr(cluster, "_NODE_STATE", state)  # as after the node's first task
    monkeypatch.setattr(ray, "get", lambda data: data)  # the object refs: here the bytes themselves
    monkeypatch.setattr(cluster.tempfile, "tempdir", str(tmp_path / "node_tmp"))  # the node's copies
    monkeypatch.chdir(node)
    try:
        done = cluster.run_on_node(parse_on_a_node, names, files, None, (str(driver), home))
    finally:
        from agents.spec import set_file_resolver

        set_file_resolver(None)
        cluster.SHIPPED_FILES.clear()
        cluster.DRIVER_FOLDERS.clear()
    copies = tmp_path / "node_tmp" / "uno_env-shipped"
    (npz,) = copies.glob("*/pol.npz")
    (py,) = copies.glob("*/mine.py")
    assert (npz.parent / "pol.json").read_bytes() == (driver / "nets" / "pol.json").read_bytes()
    assert done["result"] == [
        f"nets/pol.npz: ExportedAgent from {npz}",
        f"mine.py:Seeded: Seeded from {py}",
    ]
    assert cluster.driver_path("~/a/../p.npz", "/work", "/home/me") == "/home/me/p.npz"
    assert cluster.driver_path("./runs/p.npz", "/work", "/home/me") == "/work/runs/p.npz"


def test_a_folder_travels_whole(tmp_path: Path) -> None:
    from training.cluster import ship_folder, unpack_folder

    source = tmp_path / "run"
    (source / "checkpoints").mkdir(parents=True)
    (source / "config.json").write_text("{}")
    (source / "checkpoints" / "latest.json").write_bytes(b"\x00\x01")
    target = tmp_path / "out" / "run"
    target.mkdir(parents=True)
    (target / "stale.txt").write_text("from before")  # replaced whole, not merged
    unpack_folder(ship_folder(source), target)
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*")) == [
        "checkpoints",
        "checkpoints/latest.json",
        "config.json",
    ]
    assert (target / "checkpoints" / "latest.json").read_bytes() == b"\x00\x01"
    assert not list(target.parent.glob(".run.*"))


def test_the_shipped_engine_fills_the_folders_numba_made_at_import(tmp_path: Path) -> None:
    """A Ray worker imports the package (numba makes each module's empty cache folder) before
    its first task copies the shipped engine in: empty folders are filled; in a folder with
    code compiled on the node, that code is left alone and the shipped functions it lacks are
    added."""
    from uno_env.compiler import cache as _cache

    shipped = tmp_path / "shipped"
    folders = _cache._module_folders()
    for folder in folders:
        (shipped / _cache._folder_key(folder)).mkdir(parents=True)
        (shipped / _cache._folder_key(folder) / "f-1.py311.1.nbc").write_bytes(b"code")
        (shipped / _cache._folder_key(folder) / "f-1.py311.nbi").write_bytes(b"index")
    manifest = {**_cache._fit_keys(_cache.SOURCE_DIGEST, _cache.CODE_TARGET), "parts": []}
    (shipped / "manifest.json").write_text(json.dumps(manifest))
    cache = tmp_path / "cache"
    first, second = (cache / _cache._folder_key(folder) for folder in folders[:2])
    first.mkdir(parents=True)  # what numba leaves at import: an empty folder
    second.mkdir(parents=True)
    (second / "g-1.py311.nbi").write_bytes(b"compiled here")  # code of the node's own
    assert (
        _cache.seed_from_compiled_engine(cache, _cache.CODE_TARGET, _cache.SOURCE_DIGEST, shipped) == "used"
    )
    assert sorted(p.name for p in first.iterdir() if not p.name.startswith(".")) == [
        "f-1.py311.1.nbc",
        "f-1.py311.nbi",
    ]
    assert sorted(p.name for p in second.iterdir() if not p.name.startswith(".")) == [
        "f-1.py311.1.nbc",
        "f-1.py311.nbi",
        "g-1.py311.nbi",
    ]
    assert (second / "g-1.py311.nbi").read_bytes() == b"compiled here"

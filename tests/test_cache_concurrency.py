"""One compiled-engine cache, many processes at once (``uno_env.compiler``: ``cache``, ``compiling``).

- The index of a cached function keeps every entry while many processes save into it at
  once, never names a data file that is not whole, and an unreadable index or data file is
  a miss (compiled again), not an error.
- Four processes start at once on an empty cache directory (more than the two cores the suite
  is sized for): two from this checkout (an editable install) and one from each of two copies
  of the package at other paths (as other checkouts or installs of the same source). They
  take turns on the cold part (one compiles and says so on stderr, the others wait, saying
  so, and load its code), compile the rest of their workload side by side, and all print the
  same games. Then four more start on the warm cache: numba compiles nothing in any of them
  (counted with numba's compile events) and nothing is said on stderr. Four rather than
  eight: each more process adds its own compile of the workload's other functions and its
  start on the warm cache (about a minute of CPU in all) and tests nothing the fourth does not.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.compile_events import COUNT_COMPILES
from uno_env.compiler import cache as _cache

# ================================================================ the index under concurrency
STAMP = ("source-stamp",)


def _save_many(directory: str, worker: int, count: int, start_at: float) -> None:
    index = _cache.LockedIndexDataCacheFile(directory, "module.function-1.py311", STAMP)
    while time.time() < start_at:  # every worker starts saving at the same moment
        time.sleep(0.001)
    for k in range(count):
        index.save(("signature", worker, k), {"worker": worker, "entry": k, "code": os.urandom(2048)})


def test_processes_saving_at_once_keep_every_entry(tmp_path: Path) -> None:
    workers, count = 8, 25
    start_at = time.time() + 1.0
    context = multiprocessing.get_context("fork")
    processes = [
        context.Process(target=_save_many, args=(str(tmp_path), w, count, start_at)) for w in range(workers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(300)
        assert process.exitcode == 0
    index = _cache.LockedIndexDataCacheFile(str(tmp_path), "module.function-1.py311", STAMP)
    overloads = index._load_index()
    assert len(overloads) == workers * count  # no entry lost
    assert len(set(overloads.values())) == workers * count  # each its own data file
    for worker in range(workers):
        for k in range(count):
            data = index.load(("signature", worker, k))
            assert data["worker"] == worker and data["entry"] == k  # its own data, whole
    assert not list(tmp_path.glob("*.tmp.*"))  # no temporary file left behind


def test_an_entry_already_saved_is_kept_and_damaged_files_are_misses(tmp_path: Path) -> None:
    index = _cache.LockedIndexDataCacheFile(str(tmp_path), "module.function-1.py311", STAMP)
    index.save("key", {"first": True})
    index.save("key", {"first": False})  # another process compiled the same code: kept as it was
    assert index.load("key") == {"first": True}
    (data,) = tmp_path.glob("*.nbc")
    data.write_bytes(b"\x80\x05 not a pickle")
    assert index.load("key") is None  # a miss: compiled again
    (tmp_path / "module.function-1.py311.nbi").write_bytes(b"garbage")
    assert index.load("key") is None
    index.save("other", {"second": True})  # the damaged index is replaced whole
    assert index.load("other") == {"second": True}


def test_a_wheels_functions_seed_a_folder_another_install_compiled_into(tmp_path: Path) -> None:
    wheel = tmp_path / "wheel"
    mine = tmp_path / "cache"
    shipped = _cache.LockedIndexDataCacheFile(str(wheel), "module.shipped-1.py311", STAMP)
    shipped.save("key", {"from": "wheel"})
    both = _cache.LockedIndexDataCacheFile(str(wheel), "module.both-1.py311", STAMP)
    both.save("key", {"from": "wheel"})
    local = _cache.LockedIndexDataCacheFile(str(mine), "module.both-1.py311", STAMP)
    local.save("key", {"from": "here"})  # compiled by another install first
    assert _cache.seed_folder(wheel, mine) == 1
    assert _cache.LockedIndexDataCacheFile(str(mine), "module.shipped-1.py311", STAMP).load("key") == {
        "from": "wheel"
    }
    assert local.load("key") == {"from": "here"}  # kept, not overwritten
    assert _cache.seed_folder(wheel, mine) == 0


# ================================================================ four processes, one cache
WORKLOAD = (
    COUNT_COMPILES
    + """
import sys
import uno_env
from uno_env import Game

games = []
for seed in range(3):
    game = Game("uno", 2, seed=seed)  # the game part: its first use warms it up (ensure_compiled)
    while not game.is_over():
        game.step(game.legal_actions()[0])
    game.check_invariants()  # compiled outside the part's warm-up, by every process at once
    outcome = game.outcome()
    games.append([outcome.winner, outcome.decisions, list(outcome.scores), game.position()])
parsed = Game.from_position("uno", games[0][3]).position()
print(json.dumps({"package": uno_env.__file__, "compiled": compiled, "games": games, "parsed": parsed}))
"""
)


def _copy_package(target: Path) -> Path:
    shutil.copytree(
        Path(_cache.PACKAGE_DIR),
        target / "uno_env",
        ignore=shutil.ignore_patterns("__pycache__", "_compiled"),
    )
    return target


def _start(cache: Path, site: Path | None) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_", "PYTHONPATH"))}
    env["UNO_ENV_CACHE_DIR"] = str(cache)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.Popen(
        [sys.executable, "-c", WORKLOAD],
        env=env,
        cwd=cache.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _round(cache: Path, sites: list[Path | None]) -> list[tuple[dict[str, object], str]]:
    processes = [_start(cache, site) for site in sites]  # all at once
    out = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=1800)
        assert process.returncode == 0, stderr[-3000:]
        out.append((json.loads(stdout.strip().splitlines()[-1]), stderr))
    return out


@pytest.mark.slow
def test_four_processes_on_one_cache_compile_once_and_then_never(tmp_path: Path) -> None:
    cache = tmp_path / "shared-cache"
    checkout = _copy_package(tmp_path / "checkout")
    site = _copy_package(tmp_path / "venv" / "site-packages")
    sites: list[Path | None] = [None, checkout, site, None]

    cold = _round(cache, sites)
    packages = {str(result["package"]) for result, _ in cold}
    assert len(packages) == 3  # this checkout and two other paths of the same source
    games = [result["games"] for result, _ in cold]
    assert all(g == games[0] for g in games)  # the same games everywhere
    assert all(result["parsed"] == games[0][0][3] for result, _ in cold)
    notices = [err for _, err in cold if re.search(r"^compiling the engine \(per-step game\)", err, re.M)]
    waited = [
        err for _, err in cold if "waiting for another process compiling the engine (per-step game)" in err
    ]
    assert len(notices) == 1  # one process compiled the part, and said so on stderr
    assert all("compiled the engine (per-step game) in " in err for err in notices)
    first_use = {name for result, _ in cold for name in result["compiled"]}  # type: ignore[attr-defined]
    assert "_step_and_list" in first_use
    part_compiles = [result["compiled"].count("_step_and_list") for result, _ in cold]  # type: ignore[attr-defined]
    assert sum(part_compiles) == 1  # nobody compiled again what another had written
    directory = next(cache.iterdir())
    folders = sorted(p.name for p in directory.iterdir() if p.is_dir())
    assert "uno_env.game" in folders and all(re.fullmatch(r"uno_env(\.\w+)*", name) for name in folders)

    warm = _round(cache, sites)
    assert [result["compiled"] for result, _ in warm] == [[]] * len(sites)  # nothing compiled
    assert all(result["games"] == games[0] for result, _ in warm)
    assert all("compiling the engine" not in err and "waiting" not in err for _, err in warm)
    print(
        f"cold round: {len(notices)} process compiled the game part, {len(waited)} waited for it; "
        f"functions compiled per process: {[len(r['compiled']) for r, _ in cold]}; "  # type: ignore[arg-type]
        f"warm round: {[len(r['compiled']) for r, _ in warm]}"  # type: ignore[arg-type]
    )


@pytest.mark.slow
def test_wheel_and_editable_installs_start_together_on_an_empty_cache(tmp_path: Path) -> None:
    """Copies of the package that carry a compiled engine (as a wheel installs it) and this
    editable checkout start at once: the wheels' code seeds the directory while the editable
    install may compile beside it; all play the same games, and afterwards nothing compiles."""
    UNO_ENV = Path(sys.executable).with_name("uno-env")
    subprocess.run([str(UNO_ENV), "compile", "game"], check=True, capture_output=True)  # the session's cache
    wheel = _copy_package(tmp_path / "wheel" / "site-packages")
    write = (
        "import sys, pathlib\nfrom uno_env.compiler import cache\n"
        "cache.write_compiled_engine(pathlib.Path(sys.argv[1]))"
    )
    subprocess.run(
        [sys.executable, "-c", write, str(wheel / "uno_env" / "_compiled")], check=True, cwd=tmp_path
    )
    cache = tmp_path / "shared-cache"
    sites: list[Path | None] = [wheel, None, wheel, None]
    first = _round(cache, sites)
    games = [result["games"] for result, _ in first]
    assert all(g == games[0] for g in games)
    warm = _round(cache, sites)
    assert [result["compiled"] for result, _ in warm] == [[]] * len(sites)
    assert all(result["games"] == games[0] for result, _ in warm)

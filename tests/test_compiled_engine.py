"""A wheel's compiled engine serves a fresh install wherever it is installed (no cold start).

``uno_env.compiler.cache`` compiles for the portable x86-64 target, writes the compiled engine that
a wheel carries (:func:`~uno_env.compiler.cache.write_compiled_engine`) and, on import, copies it
into an empty cache directory when it fits the process. The main test writes it from this
session's cache, puts it into a copy of the package at another path (as a wheel installed
into another environment would be) and counts numba's compile events in a fresh process
there: none, and the entry points load from the cache. The others cover the checks that
keep a compiled engine from a process it does not fit, and the ``UNO_ENV_CPU`` choice.
The wheel build itself (``setup.py``) runs with ``pytest -m wheel``: it compiles the whole
engine, minutes, so it is not part of ``make test``.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numba
import pytest

from tests.compile_events import PLAY_GAME_PART
from uno_env.compiler import cache as _cache

REPO = Path(__file__).resolve().parent.parent
UNO_ENV = Path(sys.executable).with_name("uno-env")

portable_only = pytest.mark.skipif(
    _cache.CODE_TARGET == "host", reason="this machine compiles for its host CPU (no portable target)"
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_"))}
    env.update(extra)
    return env


def _python(code: str, cwd: Path, **extra: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=_env(**extra), capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _installed_elsewhere(tmp_path: Path) -> Path:
    """A copy of the package (and of this session's compiled engine) at another path."""
    site = tmp_path / "site"
    shutil.copytree(
        _cache.PACKAGE_DIR, site / "uno_env", ignore=shutil.ignore_patterns("__pycache__", "_compiled")
    )
    # this session's cache holds the game part (`make test` compiles first; here in case it did not)
    subprocess.run([str(UNO_ENV), "compile", "game"], env=_env(), check=True, capture_output=True)
    write = (
        "import sys, pathlib, uno_env.compiler.cache as cache; "
        "cache.write_compiled_engine(pathlib.Path(sys.argv[1]))"
    )
    subprocess.run(
        [sys.executable, "-c", write, str(site / "uno_env" / "_compiled")],
        cwd=tmp_path,
        env=_env(),
        check=True,
    )
    return site


@portable_only
def test_a_compiled_engine_serves_a_copy_of_the_package_installed_elsewhere(tmp_path: Path) -> None:
    site = _installed_elsewhere(tmp_path)
    manifest = json.loads((site / "uno_env" / "_compiled" / "manifest.json").read_text())
    assert manifest["cpu"] == _cache.PORTABLE_CPU
    assert manifest["source"] == _cache.SOURCE_DIGEST
    assert manifest["folders"] == [
        "uno_env.engine",
        "uno_env.envs",
        "uno_env.game",
        "uno_env.sim",
        "uno_env.styles",
    ]
    assert "game" in manifest["parts"]

    cache = tmp_path / "empty-cache"
    first = _python(PLAY_GAME_PART, tmp_path, PYTHONPATH=str(site), UNO_ENV_CACHE_DIR=str(cache))
    assert first["package"] == str(site / "uno_env" / "__init__.py")
    assert first["engine"] == "used"
    assert first["compiled"] == []  # nothing compiled: every function came from the copy
    assert first["loaded"] == 2  # the facade's step for official Uno's engine and for the full one
    # the copy went where numba looks for the package's modules, and the part is marked warm
    directory = cache / _cache.directory_name(_cache.SOURCE_DIGEST, _cache.PORTABLE_CPU)
    assert (directory / "warm-game").exists()
    assert (directory / "uno_env.envs").is_dir() and any(directory.glob("uno_env.engine/*.nbi"))

    again = _python(PLAY_GAME_PART, tmp_path, PYTHONPATH=str(site), UNO_ENV_CACHE_DIR=str(cache))
    assert again["engine"] == "already in the cache directory"
    assert again["compiled"] == []


STAMP = ("source-stamp",)


def _compiled_dir(tmp_path: Path, **changes: object) -> Path:
    compiled = tmp_path / "_compiled"
    index = _cache.LockedIndexDataCacheFile(str(compiled / "uno_env"), "module.function-1.py311", STAMP)
    index.save("shipped", {"code": "from the wheel"})
    manifest: dict[str, object] = {
        "source": _cache.SOURCE_DIGEST,
        "numba": numba.__version__,
        "python": sys.implementation.cache_tag,
        "machine": platform.machine(),
        "cpu": _cache.CODE_TARGET,
        "folders": ["uno_env"],
    }
    manifest.update(changes)
    (compiled / "manifest.json").write_text(json.dumps(manifest))
    return compiled


@pytest.mark.parametrize(
    ("key", "value"),
    [("numba", "0.1.0"), ("python", "cpython-27"), ("cpu", "znver9"), ("source", "0123456789abcdef")],
)
def test_a_compiled_engine_that_does_not_fit_is_not_used(tmp_path: Path, key: str, value: str) -> None:
    compiled = _compiled_dir(tmp_path, **{key: value})
    cache = tmp_path / "cache"
    status = _cache.seed_from_compiled_engine(cache, _cache.CODE_TARGET, _cache.SOURCE_DIGEST, compiled)
    assert status.startswith(f"not used, it was built for another {key} {value} (this process: ")
    assert not cache.exists()  # nothing copied


def test_a_fitting_compiled_engine_seeds_the_packages_folder(tmp_path: Path) -> None:
    compiled = _compiled_dir(tmp_path)
    cache = tmp_path / "cache"
    subdir = cache / "uno_env"
    mine = _cache.LockedIndexDataCacheFile(str(subdir), "module.other-1.py311", STAMP)
    mine.save("compiled here", {"code": "this install's"})  # another install compiled into it first
    status = _cache.seed_from_compiled_engine(cache, _cache.CODE_TARGET, _cache.SOURCE_DIGEST, compiled)
    assert status == "used"
    shipped = _cache.LockedIndexDataCacheFile(str(subdir), "module.function-1.py311", STAMP)
    assert shipped.load("shipped") == {"code": "from the wheel"}
    assert mine.load("compiled here") == {"code": "this install's"}  # kept
    assert [path.name for path in cache.iterdir()] == ["uno_env"]  # no staging files left behind
    again = _cache.seed_from_compiled_engine(cache, _cache.CODE_TARGET, _cache.SOURCE_DIGEST, compiled)
    assert again == "already in the cache directory"


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", "\udcff"])
def test_a_damaged_manifest_is_reported_not_raised(tmp_path: Path, text: str) -> None:
    compiled = _compiled_dir(tmp_path)
    (compiled / "manifest.json").write_text(text, errors="surrogateescape")
    cache = tmp_path / "cache"
    status = _cache.seed_from_compiled_engine(cache, _cache.CODE_TARGET, _cache.SOURCE_DIGEST, compiled)
    assert status.startswith("not used, its manifest ")
    assert "unreadable" in status or "not a JSON object" in status
    assert not cache.exists()


def test_an_install_without_a_compiled_engine_says_so(tmp_path: Path) -> None:
    status = _cache.seed_from_compiled_engine(
        tmp_path / "cache", _cache.CODE_TARGET, _cache.SOURCE_DIGEST, tmp_path / "none"
    )
    assert status == "none in this install (compiled on first use)"


def test_host_code_is_never_written_to_ship(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_cache, "CODE_TARGET", "host")
    with pytest.raises(ValueError, match="needs a portable target"):
        _cache.write_compiled_engine(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_unknown_code_target_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"UNO_ENV_CPU='fast' is not a code target; allowed: portable, host"):
        _cache.choose_code_target("fast")
    done = subprocess.run(
        [sys.executable, "-c", "import uno_env"], env=_env(UNO_ENV_CPU="fast"), capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "UNO_ENV_CPU='fast' is not a code target; allowed: portable, host" in done.stderr


SHOW_TARGET = """
import json, numba, uno_env
from uno_env.compiler import cache as _cache
print(json.dumps({"target": _cache.CODE_TARGET, "dir": _cache.CACHE_DIR.name, "cpu": numba.config.CPU_NAME}))
"""


def test_the_code_target_can_be_the_host_or_the_users_own(tmp_path: Path) -> None:
    host = _python(SHOW_TARGET, tmp_path, UNO_ENV_CPU="host")
    assert host == {"target": "host", "dir": _cache.directory_name(_cache.SOURCE_DIGEST, "host"), "cpu": None}
    assert host["dir"].startswith("numba-") and host["dir"].count("-") == 1
    own = _python(SHOW_TARGET, tmp_path, NUMBA_CPU_NAME="generic")
    name = _cache.directory_name(_cache.SOURCE_DIGEST, "generic")
    assert own == {"target": "generic", "dir": name, "cpu": "generic"} and name.endswith("-generic")


@portable_only
def test_the_default_target_is_portable_and_keys_the_directory(tmp_path: Path) -> None:
    default = _python(SHOW_TARGET, tmp_path)
    assert default == {
        "target": "x86-64-v2",
        "dir": _cache.directory_name(_cache.SOURCE_DIGEST, "x86-64-v2"),
        "cpu": "x86-64-v2",
    }


def test_numba_code_compiled_before_the_import_keeps_the_host_target(tmp_path: Path) -> None:
    code = "import numba\nnumba.njit(lambda: 1)()\n" + SHOW_TARGET
    assert _python(code, tmp_path)["target"] == "host"


def test_building_needs_what_importing_needs() -> None:
    # setup.py imports and runs the package while building the wheel
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["build-system"]["requires"] == ["setuptools>=69", *project["project"]["dependencies"]]


@pytest.mark.wheel
@portable_only
def test_a_fresh_wheel_install_steps_without_compiling(tmp_path: Path) -> None:
    wheels, venv = tmp_path / "wheels", tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(REPO)],
        env=_env(),
        check=True,
    )
    wheel = next(wheels.glob("*.whl"))
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert f"-{tag}-{tag}-" in wheel.name  # compiled code: tagged for this Python and platform
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], check=True)
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", PLAY_GAME_PART],
        cwd=tmp_path,
        env=_env(UNO_ENV_CACHE_DIR=str(tmp_path / "cache")),
        capture_output=True,
        text=True,
        check=True,
    )
    fresh = json.loads(done.stdout.strip().splitlines()[-1])
    assert fresh["engine"] == "used"
    assert fresh["compiled"] == []

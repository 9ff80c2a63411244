"""The numba cache key covers every module compiled code can reach, and only those."""

from __future__ import annotations

from pathlib import Path

import uno_env
from uno_env.compiler.cache import compiled_sources

PACKAGE = Path(uno_env.__file__).resolve().parent


def _names(paths: list[Path]) -> set[str]:
    return {path.relative_to(PACKAGE).as_posix() for path in paths}


def test_every_compiled_module_and_its_imports_are_in_the_key() -> None:
    names = _names(compiled_sources(PACKAGE))
    using_numba = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "import njit" in path.read_text(encoding="utf-8")
    }
    assert using_numba <= names
    # constants and helpers the compiled engine captures
    assert {
        "engine/layout.py",
        "engine/rng.py",
        "engine/rules.py",
        "engine/cards.py",
        "game/encoding.py",
    } <= names


def test_pure_python_front_ends_are_not_in_the_key() -> None:
    names = _names(compiled_sources(PACKAGE))
    assert not {"envs/aec.py", "envs/render.py", "envs/single.py", "__init__.py"} & names


def test_closure_follows_relative_imports_of_compiled_modules(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernel.py").write_text("from numba import njit\nfrom .consts import N\n")
    (package / "consts.py").write_text("N = 3\n")
    (package / "view.py").write_text("from .kernel import N\n")
    assert _relative(compiled_sources(package), package) == {"kernel.py", "consts.py"}


def _relative(paths: list[Path], root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in paths}

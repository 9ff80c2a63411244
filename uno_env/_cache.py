"""Where numba keeps the compiled engine: a directory keyed by a hash of this package's source.

Numba invalidates a cached function only when its own file changes, but a compiled function
embeds the compiled code of every function it calls, in other files too. Keying the cache
directory on the source of every module compiled code can reach (see
:func:`compiled_sources`) means such an edit compiles everything afresh instead of loading
code built against the old rules. ``UNO_ENV_CACHE_DIR`` (or numba's own
``NUMBA_CACHE_DIR``) chooses the parent directory; by default it is the user's cache dir.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

import numba


def _module_file(target: Path) -> Path | None:
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_imports(tree: ast.Module, path: Path, package: Path) -> set[Path]:
    """Files of this package that a module imports, relatively or by absolute name."""
    found: set[Path] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
            elif node.module and node.module.split(".")[0] == package.name:
                base = package.parent
            else:
                continue
            target = base.joinpath(*node.module.split(".")) if node.module else base
            # ``from pkg import name``: a submodule if such a file exists, else a name of pkg
            for alias in node.names:
                submodule = _module_file(target / alias.name)
                owner = submodule or _module_file(target)
                if owner is not None:
                    found.add(owner)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == package.name:
                    module = _module_file(package.parent.joinpath(*alias.name.split(".")))
                    if module is not None:
                        found.add(module)
    return found


def _uses_numba(tree: ast.Module) -> bool:
    """Whether a module compiles code: it imports numba, or the package's ``_jit`` decorator."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "numba" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] == "numba" or (node.module or "").split(".")[-1] == "_jit":
                return True
    return False


def compiled_sources(package: Path) -> list[Path]:
    """The modules compiled code can depend on: every module that uses numba, and what it imports.

    A compiled function captures the constants and functions of the modules it imports, so
    those must be part of the key; pure-Python modules outside that closure (rendering, the
    PettingZoo and Gymnasium classes, records) cannot change compiled code and are left out,
    so editing them does not throw away the compiled engine.
    """
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(package.rglob("*.py"))}
    pending = [path for path, tree in trees.items() if _uses_numba(tree)]
    closure: set[Path] = set()
    while pending:
        path = pending.pop()
        if path in closure:
            continue
        closure.add(path)
        pending.extend(_package_imports(trees[path], path, package) - closure)
    return sorted(closure)


def _source_digest() -> str:
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in compiled_sources(package):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure_numba_cache() -> Path:
    """Point numba's cache at the directory of this exact source; return it."""
    base = os.environ.get("UNO_ENV_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "uno_env")
    directory = Path(base) / f"numba-{_source_digest()}"
    numba.config.CACHE_DIR = str(directory)  # type: ignore[attr-defined]
    return directory


CACHE_DIR = configure_numba_cache()

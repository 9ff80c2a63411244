"""Where numba keeps the compiled engine, what CPU it compiles for, and the install's own copy.

**The directory.** Numba invalidates a cached function only when its own file changes, but a
compiled function embeds the compiled code of every function it calls, in other files too.
Keying the cache directory on the source of every module compiled code can reach (see
:func:`compiled_sources`) means such an edit compiles everything afresh instead of loading
code built against the old rules. ``UNO_ENV_CACHE_DIR`` (or numba's own ``NUMBA_CACHE_DIR``)
chooses the parent directory; by default it is the user's cache dir.

**The code target.** On x86-64 the engine is compiled for the ``x86-64-v2`` baseline (every
x86-64 CPU since about 2009: SSE4.2 and POPCNT) rather than for the host's exact model, so
one compiled copy serves every machine of a cluster and a wheel can carry it. The engine is
integer and branch code; ``make bench`` measures no difference from host code.
``UNO_ENV_CPU=host`` compiles for the host CPU instead; a ``NUMBA_CPU_NAME`` the user set is
kept. numba has one code target per process, so the choice holds for every function compiled
after ``uno_env`` is imported; if numba code was compiled before (the target is fixed then),
the host target stays and the engine is compiled for it.

**The install's compiled engine.** A wheel carries the engine compiled at build time
(``uno_env/_compiled/``: :func:`write_compiled_engine`, run by the build hook in
``setup.py``). On import, when the cache directory does not hold it yet and the copy fits
this process (same source, numba version, Python version, machine and code target), it is
copied into the cache directory under the names numba expects for this install's paths, so
the first step loads code instead of compiling it. :data:`COMPILED_ENGINE` says whether it
was used, or why not. Editable and source-tree installs carry none and compile on first use.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

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
    """Whether a module compiles code: it imports numba, or the package's decorator (:mod:`.jit`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "numba" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] == "numba" or (node.module or "").split(".")[-1] == "jit":
                return True
    return False


def compiled_sources(package: Path) -> list[Path]:
    """The modules compiled code can depend on: every module that uses numba, and what it imports.

    A compiled function captures the constants and functions of the modules it imports, so
    those must be part of the key; pure-Python modules outside that closure (rendering, the
    PettingZoo and Gymnasium classes, records) cannot change compiled code and are left out,
    so editing them does not throw away the compiled engine.
    """
    return list(_compiled_sources(package))


@functools.cache
def _compiled_sources(package: Path) -> tuple[Path, ...]:
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(package.rglob("*.py"))}
    pending = [path for path, tree in trees.items() if _uses_numba(tree)]
    closure: set[Path] = set()
    while pending:
        path = pending.pop()
        if path in closure:
            continue
        closure.add(path)
        pending.extend(_package_imports(trees[path], path, package) - closure)
    return tuple(sorted(closure))


PACKAGE_DIR = Path(os.path.abspath(__file__)).parent.parent
"""The ``uno_env`` package's folder, as numba sees its modules' files (absolute, links not resolved)."""

PORTABLE_CPU = "x86-64-v2"
"""The code target on x86-64 (LLVM's name for the x86-64 baseline with SSE4.2 and POPCNT)."""

_PORTABLE_FEATURES = ("cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3")
"""What :data:`PORTABLE_CPU` code needs from the host (LLVM feature names)."""

CPU_CHOICES = ("portable", "host")
"""Values of ``UNO_ENV_CPU``."""

COMPILED_DIR_NAME = "_compiled"
"""The folder of this package that holds a wheel's compiled engine."""


def _source_digest() -> str:
    digest = hashlib.sha256()
    for path in compiled_sources(PACKAGE_DIR):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _target_fixed() -> bool:
    """Whether numba already built its code generator (its CPU can no longer change)."""
    from numba.core.registry import cpu_target

    return "_toplevel_target_context" in vars(cpu_target)


def _host_runs_portable_code() -> bool:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    return all(features.get(name, False) for name in _PORTABLE_FEATURES)


def choose_code_target(choice: str | None = None) -> str:
    """Set numba's code target for this process and return its label.

    ``choice`` (default: ``UNO_ENV_CPU``, else ``"portable"``) is ``"portable"`` or ``"host"``;
    anything else is refused. The label is :data:`PORTABLE_CPU`, ``"host"``, or the CPU name
    the user gave numba (``NUMBA_CPU_NAME``), which is kept.
    """
    if choice is None:
        choice = os.environ.get("UNO_ENV_CPU") or "portable"
    if choice not in CPU_CHOICES:
        raise ValueError(f"UNO_ENV_CPU={choice!r} is not a code target; allowed: {', '.join(CPU_CHOICES)}")
    config: Any = numba.config
    if config.CPU_NAME is not None:
        return str(config.CPU_NAME)
    if choice == "host" or config.DISABLE_JIT or _target_fixed() or not _host_runs_portable_code():
        return "host"
    config.CPU_NAME = PORTABLE_CPU
    config.CPU_FEATURES = ""  # the named CPU's own features, not the host's
    return PORTABLE_CPU


def _module_folders() -> list[Path]:
    """The package folders whose modules numba caches (one cache sub-directory each)."""
    return sorted({path.parent for path in compiled_sources(PACKAGE_DIR)})


def _cache_subdir(folder: Path) -> str:
    """The name numba gives the cache sub-directory of a source folder (from its absolute path)."""
    from numba.core.caching import _CacheLocator

    return str(_CacheLocator.get_suitable_cache_subpath(str(folder / "module.py")))


def _folder_key(folder: Path) -> str:
    """A folder's place in the package, independent of where it is installed: ``uno_env.envs``."""
    return ".".join((PACKAGE_DIR.name, *folder.relative_to(PACKAGE_DIR).parts))


def _fit_keys(digest: str, target: str) -> dict[str, str]:
    """What a compiled engine must have been built for to serve this process: its manifest's keys."""
    return {
        "source": digest,
        "numba": numba.__version__,
        "python": sys.implementation.cache_tag,
        "machine": platform.machine(),
        "cpu": target,
    }


def _fit(manifest: dict[str, Any], digest: str, target: str) -> list[str]:
    """What keeps a compiled engine from serving this process (nothing: it fits)."""
    return [
        f"{key} {manifest.get(key)} (this process: {value})"
        for key, value in _fit_keys(digest, target).items()
        if manifest.get(key) != value
    ]


def seed_from_compiled_engine(directory: Path, target: str, digest: str, compiled: Path | None = None) -> str:
    """Copy the install's compiled engine into the cache ``directory`` if it fits; say what happened.

    Each module folder's code goes to the sub-directory numba will look in for this install's
    path, through a temporary name and a rename, so processes starting together on one
    directory (pool workers, a cluster's nodes) neither clash nor read half a copy. A
    sub-directory that already exists is left as it is.
    """
    compiled = PACKAGE_DIR / COMPILED_DIR_NAME if compiled is None else compiled
    manifest_file = compiled / "manifest.json"
    if not manifest_file.is_file():
        return "none in this install (compiled on first use)"
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # a damaged install must not stop the import
        return f"not used, its manifest {manifest_file} is unreadable: {error}"
    if not isinstance(manifest, dict):
        return f"not used, its manifest {manifest_file} is not a JSON object"
    misfit = _fit(manifest, digest, target)
    if misfit:
        return "not used, it was built for another " + "; ".join(misfit)
    copied = 0
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for folder in _module_folders():
            source = compiled / _folder_key(folder)
            destination = directory / _cache_subdir(folder)
            if not source.is_dir():
                continue
            if destination.exists():
                # numba makes a module's cache folder when the module is imported: a folder with
                # no index yet is filled file by file (seeding after import, on a Ray node); one
                # with code compiled here is left as it is (index files cannot be merged)
                if not any(destination.glob("*.nbi")):
                    copied += _fill_folder(source, destination)
                continue
            staging = directory / f".{destination.name}.{os.getpid()}"
            shutil.copytree(source, staging)
            try:
                os.rename(staging, destination)
                copied += 1
            except OSError:  # another process was first: its copy is the same
                shutil.rmtree(staging, ignore_errors=True)
        for marker in compiled.glob("warm-*"):
            if not (directory / marker.name).exists():
                shutil.copyfile(marker, directory / marker.name)
    except OSError as error:
        return f"not used, copying it into {directory} failed: {error}"
    return "used" if copied else "already in the cache directory"


def _fill_folder(source: Path, destination: Path) -> int:
    """Copy the files of ``source`` missing from ``destination``, each through a temporary name
    and a rename (data files before index files, so no index names a file not yet there);
    1 if anything was copied."""
    files = sorted(source.iterdir(), key=lambda path: (path.suffix == ".nbi", path.name))
    copied = 0
    for path in files:
        target = destination / path.name
        if not path.is_file() or target.exists():
            continue
        staging = destination / f".{path.name}.{os.getpid()}.tmp"
        shutil.copyfile(path, staging)
        os.replace(staging, target)
        copied = 1
    return copied


def write_compiled_engine(out: Path) -> dict[str, Any]:
    """Write the compiled engine in :data:`CACHE_DIR` to ``out``, as a wheel carries it.

    Run after :func:`uno_env.compiler.compiling.compile_all` in a process whose cache directory held
    nothing else (the build hook uses a fresh temporary one). Refused unless the code target
    is a named CPU (:data:`PORTABLE_CPU` by default): host code would only fit this machine.
    Returns the manifest that :func:`seed_from_compiled_engine` checks.
    """
    if CODE_TARGET == "host":
        raise ValueError(
            "the engine was compiled for this host's CPU; a compiled engine to ship needs a portable "
            f"target (UNO_ENV_CPU=portable on x86-64, or NUMBA_CPU_NAME), got {CODE_TARGET!r}"
        )
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    folders = []
    for folder in _module_folders():
        source = CACHE_DIR / _cache_subdir(folder)
        if source.is_dir():
            shutil.copytree(source, out / _folder_key(folder))
            folders.append(_folder_key(folder))
    if not folders:
        raise ValueError(f"nothing compiled in {CACHE_DIR}: run uno_env.compile_all() first")
    for marker in CACHE_DIR.glob("warm-*"):
        shutil.copyfile(marker, out / marker.name)
    config: Any = numba.config
    manifest = {
        **_fit_keys(SOURCE_DIGEST, CODE_TARGET),
        "cpu_features": config.CPU_FEATURES,
        "folders": folders,
        "parts": sorted(marker.name.removeprefix("warm-") for marker in CACHE_DIR.glob("warm-*")),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def configure_numba_cache() -> tuple[Path, str, str, str]:
    """Choose the code target, point numba's cache at this source's directory, seed it.

    Returns the directory, the code target, the source digest and what became of the
    install's compiled engine.
    """
    target = choose_code_target()
    digest = _source_digest()
    base = os.environ.get("UNO_ENV_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "uno_env")
    # one directory per target: code for one CPU never stands in for another's warm markers
    name = f"numba-{digest}" if target == "host" else f"numba-{digest}-{target}"
    directory = Path(base) / name
    config: Any = numba.config
    config.CACHE_DIR = str(directory)
    if config.DISABLE_JIT:
        return directory, target, digest, "not needed: numba is off"
    return directory, target, digest, seed_from_compiled_engine(directory, target, digest)


CACHE_DIR, CODE_TARGET, SOURCE_DIGEST, COMPILED_ENGINE = configure_numba_cache()
"""The cache directory, the code target's label, the digest of the compiled source, and what
became of the install's compiled engine (``"used"``, or why not)."""

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

**One cache, many processes.** Every compiled function of the package uses
:class:`PackageFunctionCache` (through :func:`uno_env.compiler.jit.njit`), which changes two things
in numba's cache. Its entries live in sub-directories named by the module's place in the
package (``uno_env``, ``uno_env.envs``), not by the absolute path of the source folder, so
every checkout, editable install, wheel install and virtual environment of the same source
(and numba and Python version: both are in the directory's name) shares one set of entries
and one set of warm markers. And its index updates are serialised by a lock file per
sub-directory (``fcntl.flock``): a new entry's data file is written first, under a name no
file has, and the index is then read again, the entry added and the index replaced whole,
so processes compiling at once never drop each other's entries, never overwrite an entry
another wrote, and never find an index naming a data file that is not there or not whole;
an unreadable index or data file is a cache miss, never an error. Several processes
starting on a cold part take turns (:func:`uno_env.compiler.compiling.compiling`): one compiles, the
others wait for it and load its code.

**The install's compiled engine.** A wheel carries the engine compiled at build time
(``uno_env/_compiled/``: :func:`write_compiled_engine`, run by the build hook in
``setup.py``). On import, when the cache directory does not hold it yet and the copy fits
this process (same source, numba version, Python version, machine and code target), it is
copied into the cache directory under the names numba expects for this install's paths, so
the first step loads code instead of compiling it; into a sub-directory that already exists
(another install of the same source compiled some functions there) it adds the functions
that are missing.
:data:`COMPILED_ENGINE` says whether it was used, or why not. Editable and source-tree
installs carry none and compile on first use.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import itertools
import json
import os
import pickle
import platform
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba
from numba.core import caching


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


def _folder_key(folder: Path) -> str:
    """A folder's place in the package, independent of where it is installed: ``uno_env.envs``.

    It names the folder's cache sub-directory (:class:`_PackageLocator`) and its copy in a
    wheel's compiled engine.
    """
    return ".".join((PACKAGE_DIR.name, *folder.relative_to(PACKAGE_DIR).parts))


# ================================================================ numba's cache, shared safely
@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (``fcntl.flock``; created if missing) while
    the body runs; the kernel releases it if the process dies. Without ``fcntl`` (Windows) or
    when the file cannot be opened, the body runs unlocked."""
    try:
        import fcntl

        handle = open(path, "a+b")  # noqa: SIM115  (held for the body, closed below)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield
    finally:
        handle.close()  # releases the lock


INDEX_LOCK = ".index.lock"
"""The lock file of a cache sub-directory, held while an index changes."""


class LockedIndexDataCacheFile(caching.IndexDataCacheFile):
    """numba's index-and-data cache file, safe for many processes on one directory.

    numba reads the index, adds the entry and rewrites the index, then writes the data file,
    all unlocked: two processes saving at once keep only one entry, may both pick the same
    data file name, and a reader can find an index naming a data file not yet written. Here
    a save holds the sub-directory's lock (:data:`INDEX_LOCK`), writes the data file first
    (to a fresh name, through a temporary file and a rename, as numba does), then reads the
    index again, adds the entry and replaces the index whole. An entry already there (another
    process saved the same code) is kept, not overwritten. Loading takes no lock: index and
    data files are only ever replaced whole, and one that cannot be read is a miss.
    """

    def save(self, key: Any, data: Any) -> None:
        """Add the entry ``key`` with ``data`` unless another process already saved it."""
        os.makedirs(self._cache_path, exist_ok=True)
        with locked(Path(self._cache_path) / INDEX_LOCK):
            overloads = self._load_index()
            if key in overloads and os.path.exists(self._data_path(overloads[key])):
                return
            taken = set(overloads.values())
            for number in itertools.count(1):
                name = self._data_name(number)
                if name not in taken and not os.path.exists(self._data_path(name)):
                    break
            self._save_data(name, data)
            overloads[key] = name
            self._save_index(overloads)

    def _load_index(self) -> dict[Any, str]:
        try:
            overloads: dict[Any, str] = super()._load_index()
        except (
            OSError,
            EOFError,
            pickle.UnpicklingError,
            ValueError,
            TypeError,
            AttributeError,
            ImportError,
        ):
            return {}  # damaged: treated as empty (and replaced whole by the next save)
        return overloads

    def load(self, key: Any) -> Any:
        """The entry ``key``, or None (missing, or unreadable: a miss, compiled again)."""
        try:
            return super().load(key)
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, ImportError):
            return None


class _PackageLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Where numba keeps a package function: ``<cache directory>/<folder key>`` (:func:`_folder_key`).

    numba's own locator names the sub-directory from the source folder's absolute path, so
    each checkout or install of the same source had entries of its own while the warm
    markers, keyed by the source, were shared. The entry is still checked against a hash of
    the source file's content (numba's stamp) and the function's bytecode (numba's key).
    """

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(CACHE_DIR / _folder_key(Path(py_file).parent))

    def get_cache_path(self) -> str:
        """The cache sub-directory of the function's folder."""
        return self._cache_path

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        """A locator for functions of this package's files when numba caches into
        :data:`CACHE_DIR` (None otherwise, or when it cannot be written: numba's own locators
        are tried next)."""
        config: Any = numba.config
        folder = Path(os.path.abspath(py_file)).parent
        if str(CACHE_DIR) != config.CACHE_DIR or not folder.is_relative_to(PACKAGE_DIR):
            return None
        return super().from_function(py_func, py_file)


class _PackageCacheImpl(caching.CompileResultCacheImpl):
    # tried in order: numba's own locators serve when the cache directory cannot be written
    _locator_classes = [_PackageLocator, *caching.CompileResultCacheImpl._locator_classes]  # noqa: RUF012


class PackageFunctionCache(caching.FunctionCache):
    """numba's function cache with :class:`_PackageLocator` and :class:`LockedIndexDataCacheFile`.

    :func:`uno_env.compiler.jit.njit` gives it to every function compiled with ``cache=True``.
    """

    _impl_class = _PackageCacheImpl

    def __init__(self, py_func: Any) -> None:
        super().__init__(py_func)
        stamp = self._cache_file._source_stamp
        self._cache_file = LockedIndexDataCacheFile(self._cache_path, self._impl.filename_base, stamp)

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached code for ``sig``, or None; code that cannot be rebuilt is a miss."""
        try:
            return super().load_overload(sig, target_context)
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError, KeyError, AttributeError):
            return None


def seed_folder(source: Path, destination: Path) -> int:
    """Copy into the cache sub-directory ``destination`` the functions of ``source`` (a wheel's
    compiled engine) it has no index for; return how many.

    Under the sub-directory's lock (:data:`INDEX_LOCK`), each function's data files are copied
    first and its index last, each through a temporary file and a rename, so a reader never
    finds an index without its data. A function already there (another install of the same
    source compiled it into the shared folder) keeps its own index: merging the wheel's
    entries into it would unpickle their keys, which imports the package while it is being
    imported; that install adds what it lacks as it compiles.
    """
    destination.mkdir(parents=True, exist_ok=True)
    copied = 0
    with locked(destination / INDEX_LOCK):
        for index in sorted(source.glob("*.nbi")):
            if (destination / index.name).exists():
                continue
            data = re.compile(re.escape(index.name.removesuffix(".nbi")) + r"\.\d+\.nbc")
            for entry in sorted(source.iterdir()):
                if data.fullmatch(entry.name):
                    _copy_atomic(entry, destination / entry.name)
            _copy_atomic(index, destination / index.name)
            copied += 1
    return copied


def _write_atomic(path: Path, data: bytes) -> None:
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        staging.write_bytes(data)
        os.replace(staging, path)
    finally:
        staging.unlink(missing_ok=True)


def _copy_atomic(source: Path, destination: Path) -> None:
    _write_atomic(destination, source.read_bytes())


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

    Each module folder's functions go into its sub-directory (:func:`seed_folder`: under the
    sub-directory's lock, data files before the index, a function already there kept), so
    processes starting together on one directory (pool workers, a cluster's nodes, an
    editable install compiling beside a wheel) neither clash nor read half a copy.
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
            if source.is_dir():
                copied += seed_folder(source, directory / _folder_key(folder))
        for marker in compiled.glob("warm-*"):
            if not (directory / marker.name).exists():
                shutil.copyfile(marker, directory / marker.name)
    except OSError as error:
        return f"not used, copying it into {directory} failed: {error}"
    return "used" if copied else "already in the cache directory"


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
        source = CACHE_DIR / _folder_key(folder)
        if source.is_dir():
            shutil.copytree(source, out / _folder_key(folder), ignore=shutil.ignore_patterns(".*"))
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


def directory_name(digest: str, target: str) -> str:
    """The cache directory's name: ``numba-<key>-<target>`` (``numba-<key>`` for host code).

    The key hashes the source digest with numba's version and Python's cache tag: numba
    treats an index of another numba version as empty and would write over its data files,
    so two environments with different numba versions on one cache folder keep apart. One
    directory per target: code for one CPU never stands in for another's warm markers.
    """
    key = hashlib.sha256(f"{digest} {numba.__version__} {sys.implementation.cache_tag}".encode()).hexdigest()[
        :16
    ]
    return f"numba-{key}" if target == "host" else f"numba-{key}-{target}"


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
    directory = Path(base) / directory_name(digest, target)
    config: Any = numba.config
    config.CACHE_DIR = str(directory)
    if config.DISABLE_JIT:
        return directory, target, digest, "not needed: numba is off"
    return directory, target, digest, seed_from_compiled_engine(directory, target, digest)


CACHE_DIR, CODE_TARGET, SOURCE_DIGEST, COMPILED_ENGINE = configure_numba_cache()
"""The cache directory, the code target's label, the digest of the compiled source, and what
became of the install's compiled engine (``"used"``, or why not)."""

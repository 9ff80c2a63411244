"""What one node of a Ray cluster has: sent by value to every node before a run starts.

:func:`describe_node` runs as a Ray task pinned to each node (:mod:`training.cluster`). It is
pickled *by value* (``ray.cloudpickle.register_pickle_by_value`` on this module), so it runs
on a node that cannot import this package at all, and reports that instead of failing to
unpickle; for the same reason it imports nothing of the package at module level.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

SHIPPED_ENGINE_MODULE = "uno_env_shipped_engine"
"""The module a run's Ray runtime environment carries the driver's compiled engine in
(``py_modules``): its folder holds ``compiled/`` laid out as a wheel's ``uno_env/_compiled``."""


def shipped_engine_folder() -> Path | None:
    """The compiled engine this process's Ray runtime environment carries, if any."""
    spec = importlib.util.find_spec(SHIPPED_ENGINE_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "compiled"
    return folder if folder.is_dir() else None


def seed_shipped_engine() -> str:
    """Copy the shipped compiled engine into this node's cache directory if it fits; say what
    became of it (``"used"``, ``"already in the cache directory"``, or why not)."""
    # imported here, never at module level: this module travels by value to nodes that may
    # not have the package, and a module-level import would fail there before it can report
    cache = importlib.import_module("uno_env.compiler.cache")
    folder = shipped_engine_folder()
    if folder is None:
        return f"none shipped; the node's own: {cache.COMPILED_ENGINE}"
    return str(
        cache.seed_from_compiled_engine(cache.CACHE_DIR, cache.CODE_TARGET, cache.SOURCE_DIGEST, folder)
    )


def _package_version() -> str:
    try:
        return metadata.version("uno-env")
    except metadata.PackageNotFoundError:
        return "a source tree"


def describe_node() -> dict[str, Any]:
    """This node's address, versions and compiled engine (seeded from the shipped one first).

    A node that cannot import the package says so in ``"error"`` instead of the package keys.
    """
    import ray

    info: dict[str, Any] = {
        "address": ray.util.get_node_ip_address(),
        "node_id": ray.get_runtime_context().get_node_id(),
        "ray": ray.__version__,
        "python": ".".join(str(part) for part in sys.version_info[:3]),
        "executable": sys.executable,
        "pid": os.getpid(),
    }
    try:
        cache = importlib.import_module("uno_env.compiler.cache")
        importlib.import_module("training.runner")
    except ImportError as exc:
        info["error"] = f"{type(exc).__name__}: {exc}"
        return info
    info.update(
        package=_package_version(),
        source=cache.SOURCE_DIGEST,
        target=cache.CODE_TARGET,
        cache_dir=str(cache.CACHE_DIR),
        engine=seed_shipped_engine(),
    )
    return info

"""The optional dependencies ("extras") of the commands, checked before any work starts.

A command that needs an optional package calls :func:`require` first thing, with the
modules its arguments call for (a study always needs pandas and matplotlib for its report;
a checkpoint among the agents needs torch and sb3-contrib; ``--executor ray`` needs Ray),
so a missing package stops it in milliseconds with the line to install, instead of after
minutes of games. :func:`find_spec` is asked, not ``import``: the check costs no import
time, and a module that a meta-path hook hides counts as missing (the tests hide modules
that way in a child process).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "matplotlib"),
    "study": ("pandas", "pyarrow", "matplotlib", "openskill"),
    "ray": ("ray",),
    "video": ("imageio", "imageio_ffmpeg"),
    "web": ("starlette", "uvicorn", "websockets"),
}
"""The top-level modules each extra of ``pyproject.toml`` provides, as the code imports them
(a test keeps this in step with ``pyproject.toml``)."""

TRAIN = ("torch", "stable_baselines3", "sb3_contrib")
"""What loading or training a MaskablePPO checkpoint imports (the train extra)."""
REPORT = ("pandas", "matplotlib")
"""What the study's and the sweep's tables, report and plots import (the study extra)."""
RATINGS = ("pandas", "matplotlib", "openskill")
"""What a tournament's standings, plot and ratings import (the study extra)."""


class MissingPackageError(RuntimeError):
    """An optional package a command needs is not installed; the message names the extra."""


def is_installed(module: str) -> bool:
    """Whether ``module`` can be imported here (found on the path, not hidden)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a hook refusing the name
        return False


def extra_of(module: str) -> str:
    """The extra that provides ``module`` (the first in :data:`EXTRA_MODULES` order)."""
    for extra, modules in EXTRA_MODULES.items():
        if module in modules:
            return extra
    raise KeyError(f"{module!r} is not the module of an extra")


def require(
    command: str,
    needs: Mapping[str, Iterable[str]],
    *,
    resume_dir: str | Path | None = None,
    keeps: str | None = None,
    hint: str | None = None,
    before_work: bool = True,
) -> None:
    """Raise :class:`MissingPackageError` unless every module of ``needs`` (extra -> modules)
    is installed, naming the missing modules, their extras and the ``pip install`` line.

    ``resume_dir`` (the run folder of a ``--resume``) says that its finished work is kept and
    how to continue; ``keeps`` describes, for a long job, where its work is kept and how an
    interrupted run resumes (``"a study keeps its finished batches in its run folder; uno-env
    study --resume DIR continues one"``); ``hint`` names a way around the package (``"or write
    a .gif"``). ``before_work=False`` (a check at the point of use, after some work) leaves out
    "Nothing was run".
    """
    missing: dict[str, list[str]] = {}
    seen: set[str] = set()
    for extra, modules in needs.items():
        if extra not in EXTRA_MODULES:
            raise KeyError(f"unknown extra {extra!r}; extras: {', '.join(EXTRA_MODULES)}")
        for module in modules:
            if module not in EXTRA_MODULES[extra]:
                raise KeyError(f"{module!r} is not a module of the {extra} extra")
            if module not in seen and not is_installed(module):
                missing.setdefault(extra, []).append(module)
            seen.add(module)
    if not missing:
        return
    extras = ",".join(missing)
    modules = ", ".join(m.replace("_", "-") for ms in missing.values() for m in ms)
    which = " and ".join(f"the {e} extra" for e in missing)
    message = (
        f"uno-env {command} needs {modules} ({which}), not installed here: pip install 'uno-env[{extras}]' "
        f"(in a source checkout: .venv/bin/pip install -e '.[{extras}]')"
    )
    if hint:
        message += f"; {hint}"
    if before_work:
        message += ". Nothing was run"
    if resume_dir is not None:
        message += (
            f"; the finished work in {resume_dir} is kept: after installing, continue with "
            f"uno-env {command} --resume {resume_dir}"
        )
    elif keeps:
        message += f" ({keeps})"
    raise MissingPackageError(message)


def checkpoint_needs(agents: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """``{"train": TRAIN}`` when an agent entry is a MaskablePPO checkpoint (a ``.zip`` path),
    else nothing: exported policies (``.npz``) and the compiled styles need no torch."""
    return {"train": TRAIN} if any(str(a).split(":", 1)[0].endswith(".zip") for a in agents) else {}


def executor_needs(executor: str) -> dict[str, tuple[str, ...]]:
    """``{"ray": ("ray",)}`` for ``--executor ray``, else nothing."""
    return {"ray": ("ray",)} if executor == "ray" else {}


def merge(*needs: Mapping[str, Iterable[str]]) -> dict[str, tuple[str, ...]]:
    """The union of several ``extra -> modules`` mappings."""
    out: dict[str, list[str]] = {}
    for need in needs:
        for extra, modules in need.items():
            for module in modules:
                if module not in out.setdefault(extra, []):
                    out[extra].append(module)
    return {extra: tuple(modules) for extra, modules in out.items()}


__all__ = [
    "EXTRA_MODULES",
    "RATINGS",
    "REPORT",
    "TRAIN",
    "MissingPackageError",
    "checkpoint_needs",
    "executor_needs",
    "extra_of",
    "is_installed",
    "merge",
    "require",
]

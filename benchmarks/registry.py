"""Rows of the speed table and the modules that contribute them.

A :class:`Row` names one way of playing games (an engine, a facade, an env loop, ...) and
carries a callable ``(num_players, min_seconds, seed) -> {"steps", "games", "seconds"}``
that plays whole games with random legal play until at least ``min_seconds`` of wall time
have passed, where a step is one player decision.  A row may also return ``"cpu_seconds"``,
the process CPU time (``time.process_time``) of the same timed region, used by
``--clock cpu``.  A :class:`Target` states a speed
requirement on a row, as a ratio to a reference row or as absolute steps per second.

Rows come from modules named ``rows_*.py`` next to this file, found by
:func:`discover`.  Each such module exposes either

* ``ROWS: list[Row]``, or
* ``rows(presets: Sequence[str]) -> list[Row]``, called with the rule presets the user
  asked for (rows of our own engine are built once per preset; rows of third-party
  engines ignore the argument),

and optionally ``TARGETS: list[Target]``.  A module that fails to import or to build its
rows (a missing optional dependency, say) becomes a :class:`SkippedRow` with the reason,
never a crash.  ``rows_engine.py`` is the worked example; the third-party reference rows
are built in :mod:`bench_engine` from :mod:`baselines`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

RunFn = Callable[[int, float, int], Mapping[str, float]]
"""``(num_players, min_seconds, seed) -> {"steps": ..., "games": ..., "seconds": ...}``."""

RLCARD_ENGINE = "rlcard_engine"
"""Key of the RLCard raw-engine row, the first ratio column."""
OPENSPIEL_CRAZY_EIGHTS = "openspiel_crazy_eights"
"""Key of the OpenSpiel ``crazy_eights`` row, the second ratio column."""

ROW_MODULE_PATTERN = "rows_*.py"
FIRST_MODULE = "rows_engine"
"""Rows of this module are listed first; other row modules follow in name order."""


def _slug(name: str) -> str:
    """A lower-case identifier made from a display name (``"uno_env batch"`` -> ``uno_env_batch``)."""
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


@dataclass(frozen=True)
class Row:
    """One line of the speed table per player count (and per rule preset for our rows).

    Attributes:
        name: Display name, e.g. ``"uno_env batch"``.
        group: Selection name for ``--rows``; several rows may share a group.
        players: Player counts the row can play; other requested counts are reported as
            not run.
        run: ``(num_players, min_seconds, seed) -> {"steps", "games", "seconds", ...}``; extra
            numeric keys are kept in the JSON output.
        key: Stable identifier used by targets, ratio columns and the JSON output; defaults
            to the name made lower-case with non-alphanumerics replaced by ``_``.
        preset: The uno_env rule preset played, or ``None`` for third-party engines.
        ours: Whether the row measures uno_env (ratio columns are filled for these only).
        note: A footnote printed under the table (empty for none).
        meta: Further (name, value) labels a table of its own reads (the cliff table:
            ``policy``, ``case``, ``kind``).
    """

    name: str
    group: str
    players: tuple[int, ...]
    run: RunFn
    key: str = ""
    preset: str | None = None
    ours: bool = True
    note: str = ""
    meta: tuple[tuple[str, str], ...] = ()

    @property
    def id(self) -> str:
        """The row's key (explicit or derived from its name)."""
        return self.key or _slug(self.name)


def preset_rows(
    name: str,
    group: str,
    key: str,
    note: str,
    presets: Sequence[str],
    run: Callable[..., Mapping[str, float]],
) -> list[Row]:
    """A row of ours for every rule preset, at every player count the preset seats:
    ``run(preset, num_players, min_seconds, seed)`` plays it."""
    import uno_env

    out = []
    for preset in presets:
        rules = uno_env.preset(preset)
        players = tuple(range(rules.min_players, rules.max_players + 1))
        out.append(
            Row(name, group, players, functools.partial(run, preset), key=key, preset=preset, note=note)
        )
    return out


@dataclass(frozen=True)
class SkippedRow:
    """A row (or a whole row module) that could not be measured, and why."""

    name: str
    group: str
    reason: str


@dataclass(frozen=True)
class Target:
    """A speed requirement checked under the table for every preset and player count run.

    Attributes:
        label: What is required, as printed (``"batch engine >= 20x RLCard raw engine"``).
        row: Key of the row the requirement is about.
        minimum: Lowest acceptable ratio to ``reference``, or lowest rate without one.
        reference: Key of the reference row, or ``None`` for an absolute floor.
        unit: ``"steps"`` (decisions per second) or ``"games"`` (whole games per second:
            the same work on both sides when the row plays the reference's rules).
    """

    label: str
    row: str
    minimum: float
    reference: str | None = None
    unit: str = "steps"


@dataclass
class Registry:
    """Rows and targets gathered from the row modules, in display order."""

    rows: list[Row]
    skipped: list[SkippedRow]
    targets: list[Target]

    def add(self, rows: Sequence[Row], source: str) -> None:
        """Append rows, turning duplicate (key, preset) pairs and non-rows into skipped rows.

        Args:
            rows: Rows to add.
            source: Where they come from, named in skip reasons.
        """
        seen = {(r.id, r.preset) for r in self.rows}
        for row in rows:
            if not isinstance(row, Row):
                self.skipped.append(SkippedRow(source, "?", f"not a Row: {row!r}"))
            elif (row.id, row.preset) in seen:
                self.skipped.append(
                    SkippedRow(
                        row.name, row.group, f"duplicate key {row.id!r} (preset {row.preset}) in {source}"
                    )
                )
            else:
                seen.add((row.id, row.preset))
                self.rows.append(row)

    def groups(self) -> list[str]:
        """Group names of the registered rows, in display order, without repeats."""
        return list(dict.fromkeys(r.group for r in self.rows))


def row_modules(directory: Path | None = None) -> list[str]:
    """Module names of the ``rows_*.py`` files in ``directory``, ``rows_engine`` first.

    Args:
        directory: Folder to scan; defaults to the folder of this file.

    Returns:
        Importable module names (the folder must be on ``sys.path``).
    """
    folder = Path(__file__).resolve().parent if directory is None else directory
    names = sorted(p.stem for p in folder.glob(ROW_MODULE_PATTERN))
    return sorted(names, key=lambda n: n != FIRST_MODULE)


def _module_rows(module_name: str, presets: Sequence[str]) -> tuple[list[Row], list[Target]]:
    """Import one row module and build its rows and targets (exceptions propagate).

    Args:
        module_name: Name of a ``rows_*`` module on ``sys.path``.
        presets: Rule presets passed to the module's ``rows`` function.

    Returns:
        The module's rows and targets.
    """
    module = importlib.import_module(module_name)
    factory = getattr(module, "rows", None)
    if callable(factory):
        built = factory(presets) if inspect.signature(factory).parameters else factory()
    elif hasattr(module, "ROWS"):
        built = module.ROWS
    else:
        raise AttributeError(f"{module_name} defines neither ROWS nor rows(presets)")
    targets = list(getattr(module, "TARGETS", []))
    bad = [t for t in targets if not isinstance(t, Target)]
    if bad:
        raise TypeError(f"{module_name}.TARGETS holds a non-Target: {bad[0]!r}")
    return list(built), targets


def discover(presets: Sequence[str], directory: Path | None = None) -> Registry:
    """Gather the rows and targets of every ``rows_*`` module.

    A module that raises while importing or building its rows is recorded as a
    :class:`SkippedRow` named after the module, with the exception as the reason.

    Args:
        presets: Rule presets our own rows are built for.
        directory: Folder to scan; defaults to the folder of this file.

    Returns:
        The registry of rows (module order, then each module's order), skipped rows and targets.
    """
    registry = Registry([], [], [])
    for name in row_modules(directory):
        try:
            rows, targets = _module_rows(name, presets)
        except Exception as exc:
            registry.skipped.append(
                SkippedRow(name, name.removeprefix("rows_"), f"{type(exc).__name__}: {exc}")
            )
            continue
        registry.add(rows, name)
        registry.targets.extend(targets)
    return registry

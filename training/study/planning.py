"""The study's plan: seatings, deal ranges and the batches of every cell.

:func:`seatings` and :func:`reference_seatings` seat the styles of a cell (every style in
every seat equally often), :func:`first_deal` and :func:`deals_per_seating` give each deal
set its deal range (the same deals in every cell), and :func:`plan` splits the cells into
:class:`BatchTask` batches whose seeds come from the spec and the deal range only, so a
study's results never depend on execution order. :func:`task_key` is what each result file
records of its design.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agents.spec import AgentSpec
from training.runner import (
    check_size,
)
from uno_env.engine.rules import RuleSet

if TYPE_CHECKING:
    pass
from .spec import KINDS, LEARNED_BATCH_GAMES, MAX_SEATINGS, STUDY_FORMAT, SpecError, StudySpec


def seatings(styles: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The seatings of a cell (see the module docstring).

    With at least as many styles as seats: every combination of ``players`` styles, each in
    its ``players`` cyclic rotations (every style in every seat, every pair of styles at
    the same number of tables), while that makes at most :data:`MAX_SEATINGS` seatings.
    Otherwise ``k`` tables of a cyclic rotation: table ``t`` seats style ``(t + j) mod k``
    at seat ``j``.
    """
    k = len(styles)
    if players <= k and math.comb(k, players) * players <= MAX_SEATINGS:
        return [
            tuple(combo[(r + j) % players] for j in range(players))
            for combo in itertools.combinations(styles, players)
            for r in range(players)
        ]
    return [tuple(styles[(t + j) % k] for j in range(players)) for t in range(k)]


def reference_seatings(styles: Sequence[str], reference: str, players: int) -> list[tuple[str, ...]]:
    """The fixed-reference seatings: each style but the reference alone at a table of
    ``players - 1`` reference players, in each of the ``players`` seats."""
    return [
        tuple(style if j == seat else reference for j in range(players))
        for style in styles
        if style != reference
        for seat in range(players)
    ]


def kind_seatings(spec: StudySpec, kind: str, players: int) -> list[tuple[str, ...]]:
    """The seatings of one kind (``"field"`` or ``"reference"``) of a cell."""
    if kind == "field":
        return seatings(spec.styles, players)
    return reference_seatings(spec.styles, spec.reference, players) if spec.reference else []


def deals_per_seating(spec: StudySpec, players: int) -> int:
    """Deals of a cell: enough that every seating plays each deal and the cell has ``games``."""
    return math.ceil(spec.games / len(seatings(spec.styles, players)))


def first_deal(spec: StudySpec, players: int, replica: int) -> int:
    """The first deal of a deal set: replica ``r`` plays deals ``[r * D, (r + 1) * D)``.

    The replication's deals are fresh (no deal of the primary set), and every variant plays
    the same ones, so its changes are paired by deal as well.
    """
    return replica * deals_per_seating(spec, players)


@dataclass(frozen=True)
class BatchTask:
    """One batch of a cell: deals ``[first, first + count)`` at each of some seatings.

    ``kind`` says which seatings (``"field"``: the study's styles against each other;
    ``"reference"``: each style alone against the ``reference`` style), ``replica`` which deal
    set (0: the primary deals, 1: the replication's).
    """

    id: str
    variant: str
    players: int
    rules: RuleSet
    styles: tuple[str, ...]
    seatings: tuple[tuple[str, ...], ...]
    seed: int
    first: int
    count: int
    allow_rules_mismatch: bool = False
    kind: str = "field"
    replica: int = 0
    reference: str = ""
    learned: str = ""  # the checkpoint of the LEARNED seat in this cell (a study naming a sweep)
    agents: tuple[AgentSpec, ...] = field(default=(), compare=False)
    """The agents given as Python objects (:attr:`StudySpec.agents`) this batch seats, by name;
    pickled with the task into the worker that plays it (a factory builds its agent there)."""

    def object_agent(self, style: str) -> AgentSpec | None:
        """The Python object agent named ``style`` in this batch, or None."""
        return next((a for a in self.agents if a.text == style), None)


def task_key(task: BatchTask) -> str:
    """SHA-256 of everything that decides a batch's games (what its result file records).

    Variant, players, rules, styles, seatings (and their kind, deal set and reference style),
    seed and deal range: a result file whose key
    differs from its task's was computed for another design and must not be mixed in.
    """
    fields = [
        STUDY_FORMAT, task.variant, task.players, str(task.rules), list(task.styles),
        [list(s) for s in task.seatings], task.seed, task.first, task.count, task.allow_rules_mismatch,
        task.kind, task.replica, task.reference,
    ]  # fmt: skip
    if task.learned:
        fields.append(task.learned)
    return hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()


def _cell_layout(
    spec: StudySpec, players: int, kind: str = "field"
) -> tuple[list[tuple[str, ...]], int, int, int]:
    """A cell's seatings of one kind, deals per seating, deals per batch and seatings per batch."""
    learned = spec.learned() or spec.sweep
    batch_games = min(spec.batch_games, LEARNED_BATCH_GAMES) if learned else spec.batch_games
    layout = kind_seatings(spec, kind, players)
    deals = deals_per_seating(spec, players)
    chunk = min(deals, batch_games)
    return layout, deals, chunk, max(1, batch_games // chunk)


def check_spec_size(spec: StudySpec, variants: int, source: str) -> None:
    """Refuse a study too large to plan, or whose deal seeds leave the seed range, before it runs."""
    batches = largest = deals_max = 0
    for n in spec.players:
        for kind in KINDS:
            layout, deals, chunk, group = _cell_layout(spec, n, kind)
            batches += (
                len(spec.replicas()) * variants * math.ceil(len(layout) / group) * math.ceil(deals / chunk)
            )
            largest = max(largest, chunk * min(group, len(layout)))
            deals_max = max(deals_max, deals * len(spec.replicas()))  # the replication's deals follow
    try:
        check_size(batches, largest, f"{source}: this study", "lower games or batch_games")
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    if spec.seed + deals_max - 1 > 2**63 - 1:
        raise SpecError(
            f"{source}: deal d is dealt with seed + d, and seeds end at 2**63 - 1; with {deals_max:,} deals "
            f"per seating the seed must be at most {2**63 - deals_max:,}, got {spec.seed:,}"
        )


def _seated(spec: StudySpec, layout: Sequence[tuple[str, ...]]) -> tuple[AgentSpec, ...]:
    """The object agents of ``spec`` that sit at one of these seatings."""
    names = {style for table in layout for style in table}
    return tuple(a for a in spec.agents if a.text in names)


def plan(spec: StudySpec) -> list[BatchTask]:
    """Every batch of the study, in a fixed order (deal set, variant, player count, kind of
    seatings, seating group, deals).

    A batch holds at most ``batch_games`` games: consecutive seatings of the cell, each
    playing the same chunk of deals.
    """
    out = []
    models = spec.sweep_models()
    for replica in spec.replicas():
        for variant in spec.variants():
            for n in spec.players:
                offset = first_deal(spec, n, replica)
                for kind in KINDS:
                    layout, deals, chunk, group = _cell_layout(spec, n, kind)
                    index = 0
                    for start in range(0, len(layout), group):
                        for first in range(0, deals, chunk):
                            out.append(
                                BatchTask(
                                    id=f"{variant.id}__{n}p__{kind}{replica}__{index:05d}",
                                    variant=variant.id,
                                    players=n,
                                    rules=variant.rules,
                                    styles=spec.styles,
                                    seatings=tuple(layout[start : start + group]),
                                    seed=spec.seed,
                                    first=offset + first,
                                    count=min(chunk, deals - first),
                                    allow_rules_mismatch=spec.allow_rules_mismatch,
                                    kind=kind,
                                    replica=replica,
                                    reference=spec.reference,
                                    learned=models.get((variant.id, n), ""),
                                    agents=_seated(spec, layout[start : start + group]),
                                )
                            )
                            index += 1
    return out

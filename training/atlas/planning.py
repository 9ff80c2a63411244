"""The atlas' plan: the tables of each kind of games, deal ranges and the batches of every cell.

A *cell* is a variant at a player count. Its games come in five kinds, each on its own deal
range (deal ``d`` of a deal set has seed ``seed + d``, the same in every variant, so changes
against the base are paired by deal):

- ``baseline``: each rung of the ladder but the baseline and the oracle (the rungs below it,
  the field's styles, the strong player, the learned players) alone at a table of ``n - 1``
  baseline players, in each seat (:func:`baseline_tables`);
- ``field``: each rung alone against the field: the other seats hold consecutive styles of
  the field, every seat; with ``field_rotations = "one"`` (the default) each deal seats one
  rotation of the ``k`` styles (the deal set's ``k`` equal runs of consecutive deals, run ``t``
  rotation ``t``), so the games spread over ``k`` times the deals of playing every rotation on
  every deal (``"all"``; :func:`field_tables`, :func:`field_group`);
- ``strong``: the strong player at every seat, one game per deal, traced (every decision's
  win chances);
- ``scripted``: the field at the table (deal ``d`` seats rotation ``d mod k`` of its ``k``
  styles), one game per deal, traced;
- ``fit``: games like the traced kinds on deals of their own (:data:`~training.atlas.names.FIT_OFFSET`),
  to fit each traced kind's win-chance model before its games are measured.

:func:`plan` lists the fit batches (stage 1) and the measuring batches (stage 2; the traced
ones carry their model's weights); every batch's seeds follow from the spec and its deals
alone. :func:`task_key` is what each result file records of its design.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.spec import parse_agent
from training.runner import MAX_BATCHES, check_size
from uno_env.engine.rules import RuleSet
from uno_env.styles.registry import parse_policy

from .names import ATLAS_FORMAT, FIT_OFFSET

if TYPE_CHECKING:
    from .spec import AtlasSpec, AtlasVariant

KINDS = ("baseline", "field", "strong", "scripted")
"""The measuring kinds of games, in plan order."""
TRACED = ("strong", "scripted")
"""The kinds whose games are traced (a win-chance trajectory per game)."""
SHARED = "shared_"
"""Prefix of a traced game's trajectory measures read with the base rules' model
(:attr:`AtlasTask.shared`): the changes against the base are read from these."""


@dataclass(frozen=True)
class AtlasTask:
    """One batch: deals ``[first, first + count)`` of one kind of games of one cell.

    ``tables`` are the seatings (one agent spec per seat); ``focal`` the rung measured at each
    table (``""`` for the traced kinds); for ``scripted`` deal ``d`` plays table ``d mod
    len(tables)``; with ``block > 0`` (the field, one rotation per deal) the tables come in
    consecutive blocks of ``block``, one per rotation, and deal ``d`` plays block ``(d // run)
    mod (len(tables) // block)`` only (runs of ``run`` consecutive deals per rotation: the
    batch simulator plays consecutive deals in one compiled call); every other batch plays
    every deal at every table. ``stage`` is ``"fit"``
    (fit a win-chance model) or ``"measure"``; ``model`` the weights of a traced kind's model
    fitted on the cell's own games (its levels and calibration), ``shared`` those of the base
    rules' model at the same player count and kind, which reads every cell's games for the
    changes against the base (one yardstick on both sides of a change, so a change carries no
    difference between two fits).
    """

    id: str
    stage: str
    kind: str
    variant: str
    players: int
    rules: RuleSet
    replica: int
    seed: int
    first: int
    count: int
    tables: tuple[tuple[str, ...], ...]
    focal: tuple[str, ...] = ()
    coin_flip: bool = False
    model: tuple[float, ...] = ()
    shared: tuple[float, ...] = ()
    block: int = 0
    run: int = 1

    def deal_seeds(self) -> list[int]:
        """The deal seed of each deal of the batch."""
        return [self.seed + self.first + i for i in range(self.count)]

    @property
    def per_deal(self) -> int:
        """Games the batch plays on each deal."""
        return 1 if self.kind in TRACED else self.block or len(self.tables)

    @property
    def games(self) -> int:
        """Games the batch plays."""
        return self.count * self.per_deal

    def block_of(self, deal: int) -> int:
        """The block of tables deal number ``deal`` (counted from the cell's first deal, as
        :attr:`first`) plays, with ``block > 0``: its rotation of the field."""
        return deal // self.run % (len(self.tables) // self.block)


def task_key(task: AtlasTask) -> str:
    """SHA-256 of everything that decides a batch's games and figures."""
    fields = [
        ATLAS_FORMAT, task.stage, task.kind, task.variant, task.players, str(task.rules), task.replica,
        task.seed, task.first, task.count, [list(t) for t in task.tables], list(task.focal), task.coin_flip,
        [round(w, 6) for w in task.model], [round(w, 6) for w in task.shared], task.block, task.run,
    ]  # fmt: skip
    return hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()


def baseline_tables(
    focal: Sequence[str], baseline: str, players: int
) -> tuple[list[tuple[str, ...]], list[str]]:
    """Each focal agent alone against ``players - 1`` baseline players, in each seat: the
    tables and the focal agent of each."""
    tables, who = [], []
    for agent in focal:
        for seat in range(players):
            tables.append(tuple(agent if j == seat else baseline for j in range(players)))
            who.append(agent)
    return tables, who


def field_tables(agent: str, field: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """``agent`` alone against the field: for each rotation ``t`` of the ``k`` field styles and
    each seat, the other seats hold styles ``t, t + 1, ...`` (mod ``k``) in turn order after it."""
    k = len(field)
    tables = []
    for t in range(k):
        for seat in range(players):
            others = iter(field[(t + m) % k] for m in range(players - 1))
            tables.append(tuple(agent if j == seat else next(others) for j in range(players)))
    return tables


def field_group(
    agents: Sequence[str], field: Sequence[str], players: int, rotations: str
) -> tuple[list[tuple[str, ...]], list[str], int]:
    """The field tables of ``agents`` (each alone against the field, every seat), their focal
    agents and the block of tables one deal plays (:attr:`AtlasTask.block`).

    ``rotations = "all"``: every deal plays every table (every rotation of the field, every
    agent, every seat; block 0). ``"one"``: the tables ordered by rotation, then agent, then
    seat, in blocks of ``len(agents) * players``, one per rotation; a deal plays one block (its
    rotation of the ``k`` styles, every agent at every seat: :meth:`AtlasTask.block_of`), so
    every agent meets the same rotation on a deal (what the paired hidden-information measure
    needs).
    """
    if rotations == "all":
        tables = [t for a in agents for t in field_tables(a, field, players)]
        return tables, [a for a in agents for _ in range(len(field) * players)], 0
    if rotations != "one":
        raise ValueError(f'field rotations must be "one" or "all", got {rotations!r}')
    per = [field_tables(a, field, players) for a in agents]
    tables, focal = [], []
    for t in range(len(field)):
        for a, agent in enumerate(agents):
            tables += per[a][t * players : (t + 1) * players]
            focal += [agent] * players
    return tables, focal, len(agents) * players


def scripted_tables(field: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The field at the table: rotation ``t`` seats styles ``t, t + 1, ...`` (mod ``k``)."""
    k = len(field)
    return [tuple(field[(t + j) % k] for j in range(players)) for t in range(k)]


def is_costly(agent: str) -> bool:
    """Whether an agent thinks for milliseconds per decision (a search, or an agent outside the
    compiled engine): its games go in batches of their own."""
    spec = parse_agent(agent)
    if spec.kind == "policy":
        return False
    if spec.kind != "style":
        return True
    return parse_policy(spec.target)[0].is_search or spec.target.startswith("monte_carlo")


def _chunks(count: int, per_deal: int, batch_games: int) -> list[tuple[int, int]]:
    """Deal ranges ``(start, size)`` of at most ``batch_games`` games (at least one deal)."""
    size = max(1, min(count, batch_games // max(per_deal, 1)))
    return [(start, min(size, count - start)) for start in range(0, count, size)]


def fit_tasks(spec: AtlasSpec) -> list[AtlasTask]:
    """Stage 1: per cell and traced kind, the games its win-chance model is fitted on (the
    scripted kind on three times the deals: they are cheap)."""
    out = []
    for variant, n in spec.cells():
        for kind in TRACED:
            count = spec.deal_count("fit") * (3 if kind == "scripted" else 1)
            tables = ((spec.strong,) * n,) if kind == "strong" else tuple(scripted_tables(spec.field, n))
            out.append(
                AtlasTask(
                    id=f"{variant.id}__{n}p__fit_{kind}",
                    stage="fit",
                    kind=kind,
                    variant=variant.id,
                    players=n,
                    rules=variant.rules,
                    replica=0,
                    seed=spec.seed + variant.deal_offset + FIT_OFFSET,
                    first=0,
                    count=count,
                    tables=tables,
                    coin_flip=variant.coin_flip,
                )
            )
    return out


def measure_tasks(
    spec: AtlasSpec, models: Mapping[tuple[str, int, str], tuple[float, ...]] | None = None
) -> list[AtlasTask]:
    """Stage 2: every measuring batch, in a fixed order (deal set, cell, kind, table group,
    deals). ``models`` maps ``(variant, players, kind)`` to the fitted weights of the traced
    kinds (without them those batches are left out: they wait for stage 1); each traced batch
    also carries the base cell's weights (``shared``; its own when the base has no such cell)."""
    out = []
    for replica in spec.replicas():
        for variant, n in spec.cells():
            out += _cell_tasks(spec, variant, n, replica, models)
    return out


Group = tuple[str, str, list[tuple[str, ...]], list[str], int]
"""A group of tables of one kind of games in a cell: (kind, group name, tables, focal rung of
each, the block of tables one deal plays: :attr:`AtlasTask.block`)."""


def _cell_groups(spec: AtlasSpec, variant: AtlasVariant, n: int) -> list[Group]:
    """The untraced table groups of a cell: the cheap rungs together, each costly one alone."""
    rungs = spec.rungs(variant, n)
    out: list[Group] = []
    # the oracle is measured against the field only (what the hidden cards are worth there)
    above = [r.agent for r in rungs if r.role not in ("baseline", "oracle")]
    cheap = [a for a in above if not is_costly(a)]
    if cheap:
        tables, who = baseline_tables(cheap, spec.baseline, n)
        out.append(("baseline", "a", tables, who, 0))
    for k, agent in enumerate(a for a in above if is_costly(a)):
        tables, who = baseline_tables([agent], spec.baseline, n)
        out.append(("baseline", f"s{k}_", tables, who, 0))
    cheap_rungs = [r.agent for r in rungs if not is_costly(r.agent)]
    if cheap_rungs:
        out.append(("field", "a", *field_group(cheap_rungs, spec.field, n, spec.field_rotations)))
    for k, agent in enumerate(r.agent for r in rungs if is_costly(r.agent)):
        out.append(("field", f"s{k}_", *field_group([agent], spec.field, n, spec.field_rotations)))
    return out


def _cell_tasks(
    spec: AtlasSpec,
    variant: AtlasVariant,
    n: int,
    replica: int,
    models: Mapping[tuple[str, int, str], tuple[float, ...]] | None,
) -> list[AtlasTask]:
    seed = spec.seed + variant.deal_offset
    out: list[AtlasTask] = []

    def add(
        kind: str,
        group: str,
        tables: Sequence[tuple[str, ...]],
        focal: Sequence[str],
        block: int = 0,
        model: tuple[float, ...] = (),
        shared: tuple[float, ...] = (),
    ) -> None:
        count = spec.deal_count(kind)
        per_deal = 1 if kind in TRACED else block or len(tables)
        # one rotation per deal: the deal set's equal runs of consecutive deals, run t rotation t
        run = count * block // len(tables) if block else 1
        for index, (start, size) in enumerate(_chunks(count, per_deal, spec.batch_games)):
            out.append(
                AtlasTask(
                    id=f"{variant.id}__{n}p__{kind}{replica}__{group}{index:04d}",
                    stage="measure",
                    kind=kind,
                    variant=variant.id,
                    players=n,
                    rules=variant.rules,
                    replica=replica,
                    seed=seed,
                    first=replica * count + start,
                    count=size,
                    tables=tuple(tables),
                    focal=tuple(focal),
                    coin_flip=variant.coin_flip,
                    model=model,
                    shared=shared,
                    block=block,
                    run=run,
                )
            )

    for kind, group, tables, focal, block in _cell_groups(spec, variant, n):
        add(kind, group, tables, focal, block)
    if models is not None:
        for kind in TRACED:
            model = models.get((variant.id, n, kind))
            has_base = any(v.id == spec.base and m == n for v, m in spec.cells())
            shared = models.get((spec.base, n, kind)) if has_base else model
            if model is None or shared is None:
                continue
            tables = [(spec.strong,) * n] if kind == "strong" else scripted_tables(spec.field, n)
            add(kind, "t", tables, (), 0, model, shared)
    return out


def traced_count(spec: AtlasSpec) -> int:
    """How many traced measuring batches the plan holds once every model is fitted."""
    per_cell = sum(len(_chunks(spec.deal_count(kind), 1, spec.batch_games)) for kind in TRACED)
    return per_cell * len(spec.cells()) * len(spec.replicas())


def check_plan_size(spec: AtlasSpec, source: str) -> None:
    """Refuse an atlas too large to plan, or whose deal seeds leave the seed range, before it
    runs (the batches are counted, never listed: a huge plan costs no memory): a ValueError
    naming the limit, which :func:`training.atlas.spec.parse_spec` raises as its spec error."""
    batches = traced_count(spec) + len(spec.cells()) * len(TRACED)
    largest = 0
    for variant, n in spec.cells():
        for kind, _, tables, _, block in _cell_groups(spec, variant, n):
            count = spec.deal_count(kind)
            per_deal = block or len(tables)
            size = max(1, min(count, spec.batch_games // max(per_deal, 1)))
            batches += math.ceil(count / size) * len(spec.replicas())
            largest = max(largest, size * per_deal)
            if batches > MAX_BATCHES:
                break
    check_size(batches, largest, f"{source}: this atlas", "lower [deals] or batch_games")
    deals = max(spec.deal_count(k) for k in ("baseline", "field", "strong", "scripted")) * len(
        spec.replicas()
    )
    top = spec.seed + FIT_OFFSET * 2 + 3 * spec.deal_count("fit") + deals
    if top > 2**63 - 1:
        raise ValueError(f"{source}: the deal seeds would pass 2**63 - 1; lower seed (at most 2**62)")


def plan(
    spec: AtlasSpec, models: Mapping[tuple[str, int, str], tuple[float, ...]] | None = None
) -> list[AtlasTask]:
    """Every batch: the fit batches, then the measuring batches (see :func:`measure_tasks`)."""
    return [*fit_tasks(spec), *measure_tasks(spec, models)]

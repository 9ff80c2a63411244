"""The house-rules study: a factorial experiment over rule variants, player counts and styles.

``uno-env study [SPEC.toml]`` (or ``python -m training.study``) answers "which house rules
favour which play styles?" with the compiled batch engine. Without a SPEC it runs the
built-in default spec (``training/specs/default_study.toml``): twelve single-switch variations
of official Uno (stacking, Seven-O, jump-in, the draw rules, Wild Draw Four legality and
bluffs, multi-plays, ...), at 2 and 4 players, all scripted styles.

**Spec** (TOML; unknown keys, switches, values, styles and impossible player counts are
refused with an error naming what is allowed)::

    name = "mini"              # names the output folder
    seed = 0                   # deal d of every cell is dealt with seed + d
    bases = ["uno"]            # presets (or rule TOML files) the variations start from
    players = [2, 4]           # player counts
    styles = ["greedy", "hoarder", "bluffer:bluff=0.3"]   # default: every scripted style
    games = 20000              # games per cell (rounded up to whole deals x seatings)
    batch_games = 100000       # at most this many games per batch (one task)
    allow_rules_mismatch = false   # true: learned policies may play other rules (transfer)

    [variations]               # label = { switch = value, ... } (RuleSet field names)
    stacking = { stacking = ["D2/D2", "WD4/WD4", "WD4/D2"] }
    seven_swap = { seven_swap = true }

**Cells and seating.** A *variant* is a base preset, or a base preset with one variation
applied (a variation that does not change a base is skipped for it). A *cell* is one variant
at one player count. The seatings of a cell, for ``k`` styles and ``n`` seats: every
combination of ``n`` of the styles, each in its ``n`` cyclic rotations (``C(k, n) x n``
seatings: 42 for 7 styles at 2 players, 140 at 4). Every style then sits in every seat
equally often and meets every other style at the same number of tables, so each style's win
rate is measured against *the field of all the study's styles* (the mix), seat effects
balanced. With more seats than styles (or more than :data:`MAX_SEATINGS` such seatings) the
cell uses ``k`` tables of a cyclic rotation instead (seat ``j`` of table ``t`` plays style
``(t + j) mod k``; a style may fill several seats, and a style meets only its neighbours in
the list when ``n < k``); a style's win rate is always per seat (wins of its seats /
seat-games), so the fair share is ``1 / players``. Every deal of a cell is replayed at each
seating (duplicate format: the same shuffled deck under every seating; deals per seating =
``games / seatings`` rounded up), and deal ``d`` uses seed ``seed + d`` in *every* cell
(common random numbers across variants), which reduces the noise of the comparisons.

**Per cell and style** (one row of the tidy results file): seat-games, wins, win rate with a
95% Wilson interval, mean rank (games that ended, best = 1), points per seat-game (the
match scores of the rule set) with a 95% normal interval, and the change of the win rate
against the same style in the base variant with a 95% interval of the difference (normal
approximation treating the two cells as independent: usually conservative, as the shared
deals tend to correlate them positively). Per cell (repeated on the cell's rows): games, win rate of every
seat (seat advantage; seat 0 with its Wilson interval), the game length distribution in
decisions (mean with a 95% interval, p10/p25/p50/p75/p90), its change against the base, and
the rate of games truncated at the decision limit (E-END-1). Games are treated as
independent for the intervals.

**Scale and safety.** A cell is split into batches of at most ``batch_games`` games
(consecutive seatings, each playing the same chunk of deals); batches run on a process pool (``--workers``,
default: the cores) or as Ray tasks (``--executor ray``). Each finished batch is written to
``batches/<id>.json`` atomically (:func:`training.runner.write_json_atomic`); ``--resume
DIR`` runs only the missing batches. Batch seeds come from the spec seed and the batch's
deal range, never from execution order, so the same spec and seed give byte-identical
results files. Each batch file records its seed and :func:`task_key` (a digest of its
design): on resume an unreadable file is run again and one of another design is refused
(:func:`scan_batches`). Pool workers die with the study, the output folder is locked while a
run uses it, plans over :data:`training.runner.MAX_BATCHES` batches are refused when the
spec is read, and file-system errors end the run with one line (:mod:`training.runner`).
Output folder: ``runs/study__<name>__<seed>__<UTC time>/`` (or ``--out``):
``spec.toml`` (the normalised spec), ``checkpoints.json`` (SHA-256 of the learned policies'
files, checked on resume), ``batches/``, ``results.csv`` (+ ``results.parquet``
with pyarrow), ``report.md``, ``winrate_change.png``, ``game_length.png`` and ``log.jsonl``
(timings; the only file that differs between identical runs).

**Learned policies.** ``styles`` may also name MaskablePPO checkpoints: a path ending in
``.zip`` or containing a ``/`` (``"runs/uno/model.zip"``, with its ``.meta.json`` sidecar; see
:mod:`agents.policy_agent`). They take seats like the scripted styles (same seatings, same
result columns; the ``style`` column holds the path as given). The sidecar is checked for
every cell when the spec is read: a checkpoint trained on another deck family, another
observation spec or env version is refused. A study varies the rules, so a policy trained on
``uno`` meets other rules in the variation cells; that is a *transfer* experiment and needs
``allow_rules_mismatch = true`` in the spec (the option ``uno-env evaluate
--allow-rules-mismatch`` offers; without it any difference in rules or player count is
refused with a message that names the differences and this key). SB3 checkpoints are pickles:
one this installation did not sign is refused unless the study runs with
``--trust-checkpoint`` (a command-line flag, never a spec key, so a shared spec cannot turn
the check off; :mod:`agents.trust`).

Seatings with a learned seat are played by a Python loop over :class:`uno_env.Game`
(``LEARNED_CHUNK`` games of the batch at a time): scripted seats decide through
:func:`agents.make` (seeded ``deal_seed * 16 + seat``, as the tournament seeds them), and at
every round all the games waiting on one learned policy get their actions from a single
batched forward pass (:class:`training.common.BatchActor`, deterministic arg-max, loaded
with :func:`training.evaluate.load_checkpoint_actor` once per worker process; torch runs
with one thread per worker). Seatings of scripted styles only still run in the compiled
batch simulator, so a scripted style's games in such a cell come from both engines (the
same deals and the same style, different random streams). The native vector env was not
used: it resets a finished game inside its compiled step, and the study needs every seat's
ranking, score and the game length. A study with learned policies splits its cells into
batches of at most ``LEARNED_BATCH_GAMES`` games so progress and resume stay fine-grained.
The inference is batched in the same way whatever the executor (the batch composition is
fixed by the task), so results stay byte-identical across executors and runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib.util
import itertools
import json
import math
import re
import sys
import time
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import uno_env
from training.common import add_trust_argument
from training.runner import (
    EXECUTORS,
    Progress,
    append_line,
    check_executor,
    check_size,
    default_workers,
    run_batches,
    using_folder,
    write_json_atomic,
)
from uno_env.policies import STYLES, parse_policy
from uno_env.rules import RuleError, RuleSet

if TYPE_CHECKING:
    import pandas as pd

STUDY_FORMAT = "uno-env-study/1"
SPEC_KEYS = (
    "name", "seed", "bases", "players", "styles", "games", "batch_games", "variations",
    "allow_rules_mismatch",
)  # fmt: skip
MAX_SEATINGS = 1000
"""Most seatings of the all-combinations design; above it a cell uses the cyclic rotation."""
UNSCRIPTED = ("random_legal", "random_playable", "monte_carlo")
"""Compiled styles left out of the default style list: the random baselines (uniform over the
legal actions, with games of thousands of decisions, and the literature's random player) and
the Monte-Carlo sampler (about 100 games/s)."""
SCRIPTED_STYLES: tuple[str, ...] = tuple(name for name in STYLES if name not in UNSCRIPTED)
"""The default styles of a study: every scripted style."""
DEFAULT_SPEC = "default_study.toml"
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
Z95 = 1.96
_LABEL = re.compile(r"^[A-Za-z0-9_-]+$")
LEARNED_BATCH_GAMES = 4000
"""Most games per batch in a study with learned policies (their games are slower)."""
LEARNED_CHUNK = 512
"""Games of a batch played at once by the learned-policy loop (one forward pass per round)."""


class SpecError(ValueError):
    """A study spec that cannot be run; the message names what is wrong and what is allowed."""


# ================================================================ the spec
@dataclass(frozen=True)
class Variant:
    """One rule variant of a study: a base preset, optionally with one variation applied."""

    id: str
    base: str
    variation: str  # "" for the base itself
    switches: str  # "switch=value ..." of the variation ("" for the base)
    rules: RuleSet


@dataclass(frozen=True)
class StudySpec:
    """A validated study spec (see the module docstring for the keys)."""

    name: str
    seed: int
    bases: tuple[str, ...]
    players: tuple[int, ...]
    styles: tuple[str, ...]
    games: int
    batch_games: int
    variations: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    allow_rules_mismatch: bool = False

    def learned(self) -> tuple[str, ...]:
        """The styles that are learned-policy checkpoints."""
        return tuple(s for s in self.styles if is_checkpoint(s))

    def to_dict(self) -> dict[str, Any]:
        """The spec as TOML-ready data (what ``spec.toml`` holds)."""
        return {
            "format": STUDY_FORMAT,
            "name": self.name,
            "seed": self.seed,
            "bases": list(self.bases),
            "players": list(self.players),
            "styles": list(self.styles),
            "games": self.games,
            "batch_games": self.batch_games,
            "variations": {label: dict(switches) for label, switches in self.variations},
            "allow_rules_mismatch": self.allow_rules_mismatch,
        }

    def variants(self) -> list[Variant]:
        """Every variant: each base, then each variation that changes it, in spec order."""
        out = []
        for base in self.bases:
            base_rules = uno_env.load_rules(base)
            base_id = _base_id(base)
            out.append(Variant(base_id, base_id, "", "", base_rules))
            for label, switches in self.variations:
                try:
                    rules = base_rules.with_overrides(dict(switches), source=f"variation {label!r}")
                except RuleError as exc:
                    text = str(exc)
                    prefix = "" if text.startswith("variation") else f"variation {label!r} of {base_id}: "
                    raise RuleError(prefix + text) from None
                if rules != base_rules:
                    out.append(Variant(f"{base_id}+{label}", base_id, label, _switch_text(switches), rules))
        return out


def _base_id(base: str) -> str:
    """The id of a base: the preset name, or a rule file's stem."""
    return Path(base).stem if base.endswith(".toml") else base


def _switch_text(switches: Sequence[tuple[str, Any]]) -> str:
    """``switch=value`` pairs as one string (lists joined by commas, booleans lower case)."""

    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list | tuple):
            return ",".join(str(v) for v in value)
        return str(value)

    return " ".join(f"{k}={text(v)}" for k, v in switches)


def default_spec_path() -> Path:
    """Where the built-in default spec lives."""
    return Path(str(resources.files("training") / "specs" / DEFAULT_SPEC))


def _int(data: Mapping[str, Any], key: str, default: int, low: int, source: str) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise SpecError(f"{source}: {key} must be an integer >= {low}, got {value!r}")
    return value


def parse_spec(data: Mapping[str, Any], source: str = "spec") -> StudySpec:
    """Validate spec data (a parsed TOML table) and return the spec.

    Raises:
        SpecError: naming the offending key, switch, value, style or player count.
    """
    data = dict(data)
    fmt = data.pop("format", STUDY_FORMAT)
    if fmt != STUDY_FORMAT:
        raise SpecError(f"{source}: format={fmt!r} is not supported; expected {STUDY_FORMAT!r}")
    unknown = sorted(set(data) - set(SPEC_KEYS))
    if unknown:
        raise SpecError(f"{source}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(SPEC_KEYS)}")
    name = data.get("name", "study")
    if not isinstance(name, str) or not _LABEL.match(name):
        raise SpecError(f"{source}: name must be letters, digits, '_' or '-', got {name!r}")
    seed = _int(data, "seed", 0, 0, source)
    games = _int(data, "games", 10_000, 1, source)
    batch_games = _int(data, "batch_games", 100_000, 1, source)

    bases = data.get("bases", ["uno"])
    if isinstance(bases, str):
        bases = [bases]
    if not isinstance(bases, list) or not bases or not all(isinstance(b, str) for b in bases):
        raise SpecError(f"{source}: bases must be a non-empty list of preset names or .toml files")
    for base in bases:
        try:
            uno_env.load_rules(base)
        except RuleError as exc:
            raise SpecError(f"{source}: base {base!r}: {exc}") from None
    if len({_base_id(b) for b in bases}) != len(bases):
        raise SpecError(f"{source}: bases must be distinct, got {bases}")

    players = data.get("players", [2, 4])
    if isinstance(players, int) and not isinstance(players, bool):
        players = [players]
    if (
        not isinstance(players, list)
        or not players
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in players)
    ):
        raise SpecError(f"{source}: players must be a non-empty list of player counts, got {players!r}")
    if len(set(players)) != len(players):
        raise SpecError(f"{source}: players lists a count twice: {players}")

    styles = data.get("styles", list(SCRIPTED_STYLES))
    if isinstance(styles, str):
        styles = [styles]
    if not isinstance(styles, list) or not styles or not all(isinstance(s, str) for s in styles):
        raise SpecError(f"{source}: styles must be a non-empty list of style names")
    styles = [s.strip() for s in styles]
    for style in styles:
        if is_checkpoint(style):
            continue  # checked per cell below
        try:
            parse_policy(style)
        except ValueError as exc:
            raise SpecError(f"{source}: style {style!r}: {exc}") from None
    if len(set(styles)) != len(styles):
        raise SpecError(f"{source}: styles lists a style twice: {styles}")
    allow = data.get("allow_rules_mismatch", False)
    if not isinstance(allow, bool):
        raise SpecError(f"{source}: allow_rules_mismatch must be true or false, got {allow!r}")

    raw_variations = data.get("variations", {})
    if not isinstance(raw_variations, dict):
        raise SpecError(f"{source}: [variations] must be a table of label = {{ switch = value }}")
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    variations: list[tuple[str, tuple[tuple[str, Any], ...]]] = []
    for label, switches in raw_variations.items():
        where = f"{source}: variation {label!r}"
        if not _LABEL.match(label):
            raise SpecError(f"{where}: labels are letters, digits, '_' or '-'")
        if not isinstance(switches, dict) or not switches:
            raise SpecError(
                f"{where} must be an inline table of one or more switches, e.g. {{ jump_in = true }}"
            )
        bad = sorted(set(switches) - fields)
        if bad:
            raise SpecError(
                f"{where}: unknown switch(es) {', '.join(bad)}; `uno-env rules --fields` lists every "
                f"switch: {', '.join(sorted(fields))}"
            )
        variations.append((label, tuple(sorted(switches.items()))))

    spec = StudySpec(
        name=name,
        seed=seed,
        bases=tuple(bases),
        players=tuple(players),
        styles=tuple(styles),
        games=games,
        batch_games=batch_games,
        variations=tuple(variations),
        allow_rules_mismatch=allow,
    )
    try:
        variants = spec.variants()
    except RuleError as exc:
        raise SpecError(f"{source}: {exc}") from None
    for variant in variants:
        for n in spec.players:
            try:
                variant.rules.check_players(n)
            except RuleError as exc:
                raise SpecError(
                    f"{source}: impossible player count {n} for variant {variant.id}: {exc}"
                ) from None
    check_spec_size(spec, len(variants), source)
    for path in spec.learned():
        check_checkpoint(path, variants, spec.players, allow, source)
    for label, _ in spec.variations:
        if not any(v.variation == label for v in variants):
            print(f"note: variation {label!r} changes no base; it is skipped", file=sys.stderr)
    return spec


def is_checkpoint(style: str) -> bool:
    """Whether a style names a learned-policy checkpoint (as in ``uno-env tournament``)."""
    from training.tournament import is_checkpoint as named_checkpoint

    return named_checkpoint(style)


def check_checkpoint(
    path: str, variants: Sequence[Variant], players: Sequence[int], allow_rules_mismatch: bool, source: str
) -> None:
    """Raise SpecError unless checkpoint ``path`` may play in every cell.

    The sidecar must exist and agree with the installed observation spec and env version;
    the deck family must be the variants'. Other rules or player counts need
    ``allow_rules_mismatch`` (a transfer study).
    """
    from agents.policy_agent import (
        PolicyMismatchError,
        check_policy_metadata,
        checkpoint_path,
        load_policy_metadata,
    )

    where = f"{source}: learned policy {path!r}"
    if not checkpoint_path(path).exists():
        raise SpecError(f"{where}: checkpoint {checkpoint_path(path)} does not exist")
    try:
        meta = load_policy_metadata(path)
        trained = RuleSet.parse(meta.rules)
    except (PolicyMismatchError, RuleError) as exc:
        raise SpecError(f"{where}: {exc}") from None
    for variant in variants:
        if trained.deck_family != variant.rules.deck_family:
            raise SpecError(
                f"{where} was trained on the {trained.deck_family} deck family "
                f"({trained.preset_name() or 'custom'} rules); variant {variant.id} uses the "
                f"{variant.rules.deck_family} family: the observations and action tables differ, so it "
                "cannot play in this study"
            )
        for n in players:
            try:
                check_policy_metadata(meta, variant.rules, num_players=n, source=f"checkpoint {path}")
            except PolicyMismatchError as exc:
                if not allow_rules_mismatch:
                    raise SpecError(
                        f"{where}, cell {variant.id} at {n} players: {exc}. To play it under other rules or "
                        "player counts of its deck family on purpose (a transfer study, as "
                        "`uno-env evaluate --allow-rules-mismatch`), set allow_rules_mismatch = true"
                    ) from None
                try:  # the observation spec and env version must agree all the same
                    check_policy_metadata(meta, trained, source=f"checkpoint {path}")
                except PolicyMismatchError as inner:
                    raise SpecError(f"{where}: {inner}") from None


def load_spec(path: str | Path | None = None) -> StudySpec:
    """Read and validate a spec file (``None``: the built-in default spec)."""
    path = default_spec_path() if path is None else Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"cannot read study spec {path}: {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path} is not valid TOML: {exc}") from exc
    return parse_spec(data, source=str(path))


# ================================================================ planning
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


def describe_seatings(spec: StudySpec) -> str:
    """``"42 seatings x 477 deals at 2 players, ..."`` for the report."""
    return ", ".join(
        f"{len(seatings(spec.styles, n))} seatings x {deals_per_seating(spec, n):,} deals at {n} players"
        for n in spec.players
    )


def deals_per_seating(spec: StudySpec, players: int) -> int:
    """Deals of a cell: enough that every seating plays each deal and the cell has ``games``."""
    return math.ceil(spec.games / len(seatings(spec.styles, players)))


@dataclass(frozen=True)
class BatchTask:
    """One batch of a cell: deals ``[first, first + count)`` at each of some seatings."""

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


def task_key(task: BatchTask) -> str:
    """SHA-256 of everything that decides a batch's games (what its result file records).

    Variant, players, rules, styles, seatings, seed and deal range: a result file whose key
    differs from its task's was computed for another design and must not be mixed in.
    """
    fields = [
        STUDY_FORMAT, task.variant, task.players, str(task.rules), list(task.styles),
        [list(s) for s in task.seatings], task.seed, task.first, task.count, task.allow_rules_mismatch,
    ]  # fmt: skip
    return hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()


def _cell_layout(spec: StudySpec, players: int) -> tuple[list[tuple[str, ...]], int, int, int]:
    """A cell's seatings, deals per seating, deals per batch and seatings per batch."""
    batch_games = min(spec.batch_games, LEARNED_BATCH_GAMES) if spec.learned() else spec.batch_games
    layout = seatings(spec.styles, players)
    deals = deals_per_seating(spec, players)
    chunk = min(deals, batch_games)
    return layout, deals, chunk, max(1, batch_games // chunk)


def check_spec_size(spec: StudySpec, variants: int, source: str) -> None:
    """Refuse a study too large to plan, or whose deal seeds leave the seed range, before it runs."""
    batches = largest = deals_max = 0
    for n in spec.players:
        layout, deals, chunk, group = _cell_layout(spec, n)
        batches += variants * math.ceil(len(layout) / group) * math.ceil(deals / chunk)
        largest = max(largest, chunk * min(group, len(layout)))
        deals_max = max(deals_max, deals)
    try:
        check_size(batches, largest, f"{source}: this study", "lower games or batch_games")
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    if spec.seed + deals_max - 1 > 2**63 - 1:
        raise SpecError(
            f"{source}: deal d is dealt with seed + d, and seeds end at 2**63 - 1; with {deals_max:,} deals "
            f"per seating the seed must be at most {2**63 - deals_max:,}, got {spec.seed:,}"
        )


def plan(spec: StudySpec) -> list[BatchTask]:
    """Every batch of the study, in a fixed order (variants, player counts, seating groups, deals).

    A batch holds at most ``batch_games`` games: consecutive seatings of the cell, each
    playing the same chunk of deals.
    """
    out = []
    for variant in spec.variants():
        for n in spec.players:
            layout, deals, chunk, group = _cell_layout(spec, n)
            index = 0
            for start in range(0, len(layout), group):
                for first in range(0, deals, chunk):
                    out.append(
                        BatchTask(
                            id=f"{variant.id}__{n}p__{index:05d}",
                            variant=variant.id,
                            players=n,
                            rules=variant.rules,
                            styles=spec.styles,
                            seatings=tuple(layout[start : start + group]),
                            seed=spec.seed,
                            first=first,
                            count=min(chunk, deals - first),
                            allow_rules_mismatch=spec.allow_rules_mismatch,
                        )
                    )
                    index += 1
    return out


# ================================================================ one batch
def run_batch(task: BatchTask) -> dict[str, Any]:
    """Play one batch and return its counts (JSON-ready; integers only, no timings)."""
    n = task.players
    per_style: dict[str, dict[str, int]] = {
        s: {"seat_games": 0, "wins": 0, "ranked": 0, "rank_sum": 0, "points_sum": 0, "points_sq": 0}
        for s in task.styles
    }
    seat_wins = np.zeros(n, dtype=np.int64)
    lengths = []
    truncated = 0
    games = 0
    places = np.arange(1, n + 1, dtype=np.int64)
    for table in task.seatings:
        if any(is_checkpoint(s) for s in table):
            result = play_learned(task, table)
        else:
            sim = uno_env.simulate(
                task.rules, n, task.count, seed=task.seed + task.first, policies=list(table)
            )
            result = {
                "winner": sim.winner,
                "length": sim.length,
                "ranking": sim.ranking,
                "scores": sim.scores,
            }
        count = int(result["winner"].size)
        games += count
        won = result["winner"] >= 0
        truncated += int((~won).sum())
        wins = np.bincount(result["winner"][won], minlength=n)
        seat_wins += wins
        lengths.append(result["length"])
        ranks = np.zeros((int(won.sum()), n), dtype=np.int64)
        np.put_along_axis(ranks, result["ranking"][won], np.broadcast_to(places, ranks.shape), axis=1)
        rank_sum = ranks.sum(axis=0)
        points = result["scores"].astype(np.int64)
        points_sum = points.sum(axis=0)
        points_sq = (points * points).sum(axis=0)
        for seat, style in enumerate(table):
            row = per_style[style]
            row["seat_games"] += count
            row["wins"] += int(wins[seat])
            row["ranked"] += int(won.sum())
            row["rank_sum"] += int(rank_sum[seat])
            row["points_sum"] += int(points_sum[seat])
            row["points_sq"] += int(points_sq[seat])
    length = np.concatenate(lengths)
    values, counts = np.unique(length, return_counts=True)
    return {
        "format": STUDY_FORMAT,
        "id": task.id,
        "variant": task.variant,
        "players": n,
        "rules": str(task.rules),
        "first": task.first,
        "deals": task.count,
        "seatings": len(task.seatings),
        "games": games,
        "truncated": truncated,
        "seat_wins": [int(w) for w in seat_wins],
        "length_sum": int(length.sum()),
        "length_sq": int((length * length).sum()),
        "length_hist": {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)},
        "styles": per_style,
    }


_ACTORS: dict[str, Any] = {}
"""The learned policies loaded in this process, by checkpoint path (each loaded once)."""


def _actor(path: str, rules: RuleSet, players: int, allow_rules_mismatch: bool) -> Any:
    """The batched actor of checkpoint ``path``, loaded on first use in this process.

    The first load sets torch to one thread (one per worker process; the same in every
    executor, so the arithmetic and the results do not depend on where a batch runs).
    """
    actor = _ACTORS.get(path)
    if actor is None:
        from training.common import set_torch_threads
        from training.evaluate import load_checkpoint_actor

        set_torch_threads(1)
        actor = load_checkpoint_actor(
            path,
            rules,
            players,
            deterministic=True,
            allow_rules_mismatch=allow_rules_mismatch,
            trust=True,  # run_study checked the signature (or the user's trust) before any batch
            log=lambda _: None,
        )
        _ACTORS[path] = actor
    return actor


def play_learned(task: BatchTask, table: Sequence[str]) -> dict[str, np.ndarray]:
    """Play deals ``[first, first + count)`` of ``task`` at a seating with learned seats.

    Returns per-game arrays as :func:`uno_env.simulate` gives them: ``winner`` (-1 when
    truncated), ``length`` (decisions), ``ranking`` (seats best first; -1 when truncated) and
    ``scores``. Deal ``d`` is ``uno_env.Game(rules, n, seed=seed + d)``; a scripted seat is
    ``agents.make(style, seed=(seed + d) * 16 + seat)``; the games are played
    :data:`LEARNED_CHUNK` at a time, and in each round every game waiting on a learned policy
    gets its action from one batched forward pass over those games (in game order).
    """
    import agents
    from uno_env.envs.encoding import observe_state
    from uno_env.policies import PublicView
    from uno_env.rules import compile_spec

    n = len(table)
    rules = task.rules
    spec = compile_spec(rules)
    deck = rules.deck_family
    actors = {
        seat: _actor(style, rules, n, task.allow_rules_mismatch)
        for seat, style in enumerate(table)
        if is_checkpoint(style)
    }
    winner = np.full(task.count, -1, dtype=np.int64)
    length = np.zeros(task.count, dtype=np.int64)
    ranking = np.full((task.count, n), -1, dtype=np.int64)
    scores = np.zeros((task.count, n), dtype=np.int64)
    for start in range(0, task.count, LEARNED_CHUNK):
        stop = min(task.count, start + LEARNED_CHUNK)
        games = [uno_env.Game(rules, n, seed=task.seed + task.first + i) for i in range(start, stop)]
        scripted = [
            {
                seat: agents.make(style, seed=(task.seed + task.first + i) * 16 + seat)
                for seat, style in enumerate(table)
                if seat not in actors
            }
            for i in range(start, stop)
        ]
        live = list(range(len(games)))
        while live:
            waiting: dict[int, list[int]] = {}
            for g in live:
                game, seats = games[g], scripted[g]
                while not game.is_over() and game.current_player in seats:
                    agent = seats[game.current_player]
                    game.step(agent.act(None, game.legal_mask(), PublicView.of(game)))
                if not game.is_over():
                    waiting.setdefault(game.current_player, []).append(g)
            for seat, rows in sorted(waiting.items()):
                obs = np.stack([observe_state(games[g].state, spec, seat, deck) for g in rows])
                masks = np.stack([games[g].legal_mask() for g in rows]).astype(bool)
                for g, action in zip(rows, actors[seat](obs, masks), strict=True):
                    games[g].step(int(action))
            live = [g for g in live if not games[g].is_over()]
        for g, game in enumerate(games):
            outcome = game.outcome()
            assert outcome is not None
            i = start + g
            winner[i] = -1 if outcome.winner is None else outcome.winner
            length[i] = outcome.decisions
            if outcome.ranking:
                ranking[i] = outcome.ranking
            scores[i] = outcome.scores
    return {"winner": winner, "length": length, "ranking": ranking, "scores": scores}


def _warm_up(spec: StudySpec) -> None:
    """Load the compiled batch loop in this process (before a pool forks; no torch here)."""
    n = spec.players[0]
    scripted = [s for s in spec.styles if not is_checkpoint(s)] or ["greedy"]
    uno_env.simulate(
        spec.variants()[0].rules, n, 1, seed=0, policies=[scripted[i % len(scripted)] for i in range(n)]
    )


# ================================================================ running
def default_out_dir(spec: StudySpec, root: Path = Path("runs")) -> Path:
    """``runs/study__<name>__<seed>__<UTC time>``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return root / f"study__{spec.name}__{spec.seed}__{stamp}"


def write_spec(spec: StudySpec, out: Path) -> None:
    """Write the normalised spec to ``out/spec.toml`` (what ``--resume`` reads)."""
    import tomli_w

    out.mkdir(parents=True, exist_ok=True)
    target = out / "spec.toml"
    tmp = out / ".spec.toml.tmp"
    tmp.write_text(tomli_w.dumps(spec.to_dict()), encoding="utf-8")
    tmp.replace(target)


def checkpoint_digests(spec: StudySpec) -> dict[str, str]:
    """SHA-256 of each learned policy's checkpoint and sidecar, by path as the spec gives it."""
    import hashlib

    from agents.policy_agent import checkpoint_path, metadata_path

    out = {}
    for path in spec.learned():
        digest = hashlib.sha256()
        for part in (checkpoint_path(path), metadata_path(path)):
            digest.update(part.read_bytes())
        out[path] = digest.hexdigest()
    return out


def check_trust(spec: StudySpec, trust: bool) -> None:
    """Raise :class:`agents.trust.UntrustedCheckpointError` for a learned policy this installation
    did not sign, unless ``trust`` (``--trust-checkpoint``; :mod:`agents.trust`)."""
    if not spec.learned() or trust:
        return
    from agents.policy_agent import checkpoint_path, metadata_path
    from agents.trust import check_trusted

    for path in spec.learned():
        check_trusted(checkpoint_path(path), metadata_path(path))


def check_checkpoints(spec: StudySpec, out: Path) -> None:
    """Record the learned policies' digests in ``out/checkpoints.json``, or check them on resume.

    A checkpoint replaced since the study started would mix two policies in one results
    file: resuming then raises SpecError naming the checkpoint.
    """
    if not spec.learned():
        return
    digests = checkpoint_digests(spec)
    target = out / "checkpoints.json"
    if target.exists():
        recorded = json.loads(target.read_text(encoding="utf-8"))
        changed = sorted(p for p in digests if recorded.get(p) != digests[p])
        if changed:
            raise SpecError(
                f"{out}: checkpoint(s) {', '.join(changed)} changed since the study started "
                f"(SHA-256 recorded in {target}); start a new study for the new policy"
            )
        return
    write_json_atomic(target, digests)


def scan_batches(spec: StudySpec, out: Path) -> tuple[dict[str, dict[str, Any]], list[BatchTask]]:
    """The usable result files of ``out/batches`` by batch id, and the batches still to run.

    A missing file is to run; an unreadable or truncated one (or one from an older version
    that does not record its key) is to run again, with a message on stderr. A file whose
    :func:`task_key` differs from the plan's was computed for another design or seed (the
    folder's ``spec.toml`` was edited since): :class:`SpecError`, nothing is mixed.
    """
    done: dict[str, dict[str, Any]] = {}
    todo = []
    for task in plan(spec):
        path = out / "batches" / f"{task.id}.json"
        if not path.exists():
            todo.append(task)
            continue
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            result, why = None, f"unreadable ({type(exc).__name__}: {exc})"
        else:
            why = "not a batch result of this version (no design key)"
        recorded = result.get("key") if isinstance(result, dict) else None
        if result is None or recorded is None:
            print(f"batch file {path} is {why}; running it again", file=sys.stderr)
            todo.append(task)
            continue
        if recorded != task_key(task):
            seed = result.get("seed")
            raise SpecError(
                f"{path} was computed for another design (seed {seed!r}; this study's spec.toml says seed "
                f"{spec.seed}, {task.variant} at {task.players} players): {out / 'spec.toml'} was changed "
                "since the study started, or the folder mixes two studies. Restore the spec, or start a "
                "new study in a new folder; batches of two designs are never mixed"
            )
        done[task.id] = result
    return done, todo


def missing_batches(spec: StudySpec, out: Path) -> list[BatchTask]:
    """The batches of ``spec`` still to run in ``out`` (see :func:`scan_batches`)."""
    return scan_batches(spec, out)[1]


def run_study(
    spec: StudySpec,
    out: Path,
    *,
    executor: str = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    resume: bool = False,
    progress: bool = True,
    report: bool = True,
    trust_checkpoints: bool = False,
) -> Path:
    """Run (or resume) a study into ``out`` and assemble its results; return ``out``.

    Args:
        spec: The validated spec.
        out: Output folder; must not hold another study's batches unless ``resume``.
        executor: ``"process"`` (default), ``"ray"`` or ``"serial"``.
        workers: Pool processes or local Ray CPUs (default: the cores).
        ray_address: An existing Ray cluster's address for ``executor="ray"``.
        resume: Continue a study in ``out`` (its ``spec.toml`` must equal ``spec``).
        progress: Show a progress line on stderr.
        report: Write the results files, plots and report at the end.
        trust_checkpoints: Load learned policies this installation did not sign
            (``--trust-checkpoint``; SB3 checkpoints are pickles, :mod:`agents.trust`).

    One run at a time uses ``out`` (:func:`training.runner.lock_folder`); a file-system
    error ends the run with one :class:`training.runner.RunFolderError` line.
    """
    workers = default_workers() if workers is None else workers
    check_executor(executor, workers)
    check_trust(spec, trust_checkpoints)
    if resume and not (out / "spec.toml").is_file():
        raise SpecError(f"{out} holds no study to resume (no spec.toml)")
    with using_folder(out, "study"):
        spec_file = out / "spec.toml"
        if spec_file.exists():
            recorded = load_spec(spec_file)
            if not resume:
                raise SpecError(f"{out} already holds a study; resume it with --resume {out}")
            if recorded != spec:
                raise SpecError(f"{out} holds a study of another spec; resume it with its own spec.toml")
        elif resume:
            raise SpecError(f"{out} holds no study to resume (no spec.toml)")
        write_spec(spec, out)
        check_checkpoints(spec, out)
        (out / "batches").mkdir(exist_ok=True)
        for stale in (out / "batches").glob(".*.tmp"):  # a write cut short by a kill
            stale.unlink()
        tasks = {task.id: task for task in plan(spec)}
        todo = scan_batches(spec, out)[1]
        total = len(tasks)
        log = out / "log.jsonl"
        start = time.perf_counter()
        append_line(
            log,
            json.dumps(
                {
                    "event": "start",
                    "time": time.time(),
                    "batches": total,
                    "todo": len(todo),
                    "executor": executor,
                    "workers": workers,
                }
            ),
        )
        if progress:
            print(
                f"study {spec.name!r}: {len(spec.variants())} variants x {len(spec.players)} player counts, "
                f"{len(spec.styles)} styles, {len(todo)} of {total} batches to run -> {out}",
                file=sys.stderr,
            )
        bar = Progress(len(todo), enabled=progress)

        def store(result: dict[str, Any]) -> None:
            task = tasks[result["id"]]  # the file names its seed and design: never mixed on resume
            result = {**result, "seed": task.seed, "key": task_key(task)}
            write_json_atomic(out / "batches" / f"{result['id']}.json", result)
            bar.update(result["games"])
            event = {"event": "batch", "id": result["id"], "seconds": round(bar.seconds, 3)}
            append_line(log, json.dumps(event))

        run_batches(
            run_batch,
            todo,
            store,
            executor=executor,
            workers=workers,
            ray_address=ray_address,
            warm_up=lambda: _warm_up(spec),
        )
        seconds = time.perf_counter() - start
        append_line(log, json.dumps({"event": "done", "seconds": round(seconds, 3), "games": bar.games}))
        if report:
            assemble(out)
    return out


# ================================================================ statistics
def wilson(successes: int, trials: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    from uno_env.stats import wilson_interval

    return wilson_interval(successes, trials, Z95)


def _merge(batches: list[dict[str, Any]]) -> dict[str, Any]:
    """Sum the counts of a cell's batches."""
    first = batches[0]
    styles = {s: dict.fromkeys(first["styles"][s], 0) for s in first["styles"]}
    hist: dict[int, int] = {}
    out: dict[str, Any] = {
        "games": 0,
        "truncated": 0,
        "length_sum": 0,
        "length_sq": 0,
        "seat_wins": [0] * first["players"],
    }
    for batch in batches:
        for key in ("games", "truncated", "length_sum", "length_sq"):
            out[key] += batch[key]
        out["seat_wins"] = [a + b for a, b in zip(out["seat_wins"], batch["seat_wins"], strict=True)]
        for value, count in batch["length_hist"].items():
            hist[int(value)] = hist.get(int(value), 0) + count
        for style, row in batch["styles"].items():
            for key, value in row.items():
                styles[style][key] += value
    out["length_hist"] = dict(sorted(hist.items()))
    out["styles"] = styles
    return out


def _quantile(hist: Mapping[int, int], total: int, q: float) -> int:
    """The smallest length whose cumulative count reaches ``q`` of the games."""
    need = q * total
    running = 0
    for value, count in hist.items():
        running += count
        if running >= need:
            return value
    return max(hist) if hist else 0


def _mean_sd(total: float, squares: float, n: int) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    mean = total / n
    var = max(0.0, squares / n - mean * mean) * (n / (n - 1) if n > 1 else 1.0)
    return mean, math.sqrt(var)


def cell_rows(spec: StudySpec, batches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tidy rows (one per cell and style, without the base comparison) from batch results."""
    from uno_env.envs.registration import ENV_VERSION

    by_cell: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for batch in batches:
        by_cell.setdefault((batch["variant"], batch["players"]), []).append(batch)
    rows = []
    for variant in spec.variants():
        for n in spec.players:
            cell_batches = sorted(by_cell.get((variant.id, n), []), key=lambda b: b["id"])
            if not cell_batches:
                raise SpecError(f"no results for cell {variant.id} at {n} players")
            cell = _merge(cell_batches)
            games = cell["games"]
            length_mean, length_sd = _mean_sd(cell["length_sum"], cell["length_sq"], games)
            seat_rates = [w / games for w in cell["seat_wins"]]
            seat0_lo, seat0_hi = wilson(cell["seat_wins"][0], games)
            common = {
                "study": spec.name,
                "variant": variant.id,
                "base": variant.base,
                "variation": variant.variation,
                "switches": variant.switches,
                "players": n,
                "seatings": len(seatings(spec.styles, n)),
                "deals": deals_per_seating(spec, n),
                "games": games,
                "seed": spec.seed,
                "length_mean": length_mean,
                "length_lo": length_mean - Z95 * length_sd / math.sqrt(games),
                "length_hi": length_mean + Z95 * length_sd / math.sqrt(games),
                "length_sd": length_sd,
                **{f"length_p{round(q * 100)}": _quantile(cell["length_hist"], games, q) for q in QUANTILES},
                "truncated_rate": cell["truncated"] / games,
                "seat_win_rates": ";".join(f"{r:.6f}" for r in seat_rates),
                "seat0_win_rate": seat_rates[0],
                "seat0_lo": seat0_lo,
                "seat0_hi": seat0_hi,
                "rules": str(variant.rules),
                "env_version": ENV_VERSION,
            }
            for style in spec.styles:
                s = cell["styles"][style]
                lo, hi = wilson(s["wins"], s["seat_games"])
                pmean, psd = _mean_sd(s["points_sum"], s["points_sq"], s["seat_games"])
                half = Z95 * psd / math.sqrt(s["seat_games"]) if s["seat_games"] else math.nan
                rows.append(
                    {
                        **common,
                        "style": style,
                        "seat_games": s["seat_games"],
                        "wins": s["wins"],
                        "win_rate": s["wins"] / s["seat_games"],
                        "win_lo": lo,
                        "win_hi": hi,
                        "fair_share": 1 / n,
                        "mean_rank": s["rank_sum"] / s["ranked"] if s["ranked"] else math.nan,
                        "points_per_game": pmean,
                        "points_lo": pmean - half,
                        "points_hi": pmean + half,
                    }
                )
    _add_deltas(rows)
    return rows


def _add_deltas(rows: list[dict[str, Any]]) -> None:
    """Add each row's change against the base variant (same players and style), in place."""
    base = {(r["base"], r["players"], r["style"]): r for r in rows if r["variation"] == ""}
    for row in rows:
        if not row["variation"]:
            row.update(dict.fromkeys(("delta_win_rate", "length_delta"), 0.0))
            row.update(
                dict.fromkeys(("delta_lo", "delta_hi", "length_delta_lo", "length_delta_hi"), math.nan)
            )
            row.update(dict.fromkeys(("delta_significant", "length_delta_significant"), False))
            continue
        ref = base[(row["base"], row["players"], row["style"])]
        p1, n1, p0, n0 = row["win_rate"], row["seat_games"], ref["win_rate"], ref["seat_games"]
        delta = p1 - p0
        se = math.sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
        row["delta_win_rate"] = delta
        row["delta_lo"] = delta - Z95 * se
        row["delta_hi"] = delta + Z95 * se
        row["delta_significant"] = not (row["delta_lo"] <= 0 <= row["delta_hi"])
        ld = row["length_mean"] - ref["length_mean"]
        lse = math.sqrt(row["length_sd"] ** 2 / row["games"] + ref["length_sd"] ** 2 / ref["games"])
        row["length_delta"] = ld
        row["length_delta_lo"] = ld - Z95 * lse
        row["length_delta_hi"] = ld + Z95 * lse
        row["length_delta_significant"] = not (row["length_delta_lo"] <= 0 <= row["length_delta_hi"])


COLUMNS = (
    "study", "variant", "base", "variation", "switches", "players", "style", "seatings", "deals", "games",
    "seat_games", "wins", "win_rate", "win_lo", "win_hi", "fair_share", "delta_win_rate", "delta_lo",
    "delta_hi", "delta_significant", "mean_rank", "points_per_game", "points_lo", "points_hi",
    "length_mean", "length_lo", "length_hi", "length_sd", "length_p10", "length_p25", "length_p50",
    "length_p75", "length_p90", "length_delta", "length_delta_lo", "length_delta_hi",
    "length_delta_significant", "truncated_rate", "seat_win_rates", "seat0_win_rate", "seat0_lo",
    "seat0_hi", "seed", "rules", "env_version",
)  # fmt: skip
"""Columns of the tidy results file, in order."""


def load_batches(out: Path) -> list[dict[str, Any]]:
    """The result files of the batches the folder's ``spec.toml`` plans, sorted by batch id
    (every one must be there and of this design: :func:`scan_batches`)."""
    spec = load_spec(out / "spec.toml")
    done, missing = scan_batches(spec, out)
    if missing:
        raise SpecError(
            f"{out}: {len(missing)} batches are missing or unreadable (first {missing[0].id}); resume "
            "the study"
        )
    return [done[key] for key in sorted(done)]


def results_frame(out: Path) -> pd.DataFrame:
    """The tidy results of a finished study folder as a pandas DataFrame."""
    import pandas as pd

    batches = load_batches(out)
    spec = load_spec(out / "spec.toml")
    return pd.DataFrame(cell_rows(spec, batches), columns=list(COLUMNS))


def assemble(out: Path) -> pd.DataFrame:
    """Write ``results.csv`` (and ``results.parquet``), the plots and ``report.md``; return the table."""
    frame = results_frame(out)
    spec = load_spec(out / "spec.toml")
    tmp = out / ".results.csv.tmp"
    frame.to_csv(tmp, index=False, float_format="%.6f", lineterminator="\n")
    tmp.replace(out / "results.csv")
    if importlib.util.find_spec("pyarrow") is not None:
        tmp = out / ".results.parquet.tmp"
        frame.to_parquet(tmp, index=False)
        tmp.replace(out / "results.parquet")
    plot_study(frame, out)
    (out / "report.md").write_text(report_text(spec, frame), encoding="utf-8")
    return frame


# ================================================================ plots and report
def style_label(style: str) -> str:
    """A short label for plots: a checkpoint's folder and file stem (``run/model``, the middle of
    a long one elided to ``...``), else the style."""
    if not is_checkpoint(style):
        return style
    path = Path(style)
    label = f"{path.parent.name}/{path.stem}" if path.parent.name else path.stem
    return label if len(label) <= 22 else f"{label[:8]}...{label[-11:]}"


def plot_study(frame: pd.DataFrame, out: Path) -> list[Path]:
    """``winrate_change.png`` (heat map per base and player count) and ``game_length.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    panels = [(b, n) for b in frame["base"].unique() for n in sorted(frame["players"].unique())]
    varied = frame[frame["variation"] != ""]
    if len(varied):
        fig, axes = plt.subplots(
            1,
            len(panels),
            figsize=(4 + 3.2 * len(panels), 1.5 + 0.45 * varied["variation"].nunique()),
            squeeze=False,
        )
        for ax, (base, n) in zip(axes[0], panels, strict=True):
            part = varied[(varied["base"] == base) & (varied["players"] == n)]
            grid = part.pivot(index="variation", columns="style", values="delta_win_rate") * 100
            sig = part.pivot(index="variation", columns="style", values="delta_significant")
            grid = grid.reindex(
                index=list(dict.fromkeys(part["variation"])), columns=list(dict.fromkeys(part["style"]))
            )
            sig = sig.reindex_like(grid)
            limit = max(1.0, float(np.nanmax(np.abs(grid.to_numpy()))) if grid.size else 1.0)
            image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
            ax.set_xticks(
                range(grid.shape[1]), [style_label(c) for c in grid.columns], rotation=45, ha="right"
            )
            ax.set_yticks(range(grid.shape[0]), grid.index)
            for i in range(grid.shape[0]):
                for j in range(grid.shape[1]):
                    value = grid.iat[i, j]
                    mark = "" if bool(sig.iat[i, j]) else "~"
                    colour = "white" if abs(value) > 0.6 * limit else "black"
                    ax.text(j, i, f"{mark}{value:+.1f}", ha="center", va="center", fontsize=7, color=colour)
            ax.set_title(f"{base}, {n} players: win rate change (pp)")
            fig.colorbar(image, ax=ax, shrink=0.8)
        fig.text(
            0.01, 0.01, "~ : the 95% interval of the change contains 0 (smaller than the noise)", fontsize=8
        )
        fig.tight_layout()
        path = out / "winrate_change.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    cells = frame.drop_duplicates(["variant", "players"])
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4 + 3 * len(panels), 1.5 + 0.4 * cells["variant"].nunique()), squeeze=False
    )
    for ax, (base, n) in zip(axes[0], panels, strict=True):
        part = cells[(cells["base"] == base) & (cells["players"] == n)]
        labels = [v or "(base)" for v in part["variation"]]
        y = np.arange(len(part))
        ax.hlines(y, part["length_p10"], part["length_p90"], color="0.7", lw=4, label="p10-p90")
        ax.hlines(y, part["length_p25"], part["length_p75"], color="0.35", lw=4, label="p25-p75")
        ax.plot(part["length_mean"], y, "o", color="C3", label="mean")
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.set_xlabel("decisions per game")
        ax.set_title(f"{base}, {n} players: game length")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path = out / "game_length.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


def _pp(value: float) -> str:
    return f"{value * 100:+.1f} pp"


def _ci_pp(lo: float, hi: float) -> str:
    return f"[{lo * 100:+.1f}, {hi * 100:+.1f}]"


def report_text(spec: StudySpec, frame: pd.DataFrame) -> str:
    """The Markdown report: design, base win rates, every variation's effects with intervals."""
    lines = [
        f"# House-rules study `{spec.name}`",
        "",
        f"Seed {spec.seed}; bases {', '.join(spec.bases)}; players {', '.join(map(str, spec.players))}; "
        f"styles {', '.join(f'`{s}`' for s in spec.styles)}; about {spec.games:,} games per cell (every "
        f"deal replayed at every seating: {describe_seatings(spec)}); "
        f"{int(frame.drop_duplicates(['variant', 'players'])['games'].sum()):,} games in all; env version "
        f"v{frame['env_version'].iloc[0]}.",
        "",
        "Each style's win rate is measured against the field of all the study's styles, every style in "
        "every seat equally often, on the same deals in every variant. Intervals are 95%: Wilson for win "
        "rates; the change against the base is a normal interval of the difference. An effect marked "
        "*noise* has an interval that contains 0: it is smaller than this study can detect.",
        "",
    ]
    for base in dict.fromkeys(frame["base"]):
        for n in spec.players:
            part = frame[(frame["base"] == base) & (frame["players"] == n)]
            ref = part[part["variation"] == ""]
            r0 = ref.iloc[0]
            lines += [
                f"## {base}, {n} players",
                "",
                f"Base rules: mean game length {r0['length_mean']:.1f} decisions "
                f"[{r0['length_lo']:.1f}, {r0['length_hi']:.1f}] (median {r0['length_p50']}, p90 "
                f"{r0['length_p90']}); seat 0 wins {r0['seat0_win_rate']:.1%} [{r0['seat0_lo']:.1%}, "
                f"{r0['seat0_hi']:.1%}] (fair share {1 / n:.1%}); truncated {r0['truncated_rate']:.2%}.",
                "",
                "| style | win rate [95%] | mean rank | points/game |",
                "| --- | --- | ---: | ---: |",
            ]
            for _, r in ref.iterrows():
                lines.append(
                    f"| `{r['style']}` | {r['win_rate']:.1%} [{r['win_lo']:.1%}, {r['win_hi']:.1%}] | "
                    f"{r['mean_rank']:.2f} | {r['points_per_game']:.1f} |"
                )
            lines += ["", "### Findings", ""]
            varied = part[part["variation"] != ""]
            for label in dict.fromkeys(varied["variation"]):
                rows = varied[varied["variation"] == label]
                r = rows.iloc[0]
                length = (
                    f"game length {r['length_delta']:+.1f} decisions [{r['length_delta_lo']:+.1f}, "
                    f"{r['length_delta_hi']:+.1f}]" + ("" if r["length_delta_significant"] else " (noise)")
                )
                sig = rows[rows["delta_significant"]].sort_values(
                    "delta_win_rate", key=np.abs, ascending=False
                )
                effects = "; ".join(
                    f"`{s['style']}` {_pp(s['delta_win_rate'])} {_ci_pp(s['delta_lo'], s['delta_hi'])}"
                    for _, s in sig.iterrows()
                )
                quiet = [f"`{s}`" for s in rows.loc[~rows["delta_significant"], "style"]]
                text = f"- **{label}** (`{r['switches']}`): {length}; "
                text += f"win rate: {effects}" if effects else "no win-rate change beyond the noise"
                if effects and quiet:
                    text += f"; smaller than the noise for {', '.join(quiet)}"
                lines.append(text + ".")
            if varied.empty:
                lines.append("- no variations.")
            lines += ["", "Win-rate change against the base rules (percentage points, 95% interval):", ""]
            styles = list(dict.fromkeys(part["style"]))
            lines.append("| variation | " + " | ".join(f"`{s}`" for s in styles) + " | game length |")
            lines.append("| --- |" + " ---: |" * (len(styles) + 1))
            for label in dict.fromkeys(varied["variation"]):
                rows = varied[varied["variation"] == label].set_index("style")
                cells = []
                for s in styles:
                    x = rows.loc[s]
                    mark = "" if x["delta_significant"] else " *noise*"
                    cells.append(f"{_pp(x['delta_win_rate'])} {_ci_pp(x['delta_lo'], x['delta_hi'])}{mark}")
                x = rows.iloc[0]
                cells.append(f"{x['length_mean']:.1f} ({x['length_delta']:+.1f})")
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            lines.append("")
    lines += [
        "Plots: `winrate_change.png` (the change table as a heat map, `~` marks noise), "
        "`game_length.png` (mean and quantiles per variant). Tidy results: `results.csv`.",
        "",
    ]
    return "\n".join(lines)


# ================================================================ command line
def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?", help="study spec TOML (default: the built-in default study)")
    parser.add_argument(
        "--out", type=Path, help="output folder (default: runs/study__<name>__<seed>__<time>)"
    )
    parser.add_argument("--resume", type=Path, metavar="DIR", help="continue the study in DIR")
    parser.add_argument("--executor", choices=EXECUTORS, default="process", help="where batches run")
    parser.add_argument("--workers", type=int, default=None, help="processes / Ray CPUs (default: cores)")
    parser.add_argument("--ray-address", default=None, help="address of an existing Ray cluster")
    parser.add_argument("--games", type=int, default=None, help="override the spec's games per cell")
    parser.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    add_trust_argument(parser)


def cmd_study(args: argparse.Namespace) -> int:
    """Run ``uno-env study`` from parsed arguments."""
    if args.resume is not None:
        if args.spec is not None or args.games is not None or args.seed is not None:
            raise SpecError("--resume DIR continues DIR/spec.toml; do not give a SPEC, --games or --seed")
        out = args.resume
        spec = load_spec(out / "spec.toml")
    else:
        spec = load_spec(args.spec)
        if args.games is not None or args.seed is not None:
            data = spec.to_dict()
            data.update({k: v for k, v in (("games", args.games), ("seed", args.seed)) if v is not None})
            spec = parse_spec(data, source="spec with command-line overrides")
        out = args.out if args.out is not None else default_out_dir(spec)
    run_study(
        spec,
        out,
        executor=args.executor,
        workers=args.workers,
        ray_address=args.ray_address,
        resume=args.resume is not None,
        progress=not args.quiet,
        trust_checkpoints=args.trust_checkpoint,
    )
    print(f"results: {out / 'results.csv'}\nreport: {out / 'report.md'}")
    return 0


def add_subcommand(subparsers: argparse._SubParsersAction) -> None:
    """Add ``uno-env study`` to the ``uno-env`` command line."""
    parser = subparsers.add_parser(
        "study", help="factorial house-rules study (rule variants x players x styles)", description=__doc__
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    _add_arguments(parser)
    parser.set_defaults(func=cmd_study)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.study``: the same as ``uno-env study``."""
    from training.cli import run_module

    return run_module("study", argv)


if __name__ == "__main__":
    sys.exit(main())

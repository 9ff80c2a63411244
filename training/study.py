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
    replicate = false          # true: play the design again on fresh deals (replication)
    reference = "greedy"       # each style also alone against this style ("" for none)

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

**Replication and the fixed reference.** ``replicate = true`` (``--replicate``) plays the
whole design again on fresh deals (deal set 1: deals ``[D, 2D)`` of every cell, where the
primary set plays ``[0, D)``), so the report can say which detected effects replicate.
``reference`` (default ``"greedy"``, ``""`` for none; ``--reference``) adds the
fixed-reference seatings: each style but the reference alone at a table of ``players - 1``
reference players, in every seat, on the same deals, so a style's change can be read apart
from the other styles' losses (against the field, the changes sum to zero).

**What is recorded.** Each batch keeps its counts *per deal* (summed over its seatings): per
style its wins, points, rank sum and ranked games, per seat its wins, the first mover's wins
(the seat of the first decision), decisions, turns and truncated games, plus histograms of
the length in decisions and in turns. :mod:`training.study_report` turns them into the tidy
``results.csv`` (one row per deal set, cell and style: levels with 95% intervals in which the
deal is the unit, changes against the base paired by deal), ``effects.csv`` (every change
the report shows, detected or not by Benjamini-Hochberg at a 5% false discovery rate, with
its false-coverage-rate interval and its replication), the plots and ``report.md``.

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
with pyarrow), ``effects.csv``, ``report.md``, ``winrate_change.png``, ``game_length.png`` and ``log.jsonl``
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

**A policy per variant.** ``sweep = "runs/sweep__default"`` names a finished sweep
(:mod:`training.sweep`): the study then seats the style ``learned`` (added to ``styles`` if
not listed) and, in every cell, that seat plays the policy the sweep trained on exactly the
cell's rules at its player count (a cell the sweep did not train is refused when the spec is
read). Its rows in ``results.csv`` are the *adapted* player's; the report adds the skill
premium per variant, from the study's own games and the sweep's cross-evaluation
(:func:`training.transfer.study_skill_lines`).

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
from uno_env.compiling import compiling
from uno_env.learned import PolicyFileError, is_learned_policy, load_policy
from uno_env.policies import STYLES, parse_policy
from uno_env.rules import RuleError, RuleSet

if TYPE_CHECKING:
    import pandas as pd

STUDY_FORMAT = "uno-env-study/2"
SPEC_KEYS = (
    "name", "seed", "bases", "players", "styles", "games", "batch_games", "variations",
    "allow_rules_mismatch", "replicate", "reference", "sweep", "allow_cheating",
)  # fmt: skip
LEARNED = "learned"
"""The style of a study that names a sweep: in each cell, the policy the sweep trained for that
cell's rules and player count (:func:`training.sweep.sweep_models`)."""
DEFAULT_REFERENCE = "greedy"
"""The style of the fixed reference field unless a spec names another (or ``""``: none)."""
KINDS = ("field", "reference")
"""The two kinds of seatings: every style against the field of all the styles, and each style
alone against ``players - 1`` copies of the reference style."""
MAX_SEATINGS = 1000
"""Most seatings of the all-combinations design; above it a cell uses the cyclic rotation."""
UNSCRIPTED = ("random_legal", "random_playable", "monte_carlo", "search", "oracle")
"""Compiled styles left out of the default style list: the random baselines (uniform over the
legal actions, with games of thousands of decisions, and the literature's random player), the
Monte-Carlo sampler (about 100 games/s) and the search agents (milliseconds per decision; the
oracle cheats)."""
SCRIPTED_STYLES: tuple[str, ...] = tuple(name for name in STYLES if name not in UNSCRIPTED)
"""The default styles of a study: every scripted style."""
DEFAULT_SPEC = "default_study.toml"
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
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
    replicate: bool = False
    reference: str = DEFAULT_REFERENCE
    sweep: str = ""
    """A finished sweep folder (:mod:`training.sweep`) whose policies take the ``learned`` seat."""
    allow_cheating: bool = False

    def learned(self) -> tuple[str, ...]:
        """The styles that are learned-policy checkpoints."""
        return tuple(s for s in self.styles if is_checkpoint(s))

    def sweep_models(self, source: str = "spec") -> dict[tuple[str, int], str]:
        """The checkpoint of the ``learned`` seat per cell (variant id, players); empty without a sweep."""
        if not self.sweep:
            return {}
        from training.sweep import sweep_models

        return sweep_models(Path(self.sweep), self.variants(), self.players, source)

    def models(self) -> tuple[str, ...]:
        """Every checkpoint the study loads: the learned styles and the sweep's policies."""
        return (*self.learned(), *dict.fromkeys(self.sweep_models().values()))

    def exported(self) -> tuple[str, ...]:
        """The styles (and the reference) that are exported learned policies (compiled, plain weights)."""
        named = (*self.styles, self.reference) if self.reference else self.styles
        return tuple(dict.fromkeys(s for s in named if is_learned_policy(s)))

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
            "replicate": self.replicate,
            "reference": self.reference,
            "sweep": self.sweep,
            "allow_cheating": self.allow_cheating,
        }

    def replicas(self) -> tuple[int, ...]:
        """The deal sets: 0 (the primary deals) and, with ``replicate``, 1 (fresh deals)."""
        return (0, 1) if self.replicate else (0,)

    def focal_styles(self) -> tuple[str, ...]:
        """The styles measured against the fixed reference field (all but the reference)."""
        return tuple(s for s in self.styles if s != self.reference) if self.reference else ()

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
    sweep = data.get("sweep", "")
    if not isinstance(sweep, str):
        raise SpecError(f"{source}: sweep must be the folder of a finished sweep, got {sweep!r}")
    if sweep and LEARNED not in styles:
        styles.append(LEARNED)
    replicate = data.get("replicate", False)
    if not isinstance(replicate, bool):
        raise SpecError(f"{source}: replicate must be true or false, got {replicate!r}")
    reference = data.get("reference", DEFAULT_REFERENCE)
    if not isinstance(reference, str):
        raise SpecError(f'{source}: reference must be a style name or "" (none), got {reference!r}')
    reference = reference.strip()
    allow = data.get("allow_rules_mismatch", False)
    if not isinstance(allow, bool):
        raise SpecError(f"{source}: allow_rules_mismatch must be true or false, got {allow!r}")
    cheating = data.get("allow_cheating", False)
    if not isinstance(cheating, bool):
        raise SpecError(f"{source}: allow_cheating must be true or false, got {cheating!r}")
    if reference and not is_learned_policy(reference):  # an exported policy is checked per cell below
        try:
            parsed_reference, _ = parse_policy(reference)
        except ValueError as exc:
            raise SpecError(f'{source}: reference {reference!r}: {exc} (or "" for none)') from None
        if parsed_reference.cheats and not cheating:
            raise SpecError(
                f"{source}: reference {reference!r} cheats (it sees the other hands); set allow_cheating = "
                "true to study against it as an upper bound"
            )
    for style in styles:
        if is_checkpoint(style) or is_learned_policy(style) or (style == LEARNED and sweep):
            continue  # checked per cell below
        try:
            parsed, _ = parse_policy(style)
        except ValueError as exc:
            raise SpecError(f"{source}: style {style!r}: {exc}") from None
        if parsed.cheats and not cheating:
            raise SpecError(
                f"{source}: style {style!r} cheats (it sees the other hands); set allow_cheating = true "
                "to study it as an upper bound"
            )
    if len(set(styles)) != len(styles):
        raise SpecError(f"{source}: styles lists a style twice: {styles}")

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
        replicate=replicate,
        reference=reference,
        sweep=sweep,
        allow_cheating=cheating,
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
    spec.sweep_models(source)
    for name in spec.exported():
        try:
            policy = load_policy(name)
            for variant in variants:
                for n in spec.players:
                    policy.check_game(variant.rules, n, allow_rules_mismatch=allow)
        except PolicyFileError as exc:
            raise SpecError(
                f"{source}: style {name!r}: {exc} (allow_rules_mismatch = true allows other rules)"
            ) from None
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
    except UnicodeDecodeError as exc:
        raise SpecError(f"study spec {path} is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path} is not valid TOML: {exc}") from exc
    except RecursionError:  # tomllib recurses once per nesting level
        raise SpecError(f"{path} is not valid TOML: arrays or tables nested too deeply") from None
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
                                )
                            )
                            index += 1
    return out


# ================================================================ one batch
def run_batch(task: BatchTask) -> dict[str, Any]:
    """Play one batch and return its counts (JSON-ready; integers only, no timings).

    Everything is kept *per deal* (lists over the batch's deals, summed over its seatings), so
    the statistics can take the deal as the unit and pair variants deal by deal: per style
    (``slots``: the seats it holds over the batch's seatings, i.e. its seat-games per deal)
    its wins, points, rank sum and ranked games; per seat its wins; the first mover's wins;
    the decisions, turns and truncated games. In reference seatings only the style measured
    against the reference is counted per style. Length histograms (decisions, turns) give
    the quantiles.
    """
    n, count = task.players, task.count
    counted = [
        s for s in task.styles if task.kind == "field" or s != task.reference
    ]  # the styles with rows in this kind of seating
    slots = dict.fromkeys(counted, 0)
    per_style = {key: {s: np.zeros(count, dtype=np.int64) for s in counted} for key in STYLE_ARRAYS}
    seat_wins = np.zeros((n, count), dtype=np.int64)
    cell = {key: np.zeros(count, dtype=np.int64) for key in DEAL_ARRAYS}
    hists: dict[str, dict[int, int]] = {"decisions": {}, "turns": {}}
    places = np.arange(1, n + 1, dtype=np.int64)
    for table in task.seatings:
        if any(is_checkpoint(s) or s == LEARNED for s in table):
            result = play_learned(task, table)
        else:
            sim = uno_env.simulate(task.rules, n, count, seed=task.seed + task.first, policies=list(table))
            result = {
                "winner": sim.winner,
                "length": sim.length,
                "turns": sim.turns,
                "first_mover": sim.first_mover,
                "ranking": sim.ranking,
                "scores": sim.scores,
            }
        winner = result["winner"]
        won = winner >= 0
        ranks = np.zeros((count, n), dtype=np.int64)
        ended = np.zeros((int(won.sum()), n), dtype=np.int64)
        np.put_along_axis(ended, result["ranking"][won], np.broadcast_to(places, ended.shape), axis=1)
        ranks[won] = ended
        for seat, style in enumerate(table):
            seat_won = winner == seat
            seat_wins[seat] += seat_won
            if style not in slots:
                continue
            slots[style] += 1
            per_style["wins"][style] += seat_won
            per_style["points"][style] += result["scores"][:, seat]
            per_style["rank_sum"][style] += ranks[:, seat]
            per_style["ranked"][style] += won
        cell["games"] += 1
        cell["first_mover_wins"] += winner == result["first_mover"]
        cell["decisions"] += result["length"]
        cell["turns"] += result["turns"]
        cell["truncated"] += ~won
        for key, column in (("decisions", "length"), ("turns", "turns")):
            values, counts = np.unique(result[column], return_counts=True)
            for v, c in zip(values.tolist(), counts.tolist(), strict=True):
                hists[key][v] = hists[key].get(v, 0) + c
    return {
        "format": STUDY_FORMAT,
        "id": task.id,
        "variant": task.variant,
        "players": n,
        "kind": task.kind,
        "replica": task.replica,
        "rules": str(task.rules),
        "first": task.first,
        "deals": count,
        "seatings": len(task.seatings),
        "games": count * len(task.seatings),
        "slots": slots,
        "per_style": {key: {s: v.tolist() for s, v in arrays.items()} for key, arrays in per_style.items()},
        "seat_wins": seat_wins.tolist(),
        "per_deal": {key: value.tolist() for key, value in cell.items()},
        "hist": {key: {str(v): c for v, c in sorted(h.items())} for key, h in hists.items()},
    }


STYLE_ARRAYS = ("wins", "points", "rank_sum", "ranked")
"""Per-deal counts a batch keeps for each style."""
DEAL_ARRAYS = ("games", "first_mover_wins", "decisions", "turns", "truncated")
"""Per-deal counts a batch keeps for its seatings as a whole."""


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
    truncated), ``length`` (decisions), ``turns``, ``first_mover`` (the seat of the first
    decision), ``ranking`` (seats best first; -1 when truncated) and ``scores``. Deal ``d`` is
    ``uno_env.Game(rules, n, seed=seed + d)``; a scripted seat is
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
        seat: _actor(task.learned if style == LEARNED else style, rules, n, task.allow_rules_mismatch)
        for seat, style in enumerate(table)
        if is_checkpoint(style) or (style == LEARNED and task.learned)
    }
    winner = np.full(task.count, -1, dtype=np.int64)
    length = np.zeros(task.count, dtype=np.int64)
    turns = np.zeros(task.count, dtype=np.int64)
    first_mover = np.zeros(task.count, dtype=np.int64)
    ranking = np.full((task.count, n), -1, dtype=np.int64)
    scores = np.zeros((task.count, n), dtype=np.int64)
    for start in range(0, task.count, LEARNED_CHUNK):
        stop = min(task.count, start + LEARNED_CHUNK)
        games = [uno_env.Game(rules, n, seed=task.seed + task.first + i) for i in range(start, stop)]
        first_mover[start:stop] = [game.current_player for game in games]
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
            turns[i] = outcome.turns
            if outcome.ranking:
                ranking[i] = outcome.ranking
            scores[i] = outcome.scores
    return {
        "winner": winner,
        "length": length,
        "turns": turns,
        "first_mover": first_mover,
        "ranking": ranking,
        "scores": scores,
    }


def _warm_up(spec: StudySpec) -> None:
    """Load the compiled batch loop in this process (before a pool forks; no torch here)."""
    n = spec.players[0]
    scripted = [s for s in spec.styles if not is_checkpoint(s) and s != LEARNED] or ["greedy"]
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
    for path in spec.models():
        digest = hashlib.sha256()
        for part in (checkpoint_path(path), metadata_path(path)):
            digest.update(part.read_bytes())
        out[path] = digest.hexdigest()
    for name in spec.exported():
        policy = load_policy(name)
        out[name] = str(policy.meta["weights_sha256"])
    return out


def check_trust(spec: StudySpec, trust: bool) -> None:
    """Raise :class:`agents.trust.UntrustedCheckpointError` for a learned policy this installation
    did not sign, unless ``trust`` (``--trust-checkpoint``; :mod:`agents.trust`)."""
    if not spec.models() or trust:
        return
    from agents.policy_agent import checkpoint_path, metadata_path
    from agents.trust import check_trusted

    for path in spec.models():
        check_trusted(checkpoint_path(path), metadata_path(path))


def check_checkpoints(spec: StudySpec, out: Path) -> None:
    """Record the learned policies' digests in ``out/checkpoints.json``, or check them on resume.

    A checkpoint replaced since the study started would mix two policies in one results
    file: resuming then raises SpecError naming the checkpoint.
    """
    if not spec.models() and not spec.exported():
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
        if todo:  # compile (or load) the batch loop first: the progress estimate counts games only
            with compiling("batch", enabled=progress):
                _warm_up(spec)
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
        )
        seconds = time.perf_counter() - start
        append_line(log, json.dumps({"event": "done", "seconds": round(seconds, 3), "games": bar.games}))
        if report:
            assemble(out)
    return out


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


def assemble(out: Path) -> pd.DataFrame:
    """Write the results tables, plots and report of a finished study folder
    (:func:`training.study_report.assemble`); return the results table."""
    from training.study_report import assemble as assemble_report

    return assemble_report(out)


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
    parser.add_argument(
        "--replicate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play the design again on fresh deals and report which detected effects replicate "
        "(overrides the spec's replicate; the default study replicates)",
    )
    parser.add_argument(
        "--reference",
        default=None,
        metavar="STYLE",
        help="style of the fixed reference field (overrides the spec's reference; '' for none)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    add_trust_argument(parser)


def cmd_study(args: argparse.Namespace) -> int:
    """Run ``uno-env study`` from parsed arguments."""
    overrides = {
        k: v
        for k, v in (
            ("games", args.games),
            ("seed", args.seed),
            ("replicate", args.replicate),
            ("reference", args.reference),
        )
        if v is not None
    }
    if args.resume is not None:
        if args.spec is not None or overrides:
            raise SpecError(
                "--resume DIR continues DIR/spec.toml; do not give a SPEC, --games, --seed, "
                "--replicate or --reference"
            )
        out = args.resume
        spec = load_spec(out / "spec.toml")
    else:
        spec = load_spec(args.spec)
        if overrides:
            data = spec.to_dict()
            data.update(overrides)
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

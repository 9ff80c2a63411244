"""The atlas spec: its keys, their validation, the catalogue of variants and the players.

:func:`parse_spec` and :func:`load_spec` turn a TOML table (or file) into a frozen
:class:`AtlasSpec`, refusing unknown keys, switches, values, players and impossible
catalogues with an :class:`AtlasSpecError` naming what is allowed. :meth:`AtlasSpec.variants`
lists the catalogue (each preset, the base with each variation alone, each named pair, the
controls); :meth:`AtlasSpec.cells` the variants at the player counts they allow;
:meth:`AtlasSpec.rungs` the skill ladder of a cell. The keys, their defaults and allowed values
are listed in ``docs/atlas.md`` (The catalogue).
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import uno_env
from agents.spec import parse_agent
from training.study.spec import DEFAULT_FIELD, SpecError, Variant, _switch_text
from training.sweep import sweep_models
from uno_env import files
from uno_env.engine.rules import PRESETS, RuleError, RuleSet
from uno_env.sim.learned import PolicyFileError, PolicyGameMismatchError, load_policy, shipped_policies
from uno_env.spelling import each_with_suggestion, suggestion

from .names import ATLAS_FORMAT
from .planning import check_plan_size

SPEC_KEYS = (
    "name", "seed", "players", "presets", "base", "variations", "pairs", "strong", "oracle", "field",
    "field_rotations", "baseline", "ladder", "learned", "sweep", "replicate", "controls", "deals",
    "batch_games",
)  # fmt: skip
DEAL_KINDS = ("baseline", "field", "strong", "scripted", "fit")
"""The keys of ``[deals]``: deals per deal set of each kind of games (see :mod:`training.atlas`)."""
DEFAULT_DEALS = {"baseline": 260, "field": 259, "strong": 100, "scripted": 300, "fit": 100}
FIELD_DEALS_PER_ROTATION = 37
"""Without ``[deals] field``: this many deals per rotation of the field (259 with the seven
styles and one rotation a deal; 37 with every rotation on every deal: the same games)."""
DEFAULT_SPEC = "default_atlas.toml"
COIN_FLIP = "coin_flip"
"""The control whose winner is drawn from the deal alone (a coin flip: play cannot matter)."""
AA_COPY = "aa_copy"
"""The control that plays the base rules again on other deals (an A/A comparison)."""
AA_OFFSET = 1 << 40
"""Deal seeds of the A/A copy start here (fresh deals of the same distribution)."""
FIELD_ROTATIONS = ("one", "all")
"""The designs of the games against the field (``field_rotations``): ``"one"``, each deal seats
one rotation of the ``k`` styles (every rung, every seat; the deal set in ``k`` equal runs of
consecutive deals, run ``t`` rotation ``t``); ``"all"``, every deal seats every rotation (``k``
times the games per deal, on one deal: strongly alike games)."""
MAX_DEALS = 1_000_000
_LABEL = re.compile(r"^[A-Za-z0-9_-]+\Z")  # \Z: "$" also matches before a final newline


class AtlasSpecError(SpecError):
    """An atlas spec that cannot be run; the message names what is wrong and what is allowed."""


@dataclass(frozen=True)
class AtlasVariant(Variant):
    """A variant of the catalogue: ``kind`` is ``"preset"`` (a preset as it is), ``"switch"``
    (the base with one variation), ``"pair"`` (the base with two variations) or ``"control"``
    (:data:`COIN_FLIP`, :data:`AA_COPY`). ``deal_offset`` shifts its deal seeds (the A/A copy),
    ``coin_flip`` replaces every winner by a draw from the deal."""

    kind: str = "preset"
    deal_offset: int = 0
    coin_flip: bool = False


@dataclass(frozen=True)
class Rung:
    """A player of a cell's skill ladder: ``role`` is ``"random"`` (below the baseline),
    ``"baseline"``, ``"scripted"`` (a field style), ``"strong"``, ``"oracle"`` or ``"learned"``."""

    agent: str
    role: str


@dataclass(frozen=True)
class AtlasSpec:
    """A validated atlas spec (see :mod:`training.atlas` for the keys)."""

    name: str
    seed: int
    players: tuple[int, ...]
    presets: tuple[str, ...]
    base: str
    variations: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    pairs: tuple[tuple[str, str], ...]
    strong: str
    oracle: str
    field: tuple[str, ...]
    baseline: str
    ladder: tuple[str, ...]
    learned: str
    sweep: str
    replicate: bool
    controls: bool
    deals: tuple[tuple[str, int], ...]
    batch_games: int
    field_rotations: str = "one"

    def deal_count(self, kind: str) -> int:
        """Deals per deal set of games of ``kind`` (:data:`DEAL_KINDS`)."""
        return dict(self.deals)[kind]

    def replicas(self) -> tuple[int, ...]:
        """The deal sets: 0 (the primary deals) and, with ``replicate``, 1 (fresh deals)."""
        return (0, 1) if self.replicate else (0,)

    def to_dict(self) -> dict[str, Any]:
        """The spec as TOML-ready data (what ``spec.toml`` holds)."""
        return {
            "format": ATLAS_FORMAT,
            "name": self.name,
            "seed": self.seed,
            "players": list(self.players),
            "presets": list(self.presets),
            "base": self.base,
            "variations": {label: dict(switches) for label, switches in self.variations},
            "pairs": [list(p) for p in self.pairs],
            "strong": self.strong,
            "oracle": self.oracle,
            "field": list(self.field),
            "field_rotations": self.field_rotations,
            "baseline": self.baseline,
            "ladder": list(self.ladder),
            "learned": self.learned,
            "sweep": self.sweep,
            "replicate": self.replicate,
            "controls": self.controls,
            "deals": dict(self.deals),
            "batch_games": self.batch_games,
        }

    def variants(self) -> list[AtlasVariant]:
        """The catalogue: each preset; the base with each variation that changes it; each pair;
        then the controls. Ids: the preset's name, ``base+label``, ``base+a+b``,
        :data:`COIN_FLIP`, :data:`AA_COPY`."""
        base_rules = uno_env.load_rules(self.base)
        out = [
            AtlasVariant(name, name, "", "", uno_env.load_rules(name), kind="preset") for name in self.presets
        ]
        if self.base not in self.presets:
            out.insert(0, AtlasVariant(self.base, self.base, "", "", base_rules, kind="preset"))
        switches = dict(self.variations)
        for label, change in self.variations:
            rules = _apply(base_rules, dict(change), f"variation {label!r}")
            if rules != base_rules:
                out.append(
                    AtlasVariant(
                        f"{self.base}+{label}", self.base, label, _switch_text(change), rules, kind="switch"
                    )
                )
        for a, b in self.pairs:
            both = {**dict(switches[a]), **dict(switches[b])}
            rules = _apply(base_rules, both, f"pair {a}+{b}")
            text = f"{_switch_text(switches[a])} {_switch_text(switches[b])}"
            out.append(AtlasVariant(f"{self.base}+{a}+{b}", self.base, f"{a}+{b}", text, rules, kind="pair"))
        if self.controls:
            out.append(
                AtlasVariant(COIN_FLIP, self.base, COIN_FLIP, "", base_rules, kind="control", coin_flip=True)
            )
            out.append(
                AtlasVariant(
                    AA_COPY, self.base, AA_COPY, "", base_rules, kind="control", deal_offset=AA_OFFSET
                )
            )
        return out

    def cells(self) -> list[tuple[AtlasVariant, int]]:
        """Every (variant, player count) the variant's rules allow, in catalogue order."""
        out = []
        for variant in self.variants():
            for n in self.players:
                try:
                    variant.rules.check_players(n)
                except RuleError:
                    continue
                out.append((variant, n))
        return out

    def learned_players(self, variant: AtlasVariant, players: int) -> tuple[str, ...]:
        """The learned rungs of a cell: with ``learned = "auto"`` every shipped exported policy
        trained on exactly the cell's rules and player count; a named learned player in every
        cell its network fits (other rules and player counts as a transfer, not another deck
        family); plus the sweep's player for the cell when ``sweep`` names a finished sweep that
        trained one."""
        out: list[str] = []
        if self.learned == "auto" and not variant.coin_flip:
            for name in shipped_policies():
                policy = load_policy(name)
                if policy.num_players == players and RuleSet.parse(policy.rules) == variant.rules:
                    out.append(name)
        elif self.learned not in ("", "auto") and _fits(self.learned, variant.rules, players):
            out.append(self.learned)
        if self.sweep and not variant.coin_flip:
            model = _sweep_players(self, variant, players)
            if model:
                out.append(model)
        return tuple(dict.fromkeys(out))

    def rungs(self, variant: AtlasVariant, players: int) -> tuple[Rung, ...]:
        """The skill ladder of a cell, weakest first: the extra low rungs, the baseline, the
        field's styles, the strong player, the oracle, the learned players."""
        out = [Rung(a, "random") for a in self.ladder]
        out.append(Rung(self.baseline, "baseline"))
        out += [Rung(a, "scripted") for a in self.field]
        out.append(Rung(self.strong, "strong"))
        if self.oracle:
            out.append(Rung(self.oracle, "oracle"))
        out += [Rung(a, "learned") for a in self.learned_players(variant, players)]
        return tuple(out)


def _apply(base: RuleSet, switches: Mapping[str, Any], where: str) -> RuleSet:
    try:
        return base.with_overrides(dict(switches), source=where)
    except RuleError as exc:
        raise AtlasSpecError(f"{where}: {exc}") from None


def _sweep_players(spec: AtlasSpec, variant: AtlasVariant, players: int) -> str:
    """The sweep's player trained on the cell's rules and player count, or ``""``."""

    try:
        return sweep_models(Path(spec.sweep), [variant], [players], "atlas spec").get(
            (variant.id, players), ""
        )
    except SpecError:
        return ""


def default_spec_path() -> Path:
    """Where the built-in default atlas spec lives."""
    return Path(str(resources.files("training") / "specs" / DEFAULT_SPEC))


def _int(data: Mapping[str, Any], key: str, default: int, low: int, high: int, source: str) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise AtlasSpecError(f"{source}: {key} must be an integer in {low}..{high:,}, got {value!r}")
    return value


def _agent(text: Any, key: str, source: str) -> str:
    """An agent spec text, checked by the one agent-spec grammar (:mod:`agents.spec`)."""
    if not isinstance(text, str) or not text.strip():
        raise AtlasSpecError(
            f"{source}: {key} must be an agent spec (a style such as search:sims=100), got {text!r}"
        )
    try:
        parse_agent(text, where=f"{source}: {key}")
    except ValueError as exc:
        raise AtlasSpecError(str(exc)) from None
    return text.strip()


def _bool(data: Mapping[str, Any], key: str, default: bool, source: str) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise AtlasSpecError(f"{source}: {key} must be true or false, got {value!r}")
    return value


def parse_spec(data: Mapping[str, Any], source: str = "atlas spec") -> AtlasSpec:
    """Validate spec data (a parsed TOML table) and return the spec.

    Raises:
        AtlasSpecError: naming the offending key, switch, value, agent or player count.
    """
    data = dict(data)
    fmt = data.pop("format", ATLAS_FORMAT)
    if fmt != ATLAS_FORMAT:
        raise AtlasSpecError(f"{source}: format={fmt!r} is not supported; expected {ATLAS_FORMAT!r}")
    unknown = sorted(set(data) - set(SPEC_KEYS))
    if unknown:
        raise AtlasSpecError(
            f"{source}: unknown key(s) {each_with_suggestion(unknown, SPEC_KEYS)}; allowed: "
            f"{', '.join(SPEC_KEYS)}"
        )
    name = data.get("name", "atlas")
    if not isinstance(name, str) or not _LABEL.match(name):
        raise AtlasSpecError(f"{source}: name must be letters, digits, '_' or '-', got {name!r}")
    seed = _int(data, "seed", 0, 0, 2**62, source)
    batch_games = _int(data, "batch_games", 2000, 1, 1_000_000, source)

    players = data.get("players", [2, 4])
    if isinstance(players, int) and not isinstance(players, bool):
        players = [players]
    if (
        not isinstance(players, list)
        or not players
        or not all(isinstance(n, int) and not isinstance(n, bool) and 2 <= n <= 10 for n in players)
    ):
        raise AtlasSpecError(
            f"{source}: players must be a non-empty list of player counts 2..10, got {players!r}"
        )
    if len(set(players)) != len(players):
        raise AtlasSpecError(f"{source}: players lists a count twice: {players}")

    presets = data.get("presets", list(PRESETS))
    if isinstance(presets, str):
        presets = [presets]
    if not isinstance(presets, list) or not all(isinstance(p, str) for p in presets):
        raise AtlasSpecError(f"{source}: presets must be a list of preset names ({', '.join(PRESETS)})")
    for preset in presets:
        if preset not in PRESETS:
            raise AtlasSpecError(
                f"{source}: unknown preset {preset!r}{suggestion(preset, PRESETS)}; presets: "
                f"{', '.join(PRESETS)}"
            )
    if len(set(presets)) != len(presets):
        raise AtlasSpecError(f"{source}: presets lists a preset twice: {presets}")
    base = data.get("base", "uno")
    if not isinstance(base, str) or base not in PRESETS:
        raise AtlasSpecError(f"{source}: base must be a preset ({', '.join(PRESETS)}), got {base!r}")

    raw_variations = data.get("variations", {})
    if not isinstance(raw_variations, dict):
        raise AtlasSpecError(f"{source}: [variations] must be a table of label = {{ switch = value }}")
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    variations: list[tuple[str, tuple[tuple[str, Any], ...]]] = []
    for label, switches in raw_variations.items():
        where = f"{source}: variation {label!r}"
        if not _LABEL.match(label) or label in (COIN_FLIP, AA_COPY):
            raise AtlasSpecError(
                f"{where}: labels are letters, digits, '_' or '-' (not {COIN_FLIP} or {AA_COPY})"
            )
        if not isinstance(switches, dict) or not switches:
            raise AtlasSpecError(
                f"{where} must be an inline table of one or more switches, e.g. {{ jump_in = true }}"
            )
        bad = sorted(set(switches) - fields)
        if bad:
            raise AtlasSpecError(
                f"{where}: unknown switch(es) {each_with_suggestion(bad, fields)}; `uno-env rules --fields` "
                "lists every switch: "
                f"{', '.join(sorted(fields))}"
            )
        variations.append((label, tuple(sorted(switches.items()))))
    labels = {label for label, _ in variations}
    raw_pairs = data.get("pairs", [])
    if not isinstance(raw_pairs, list):
        raise AtlasSpecError(
            f'{source}: pairs must be a list of two variation labels each, e.g. [["stacking", "jump_in"]]'
        )
    pairs: list[tuple[str, str]] = []
    for pair in raw_pairs:
        if isinstance(pair, str):
            pair = pair.split("+")
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
            raise AtlasSpecError(
                f'{source}: a pair names two variations, e.g. ["stacking", "jump_in"], got {pair!r}'
            )
        a, b = (x.strip() for x in pair)
        for label in (a, b):
            if label not in labels:
                raise AtlasSpecError(
                    f"{source}: pair {a}+{b}: {label!r} is not a variation of the spec; variations: "
                    f"{', '.join(sorted(labels))}"
                )
        if a == b:
            raise AtlasSpecError(f"{source}: pair {a}+{b} names one variation twice")
        overlap = set(dict(dict(variations)[a])) & set(dict(dict(variations)[b]))
        if overlap:
            raise AtlasSpecError(
                f"{source}: pair {a}+{b}: both set {', '.join(sorted(overlap))}; a pair combines two switches"
            )
        if (a, b) in pairs or (b, a) in pairs:
            raise AtlasSpecError(f"{source}: pair {a}+{b} is named twice")
        pairs.append((a, b))

    strong = _agent(data.get("strong", "search:sims=100"), "strong", source)
    oracle_text = data.get("oracle", "oracle:sims=100")
    oracle = "" if oracle_text == "" else _agent(oracle_text, "oracle", source)
    baseline = _agent(data.get("baseline", "random_playable"), "baseline", source)
    field = data.get("field", list(DEFAULT_FIELD))
    if not isinstance(field, list) or len(field) < 1:
        raise AtlasSpecError(
            f"{source}: field must be a non-empty list of agent specs (default: the seven scripted styles)"
        )
    field = [_agent(a, "field", source) for a in field]
    if len(set(field)) != len(field):
        raise AtlasSpecError(f"{source}: field lists an agent twice: {field}")
    ladder = data.get("ladder", ["random_legal"])
    if not isinstance(ladder, list):
        raise AtlasSpecError(
            f"{source}: ladder must be a list of agent specs below the baseline (default: random_legal)"
        )
    ladder = [_agent(a, "ladder", source) for a in ladder]
    for key, text in (
        ("strong", strong),
        ("baseline", baseline),
        *(("field", f) for f in field),
        *(("ladder", a) for a in ladder),
    ):
        if parse_agent(text).cheats:
            raise AtlasSpecError(
                f"{source}: {key} {text!r} cheats (it sees the other hands); only the oracle may"
            )
    if oracle and not parse_agent(oracle).cheats:
        raise AtlasSpecError(
            f"{source}: oracle {oracle!r} does not see the hidden cards; name the oracle style "
            '(oracle:sims=100) or ""'
        )
    learned = data.get("learned", "auto")
    if not isinstance(learned, str):
        raise AtlasSpecError(f'{source}: learned must be "auto", "" or an exported policy, got {learned!r}')
    if learned not in ("", "auto"):
        learned = _agent(learned, "learned", source)
    sweep = data.get("sweep", "")
    if not isinstance(sweep, str):
        raise AtlasSpecError(f"{source}: sweep must be the folder of a finished sweep, got {sweep!r}")

    raw_deals = data.get("deals", {})
    if not isinstance(raw_deals, dict):
        raise AtlasSpecError(f"{source}: [deals] must be a table of {', '.join(DEAL_KINDS)}")
    bad_deals = sorted(set(raw_deals) - set(DEAL_KINDS))
    if bad_deals:
        raise AtlasSpecError(
            f"{source}: [deals] has unknown key(s) {each_with_suggestion(bad_deals, DEAL_KINDS)}; allowed: "
            f"{', '.join(DEAL_KINDS)}"
        )
    rotations = data.get("field_rotations", "one")
    if rotations not in FIELD_ROTATIONS:
        raise AtlasSpecError(
            f'{source}: field_rotations must be "one" (each deal seats one rotation of the field) or '
            f'"all" (every deal seats every rotation), got {rotations!r}'
        )
    k = len(field)
    defaults = {**DEFAULT_DEALS, "field": FIELD_DEALS_PER_ROTATION * (k if rotations == "one" else 1)}
    deals = tuple(
        (key, _int(raw_deals, key, defaults[key], 2, MAX_DEALS, f"{source} [deals]")) for key in DEAL_KINDS
    )
    count = dict(deals)["field"]
    if rotations == "one" and count % k:
        below, above = count // k * k, (count // k + 1) * k
        raise AtlasSpecError(
            f"{source} [deals]: field = {count} is not a multiple of the field's {k} styles; with "
            f'field_rotations = "one" each deal seats one rotation and every rotation gets the same '
            f"number of deals: use {f'{below} or ' if below >= 2 else ''}{above}"
        )

    spec = AtlasSpec(
        name=name,
        seed=seed,
        players=tuple(players),
        presets=tuple(presets),
        base=base,
        variations=tuple(variations),
        pairs=tuple(pairs),
        strong=strong,
        oracle=oracle,
        field=tuple(field),
        baseline=baseline,
        ladder=tuple(ladder),
        learned=learned,
        sweep=sweep,
        replicate=_bool(data, "replicate", True, source),
        controls=_bool(data, "controls", True, source),
        deals=deals,
        batch_games=batch_games,
        field_rotations=rotations,
    )
    try:
        variants = spec.variants()
    except RuleError as exc:
        raise AtlasSpecError(f"{source}: {exc}") from None
    for variant in variants:
        if variant.rules.match != "single_round":
            raise AtlasSpecError(
                f"{source}: variant {variant.id} plays match={variant.rules.match}; the atlas measures "
                "single rounds "
                "(the win-chance trajectories follow one round): leave match at single_round"
            )
    if not spec.cells():
        raise AtlasSpecError(f"{source}: no variant allows any of the player counts {list(spec.players)}")
    for variant in variants:
        missing = [n for n in spec.players if (variant, n) not in spec.cells()]
        if missing:
            print(
                f"note: {variant.id} does not allow {', '.join(map(str, missing))} players; those cells "
                "are skipped",
                file=sys.stderr,
            )
    _check_networks(spec, source)
    if spec.sweep:  # a folder that is no finished sweep is refused, not read as "no player"
        try:
            sweep_models(Path(spec.sweep), [], [], source)
        except SpecError as exc:
            raise AtlasSpecError(str(exc)) from None
    try:
        check_plan_size(spec, source)
    except ValueError as exc:
        raise AtlasSpecError(str(exc)) from None
    return spec


def _check_networks(spec: AtlasSpec, source: str) -> None:
    """Refuse a ladder player whose network (an exported policy, a search's guide) cannot be
    read, or cannot play a cell: it sits in every cell, where it plays other rules as a transfer
    but needs the cell's deck family. An explicit ``learned`` player sits only in the cells it
    fits (:meth:`AtlasSpec.learned_players`): one that fits none is refused, the others named."""
    cells = spec.cells()
    named = [("strong", spec.strong), ("oracle", spec.oracle), ("baseline", spec.baseline)]
    named += [("field", a) for a in spec.field] + [("ladder", a) for a in spec.ladder]
    for key, text in named:
        agent = parse_agent(text) if text else None
        if agent is None or not agent.networks:
            continue
        for variant, n in cells:
            try:
                agent.check_networks(variant.rules, n, allow_rules_mismatch=True)
            except PolicyFileError as exc:
                raise AtlasSpecError(
                    f"{source}: {key} {text!r} cannot play cell {variant.id} at {n} players: {exc}"
                ) from None
    if spec.learned in ("", "auto"):
        return
    try:
        unfit = [f"{v.id} at {n}" for v, n in cells if not _fits(spec.learned, v.rules, n)]
    except PolicyFileError as exc:
        raise AtlasSpecError(f"{source}: learned {spec.learned!r}: {exc}") from None
    if len(unfit) == len(cells):
        raise AtlasSpecError(
            f"{source}: learned {spec.learned!r} fits no cell (another deck family or observation "
            'spec): name a learned player of these rules, or "auto"'
        )
    if unfit:
        where = ", ".join(unfit)
        print(
            f"note: learned {spec.learned!r} is not seated where its network does not fit: {where}",
            file=sys.stderr,
        )


def _fits(agent: str, rules: RuleSet, players: int) -> bool:
    """Whether an agent's networks can play ``rules`` (its deck family; other rules and player
    counts as a transfer); PolicyFileError when a network cannot be read."""
    try:
        parse_agent(agent).check_networks(rules, players, allow_rules_mismatch=True)
    except PolicyGameMismatchError:
        return False
    return True


def load_spec(path: str | Path | None = None) -> AtlasSpec:
    """Read and validate a spec file (``None``: the built-in default spec), through the bounded
    reader of every spec (:func:`uno_env.files.read_toml`: a regular file of at most 1 MiB; a
    FIFO or a device is refused before a byte is read, as the study's and the sweep's are)."""
    path = default_spec_path() if path is None else Path(path)
    data = files.read_toml(path, "atlas spec", error=AtlasSpecError)
    return parse_spec(data, source=str(path))

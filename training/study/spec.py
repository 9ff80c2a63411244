"""The study spec: its keys, their validation and the rule variants it names.

:func:`parse_spec_fields` turns a TOML table into a frozen :class:`StudySpec`, refusing
unknown keys, switches, values, styles, impossible player counts and learned policies that
may not play the study's cells (:func:`check_checkpoint`), with a :class:`SpecError` naming
what is allowed. What needs more than the spec (the plan's size, a named sweep's finished
runs) is checked by :func:`training.study.load.parse_spec` and
:func:`training.study.load.load_spec`, which every study reads its spec through; a sweep's
transfer field, which names no sweep, is read by :func:`parse_spec_fields` alone.
:meth:`StudySpec.variants` lists the rule variants (each base, then each variation that
changes it). The keys are documented in :mod:`training.study`.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import uno_env
from agents.policy_agent import (
    PolicyMismatchError,
    check_policy_metadata,
    checkpoint_path,
    load_policy_metadata,
)
from agents.spec import AgentSpec, AgentSpecError, as_spec, parse_agent, same_agent_twice
from training.runner import check_agents_reach_workers as reach_workers
from training.tournament import is_checkpoint as named_checkpoint
from training.tournament import is_python_agent as named_python_agent
from uno_env.engine.rules import RuleError, RuleSet
from uno_env.sim.learned import PolicyFileError, PolicyGameMismatchError, is_learned_policy
from uno_env.spelling import each_with_suggestion
from uno_env.styles.registry import parse_policy

STUDY_FORMAT = "uno-env-study/2"
SPEC_KEYS = (
    "name", "seed", "bases", "players", "styles", "games", "batch_games", "variations",
    "allow_rules_mismatch", "replicate", "reference", "sweep", "allow_cheating", "objects",
)  # fmt: skip
LEARNED = "learned"
"""The style of a study that names a sweep: in each cell, the policy the sweep trained for that
cell's rules and player count (:func:`training.sweep.sweep_models`, read into
:attr:`StudySpec.swept`)."""
DEFAULT_REFERENCE = "greedy"
"""The style of the fixed reference field unless a spec names another (or ``""``: none)."""
KINDS = ("field", "reference")
"""The two kinds of seatings: every style against the field of all the styles, and each style
alone against ``players - 1`` copies of the reference style."""
MAX_SEATINGS = 1000
"""Most seatings of the all-combinations design; above it a cell uses the cyclic rotation."""
DEFAULT_FIELD: tuple[str, ...] = (
    "greedy",
    "aggressor",
    "hoarder",
    "controller",
    "blocker",
    "bluffer",
    "cautious",
)
"""The styles of a study (and of a sweep's transfer field) that names none: the seven scripted
styles the default study was designed with, named here so that a style added to the registry
never changes an existing study or its figures (a spec lists ``styles`` to use others). Left
out: the random baselines (games of thousands of decisions under ``random_legal``), the
Monte-Carlo sampler (about 100 games/s) and the search agents (milliseconds per decision; the
oracle cheats)."""
DEFAULT_SPEC = "default_study.toml"
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
_LABEL = re.compile(r"^[A-Za-z0-9_-]+\Z")  # \Z: "$" also matches before a final newline
LEARNED_BATCH_GAMES = 4000
"""Most games per batch in a study with learned policies (their games are slower)."""
LEARNED_CHUNK = 512
"""Games of a batch played at once by the learned-policy loop (one forward pass per round)."""


class SpecError(ValueError):
    """A study spec that cannot be run; the message names what is wrong and what is allowed."""


def check_agents_reach_workers(agents: Sequence[AgentSpec], executor: str) -> None:
    """Refuse, before anything runs, agent objects that cannot reach worker processes
    (:func:`training.runner.check_agents_reach_workers`), as a :class:`SpecError`."""
    reach_workers(agents, executor, error=SpecError)


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
    agents: tuple[AgentSpec, ...] = ()
    """The agents handed over as Python objects (an :class:`agents.Agent` or a factory), each a
    style column (or the reference) named by its ``text``; read back from ``spec.toml`` (key
    ``objects``) they are names only, and :meth:`missing_objects` lists them until the same
    objects are given again."""
    swept: Mapping[tuple[str, int], str] = field(default_factory=dict, compare=False, repr=False)
    """The policy file of the ``learned`` seat per cell (variant id, players) of a study that
    names a sweep, read from the sweep's finished runs when the spec is read
    (:func:`training.study.load.parse_spec`); empty without a sweep."""

    def agent(self, style: str) -> AgentSpec | None:
        """The Python object agent named ``style``, or None for a spec text."""
        return next((a for a in self.agents if a.text == style), None)

    def missing_objects(self) -> tuple[str, ...]:
        """The object agents named by the spec (read from a file) without their object."""
        return tuple(a.text for a in self.agents if a.obj is None)

    def learned(self) -> tuple[str, ...]:
        """The styles that are learned-policy checkpoints."""
        return tuple(s for s in self.styles if is_checkpoint(s))

    def sweep_models(self) -> dict[tuple[str, int], str]:
        """The checkpoint of the ``learned`` seat per cell (variant id, players); empty without a sweep."""
        return dict(self.swept)

    def models(self) -> tuple[str, ...]:
        """Every checkpoint the study loads: the learned styles and the sweep's MaskablePPO policies."""
        swept = (m for m in self.sweep_models().values() if not is_learned_policy(m))
        return (*self.learned(), *dict.fromkeys(swept))

    def exported_styles(self) -> tuple[str, ...]:
        """The styles (and the reference) that are exported learned policies (compiled, plain weights)."""
        named = (*self.styles, self.reference) if self.reference else self.styles
        return tuple(dict.fromkeys(s for s in named if is_learned_policy(s)))

    def exported(self) -> tuple[str, ...]:
        """:meth:`exported_styles` and the sweep's exported players (an expert-iteration sweep's,
        each playing its own cell)."""
        swept = (m for m in self.sweep_models().values() if is_learned_policy(m))
        return tuple(dict.fromkeys([*self.exported_styles(), *swept]))

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
            **({"objects": [a.text for a in self.agents]} if self.agents else {}),
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


def parse_spec_fields(data: Mapping[str, Any], source: str = "spec") -> StudySpec:
    """Validate spec data (a parsed TOML table) and return the spec, as far as the spec alone
    tells (:func:`training.study.load.parse_spec` checks the rest).

    Raises:
        SpecError: naming the offending key, switch, value, style or player count.
    """
    data = dict(data)
    fmt = data.pop("format", STUDY_FORMAT)
    if fmt != STUDY_FORMAT:
        raise SpecError(f"{source}: format={fmt!r} is not supported; expected {STUDY_FORMAT!r}")
    unknown = sorted(set(data) - set(SPEC_KEYS))
    if unknown:
        raise SpecError(
            f"{source}: unknown key(s) {each_with_suggestion(unknown, SPEC_KEYS)}; allowed: "
            f"{', '.join(SPEC_KEYS)}"
        )
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

    objects = _objects(data.get("objects", []), source)
    styles = data.get("styles", list(DEFAULT_FIELD))
    if isinstance(styles, str):
        styles = [styles]
    if isinstance(styles, tuple):
        styles = list(styles)
    if not isinstance(styles, list) or not styles:
        raise SpecError(f"{source}: styles must be a non-empty list of agent specs (or, from Python, agents)")
    styles = [_style_name(s, objects, source) for s in styles]
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
        reference = _style_name(reference, objects, source, "reference")
    reference = reference.strip()
    allow = data.get("allow_rules_mismatch", False)
    if not isinstance(allow, bool):
        raise SpecError(f"{source}: allow_rules_mismatch must be true or false, got {allow!r}")
    cheating = data.get("allow_cheating", False)
    if not isinstance(cheating, bool):
        raise SpecError(f"{source}: allow_cheating must be true or false, got {cheating!r}")
    if reference and reference not in objects and not is_learned_policy(reference):  # exported: per cell
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
        if (style == LEARNED and sweep) or style in objects:
            continue
        try:
            agent = parse_agent(style, where=f"{source}: style {style!r}")
        except ValueError as exc:
            raise SpecError(str(exc)) from None
        if agent.kind in ("checkpoint", "policy"):
            continue  # checked per cell below
        if agent.cheats and not cheating:
            raise SpecError(
                f"{source}: style {style!r} cheats (it sees the other hands); set allow_cheating = true "
                "to study it as an upper bound"
            )
    if len(set(styles)) != len(styles):
        raise SpecError(f"{source}: styles lists a style twice: {styles}")
    twice = same_agent_twice(parse_agent(s) for s in styles if not ((s == LEARNED and sweep) or s in objects))
    if twice is not None:
        raise SpecError(
            f"{source}: styles {twice[0]!r} and {twice[1]!r} play alike (one style, its defaults written out "
            f"or an alias); list it once: {styles}"
        )

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
                f"{where}: unknown switch(es) {each_with_suggestion(bad, fields)}; `uno-env rules --fields` "
                "lists every "
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
        agents=tuple(objects[name] for name in dict.fromkeys([*styles, reference]) if name in objects),
    )
    unused = sorted(set(objects) - {*styles, reference})
    if unused:
        raise SpecError(f"{source}: objects names {', '.join(unused)}, which no style or reference uses")
    try:
        variants = spec.variants()
    except RuleError as exc:
        raise SpecError(f"{source}: {exc}") from None
    seen: dict[tuple[str, RuleSet], Variant] = {}
    for variant in variants:  # one rule set twice would be measured (and corrected for) twice
        twin = seen.setdefault((variant.base, variant.rules), variant)
        if twin is not variant:
            raise SpecError(
                f"{source}: variation {variant.variation!r} gives {variant.base} the same rules as "
                f"variation {twin.variation!r} ({variant.rules}); allowed: variations that each give a "
                "base other rules"
            )
    for variant in variants:
        for n in spec.players:
            try:
                variant.rules.check_players(n)
            except RuleError as exc:
                raise SpecError(
                    f"{source}: impossible player count {n} for variant {variant.id}: {exc}"
                ) from None
    for path in spec.learned():
        check_checkpoint(path, variants, spec.players, allow, source)
    named = (*spec.styles, spec.reference) if spec.reference else spec.styles
    for name in dict.fromkeys(named):  # exported policies and searches' guides, in every cell
        try:
            agent = parse_agent(name)
        except ValueError:
            continue  # `learned`, an agent object's name: no network file of their own
        try:
            for variant in variants:
                for n in spec.players:
                    agent.check_networks(variant.rules, n, allow_rules_mismatch=allow)
        except PolicyFileError as exc:
            hint = (
                ""
                if allow or not isinstance(exc, PolicyGameMismatchError)
                else " (allow_rules_mismatch = true allows other rules)"
            )
            raise SpecError(f"{source}: style {name!r}: {exc}{hint}") from None
    for label, _ in spec.variations:
        if not any(v.variation == label for v in variants):
            print(f"note: variation {label!r} changes no base; it is skipped", file=sys.stderr)
    return spec


def _objects(names: Any, source: str) -> dict[str, AgentSpec]:
    """The ``objects`` key: names of agents given as Python objects (what ``spec.toml`` keeps of
    them), each a placeholder until the object is given again."""
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise SpecError(f"{source}: objects must be a list of the names of agents given as Python objects")
    return {n.strip(): AgentSpec("object", n.strip()) for n in names}


def _style_name(entry: Any, objects: dict[str, AgentSpec], source: str, where: str = "styles") -> str:
    """The name a styles (or reference) entry goes by: a spec text as written, or an agent object's
    or factory's name (:func:`agents.spec.as_spec`), registered in ``objects``."""
    if isinstance(entry, str):
        return entry.strip()
    if isinstance(entry, AgentSpec) and entry.kind != "object":
        return entry.text
    try:
        agent = as_spec(entry, where=f"{source}: {where} entry {entry!r}")
    except AgentSpecError:
        noun = "reference" if where == "reference" else "a styles entry"
        raise SpecError(
            f"{source}: {noun} must be a style name or another agent spec (or, from Python, an agent or a "
            f"factory); {entry!r} is not an agent"
        ) from None
    name = agent.text
    if not _LABEL.match(name) or name == LEARNED:
        raise SpecError(
            f"{source}: {where}: the agent object's name {name!r} must be letters, digits, '_' or '-' and "
            f"not {LEARNED!r} (it names the style's rows); give the object a `name` attribute"
        )
    try:
        parse_agent(name)
    except ValueError:
        pass
    else:
        raise SpecError(
            f"{source}: {where}: the agent object's name {name!r} is also an agent spec (a style or a "
            "policy); give the object another `name` attribute"
        )
    known = objects.get(name)
    if known is not None and known.obj is not None and known.obj is not agent.obj:
        raise SpecError(f"{source}: {where}: two different agent objects are named {name!r}")
    objects[name] = agent
    return name


def is_checkpoint(style: str) -> bool:
    """Whether a style names a learned-policy checkpoint (as in ``uno-env tournament``)."""

    return named_checkpoint(style)


def is_python_agent(style: str) -> bool:
    """Whether a style names a user's Python, out-of-process or chat-model agent (:mod:`agents.spec`)."""

    return named_python_agent(style)


def check_checkpoint(
    path: str, variants: Sequence[Variant], players: Sequence[int], allow_rules_mismatch: bool, source: str
) -> None:
    """Raise SpecError unless checkpoint ``path`` may play in every cell.

    The sidecar must exist and agree with the installed observation spec and env version;
    the deck family must be the variants'. Other rules or player counts need
    ``allow_rules_mismatch`` (a transfer study).
    """

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

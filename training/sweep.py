"""A policy per rule variant: ``uno-env sweep SPEC.toml``.

::

    uno-env sweep                                   # the built-in default sweep
    uno-env sweep my_sweep.toml --out runs/my_sweep --workers 2
    uno-env sweep --resume runs/my_sweep            # after a kill: finished runs are kept
    uno-env sweep --status runs/my_sweep            # where every run stands
    uno-env sweep my_sweep.toml --executor ray --ray-address auto

A *sweep* trains one MaskablePPO policy (:mod:`training.train`) for every rule variant and
player count of a study-style spec (bases x single-switch variations, exactly as
:mod:`training.study` builds them), then plays every trained policy in every variant of the
sweep against the same reference field (the *transfer matrix*, trained-on x played-on), and
answers per variant how much skill pays (:mod:`training.transfer`).

**Spec** (TOML; unknown keys, switches, values, styles and impossible player counts are
refused with an error naming what is allowed)::

    name = "mini"             # names the output folder
    seed = 0                  # training seed of every run (the same in every variant)
    bases = ["uno"]           # presets (or rule TOML files) the variations start from
    players = [2]             # player counts: one run per variant and count
    steps = 500000            # learner decisions per run (the fixed budget of every variant)

    [train]                   # any other training option (TrainConfig field names), same for all runs
    eval_every = 125000
    opponents = ["random_playable", "greedy", "blocker@2", "aggressor"]

    mode = "ppo"              # or "expert": each player by expert iteration (training.expert)
    [expert]                  # with mode = "expert": options of uno-env expert (ExpertConfig fields)
    rounds = 3
    games = 800

    [transfer]                # the cross-evaluation
    deals = 1000              # deals per opponent; each deal is played once per seat
    seed = 2000000000         # deal d is dealt from seed + d in every variant
    field = ["greedy", "blocker", ...]   # the reference field (default: DEFAULT_FIELD, seven styles)
    baseline = "random_playable"         # the literature's random player
    allow_cheating = false    # true: the field may seat the oracle (it sees the other hands)
    compare = ["search"]      # players measured against the same field on the same deals
    objects = ["mine"]        # written by the sweep: field/compare entries given as Python objects

    [variations]              # label = { switch = value, ... } (RuleSet field names)
    seven_swap = { seven_swap = true }

Field and compare entries are any agent spec (``my_agent.py:Name`` and ``module:attr`` run
that code; user agents play at ``Game`` tables on the compiled field's deals), and from
Python also agent objects and factories (:func:`parse_sweep`), named by their ``name``
attribute (or the class's or function's name); ``spec.toml`` keeps only that name, so such a
sweep resumes from Python with the same objects.

**Runs.** Run ``<variant>__<n>p`` lives in ``OUT/runs/<variant>__<n>p/``, a normal run
directory of :mod:`training.train` (``config.json``, ``rules.txt``, ``checkpoints/``,
``eval.csv``, ``eval_curve.png``, ``progress.csv``, ``model.zip``; its own output goes to
``train.log`` there). With ``mode = "expert"`` it is a run directory of
:mod:`training.expert`, its player ``final.npz``, or ``finetuned.npz`` when ``[expert]`` sets
``finetune_steps`` (the fine-tuning stage's steps are counted apart from the labelled games).
Runs are tasks of :func:`training.runner.run_batches`: a local process pool by default
(``--workers``, default the cores, one torch thread each), or Ray tasks (``--executor ray``;
``--ray-address`` for a cluster, which needs no shared folder: a run's folder comes back to
``OUT`` when it finishes, docs/cluster.md). When a run
finishes its summary is written atomically to ``OUT/results/<run>.json`` with the digest of
its config and rules (:func:`run_key`).

**Resume.** ``--resume OUT`` reads ``OUT/spec.toml``. A run with a results file of the same
digest (or whose ``config.json`` and rules match the spec's, when a later version added
training options: :func:`config_changes`) is finished and never touched again; a run
directory with a checkpoint continues from its last checkpoint (:func:`training.train.resume`:
step counter, optimiser, snapshot pool; log rows after the checkpoint move to
``*.superseded.csv``); a run with no checkpoint starts over; the others start. A results
file of another digest (the spec was edited) is refused, never mixed. One sweep at a time
uses ``OUT`` (:func:`training.runner.lock_folder`); pool workers die with the driver.

**Progress.** A status line on stderr every ``--status-every`` seconds: runs finished, steps
trained over all runs (read from each run's ``progress.csv``), steps/s and the time left;
``--status OUT`` prints one line per run.

**Seeds.** Every run trains with the spec's seed (common random numbers across variants); a
run's parameters depend only on its config, rules and seed (one torch thread), so the process
pool and Ray produce the same run directories.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import hashlib
import json
import math
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

from agents.spec import AgentSpec, AgentSpecError, as_spec, parse_agent
from training.cluster import ship_folder, unpack_folder
from training.common import Subcommand, add_run_arguments, plural, run_options
from training.expert import (
    EXPERT_FORMAT,
    FINETUNE_DIR,
    FINETUNED,
    ExpertConfig,
    config_fields,
    finetune_summary,
    player_path,
)
from training.runner import (
    check_agent_files,
    claim_run_folder,
    default_run_folder,
    log_event,
    read_results,
    report_progress,
    results_folder,
    run_batches,
    workers_for,
    write_json_atomic,
    write_toml_atomic,
)
from training.study.spec import DEFAULT_FIELD, SpecError, Variant, is_checkpoint, parse_spec_fields
from training.train import TrainConfig
from uno_env import files
from uno_env.compiler.compiling import compile_all, is_warm
from uno_env.engine.rules import RuleSet
from uno_env.sim.learned import PolicyFileError, load_policy
from uno_env.spelling import each_with_suggestion
from uno_env.styles.registry import parse_policy

from . import transfer as transfer_matrix  # the module: transfer imports the study, which reads sweeps
from .expert import chunk_path, run_expert
from .extras import EXTRA_MODULES, REPORT, executor_needs, merge, require
from .train import last_checkpoint_summary, resume, train

SWEEP_FORMAT = "uno-env-sweep/1"
SPEC_KEYS = (
    "format", "name", "seed", "bases", "players", "steps", "mode", "train", "expert", "transfer", "variations"
)  # fmt: skip
TRANSFER_KEYS = ("deals", "seed", "field", "baseline", "allow_cheating", "compare", "objects")
MODES = ("ppo", "expert")
"""How a sweep trains its players: MaskablePPO (``steps`` per run) or expert iteration
(:mod:`training.expert`, the ``[expert]`` table)."""
EXPERT_MANAGED = ("rules", "overrides", "players", "seed", "name")
"""ExpertConfig fields the sweep sets itself (not allowed in ``[expert]``)."""
MANAGED = ("rules", "overrides", "players", "seed", "total_steps", "runs_dir", "exp", "progress_bar")
"""TrainConfig fields the sweep sets itself (not allowed in ``[train]``)."""
DEFAULT_SPEC = "default_sweep.toml"
DEFAULT_STEPS = 500_000
"""Learner steps per run when a spec gives no ``steps`` (the default sweep's budget)."""
DEFAULT_BASELINE = "random_playable"
DEFAULT_TRANSFER_SEED = 2_000_000_000
"""Transfer deals start far from the training evaluation's deals (``eval_seed`` 10**9)."""


# ================================================================ the spec
@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep spec (see the module docstring for the keys)."""

    name: str
    seed: int
    bases: tuple[str, ...]
    players: tuple[int, ...]
    steps: int
    train: tuple[tuple[str, Any], ...]
    variations: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    deals: int = 1000
    transfer_seed: int = DEFAULT_TRANSFER_SEED
    field: tuple[str, ...] = DEFAULT_FIELD
    baseline: str = DEFAULT_BASELINE
    allow_cheating: bool = False
    mode: str = "ppo"
    expert: tuple[tuple[str, Any], ...] = ()
    compare: tuple[str, ...] = ()
    agents: tuple[AgentSpec, ...] = ()
    """The field's and compare's agents handed over as Python objects (an :class:`agents.Agent`
    or a factory), by name; ``field`` and ``compare`` name them. Read from ``spec.toml`` (its
    ``[transfer] objects``) they are names only until the same objects are given again."""

    @property
    def model_file(self) -> str:
        """The file a finished run's player is in (inside its run directory)."""
        if self.mode != "expert":
            return "model.zip"
        # with a fine-tuning stage the player is the fine-tuned network (final.npz stays the
        # expert-iteration network with its critic)
        return FINETUNED if ExpertConfig(**self.expert_options()).finetune_steps else "final.npz"

    def to_dict(self) -> dict[str, Any]:
        """The spec as TOML-ready data (what ``spec.toml`` holds)."""
        data = self._data()
        if self.mode != "ppo":  # a PPO sweep's spec (and its runs' digests) stays as it was
            data["mode"] = self.mode
            data["expert"] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.expert}
        if self.compare:
            data["transfer"]["compare"] = list(self.compare)
        if self.agents:
            data["transfer"]["objects"] = [a.text for a in self.agents]
        return data

    def agent(self, name: str) -> AgentSpec:
        """The agent a field or compare entry names: an object's spec, or the parsed spec text."""
        for agent in self.agents:
            if agent.text == name:
                return agent
        return parse_agent(name)

    def read_files(self) -> list[str]:
        """The files the sweep's agents and starting networks read (:meth:`agents.spec.AgentSpec.files`):
        the field's, compare's and baseline's, the training opponents' and evaluation opponents',
        a best response's target, ``init_policy`` and the expert search's guide. A resume refuses
        any of them changed since the sweep started (:func:`training.runner.check_agent_files`)."""
        train, expert = dict(self.train), self.expert_options()
        names: list[str] = [*self.field, *self.compare, self.baseline]
        for options, keys in ((train, ("opponents", "eval_opponents", "best_response", "init_policy")),
                              (expert, ("search", "eval_opponent", "init_policy"))):  # fmt: skip
            for key in keys:
                value = options.get(key)
                names += [value] if isinstance(value, str) else list(value or ())
        return sorted({path for name in names if name for path in self.agent(name).files()})

    def missing_objects(self) -> tuple[str, ...]:
        """The object agents named by the spec (read from a file) without their object."""
        return tuple(a.text for a in self.agents if a.obj is None)

    def _data(self) -> dict[str, Any]:
        return {
            "format": SWEEP_FORMAT,
            "name": self.name,
            "seed": self.seed,
            "bases": list(self.bases),
            "players": list(self.players),
            "steps": self.steps,
            "train": {k: list(v) if isinstance(v, tuple) else v for k, v in self.train},
            "transfer": {
                "deals": self.deals,
                "seed": self.transfer_seed,
                "field": list(self.field),
                "baseline": self.baseline,
                "allow_cheating": self.allow_cheating,
            },
            "variations": {label: dict(switches) for label, switches in self.variations},
        }

    def variants(self) -> list[Variant]:
        """Every variant, as the study builds them (each base, then each variation that changes it)."""
        return list(self._variants)

    @functools.cached_property
    def _variants(self) -> tuple[Variant, ...]:
        return tuple(_study_part(self.to_dict(), "sweep spec").variants())

    def runs(self) -> list[SweepRun]:
        """One training run per variant and player count, in spec order."""
        out = []
        for variant in self.variants():
            for n in self.players:
                cfg = self.expert_config(variant, n) if self.mode == "expert" else self.config(variant, n)
                out.append(SweepRun(f"{variant.id}__{n}p", variant, n, cfg))
        return out

    def expert_options(self) -> dict[str, Any]:
        """The ``[expert]`` table as :class:`training.expert.ExpertConfig` keyword arguments."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.expert}

    def expert_config(self, variant: Variant, players: int) -> ExpertConfig:
        """The expert-iteration config of ``variant`` at ``players`` (the ``[expert]`` table on
        the defaults of :class:`training.expert.ExpertConfig`)."""
        base = next(b for b in self.bases if (Path(b).stem if b.endswith(".toml") else b) == variant.base)
        return ExpertConfig(
            **self.expert_options(),
            rules=base,
            overrides=variant.switches.split(),
            players=players,
            seed=self.seed,
            name=f"expert_{variant.id}_{players}p",
        )

    @property
    def unit(self) -> str:
        """What :meth:`budget` counts."""
        return "labelled games" if self.mode == "expert" else "steps"

    def budget(self) -> int:
        """What every run trains for: learner steps (PPO) or labelled games over all rounds (expert)."""
        if self.mode == "expert":
            cfg = ExpertConfig(**self.expert_options())
            return cfg.rounds * cfg.games
        return self.steps

    def finetune_budget(self) -> int:
        """Learner steps of every run's fine-tuning stage (expert mode; 0: none). Counted apart
        from :meth:`budget`: labelled games and PPO steps do not add up."""
        if self.mode == "expert":
            return ExpertConfig(**self.expert_options()).finetune_steps
        return 0

    def config(self, variant: Variant, players: int) -> TrainConfig:
        """The training config of ``variant`` at ``players`` (the ``[train]`` table on the defaults)."""
        base = next(b for b in self.bases if (Path(b).stem if b.endswith(".toml") else b) == variant.base)
        values: dict[str, Any] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.train}
        return TrainConfig(
            **values,
            rules=base,
            overrides=variant.switches.split(),
            players=players,
            seed=self.seed,
            total_steps=self.steps,
            exp=f"sweep-{self.name}",
            runs_dir="runs",
            progress_bar=False,
        )


@dataclass(frozen=True)
class SweepRun:
    """One training run of a sweep: a variant at a player count."""

    id: str
    variant: Variant
    players: int
    cfg: TrainConfig | ExpertConfig


def _study_part(data: Mapping[str, Any], source: str) -> Any:
    """The study spec of the keys a sweep shares with a study (bases, players, variations; the
    field as its styles): the study's own checks of rules, switches, styles and player counts.
    The field may hold the search agent, the oracle (with ``allow_cheating``) and exported
    learned policies; those play every variant of the sweep (a transfer, allowed)."""
    shared = {k: data[k] for k in ("name", "seed", "bases", "players", "variations") if k in data}
    transfer = data.get("transfer", {})
    styles = transfer.get("field", list(DEFAULT_FIELD)) if isinstance(transfer, dict) else None
    cheating = transfer.get("allow_cheating", False) if isinstance(transfer, dict) else False
    named = transfer.get("objects", []) if isinstance(transfer, dict) else []
    if not isinstance(named, list) or not all(isinstance(n, str) for n in named):
        raise SpecError(
            f"{source}: [transfer] objects must be a list of the names of agents given as Python objects"
        )
    field_names = {s.strip() for s in styles if isinstance(s, str)} if isinstance(styles, list) else set()
    objects = [n for n in named if n.strip() in field_names]  # the field's; the compared ones are the sweep's
    if isinstance(styles, list) and any(isinstance(s, str) and is_checkpoint(s) for s in styles):
        raise SpecError(
            f"{source}: [transfer] field must name compiled styles or exported policies (.npz, shipped "
            "names), not SB3 checkpoints: "
            + ", ".join(s for s in styles if isinstance(s, str) and is_checkpoint(s))
            + " (`uno-env export` makes one)"
        )
    study = {"styles": styles, "games": 1, "allow_cheating": cheating, "allow_rules_mismatch": True}
    if objects:
        study["objects"] = objects
    try:
        return parse_spec_fields({**shared, **study}, source=source)
    except SpecError as exc:
        raise SpecError(str(exc).replace("set allow_cheating", "set [transfer] allow_cheating")) from None


def _train_values(table: Any, source: str) -> tuple[tuple[str, Any], ...]:
    """The ``[train]`` table checked against :class:`TrainConfig` (names, types, values)."""
    if not isinstance(table, dict):
        raise SpecError(f"{source}: [train] must be a table of training options (TrainConfig fields)")
    defaults = TrainConfig()
    fields = {f.name for f in dataclasses.fields(TrainConfig)} - set(MANAGED)
    unknown = sorted(set(table) - fields)
    if unknown:
        managed = sorted(set(unknown) & set(MANAGED))
        hint = f" ({', '.join(managed)} are set by the sweep: use the top-level keys)" if managed else ""
        raise SpecError(
            f"{source}: [train] has unknown option(s) {', '.join(unknown)}{hint}; allowed: "
            f"{', '.join(sorted(fields))}"
        )
    for key, value in table.items():
        default = getattr(defaults, key)
        kind = type(default)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            continue
        if isinstance(default, list):
            item = type(default[0]) if default else str
            if not isinstance(value, list) or not all(isinstance(v, item) for v in value):
                raise SpecError(f"{source}: [train] {key} must be a list of {item.__name__}, got {value!r}")
        elif isinstance(value, bool) != isinstance(default, bool) or not isinstance(value, kind):
            raise SpecError(f"{source}: [train] {key} must be a {kind.__name__}, got {value!r}")
    try:
        TrainConfig(**table).check()
    except ValueError as exc:
        raise SpecError(f"{source}: [train]: {exc}") from None
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in table.items()))


def _expert_values(table: Any, source: str) -> tuple[tuple[str, Any], ...]:
    """The ``[expert]`` table checked against :class:`training.expert.ExpertConfig`."""
    if not isinstance(table, dict):
        raise SpecError(
            f"{source}: [expert] must be a table of expert-iteration options (ExpertConfig fields)"
        )
    defaults = ExpertConfig()
    fields = {f.name for f in dataclasses.fields(ExpertConfig)} - set(EXPERT_MANAGED)
    unknown = sorted(set(table) - fields)
    if unknown:
        managed = sorted(set(unknown) & set(EXPERT_MANAGED))
        hint = f" ({', '.join(managed)} are set by the sweep)" if managed else ""
        raise SpecError(
            f"{source}: [expert] has unknown option(s) {', '.join(unknown)}{hint}; allowed: "
            f"{', '.join(sorted(fields))}"
        )
    for key, value in table.items():
        default = getattr(defaults, key)
        kind = type(default)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            continue
        if isinstance(default, list):
            item = type(default[0]) if default else str
            if not isinstance(value, list) or not all(isinstance(v, item) for v in value):
                raise SpecError(f"{source}: [expert] {key} must be a list of {item.__name__}, got {value!r}")
        elif isinstance(value, bool) != isinstance(default, bool) or not isinstance(value, kind):
            raise SpecError(f"{source}: [expert] {key} must be a {kind.__name__}, got {value!r}")
    try:
        ExpertConfig(**table).check()
    except ValueError as exc:
        raise SpecError(f"{source}: [expert]: {exc}") from None
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in table.items()))


def _compare_players(
    value: Any, cheating: bool, named: Sequence[str], source: str
) -> tuple[tuple[str, ...], list[AgentSpec]]:
    """``[transfer] compare``: players measured against the field in every variant beside the
    adapted policies (compiled styles, guided searches, exported policies, a user's agents of
    the agent-spec grammar; from Python, agent objects and factories). ``named``: the names of
    agents given as objects (``[transfer] objects``). Returns the names and the object agents."""

    if not isinstance(value, list):
        raise SpecError(f"{source}: [transfer] compare must be a list of player names, got {value!r}")
    names: list[str] = []
    objects: list[AgentSpec] = []
    for entry in value:
        if not isinstance(entry, str):
            try:
                agent = as_spec(entry, where=f"{source}: [transfer] compare entry {entry!r}")
            except AgentSpecError:
                raise SpecError(
                    f"{source}: [transfer] compare must list player names (or, from Python, agents or "
                    f"factories); {entry!r} is not an agent"
                ) from None
            names.append(agent.text)
            if agent.kind == "object":
                objects.append(agent)
            continue
        name = entry.strip()
        names.append(name)
        if name in named:
            objects.append(AgentSpec("object", name))  # a name until the object is given again
            continue
        try:
            agent = parse_agent(name, where=f"{source}: [transfer] compare")
            if agent.kind == "checkpoint":
                raise SpecError(
                    f"{source}: [transfer] compare names the SB3 checkpoint {name!r}; `uno-env export` "
                    "makes a policy file of it"
                )
            for network in agent.networks:  # an exported policy or a search's guide: readable
                load_policy(network)
            if agent.cheats and not cheating:
                raise SpecError(
                    f"{source}: [transfer] compare names {name!r}, which cheats; set allow_cheating"
                )
        except ValueError as exc:
            raise SpecError(f"{source}: [transfer] compare {name!r}: {exc}") from None
    if len(set(names)) != len(names):
        raise SpecError(f"{source}: [transfer] compare lists a player twice: {names}")
    return tuple(names), objects


def parse_sweep(data: Mapping[str, Any], source: str = "sweep spec") -> SweepSpec:
    """Validate sweep spec data (a parsed TOML table) and return the spec.

    Raises:
        SpecError: naming the offending key, option, switch, value, style or player count.
    """
    data = dict(data)
    fmt = data.get("format", SWEEP_FORMAT)
    if fmt != SWEEP_FORMAT:
        raise SpecError(f"{source}: format={fmt!r} is not supported; expected {SWEEP_FORMAT!r}")
    unknown = sorted(set(data) - set(SPEC_KEYS))
    if unknown:
        raise SpecError(
            f"{source}: unknown key(s) {each_with_suggestion(unknown, SPEC_KEYS)}; allowed: "
            f"{', '.join(SPEC_KEYS)}"
        )
    steps = data.get("steps", DEFAULT_STEPS)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise SpecError(f"{source}: steps must be an integer >= 1 (learner decisions per run), got {steps!r}")
    transfer = data.get("transfer", {})
    if not isinstance(transfer, dict):
        raise SpecError(f"{source}: [transfer] must be a table of {', '.join(TRANSFER_KEYS)}")
    bad = sorted(set(transfer) - set(TRANSFER_KEYS))
    if bad:
        raise SpecError(
            f"{source}: [transfer] has unknown key(s) {each_with_suggestion(bad, TRANSFER_KEYS)}; allowed: "
            f"{', '.join(TRANSFER_KEYS)}"
        )
    deals = transfer.get("deals", 1000)
    if isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= 1_000_000:
        raise SpecError(f"{source}: [transfer] deals must be an integer in 1..1000000, got {deals!r}")
    transfer_seed = transfer.get("seed", DEFAULT_TRANSFER_SEED)
    if (
        isinstance(transfer_seed, bool)
        or not isinstance(transfer_seed, int)
        or not 0 <= transfer_seed <= 2**62
    ):
        raise SpecError(f"{source}: [transfer] seed must be an integer in 0..2**62, got {transfer_seed!r}")
    baseline = transfer.get("baseline", DEFAULT_BASELINE)
    if not isinstance(baseline, str):
        raise SpecError(f"{source}: [transfer] baseline must be a style name, got {baseline!r}")
    mode = data.get("mode", "ppo")
    if mode not in MODES:
        raise SpecError(f"{source}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    if "expert" in data and mode != "expert":
        raise SpecError(f'{source}: an [expert] table needs mode = "expert"')
    study = _study_part(data, source)  # bases, players, variations, field styles (objects too)
    named = [n.strip() for n in transfer.get("objects", [])]
    compare, compared = _compare_players(transfer.get("compare", []), study.allow_cheating, named, source)
    agents = {a.text: a for a in study.agents}
    for agent in compared:
        if agent.text not in agents or agents[agent.text].obj is None:
            agents[agent.text] = agent
    unused = sorted(set(named) - set(agents))
    if unused:
        raise SpecError(
            f"{source}: [transfer] objects names {', '.join(unused)}, which no field or compare entry uses"
        )

    try:
        parse_policy(baseline)
    except ValueError as exc:
        raise SpecError(f"{source}: [transfer] baseline {baseline!r}: {exc}") from None
    spec = SweepSpec(
        name=study.name,
        seed=study.seed,
        bases=study.bases,
        players=study.players,
        steps=steps,
        train=_train_values(data.get("train", {}), source),
        variations=study.variations,
        deals=deals,
        transfer_seed=transfer_seed,
        field=study.styles,
        baseline=baseline.strip(),
        allow_cheating=study.allow_cheating,
        mode=mode,
        expert=_expert_values(data.get("expert", {}), source) if mode == "expert" else (),
        compare=compare,
        agents=tuple(agents.values()),
    )
    for run in spec.runs():
        try:
            run.cfg.check()
        except ValueError as exc:
            raise SpecError(f"{source}: run {run.id}: {exc}") from None
    for name in spec.compare:  # a compared player plays every variant: its networks must fit each
        agent = spec.agent(name)
        for variant in spec.variants() if agent.networks else []:
            try:
                agent.check_networks(variant.rules, None, allow_rules_mismatch=True)
            except PolicyFileError as exc:
                raise SpecError(
                    f"{source}: [transfer] compare {name!r} cannot play {variant.id}: {exc}"
                ) from None
    return spec


def default_spec_path() -> Path:
    """Where the built-in default sweep spec lives."""
    return Path(str(resources.files("training") / "specs" / DEFAULT_SPEC))


def load_sweep(path: str | Path | None = None) -> SweepSpec:
    """Read and validate a sweep spec file (``None``: the built-in default sweep)."""
    path = default_spec_path() if path is None else Path(path)
    data = files.read_toml(path, "sweep spec", error=SpecError)  # bounded, regular files only
    return parse_sweep(data, source=str(path))


def write_spec(spec: SweepSpec, out: Path) -> None:
    """Write the normalised spec to ``out/spec.toml`` (what ``--resume`` reads)."""
    write_toml_atomic(out / "spec.toml", spec.to_dict())


# ================================================================ one run
def run_key(run: SweepRun) -> str:
    """SHA-256 of everything that decides a run's training: its config and its rules."""
    # an expert config leaves out the fine-tuning options at their defaults, so the digests of
    # the runs from before those options existed stay what they were
    cfg = config_fields(run.cfg) if isinstance(run.cfg, ExpertConfig) else dataclasses.asdict(run.cfg)
    fields = [SWEEP_FORMAT, run.id, cfg, str(run.variant.rules)]
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()


def config_changes(recorded: Mapping[str, Any], cfg: Mapping[str, Any]) -> list[str]:
    """The training options in which a run's recorded ``config.json`` differs from ``cfg``.

    An option the recorded config lacks was added to :class:`TrainConfig` after the run
    started: the run trained as its default, so it differs only if ``cfg`` sets another value.
    """
    defaults = dataclasses.asdict(TrainConfig())
    return sorted(k for k in cfg if recorded.get(k, defaults.get(k)) != cfg[k])


def trained_as(run: SweepRun, run_dir: Path) -> bool:
    """Whether the run directory was trained with ``run``'s config and rules (read from its
    ``config.json``; options added to TrainConfig since count as their defaults)."""

    try:
        recorded = files.read_json_object(run_dir / "config.json", "run config")
        if isinstance(run.cfg, ExpertConfig):
            # runs record the observation spec they were labelled with (older ones did not)
            recorded = {k: v for k, v in recorded.items() if k != "observation_spec"}
            return bool(recorded == {"format": EXPERT_FORMAT, **config_fields(run.cfg)})
        rules = RuleSet.parse(recorded["rules_string"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return False
    return rules == run.variant.rules and not config_changes(recorded, dataclasses.asdict(run.cfg))


@dataclass(frozen=True)
class RunTask:
    """What a worker needs to train (or continue) one run: picklable, paths absolute."""

    id: str
    key: str
    run_dir: str
    cfg: dict[str, Any]
    rules: str
    mode: str = "ppo"


def train_run(task: RunTask) -> dict[str, Any]:
    """Train the run of ``task`` to its budget, continuing from its last checkpoint if it has one.

    The run's own output goes to ``train.log`` in its directory. Returns the run's summary
    (JSON-ready): final step, wall time and the last evaluation rows.
    """

    if task.mode == "expert":
        return expert_run(task)
    run_dir = Path(task.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    config = run_dir / "config.json"
    if config.is_file():
        changed = config_changes(files.read_json_object(config, "run config"), task.cfg)
        if changed:
            raise SpecError(
                f"{config} was written for another config (differs in {', '.join(changed) or 'its keys'}); "
                "the sweep's spec.toml was changed since the run started: restore it, or start a new sweep"
            )
    with (run_dir / "train.log").open("a", encoding="utf-8") as log, contextlib.redirect_stdout(log):
        if (run_dir / "config.json").is_file():
            resumed = True
            resume(run_dir)
        else:
            resumed = False
            train(TrainConfig(**task.cfg), run_dir=run_dir, rules=RuleSet.parse(task.rules))
    last = last_checkpoint_summary(run_dir)
    return {
        "format": SWEEP_FORMAT,
        "id": task.id,
        "key": task.key,
        "step": last["step"],
        "seconds": last["seconds"],
        "resumed": resumed,
        "final_eval": last["evaluation"],
    }


def expert_run(task: RunTask) -> dict[str, Any]:
    """Run (or continue) the expert iteration of ``task`` in its directory, its chunks in this
    process (the run is one task of the sweep); return its summary: the rounds, the wall and
    CPU time of the labelling and training, and the last round's evaluation."""

    run_dir = Path(task.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    cfg = ExpertConfig(**task.cfg)
    start = time.perf_counter()
    resumed = (run_dir / "config.json").is_file()
    with (
        (run_dir / "train.log").open("a", encoding="utf-8") as log,
        contextlib.redirect_stdout(log),
        contextlib.redirect_stderr(log),
    ):
        command = f"uno-env sweep (run {task.id})"
        run_expert(cfg, run_dir, command, executor="serial", resume=resumed, progress=True)
    rounds = [
        files.read_json_object(run_dir / "rounds" / f"{r:02d}" / "record.json", "round record")
        for r in range(cfg.rounds)
    ]
    evaluation = rounds[-1].get("evaluation") or {}
    final_eval = []
    if evaluation:
        final_eval.append(
            {
                "opponents": evaluation["opponent"],
                "games": evaluation["games"],
                "win_rate": evaluation["win_rate"],
                "win_low": evaluation["win_lo"],
                "win_high": evaluation["win_hi"],
            }
        )
    summary = {
        "format": SWEEP_FORMAT,
        "id": task.id,
        "key": task.key,
        "step": sum(r["labelling"]["games"] for r in rounds),
        "seconds": round(time.perf_counter() - start, 1),
        "cpu": round(sum(r["labelling"]["cpu"] + r["train_seconds"] for r in rounds), 1),
        "resumed": resumed,
        "final_eval": final_eval,
    }
    if cfg.finetune_steps:  # the stage's steps, wall seconds (all sessions) and last evaluation
        summary["finetune"] = {**finetune_summary(run_dir), "player": player_path(cfg, run_dir).name}
    return summary


@dataclass(frozen=True)
class ShippedRun:
    """A run sent to a Ray node with its folder so far (:func:`train_shipped`)."""

    task: RunTask
    folder: bytes  # the driver's run folder (a tar archive; empty for a new run)


def train_shipped(shipped: ShippedRun) -> dict[str, Any]:
    """:func:`train_run` in a folder of the node's own, the folder sent from and back to the driver.

    Under Ray the driver's run folder is not the node's: the task carries the run's folder so
    far (its checkpoints, for a run that continues), trains in a temporary folder of the
    node, and returns the whole folder with the summary (``"folder"``, an archive the driver
    unpacks into ``OUT/runs/<run>``). No shared folder is needed.
    """

    with tempfile.TemporaryDirectory(prefix="uno_env-run-") as tmp:
        run_dir = Path(tmp) / shipped.task.id
        if shipped.folder:
            unpack_folder(shipped.folder, run_dir)
        stop = threading.Event()

        def so_far() -> int | tuple[int, int]:
            if shipped.task.mode == "expert":  # labelled games and fine-tuning steps
                return expert_games(run_dir, ExpertConfig(**shipped.task.cfg)), run_steps(
                    run_dir / FINETUNE_DIR
                )
            return run_steps(run_dir)

        def watch() -> None:  # the driver's status line: this run's steps (or games) so far
            while not stop.wait(2.0):
                report_progress(shipped.task.id, so_far())

        watcher = threading.Thread(target=watch, daemon=True, name="run-progress")
        watcher.start()
        try:
            result = train_run(dataclasses.replace(shipped.task, run_dir=str(run_dir)))
        finally:
            stop.set()
            watcher.join()
        return {**result, "folder": ship_folder(run_dir)}


# ================================================================ progress
def run_steps(run_dir: Path) -> int:
    """Learner steps a run has trained so far (its ``progress.csv``, else its last checkpoint)."""
    progress = run_dir / "progress.csv"
    with contextlib.suppress(OSError, ValueError, IndexError, StopIteration):
        rows = files.read_csv(progress, "progress log")
        column = rows[0].index("charts/total_timesteps")
        return int(float(next(r[column] for r in reversed(rows[1:]) if len(r) > column and r[column])))
    with contextlib.suppress(OSError, ValueError, KeyError):
        return int(
            files.read_json_object(run_dir / "checkpoints" / "latest.json", "checkpoint record")["step"]
        )
    return 0


def status_rows(
    spec: SweepSpec, out: Path, remote: Mapping[str, int | tuple[int, int]] | None = None
) -> list[dict[str, Any]]:
    """Where every run stands: ``done``, ``training`` (steps so far) or ``waiting``.

    ``steps`` / ``budget`` count the spec's :attr:`SweepSpec.unit`; ``finetune`` /
    ``finetune_budget`` the learner steps of an expert run's fine-tuning stage (0 / 0 without one).
    ``remote``: steps of runs training on Ray nodes, as they reported them (an expert run: its
    labelled games and fine-tuning steps; their folders come back to ``out`` when they finish).
    """
    rows: list[dict[str, Any]] = []
    budget, ft_budget = spec.budget(), spec.finetune_budget()
    remote = remote or {}
    for run in spec.runs():
        run_dir = out / "runs" / run.id
        result = out / "results" / f"{run.id}.json"
        finetune = 0
        if result.is_file():
            state, steps, finetune = "done", budget, ft_budget
        elif run.id in remote:
            reported = remote[run.id]
            state = "training"
            steps, finetune = (
                (reported[0], reported[1]) if isinstance(reported, tuple | list) else (reported, 0)
            )
        elif run_dir.exists():
            state = "training"
            if isinstance(run.cfg, ExpertConfig):
                steps, finetune = expert_games(run_dir, run.cfg), run_steps(run_dir / FINETUNE_DIR)
            else:
                steps = run_steps(run_dir)
        else:
            state, steps = "waiting", 0
        rows.append(
            {
                "run": run.id,
                "state": state,
                "steps": min(steps, budget),
                "budget": budget,
                "finetune": min(finetune, ft_budget),
                "finetune_budget": ft_budget,
            }
        )
    return rows


def expert_games(run_dir: Path, cfg: ExpertConfig) -> int:
    """Labelled games an expert-iteration run has played so far (its finished chunks)."""

    chunks = -(-cfg.games // cfg.chunk_games)
    done = sum(chunk_path(run_dir, r, k).exists() for r in range(cfg.rounds) for k in range(chunks))
    return min(done * cfg.chunk_games, cfg.rounds * cfg.games)


class StatusLine:
    """A status line on stderr every ``every`` seconds while the runs train (a daemon thread).

    Rates are measured over the last :attr:`WINDOW` seconds, each count on its own: an expert
    sweep's labelled games and fine-tuning steps advance in turns (a run labels, then
    fine-tunes), so a rate averaged since the start would understate the stage now running
    and put its time left hours off. A stage that did not advance in the window gets no
    estimate.
    """

    WINDOW = 600.0

    def __init__(self, spec: SweepSpec, out: Path, every: float, enabled: bool) -> None:
        self.spec, self.out, self.every, self.enabled = spec, out, every, enabled
        self.remote: dict[str, int | tuple[int, int]] = {}  # steps of runs on Ray nodes (report_progress)
        self.stop = threading.Event()
        rows = status_rows(spec, out)
        self.samples: list[tuple[float, int, int]] = [  # (time, steps, fine-tuning steps)
            (time.perf_counter(), sum(r["steps"] for r in rows), sum(r["finetune"] for r in rows))
        ]
        self.thread = threading.Thread(target=self._loop, daemon=True, name="sweep-status")

    def _rates(self, now: float, steps: int, finetune: int) -> tuple[float, float]:
        """Steps and fine-tuning steps per second over the window (this sample kept)."""
        self.samples.append((now, steps, finetune))
        while len(self.samples) > 2 and now - self.samples[1][0] >= self.WINDOW:
            self.samples.pop(0)  # the oldest kept sample is the window's start
        then, steps0, finetune0 = self.samples[0]
        span = now - then
        if span <= 0:
            return 0.0, 0.0
        return (steps - steps0) / span, (finetune - finetune0) / span

    def line(self) -> str:
        """The current status: runs done, steps over all runs, recent rates and time left."""
        rows = status_rows(self.spec, self.out, self.remote)
        done = sum(r["state"] == "done" for r in rows)
        steps = sum(r["steps"] for r in rows)
        total = sum(r["budget"] for r in rows)
        ft_done = sum(r["finetune"] for r in rows)
        ft_total = sum(r["finetune_budget"] for r in rows)
        rate, ft_rate = self._rates(time.perf_counter(), steps, ft_done)
        unit = self.spec.unit
        what = "labelling" if self.spec.mode == "expert" else "training"
        left = (
            f", ~{(total - steps) / rate / 60:.0f} min of {what} left at this rate"
            if rate > 0 and steps < total
            else ""
        )
        finetune = ""
        if ft_total:
            finetune = f", fine-tuning {ft_done:,}/{ft_total:,} steps"
            if ft_rate > 0 and ft_done < ft_total:
                finetune += (
                    f" ({ft_rate:,.0f}/s, ~{(ft_total - ft_done) / ft_rate / 60:.0f} min left at this rate)"
                )
        active = ", ".join(
            f"{r['run']} {r['steps'] / r['budget']:.0%}"
            + (f" (fine-tuning {r['finetune'] / r['finetune_budget']:.0%})" if r["finetune_budget"] else "")
            for r in rows
            if r["state"] == "training"
        )
        return (
            f"sweep {self.spec.name!r}: {done}/{len(rows)} runs done, {steps:,}/{total:,} {unit} "
            f"({steps / total:.0%}), {rate:,.1f} {unit}/s{left}{finetune}"
            + (f" | {active}" if active else "")
        )

    def _loop(self) -> None:
        while not self.stop.wait(self.every):
            print(self.line(), file=sys.stderr, flush=True)

    def __enter__(self) -> StatusLine:
        if self.enabled:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()


# ================================================================ running
def scan_results(spec: SweepSpec, out: Path) -> tuple[dict[str, dict[str, Any]], list[SweepRun]]:
    """The finished runs' summaries by run id, and the runs still to train.

    An unreadable summary is trained on (its run resumes from its last checkpoint); one of
    another digest was written for another spec: :class:`SpecError`, nothing is mixed.
    """
    found, todo = read_results(
        spec.runs(), lambda run: out / "results" / f"{run.id}.json", "run summary", "the run continues"
    )
    done: dict[str, dict[str, Any]] = {}
    for run, path, result in found:
        if result["key"] != run_key(run) and not trained_as(run, out / "runs" / run.id):
            raise SpecError(
                f"{path} was written for another config of run {run.id}: {out / 'spec.toml'} was changed "
                "since the sweep started, or the folder mixes two sweeps; restore the spec or start a new "
                "sweep in a new folder"
            )
        done[run.id] = result
    return done, todo


def sweep_models(
    folder: Path, variants: Sequence[Variant], players: Sequence[int], source: str = "spec"
) -> dict[tuple[str, int], str]:
    """The trained policy of a finished sweep for every cell (variant id, players) of a study.

    A cell takes the sweep's run trained on exactly its rules (``rules.txt``) at its player
    count; a cell with no such finished run raises :class:`SpecError` naming the cell and the
    runs the sweep has.
    """

    where = f"{source}: sweep {str(folder)!r}"
    if not (folder / "spec.toml").is_file():
        raise SpecError(f"{where} is not a sweep folder (no spec.toml); run `uno-env sweep` first")
    try:
        spec = load_sweep(folder / "spec.toml")
        done, _ = scan_results(spec, folder)
    except SpecError as exc:
        raise SpecError(f"{where}: {exc}") from None
    trained: dict[tuple[RuleSet, int], str] = {}
    for run in spec.runs():
        if run.id in done:
            trained[(run.variant.rules, run.players)] = str(folder / "runs" / run.id / spec.model_file)
    out = {}
    for variant in variants:
        for n in players:
            path = trained.get((variant.rules, n))
            if path is None:
                have = ", ".join(sorted(done)) or "none finished"
                raise SpecError(
                    f"{where} has no finished run for cell {variant.id} at {n} players (the same rules "
                    f"and player count); its finished runs: {have}"
                )
            out[(variant.id, n)] = path
    return out


def default_out_dir(spec: SweepSpec, root: Path = Path("runs")) -> Path:
    """``runs/sweep__<name>__<seed>__<UTC time>``."""
    return default_run_folder("sweep", spec.name, spec.seed, root=root)


def _folder_so_far(run_dir: Path) -> bytes:
    """The archive of a run's folder for a Ray node (empty: the run starts afresh)."""

    return ship_folder(run_dir) if run_dir.is_dir() else b""


def _warm_up_training() -> None:
    """Compile (or load) what a training run uses in the driver, which ships it to Ray nodes."""

    parts = [part for part in ("batch", "vector") if not is_warm(part)]
    if parts:
        compile_all(parts)


def run_sweep(
    spec: SweepSpec,
    out: str | PathLike[str],
    *,
    executor: str = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    resume: bool = False,
    progress: bool = True,
    status_every: float = 30.0,
    transfer: bool = True,
) -> Path:
    """Train (or continue) every run of ``spec`` in ``out``, then cross-evaluate; return ``out``.

    Args:
        spec: The validated spec.
        out: Output folder; must not hold another sweep unless ``resume``.
        executor: ``"process"`` (default), ``"ray"`` or ``"serial"``.
        workers: Pool processes or local Ray CPUs (default: the cores, at most one per run).
        ray_address: An existing Ray cluster's address for ``executor="ray"``.
        resume: Continue the sweep in ``out`` (its ``spec.toml`` must equal ``spec``).
        progress: Show the status line and per-run messages on stderr.
        status_every: Seconds between status lines.
        transfer: Run the cross-evaluation and write the tables (:mod:`training.transfer`).
    """
    out = Path(out)
    workers = workers_for(executor, workers, ray_address)
    with claim_run_folder(out, "sweep", "spec.toml", spec, load_sweep, resume=resume, error=SpecError):
        write_spec(spec, out)
        check_agent_files(out, spec.read_files(), "sweep", error=SpecError)  # a file replaced since: refused
        runs = {run.id: run for run in spec.runs()}
        done, todo = scan_results(spec, out)
        log = out / "log.jsonl"
        log_event(
            log,
            "start",
            time=time.time(),
            runs=len(runs),
            todo=[r.id for r in todo],
            executor=executor,
            workers=workers,
        )
        if progress:
            print(
                f"sweep {spec.name!r}: {len(runs)} runs ({plural(len(spec.variants()), 'variant')} x "
                f"{plural(len(spec.players), 'player count')}), {spec.budget():,} {spec.unit} each; "
                f"{len(done)} finished, {len(todo)} to train -> {out}",
                file=sys.stderr,
            )
        tasks = [
            RunTask(run.id, run_key(run), str((out / "runs" / run.id).resolve()), dataclasses.asdict(run.cfg),
                    str(run.variant.rules), spec.mode)
            for run in todo
        ]  # fmt: skip

        def store(result: dict[str, Any]) -> None:
            folder = result.pop("folder", None)
            if folder is not None:  # a run trained on a Ray node: its folder comes back whole
                unpack_folder(folder, out / "runs" / result["id"])
            write_json_atomic(out / "results" / f"{result['id']}.json", result)
            log_event(log, "run", id=result["id"], seconds=result["seconds"])
            if progress:
                evals = _evaluation_text(result["final_eval"])
                tuned = result.get("finetune")
                if tuned:
                    tuned_text = _evaluation_text(tuned["evaluation"])
                    evals += f"; fine-tuned at step {tuned['step']:,}: {tuned_text}"
                print(f"run {result['id']} done at step {result['step']:,}: {evals}", file=sys.stderr)

        results_folder(out / "results")
        with StatusLine(spec, out, status_every, progress and bool(tasks)) as status:
            function: Any = train_run
            work: list[Any] = tasks
            if executor == "ray":  # the nodes need not see OUT: each run's folder travels with it
                function = train_shipped
                work = [ShippedRun(task, _folder_so_far(Path(task.run_dir))) for task in tasks]
            run_batches(
                function,
                work,
                store,
                executor=executor,
                workers=min(workers, max(1, len(tasks))),
                ray_address=ray_address,
                warm_up=_warm_up_training if executor == "ray" and tasks else None,
                progress=progress,
                on_progress=status.remote.__setitem__ if executor == "ray" else None,
            )
            if progress and tasks:
                print(status.line(), file=sys.stderr)
        log_event(log, "trained", time=time.time())
        if transfer:
            transfer_matrix.run_transfer(
                spec, out, executor=executor, workers=workers, ray_address=ray_address, progress=progress
            )
    return out


# ================================================================ command line
def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?", help="sweep spec TOML (default: the built-in default sweep)")
    add_run_arguments(parser, "sweep", "where runs train", "runs/sweep__<name>__<seed>__<time>")
    parser.add_argument("--status", type=Path, metavar="DIR", help="print where every run of DIR stands")
    parser.add_argument(
        "--report", type=Path, metavar="DIR", help="write DIR's tables and report from the results so far"
    )
    parser.add_argument("--steps", type=int, default=None, help="override the spec's steps per run")
    parser.add_argument("--deals", type=int, default=None, help="override the spec's transfer deals")
    parser.add_argument("--status-every", type=float, default=30.0, help="seconds between status lines")
    parser.add_argument("--no-transfer", action="store_true", help="train only; no cross-evaluation")


def _evaluation_text(rows: list[dict[str, Any]]) -> str:
    """A run's evaluation rows as ``vs OPPONENTS 61.2% (57.0%-65.3%), ...``."""
    return ", ".join(
        f"vs {r['opponents']} {r['win_rate']:.1%} ({r['win_low']:.1%}-{r['win_high']:.1%})" for r in rows
    )


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run ``uno-env sweep`` from parsed arguments."""
    if args.status is not None:
        spec = load_sweep(args.status / "spec.toml")
        for row in status_rows(spec, args.status):
            line = f"{row['run']:<40} {row['state']:<9} {row['steps']:>12,} / {row['budget']:,} {spec.unit}"
            if row["finetune_budget"]:
                line += f", {row['finetune']:,} / {row['finetune_budget']:,} fine-tuning steps"
            print(line)
        return 0
    if args.report is not None:
        require("sweep", {"study": REPORT})

        transfer_matrix.assemble(load_sweep(args.report / "spec.toml"), args.report)
        print(f"report: {args.report / 'report.md'}")
        return 0
    if not (math.isfinite(args.status_every) and args.status_every > 0):  # Event.wait takes no NaN
        raise ValueError(f"--status-every must be a finite number of seconds > 0, got {args.status_every}")

    require(
        "sweep",
        merge(
            {"train": EXTRA_MODULES["train"]},
            {} if args.no_transfer else {"study": REPORT},
            executor_needs(args.executor),
        ),
        resume_dir=args.resume,
        keeps="a sweep keeps every finished run and its checkpoints in its folder; "
        "uno-env sweep --resume DIR continues",
    )
    if args.resume is not None:
        if any(v is not None for v in (args.spec, args.steps, args.deals, args.out)):
            raise SpecError(
                "--resume DIR continues DIR/spec.toml; do not give a SPEC, --steps, --deals or --out"
            )
        out = args.resume
        spec = load_sweep(out / "spec.toml")
    else:
        spec = load_sweep(args.spec)
        data = spec.to_dict()
        if args.steps is not None:
            data["steps"] = args.steps
        if args.deals is not None:
            data["transfer"]["deals"] = args.deals
        if data != spec.to_dict():
            spec = parse_sweep(data, source="spec with command-line overrides")
        out = args.out if args.out is not None else default_out_dir(spec)
    run_sweep(spec, out, **run_options(args), status_every=args.status_every, transfer=not args.no_transfer)
    print(f"runs: {out / 'runs'}")
    if not args.no_transfer:
        print(f"transfer matrix: {out / 'transfer.csv'}\nreport: {out / 'report.md'}")
    return 0


COMMAND = Subcommand(
    "sweep",
    "train a policy per rule variant, then the transfer matrix",
    _add_arguments,
    cmd_sweep,
    description=__doc__,
)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

"""The transfer matrix and the skill premium of a sweep (:mod:`training.sweep`).

After a sweep has trained its runs, every trained policy plays in every variant of the sweep
(at its own player count) against the same reference field, and the field's styles play each
other in every variant:

- **Design.** Deal ``d`` of the cross-evaluation is dealt from ``[transfer] seed + d`` in
  every variant (common random numbers), and every deal is played once with the measured
  player in each seat (seat ``k`` of ``n``) against ``n - 1`` copies of one opponent style:
  each field style and the baseline (``random_playable``, the literature's random player:
  a random playable card, draws only with none). Policies play arg-max on the native vector
  env (:func:`training.evaluate.play_policy`); styles in the compiled batch simulator, on
  the same deals. A game cut at the decision limit (E-END-1) counts as not won. The field
  may also seat the search agent (``search``, with parameters), the oracle (``oracle``; it
  cheats, so the spec must say ``allow_cheating = true``) and exported learned policies
  (shipped names such as ``distilled_uno_2p`` or ``.npz`` paths: a batch policy in the
  vector env, compiled in the simulator).
- **Intervals.** The games of one deal share its cards, so the *deal* is the unit: rates are
  ratios of per-deal totals with cluster-robust errors (:func:`uno_env.stats.grouped_ratio`,
  Wilson at the effective sample size), and comparisons on the same deals are paired by deal
  (:func:`uno_env.stats.paired_difference`). 95% throughout.
- **Transfer matrix** (``transfer.csv``, ``transfer.parquet`` with pyarrow, ``transfer.png``):
  per trained-on x played-on pair, the win rate against the field (all field styles pooled)
  and against each opponent, with the change against the policy adapted to the played-on
  variant (the diagonal), paired by deal; the share of games truncated at the decision limit
  and the mean game length in decisions, each with its interval by deal (the last columns).
- **Skill premium** (``skill.csv``, ``report.md``), per variant and player count:
  ``premium``, the adapted policy's win rate against the field minus the fair share
  ``1/n``; its win rate against the baseline; ``spread``, the best minus the worst win rate
  against the field among the field's styles and the adapted policy (each style against the
  *other* field styles; paired by deal; the extremes are picked from the same data, so the
  interval is a little optimistic); at 2 players, ``stronger_share``, the share of the
  head-to-head games between two of those players won by the one with the higher win rate
  against the field (0.5: skill decides nothing; 1: the better player always wins). Variants
  are ranked by premium; each variant's premium is compared with its base's, paired by deal,
  and the comparisons of a sweep are one family under Benjamini-Hochberg at 5% false
  discovery rate (``premium_vs_base_q``). With the oracle in the field, ``oracle_gap`` is
  its win rate against the other field styles minus the adapted policy's against the field,
  paired by deal (how much the hidden cards are still worth to the adapted player), and the
  oracle is left out of the spread and the stronger side's share.

Everything is resumable: each policy x variant pair and each variant's field games are one
task of :func:`training.runner.run_batches` whose result (per-deal counts) is written
atomically to ``OUT/transfer/`` or ``OUT/field/`` with its design digest; a resumed sweep
plays only the missing ones. The digests hold paths relative to ``OUT``, so a sweep folder
can be moved or shared and resumed or reported from its new place.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import uno_env
from agents.match import play_deals
from agents.policy_agent import metadata_path
from agents.spec import AgentSpec, parse_agent
from agents.trust import check_trusted
from training.common import set_torch_threads
from training.evaluate import load_checkpoint_actor, play_policy
from training.expert import ExpertConfig
from training.runner import (
    Progress,
    node_file,
    read_results,
    results_folder,
    run_batches,
    write_frame,
    write_json_atomic,
)
from training.study.spec import LEARNED, SpecError, check_agents_reach_workers
from uno_env import files
from uno_env.engine.rules import RuleSet
from uno_env.sim.learned import is_learned_policy, load_policy
from uno_env.stats import GAME_LENGTH_RANGE, benjamini_hochberg, grouped_ratio, paired_difference

if TYPE_CHECKING:
    import pandas as pd

    from training.sweep import SweepSpec

FIELD = "field"
"""The opponents label of the pooled reference field."""


# ================================================================ tasks
@dataclass(frozen=True)
class PolicyTask:
    """A trained policy against every opponent in one variant: each deal once per seat."""

    id: str
    trained: str  # run id
    played: str  # variant id
    players: int
    model: str  # the run's model.zip, relative to the sweep folder (``runs/<run>/model.zip``)
    rules: str
    opponents: tuple[str, ...]
    deals: int
    seed: int
    root: str = ""  # the sweep folder where this process finds it (not part of the design)
    agents: tuple[
        AgentSpec, ...
    ] = ()  # the opponents given as Python objects (their names are in the design)


@dataclass(frozen=True)
class FieldTask:
    """The field's styles against each other in one variant: each deal once per seat."""

    id: str
    variant: str
    players: int
    rules: str
    styles: tuple[str, ...]
    deals: int
    seed: int
    agents: tuple[AgentSpec, ...] = ()  # the styles given as Python objects (named in the design)


@dataclass(frozen=True)
class CompareTask:
    """A compared player (``[transfer] compare``: the search, say) against every opponent in one
    variant, each deal once per seat, as the adapted policies play them."""

    id: str
    player: str
    played: str  # variant id
    players: int
    rules: str
    opponents: tuple[str, ...]
    deals: int
    seed: int
    agents: tuple[AgentSpec, ...] = ()  # the player and opponents given as Python objects


def task_agent(task: PolicyTask | FieldTask | CompareTask, name: str) -> AgentSpec:
    """The agent ``name`` stands for in ``task``: an object agent's spec, else the parsed text."""
    for agent in task.agents:
        if agent.text == name:
            return agent
    return parse_agent(name)


def task_key(task: PolicyTask | FieldTask | CompareTask) -> str:
    """SHA-256 of a task's design (what its result file records; another design is refused).

    Paths in it are relative to the sweep folder, so a sweep folder can be moved or shared
    and its results still match."""
    values = [str(v) for k, v in vars(task).items() if k not in ("root", "agents")]
    text = json.dumps([type(task).__name__, *values])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _legacy_key(task: PolicyTask | FieldTask | CompareTask) -> str:
    """The key the first sweeps recorded: the model's absolute path in place of the relative one
    (accepted, so their results stay valid in the folder where they were played)."""
    if not isinstance(task, PolicyTask):
        return task_key(task)
    absolute = str((Path(task.root) / task.model).resolve())
    return task_key(dataclasses.replace(task, model=absolute, root=""))


def model_path(task: PolicyTask) -> Path:
    """Where this process finds the task's policy."""
    return Path(task.root) / task.model


def plan(spec: SweepSpec, out: Path) -> tuple[list[PolicyTask], list[FieldTask]]:
    """Every cross-evaluation task of a sweep, in a fixed order: each policy on each variant
    of its deck family (a policy cannot play another deck's action table), and the field."""
    variants = spec.variants()
    opponents = (*spec.field, spec.baseline)
    objects = tuple(a for a in spec.agents if a.text in spec.field)
    policy_tasks = []
    field_tasks = []
    for n in spec.players:
        for played in variants:
            for trained in variants:
                if trained.rules.deck_family != played.rules.deck_family:
                    continue  # another deck, another action table: no transfer to measure
                run = f"{trained.id}__{n}p"
                policy_tasks.append(
                    PolicyTask(
                        f"{run}__on__{played.id}", run, played.id, n, f"runs/{run}/{spec.model_file}",
                        str(played.rules), opponents, spec.deals, spec.transfer_seed, str(out.resolve()),
                        objects,
                    )
                )  # fmt: skip
            field_tasks.append(
                FieldTask(f"{played.id}__{n}p", played.id, n, str(played.rules), spec.field, spec.deals,
                          spec.transfer_seed, objects)
            )  # fmt: skip
    return policy_tasks, field_tasks


def compare_plan(spec: SweepSpec) -> list[CompareTask]:
    """The compared players' tasks (``[transfer] compare``): each player in each variant against the
    field, on the adapted policies' deals."""
    opponents = tuple(spec.field)
    return [
        CompareTask(
            f"{k}__{played.id}__{n}p",
            player,
            played.id,
            n,
            str(played.rules),
            opponents,
            spec.deals,
            spec.transfer_seed,
            tuple(a for a in spec.agents if a.text in (player, *opponents)),
        )
        for k, player in enumerate(spec.compare)
        for n in spec.players
        for played in spec.variants()
    ]


def task_games(task: PolicyTask | FieldTask | CompareTask) -> int:
    """The games a task plays: each deal once per seat, per opponent (or per ordered pair of styles)."""
    k = len(task.styles) * (len(task.styles) - 1) if isinstance(task, FieldTask) else len(task.opponents)
    return k * task.players * task.deals


_ACTORS: dict[tuple[str, str, int], Any] = {}
"""Policies loaded in this process, by (model, rules, players)."""


def play_policy_task(task: PolicyTask) -> dict[str, Any]:
    """Per-deal wins, truncations and decisions of the policy against each opponent."""

    rules = RuleSet.parse(task.rules)
    model = str(node_file(model_path(task)))  # a Ray node's copy of the driver's file
    if model.endswith(".npz"):  # an exported player (expert iteration): compiled, in the simulator
        return {"id": task.id, "opponents": compiled_player_games(model, task)}
    key = (model, task.rules, task.players)
    if key not in _ACTORS:
        set_torch_threads(1)
        _ACTORS.clear()  # one policy at a time per worker
        _ACTORS[key] = load_checkpoint_actor(
            model, rules, task.players, allow_rules_mismatch=True, trust=True, log=lambda _: None
        )  # the sweep trained and signed it; the driver checked the signature
    actor = _ACTORS[key]
    result: dict[str, Any] = {}
    for opponent in task.opponents:
        agent = task_agent(task, opponent)
        seat_policies: list[Any] = [  # one per seat: an agent object's state is its own
            agent if agent.kind == "object" else batch_opponent(opponent, rules, task.players)
            for _ in range(task.players - 1)
        ]
        wins = np.zeros(task.deals, dtype=np.int64)
        truncated = np.zeros(task.deals, dtype=np.int64)
        decisions = np.zeros(task.deals, dtype=np.int64)
        for seat in range(task.players):
            records = play_policy(
                actor,
                rules,
                task.players,
                seat_policies,
                task.deals,
                task.seed,
                learner_seat=seat,
                allow_rules_mismatch=True,  # a transfer by design
            )
            wins += records.won
            truncated += records.truncated
            decisions += records.decisions
        result[opponent] = {
            "wins": wins.tolist(),
            "truncated": truncated.tolist(),
            "decisions": decisions.tolist(),
        }
    return {"id": task.id, "opponents": result}


def local_style(style: str) -> str:
    """A compiled field style as this process reads it: on a Ray node an exported policy file,
    or a search's guide network, is the node's copy (:func:`training.runner.node_file`, the
    file resolver there; sent by :func:`style_files`), elsewhere the style as written."""
    agent = parse_agent(style)
    return agent.policy if agent.compiled else style


def style_files(styles: Sequence[str | AgentSpec]) -> list[str]:
    """The files ``styles`` read (what Ray nodes need sent): exported policies with their
    sidecars, a Python file agent's ``.py`` (:meth:`agents.spec.AgentSpec.files`; an agent
    object reads none)."""
    specs = [s if isinstance(s, AgentSpec) else parse_agent(s) for s in dict.fromkeys(styles)]
    return sorted({path for spec in specs for path in spec.files()})


def compiled_player_games(player: str, task: PolicyTask | CompareTask) -> dict[str, Any]:
    """Per-deal wins, truncations and decisions of a player (a style, a guided search, an
    exported policy: compiled; a user's agent: at Game tables, :func:`agents.match.play_deals`,
    on the same deals) against each opponent of ``task``, each deal once per seat."""

    rules = uno_env.RuleSet.parse(task.rules)
    n = task.players
    seeds = [task.seed + deal for deal in range(task.deals)]  # the deals simulate() plays
    result: dict[str, Any] = {}
    for opponent in task.opponents:
        wins = np.zeros(task.deals, dtype=np.int64)
        truncated = np.zeros(task.deals, dtype=np.int64)
        decisions = np.zeros(task.deals, dtype=np.int64)
        for seat in range(n):
            seated = [task_agent(task, opponent)] * n
            seated[seat] = task_agent(task, player)
            if all(agent.compiled for agent in seated):
                names = [local_style(opponent)] * n
                names[seat] = local_style(player)
                sim = uno_env.simulate(
                    rules, n, task.deals, seed=task.seed, policies=names, allow_rules_mismatch=True
                )  # a transfer by design
                winner, length = sim.winner, sim.length
            else:
                played = play_deals(rules, seated, seeds)
                winner, length = played["winner"], played["length"]
            wins += winner == seat
            truncated += winner < 0
            decisions += length
        result[opponent] = {
            "wins": wins.tolist(),
            "truncated": truncated.tolist(),
            "decisions": decisions.tolist(),
        }
    return result


def play_compare_task(task: CompareTask) -> dict[str, Any]:
    """Per-deal wins of a compared player (``[transfer] compare``) against each opponent."""
    return {"id": task.id, "opponents": compiled_player_games(task.player, task)}


def batch_opponent(style: str, rules: Any, players: int) -> Any:
    """What the vector env seats for a field entry: the style's name (compiled styles, the search
    agent and the oracle run inside the env's compiled step); for an exported learned policy
    (:mod:`uno_env.sim.learned`) a batch policy over the opponents' own observations: its legal
    action with the highest logit, as the compiled simulator plays it on the field's games; for
    a search guided by a network, the agent object (its compiled search asked game by game, as
    at a ``Game``; the env takes no network inside its compiled step)."""
    from training.pool import ExportedBatchPolicy

    agent = parse_agent(style)
    if agent.kind == "style" and agent.networks:
        agent.check_networks(rules, None, allow_rules_mismatch=True)  # a transfer, of the same deck family
        return agent.make(rules, players, seed=0)
    if not is_learned_policy(style):
        return style
    policy = load_policy(local_style(style))
    policy.check_game(rules)  # a transfer: other rules are allowed, other action tables are not
    return ExportedBatchPolicy(policy)


def play_field_task(task: FieldTask) -> dict[str, Any]:
    """Per-deal wins of each field style alone against ``n - 1`` copies of each other style."""

    rules = uno_env.RuleSet.parse(task.rules)
    n = task.players
    pairs: dict[str, list[int]] = {}
    seeds = [task.seed + deal for deal in range(task.deals)]  # the deals simulate() plays
    for mine in task.styles:
        for other in task.styles:
            if mine == other:
                continue
            wins = np.zeros(task.deals, dtype=np.int64)
            for seat in range(n):
                policies = [other] * n
                policies[seat] = mine
                seated = [task_agent(task, p) for p in policies]
                if all(agent.compiled for agent in seated):
                    local = [local_style(p) for p in policies]
                    winner = uno_env.simulate(
                        rules, n, task.deals, seed=task.seed, policies=local, allow_rules_mismatch=True
                    ).winner  # a transfer by design
                else:  # a user's agent: game by game at Game tables, the same deals
                    winner = play_deals(rules, seated, seeds)["winner"]
                wins += winner == seat
            pairs[f"{mine}|{other}"] = wins.tolist()
    return {"id": task.id, "pairs": pairs}


def _scan(
    tasks: Sequence[PolicyTask | FieldTask | CompareTask], folder: Path
) -> tuple[dict[str, dict[str, Any]], list[Any]]:
    """Results on disk by task id (of the same design), and the tasks still to run."""
    found, todo = read_results(
        tasks, lambda task: folder / f"{task.id}.json", "result file", "playing it again"
    )
    done: dict[str, dict[str, Any]] = {}
    for task, path, result in found:
        if result["key"] not in (task_key(task), _legacy_key(task)):
            raise SpecError(f"{path} was computed for another design; start a new sweep in a new folder")
        done[task.id] = result
    return done, todo


def check_objects(spec: SweepSpec, executor: str) -> None:
    """Refuse, before anything is played, a sweep whose agent objects are named but not given
    (``spec.toml`` keeps only their names) or cannot reach worker processes (the process pool
    pickles each task with its agents: a class or function defined at a module's top level
    pickles by name; a lambda or a function defined inside another does not)."""
    missing = spec.missing_objects()
    if missing:
        raise SpecError(
            f"[transfer] agent(s) {', '.join(missing)} were given as Python objects, and a spec file keeps "
            "only their names: run or resume this sweep from Python with the same objects "
            "(training.sweep.parse_sweep({..., 'transfer': {'field': [..., agent]}}), then run_sweep(spec, "
            "out, resume=True))"
        )
    check_agents_reach_workers(spec.agents, executor)


def run_transfer(
    spec: SweepSpec,
    out: Path,
    *,
    executor: str = "process",
    workers: int = 1,
    ray_address: str | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Play the missing cross-evaluation tasks of a trained sweep, then write its tables and report."""

    policy_tasks, field_tasks = plan(spec, out)
    check_objects(spec, executor)
    for model in dict.fromkeys(model_path(t) for t in policy_tasks):
        if model.suffix == ".zip":  # SB3 checkpoints are pickles; exported players are plain weights
            check_trusted(model, metadata_path(model))
    jobs: list[tuple[Sequence[Any], Path, Any]] = [
        (field_tasks, out / "field", play_field_task),
        (policy_tasks, out / "transfer", play_policy_task),
        (compare_plan(spec), out / "compare", play_compare_task),
    ]
    for tasks, folder, function in jobs:
        if not tasks:
            continue
        results_folder(folder)
        by_id = {t.id: t for t in tasks}
        todo = _scan(tasks, folder)[1]
        bar = Progress(len(todo), label=f"{folder.name} tasks", enabled=progress and bool(todo))

        def store(
            result: dict[str, Any], folder: Path = folder, by_id: Any = by_id, bar: Progress = bar
        ) -> None:
            task = by_id[result["id"]]
            write_json_atomic(folder / f"{task.id}.json", {**result, "key": task_key(task)})
            bar.update(task_games(task))

        files = [
            str(path)
            for model in dict.fromkeys(model_path(t) for t in todo if isinstance(t, PolicyTask))
            for path in (model, metadata_path(model))
            if path.is_file()
        ]
        named = [s for t in todo for s in (*getattr(t, "styles", ()), *getattr(t, "opponents", ()))]
        named += [t.player for t in todo if isinstance(t, CompareTask)]
        files += style_files([spec.agent(name) for name in named])  # exported policies, .py agents
        run_batches(
            function,
            todo,
            store,
            executor=executor,
            workers=workers,
            ray_address=ray_address,
            files=files,
            progress=progress,
        )
    return assemble(spec, out)


# ================================================================ tables
def _rate(totals: np.ndarray, count: float) -> tuple[float, float, float, Any]:
    est = grouped_ratio(totals, count)
    lo, hi = est.proportion_interval()
    return est.value, lo, hi, est


def transfer_rows(spec: SweepSpec, out: Path) -> list[dict[str, Any]]:
    """One row per trained-on x played-on x opponents (each style, the baseline and the pooled field)."""
    policy_tasks, _ = plan(spec, out)
    done, _ = _scan(policy_tasks, out / "transfer")
    policy_tasks = [t for t in policy_tasks if t.id in done]  # a sweep still playing: the pairs so far
    rows: list[dict[str, Any]] = []
    totals: dict[tuple[str, str, int, str], np.ndarray] = {}
    for task in policy_tasks:
        per = done[task.id]["opponents"]
        for opponent in task.opponents:
            totals[(task.trained, task.played, task.players, opponent)] = np.asarray(per[opponent]["wins"])
        totals[(task.trained, task.played, task.players, FIELD)] = sum(
            (np.asarray(per[s]["wins"]) for s in spec.field), np.zeros(task.deals, dtype=np.int64)
        )
    for task in policy_tasks:
        n = task.players
        per = done[task.id]["opponents"]
        adapted = f"{task.played}__{n}p"
        for opponent in (FIELD, *task.opponents):
            count = n * (len(spec.field) if opponent == FIELD else 1)
            wins = totals[(task.trained, task.played, n, opponent)]
            rate, lo, hi, _ = _rate(wins, count)
            names = spec.field if opponent == FIELD else (opponent,)
            # per deal, as the win rate: the games of one deal share its cards
            truncated = sum((np.asarray(per[s]["truncated"]) for s in names), np.zeros(task.deals))
            decisions = sum((np.asarray(per[s]["decisions"]) for s in names), np.zeros(task.deals))
            truncated_lo, truncated_hi = grouped_ratio(truncated, count).proportion_interval()
            decisions_lo, decisions_hi = grouped_ratio(decisions, count).bounded_interval(*GAME_LENGTH_RANGE)
            own = totals.get((adapted, task.played, n, opponent))
            delta = paired_difference(wins, count, wins if own is None else own, count)
            dlo, dhi = delta.interval() if own is not None else (math.nan, math.nan)
            if own is None:  # the adapted policy's games there are not played yet
                delta = dataclasses.replace(delta, value=math.nan)
            rows.append(
                {
                    "trained_on": task.trained.rsplit("__", 1)[0], "played_on": task.played, "players": n,
                    "opponents": opponent, "adapted": task.trained == adapted, "deals": task.deals,
                    "seat_games": count * task.deals, "wins": int(wins.sum()), "win_rate": rate,
                    "win_lo": lo, "win_hi": hi, "fair_share": 1 / n,
                    "delta_vs_adapted": delta.value if task.trained != adapted else 0.0,
                    "delta_lo": dlo if task.trained != adapted else math.nan,
                    "delta_hi": dhi if task.trained != adapted else math.nan,
                    "truncated_rate": float(truncated.sum()) / (count * task.deals),
                    "decisions_mean": float(decisions.sum()) / (count * task.deals), "seed": task.seed,
                    "truncated_lo": truncated_lo, "truncated_hi": truncated_hi,
                    "decisions_lo": decisions_lo, "decisions_hi": decisions_hi,
                }
            )  # fmt: skip
    return rows


def skill_rows(spec: SweepSpec, out: Path) -> list[dict[str, Any]]:
    """One row per variant and player count: the skill premium and how much skill decides games."""
    policy_tasks, field_tasks = plan(spec, out)
    policy_done, _ = _scan(policy_tasks, out / "transfer")
    field_done, _ = _scan(field_tasks, out / "field")
    field_tasks = [  # a sweep still playing: the variants whose games are all in
        t for t in field_tasks if t.id in field_done and f"{t.id}__on__{t.variant}" in policy_done
    ]
    field = list(spec.field)
    cheaters = [s for s in field if spec.agent(s).cheats]
    compared, _ = _scan(compare_plan(spec), out / "compare")
    rows: list[dict[str, Any]] = []
    premium_totals: dict[tuple[str, int], np.ndarray] = {}
    for task in field_tasks:
        n, learner = task.players, "policy"
        pairs = {k: np.asarray(v) for k, v in field_done[task.id]["pairs"].items()}
        own = policy_done[f"{task.variant}__{n}p__on__{task.variant}"]["opponents"]
        for style in field:
            pairs[f"{learner}|{style}"] = np.asarray(own[style]["wins"])
            truncated = np.asarray(own[style]["truncated"])
            pairs[f"{style}|{learner}"] = n - pairs[f"{learner}|{style}"] - truncated if n == 2 else None  # type: ignore[assignment]
        players = [learner, *field]
        against: dict[str, tuple[np.ndarray, int]] = {}
        for p in players:
            others = [q for q in field if q != p]
            against[p] = (
                sum((pairs[f"{p}|{q}"] for q in others), np.zeros(task.deals, dtype=np.int64)),
                n * len(others),
            )
        rates = {p: grouped_ratio(*against[p]).value for p in players}
        premium_totals[(task.variant, n)] = against[learner][0]
        field_rate, field_lo, field_hi, _ = _rate(*against[learner])
        base_rate, base_lo, base_hi, _ = _rate(np.asarray(own[spec.baseline]["wins"]), n)
        honest = [p for p in players if p not in cheaters]  # the oracle is a bound, not a player
        top, bottom = max(honest, key=rates.__getitem__), min(honest, key=rates.__getitem__)
        spread = paired_difference(*against[top], *against[bottom])
        slo, shi = spread.interval()
        gap = glo = ghi = math.nan
        if cheaters:  # the oracle's lead over the adapted policy, paired by deal
            oracle_gap = paired_difference(*against[cheaters[0]], *against[learner])
            gap, (glo, ghi) = oracle_gap.value, oracle_gap.interval()
        share = lo_share = hi_share = math.nan
        if n == 2:
            won = np.zeros(task.deals, dtype=np.int64)
            games = 0
            for i, a in enumerate(honest):
                for b in honest[i + 1 :]:
                    strong, weak = (a, b) if rates[a] >= rates[b] else (b, a)
                    won = won + pairs[f"{strong}|{weak}"]
                    games += n
            share, lo_share, hi_share, _ = _rate(won, games)
        variant = next(v for v in spec.variants() if v.id == task.variant)
        extra: dict[str, Any] = {}
        for k, player in enumerate(spec.compare):  # the compared players against the same field
            played = compared.get(f"{k}__{task.variant}__{n}p")
            values: dict[str, Any] = dict.fromkeys(
                (
                    "vs_field",
                    "vs_field_lo",
                    "vs_field_hi",
                    "policy_minus",
                    "policy_minus_lo",
                    "policy_minus_hi",
                ),
                math.nan,
            )
            if played is not None:
                zero = np.zeros(task.deals, np.int64)
                theirs = sum((np.asarray(played["opponents"][q]["wins"]) for q in field), zero)
                values["vs_field"], values["vs_field_lo"], values["vs_field_hi"], _ = _rate(
                    theirs, n * len(field)
                )
                lead = paired_difference(*against[learner], theirs, n * len(field))
                lead_lo, lead_hi = lead.interval()
                values.update(policy_minus=lead.value, policy_minus_lo=lead_lo, policy_minus_hi=lead_hi)
            extra[f"compare{k}"] = player
            extra.update({f"compare{k}_{key}": value for key, value in values.items()})
        rows.append(
            {
                **extra,
                "variant": task.variant, "base": variant.base, "variation": variant.variation,
                "switches": variant.switches, "players": n, "deals": task.deals,
                "policy_vs_field": field_rate, "policy_vs_field_lo": field_lo, "policy_vs_field_hi": field_hi,
                "premium": field_rate - 1 / n, "premium_lo": field_lo - 1 / n, "premium_hi": field_hi - 1 / n,
                "policy_vs_baseline": base_rate, "policy_vs_baseline_lo": base_lo,
                "policy_vs_baseline_hi": base_hi, "baseline": spec.baseline,
                "spread": spread.value, "spread_lo": slo, "spread_hi": shi,
                "strongest": top, "weakest": bottom,
                "stronger_share": share, "stronger_share_lo": lo_share, "stronger_share_hi": hi_share,
                "oracle": cheaters[0] if cheaters else "", "oracle_gap": gap, "oracle_gap_lo": glo,
                "oracle_gap_hi": ghi,
            }
        )  # fmt: skip
    # each variant's premium against its base's, paired by deal; one family under Benjamini-Hochberg
    p_values = []
    tested = [r for r in rows if r["variation"] and (r["base"], r["players"]) in premium_totals]
    for r in rows:
        if r in tested:
            diff = paired_difference(
                premium_totals[(r["variant"], r["players"])], r["players"] * len(field),
                premium_totals[(r["base"], r["players"])], r["players"] * len(field),
            )  # fmt: skip
            r["premium_vs_base"], (r["premium_vs_base_lo"], r["premium_vs_base_hi"]) = (
                diff.value,
                diff.interval(),
            )
            r["premium_vs_base_p"] = diff.p_value()
            p_values.append(r["premium_vs_base_p"])
        else:
            change = math.nan if r["variation"] else 0.0  # NaN: the base's games are not in yet
            r.update(premium_vs_base=change, premium_vs_base_lo=math.nan, premium_vs_base_hi=math.nan)
            r.update(premium_vs_base_p=math.nan, premium_vs_base_q=math.nan, premium_vs_base_detected=False)
    for r, q in zip(tested, benjamini_hochberg(p_values), strict=True):
        r["premium_vs_base_q"] = float(q)
        r["premium_vs_base_detected"] = bool(q <= 0.05)
    for n in spec.players:
        ranked = sorted((r for r in rows if r["players"] == n), key=lambda r: -r["premium"])
        for rank, r in enumerate(ranked, 1):
            r["rank"] = rank
    return rows


def plot_matrix(frame: pd.DataFrame, path: Path) -> None:
    """The transfer matrix (win rate against the field, trained-on x played-on) as a heat map per
    player count, each cell with its 95% interval; the adapted policies on the diagonal framed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    part = frame[frame["opponents"] == FIELD]
    counts = sorted(part["players"].unique())
    order = list(dict.fromkeys(part["played_on"]))
    size = 1.6 + 1.25 * len(order)
    fig, axes = plt.subplots(1, len(counts), figsize=(size * len(counts) + 1.5, size), squeeze=False)
    for ax, n in zip(axes[0], counts, strict=True):
        cell = part[part["players"] == n]
        grid = cell.pivot(index="trained_on", columns="played_on", values="win_rate").reindex(
            index=order, columns=order
        )
        lo = cell.pivot(index="trained_on", columns="played_on", values="win_lo").reindex_like(grid)
        hi = cell.pivot(index="trained_on", columns="played_on", values="win_hi").reindex_like(grid)
        values = grid.to_numpy() * 100
        spread = max(2.0, float(np.nanmax(np.abs(values - 100 / n))))
        image = ax.imshow(values, cmap="RdBu", vmin=100 / n - spread, vmax=100 / n + spread, aspect="auto")
        for i in range(len(order)):
            for j in range(len(order)):
                if math.isnan(values[i, j]):
                    continue
                ax.text(j, i, f"{values[i, j]:.1f}\n[{lo.iat[i, j] * 100:.1f}, {hi.iat[i, j] * 100:.1f}]",
                        ha="center", va="center", fontsize=7)  # fmt: skip
            ax.add_patch(plt.Rectangle((i - 0.5, i - 0.5), 1, 1, fill=False, lw=1.8, color="black"))
        ax.set_xticks(range(len(order)), order, rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(len(order)), order, fontsize=8)
        ax.set_xlabel("played on")
        ax.set_ylabel("trained on")
        ax.set_title(f"{n} players: win rate vs the field (%), 95% interval by deal", fontsize=9)
        fig.colorbar(image, ax=ax, shrink=0.8, label=f"fair share {100 / n:.0f}%")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _pct(value: float, lo: float, hi: float, signed: bool = False) -> str:
    """A rate in percent (or, ``signed``, a change in percentage points) with its interval."""
    if signed:
        return f"{value * 100:+.1f} pp [{lo * 100:+.1f}, {hi * 100:+.1f}]"
    return f"{value * 100:.1f}% [{lo * 100:.1f}, {hi * 100:.1f}]"


def report_text(spec: SweepSpec, out: Path, transfer: pd.DataFrame, skill: pd.DataFrame) -> str:
    """The Markdown report: the runs, the transfer matrix and the skill premium per variant."""
    results = {}
    for path in sorted((out / "results").glob("*.json")):
        data = files.read_json_object(path, "sweep result")
        results[str(data.get("id"))] = data
    if spec.mode == "expert":
        expert = ExpertConfig(**spec.expert_options())  # the table on the defaults, as each run has it
        start = f" from `{expert.init_policy}`" if expert.init_policy else ""
        trained = (
            f"One network per variant and player count by expert iteration{start}: "
            f"{spec.budget():,} labelled games each ({expert.rounds} round(s), labelled by `{expert.search}`)"
        )
    else:
        trained = f"One MaskablePPO policy per variant and player count, {spec.steps:,} learner steps each"
    lines = [
        f"# Sweep `{spec.name}`",
        "",
        f"{trained}, seed "
        f"{spec.seed}. Cross-evaluation: {spec.deals:,} deals (deal d from seed {spec.transfer_seed} + d in "
        "every variant), each played once with the measured player in every seat, against "
        f"{len(spec.field)} field styles ({', '.join(f'`{s}`' for s in spec.field)}) and the baseline "
        f"`{spec.baseline}`"
        + (" (the literature's random player)" if spec.baseline == "random_playable" else "")
        + ". Intervals are 95%, grouped by deal (the deal is the unit: cluster-robust ratios; changes "
        "paired by deal).",
        "",
        "## Runs",
        "",
        f"| run | {spec.unit} | wall | final evaluation (training's own games) |",
        "| --- | ---: | ---: | --- |",
    ]
    for run_id, data in results.items():
        evals = "; ".join(
            f"vs `{r['opponents']}` {_pct(r['win_rate'], r['win_low'], r['win_high'])}"
            for r in data["final_eval"]
        )
        lines.append(f"| `{run_id}` | {data['step']:,} | {data['seconds'] / 60:.1f} min | {evals} |")
    planned = len(plan(spec, out)[0])
    if transfer.empty:  # the runs still training: the cross-evaluation starts once all are trained
        lines += [
            "",
            f"**Partial: none of the {planned} policy x variant pairs played yet** (the cross-evaluation "
            "starts once every run is trained: `uno-env sweep --status` shows where they stand).",
            "",
        ]
        return "\n".join(lines)
    played = len(transfer.drop_duplicates(["trained_on", "played_on", "players"]))
    if played < planned:
        lines += ["", f"**Partial: {played} of {planned} policy x variant pairs played so far.**"]
    for n in spec.players:
        part = transfer[(transfer["players"] == n) & (transfer["opponents"] == FIELD)]
        order = list(dict.fromkeys(part["played_on"]))
        lines += [
            "",
            f"## Transfer matrix, {n} players",
            "",
            f"Win rate against the field (fair share {1 / n:.1%}); rows: trained on, columns: played on; "
            "below each off-diagonal entry its change against the policy adapted to the column's variant "
            "(the diagonal), paired by deal.",
            "",
            "| trained on \\ played on | " + " | ".join(f"`{v}`" for v in order) + " |",
            "| --- |" + " ---: |" * len(order),
        ]
        family = {v.id: v.rules.deck_family for v in spec.variants()}
        for trained in order:
            cells = []
            for played in order:
                match = part[(part["trained_on"] == trained) & (part["played_on"] == played)]
                if match.empty:
                    cells.append("other deck" if family[trained] != family[played] else "not played yet")
                    continue
                r = match.iloc[0]
                text = _pct(r["win_rate"], r["win_lo"], r["win_hi"])
                if not r["adapted"] and not math.isnan(r["delta_vs_adapted"]):
                    text += f"<br>{_pct(r['delta_vs_adapted'], r['delta_lo'], r['delta_hi'], signed=True)}"
                elif r["adapted"]:
                    text = f"**{text}**"
                cells.append(text)
            lines.append(f"| `{trained}` | " + " | ".join(cells) + " |")
        rows = skill[skill["players"] == n].sort_values("rank") if not skill.empty else skill
        oracle = next((str(o) for o in rows.get("oracle", []) if isinstance(o, str) and o), "")
        lines += [
            "",
            f"## Which rules reward skill, {n} players",
            "",
            "Variants ranked by the skill premium: the adapted policy's win rate against the field minus the "
            f"fair share. `vs {spec.baseline}`: the adapted policy against {n - 1} `{spec.baseline}` "
            "player(s). Spread: best minus worst win rate against the field among the field styles and the "
            "adapted policy. Stronger side: the share of head-to-head games won by the player with the "
            "higher "
            "win rate against the field (2 players). Change against the base: paired by deal; detected = "
            "Benjamini-Hochberg at 5% false discovery rate over the sweep's variants."
            + (
                f" Oracle gap: `{oracle}` (it sees the other hands) against the other field styles minus the "
                "adapted policy against the field, paired by deal; the oracle is left out of the spread and "
                "the stronger side."
                if oracle
                else ""
            ),
            "",
            f"| rank | variant | premium | vs `{spec.baseline}` | spread | stronger side wins "
            "| change vs base |"
            + (" oracle gap |" if oracle else "")
            + "".join(f" `{p}` vs the field | policy minus `{p}` |" for p in spec.compare),
            "| ---: | --- | ---: | ---: | ---: | ---: | --- |"
            + (" ---: |" if oracle else "")
            + " ---: | ---: |" * len(spec.compare),
        ]
        for _, r in rows.iterrows():
            change = "(base)"
            if r["variation"] and math.isnan(r["premium_vs_base"]):
                change = "base not played yet"
            elif r["variation"]:
                change = _pct(
                    r["premium_vs_base"], r["premium_vs_base_lo"], r["premium_vs_base_hi"], signed=True
                )
                change += " detected" if r["premium_vs_base_detected"] else " not detected"
            share = (
                "n/a"
                if math.isnan(r["stronger_share"])
                else _pct(r["stronger_share"], r["stronger_share_lo"], r["stronger_share_hi"])
            )
            lines.append(
                f"| {r['rank']} | `{r['variant']}` | "
                f"{_pct(r['premium'], r['premium_lo'], r['premium_hi'], signed=True)} | "
                f"{_pct(r['policy_vs_baseline'], r['policy_vs_baseline_lo'], r['policy_vs_baseline_hi'])} | "
                f"{_pct(r['spread'], r['spread_lo'], r['spread_hi'])} ({r['strongest']} - {r['weakest']}) | "
                f"{share} | {change} |"
                + (
                    f" {_pct(r['oracle_gap'], r['oracle_gap_lo'], r['oracle_gap_hi'], signed=True)} |"
                    if oracle
                    else ""
                )
                + "".join(_compare_cells(r, k) for k in range(len(spec.compare)))
            )
    lines += ["", "Files: `transfer.csv`, `skill.csv` (and `.parquet` with pyarrow), `transfer.png`.", ""]
    return "\n".join(lines)


def _compare_cells(row: Any, k: int) -> str:
    """The report's cells of compared player ``k``: its win rate against the field and the
    adapted policy's lead over it (paired by deal)."""
    if math.isnan(row[f"compare{k}_vs_field"]):
        return " not played yet | not played yet |"
    rate = _pct(row[f"compare{k}_vs_field"], row[f"compare{k}_vs_field_lo"], row[f"compare{k}_vs_field_hi"])
    lead = _pct(row[f"compare{k}_policy_minus"], row[f"compare{k}_policy_minus_lo"],
                row[f"compare{k}_policy_minus_hi"], signed=True)  # fmt: skip
    return f" {rate} | {lead} |"


def assemble(spec: SweepSpec, out: Path) -> pd.DataFrame:
    """Write ``transfer.csv``/``.parquet``, ``skill.csv``/``.parquet``, ``transfer.png`` and
    ``report.md`` from the results on disk; return the transfer table."""
    import pandas as pd

    transfer = pd.DataFrame(transfer_rows(spec, out))
    skill = pd.DataFrame(skill_rows(spec, out))
    write_frame(transfer, out / "transfer")
    write_frame(skill, out / "skill")
    if transfer.empty:  # nothing to draw before the first cross-evaluation game
        (out / "transfer.png").unlink(missing_ok=True)
    else:
        plot_matrix(transfer, out / "transfer.png")
    (out / "report.md").write_text(report_text(spec, out, transfer, skill), encoding="utf-8")
    return transfer


# ================================================================ the study's section
def study_skill_lines(spec: Any, frame: pd.DataFrame) -> list[str]:
    """The study report's skill section for a study that names a sweep (``spec.sweep``).

    Per cell, from the study's own games: the ``learned`` seat's win rate against the study's
    field and against its reference style; from the sweep's cross-evaluation (``skill.csv``,
    matched by the run that trained on the cell's rules): the premium, the win rate against
    the baseline, the spread and the stronger side's share. Ranked by the study's premium.
    """
    import pandas as pd

    folder = Path(spec.sweep)
    models = spec.sweep_models()
    skill_path = folder / "skill.csv"
    skill = pd.read_csv(skill_path) if skill_path.is_file() else None
    lines = [
        "## Which rules reward skill (adapted players)",
        "",
        f"`{LEARNED}` is, in each cell, the policy the sweep `{spec.sweep}` trained on that cell's rules at "
        "its player count. Premium: its win rate against the study's field minus the fair share. The last "
        "columns come from the sweep's cross-evaluation (its own field, deals and baseline; see its "
        "`report.md`). 95% intervals, the deal as the unit.",
        "",
    ]
    for n in spec.players:
        rows = frame[(frame["players"] == n) & (frame["style"] == LEARNED)].sort_values(
            "win_rate", ascending=False
        )
        lines += [
            f"{n} players:",
            "",
            "| rank | variant | premium (study field) | vs reference | sweep: premium | sweep: vs baseline | "
            "sweep: spread | sweep: stronger side wins |",
            "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for rank, (_, r) in enumerate(rows.iterrows(), 1):
            fair = 1 / n
            ref = "n/a"
            if isinstance(r["ref_style"], str) and r["ref_style"] and not math.isnan(r["ref_win_rate"]):
                ref = f"{_pct(r['ref_win_rate'], r['ref_win_lo'], r['ref_win_hi'])} vs `{r['ref_style']}`"
            cells = ["n/a"] * 4
            run = Path(models[(r["variant"], n)]).parent.name.rsplit("__", 1)[0]
            match = None if skill is None else skill[(skill["variant"] == run) & (skill["players"] == n)]
            if match is not None and len(match):
                s = match.iloc[0]
                share = (
                    "n/a" if math.isnan(s["stronger_share"])
                    else _pct(s["stronger_share"], s["stronger_share_lo"], s["stronger_share_hi"])
                )  # fmt: skip
                cells = [
                    _pct(s["premium"], s["premium_lo"], s["premium_hi"], signed=True),
                    _pct(s["policy_vs_baseline"], s["policy_vs_baseline_lo"], s["policy_vs_baseline_hi"])
                    + f" vs `{s['baseline']}`",
                    _pct(s["spread"], s["spread_lo"], s["spread_hi"]),
                    share,
                ]
            premium = _pct(r["win_rate"] - fair, r["win_lo"] - fair, r["win_hi"] - fair, signed=True)
            lines.append(f"| {rank} | `{r['variant']}` | {premium} | {ref} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines

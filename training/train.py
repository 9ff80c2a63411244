"""Train MaskablePPO per rule variant against an opponent pool: ``uno-env train``.

::

    uno-env train --rules uno --players 2 --steps 2000000
    uno-env train --rules uno_house --set seven_swap=false --players 4 --opponents random_playable blocker@2
    python -m training.train --rules my_rules.toml --players 3 --snapshot-weight 1
    uno-env train --resume runs/uno__ppo__0__20261202-141500

The learner is sb3-contrib's MaskablePPO (MLP policy) on the native vector env
(:class:`uno_env.VectorEnv`, ``seat=None``: the learner's seat rotates with the game).
Opponents come from a pool (:mod:`training.pool`): compiled play styles and the random
baselines (``random_playable``, the literature's random player; ``random_legal``, uniform over
the legal actions) played inside the vector env (``--opponents STYLE[@WEIGHT] ...``; ``a/b/c``
names the seats 1, 2, 3 places clockwise from the learner), plus frozen snapshots of the
learner itself (fictitious self-play, :mod:`training.snapshots`): ``--snapshot-weight W`` gives
the snapshot entry weight ``W`` next to the styles' weights, ``--snapshot-every STEPS`` freezes
a copy of the learner that often (the first at step 0), ``--snapshot-pool K`` keeps the ``K``
most recent and every snapshot game draws one of them uniformly. Weights are shares of the game
rows: with ``--num-envs 64 --opponents random_playable blocker@2 --snapshot-weight 1``, 16 rows
play random_playable, 32 blocker and 16 snapshots.

Every run writes ``runs/<rules>__<exp>__<seed>__<time>/``:

- ``config.json``: the resolved :class:`TrainConfig` (plus the rules string and versions);
- ``rules.txt``: the canonical one-line rules (``str(rules)``);
- ``env.json``: observation spec, env version, observation size and action count;
- ``tb/``: TensorBoard logs (if tensorboard is installed) with namespaced metrics:
  ``charts/`` (episode win rate with its 95% Wilson interval, and reward, per opponent entry,
  episode length, steps/s, learning rate), ``losses/`` (SB3's ``train/`` values: policy,
  value and entropy losses, approx KL, clip fraction, explained variance) and ``eval/`` (the
  periodic evaluation: win rate, mean rank and truncated share with their 95% intervals);
  SB3's ``rollout/`` and ``time/`` keys go to ``charts/``. ``progress.csv`` has the same rows;
- ``checkpoints/step_<N>.zip`` + ``.meta.json`` (the policy sidecar of
  :mod:`agents.policy_agent`), ``step_<N>.state.json`` (step counter, snapshot steps,
  evaluation rows) and ``step_<N>.snapshots.pt`` (snapshot weights and generator states),
  every ``--eval-every`` steps (after each evaluation) and at the end (the end's evaluation and
  checkpoint come after the last update: they describe ``model.zip``);
- ``eval.csv`` and ``eval_curve.png``: win rate with 95% Wilson interval (and in ``eval.csv``
  the mean rank and points per game with their 95% intervals) against each evaluation
  opponent (default ``random_playable``, the literature's random player, and ``blocker``,
  the strongest scripted style head to head in ``docs/agents.md``) every
  ``--eval-every`` steps, on the same ``--eval-games`` games each time, seats rotated,
  deterministic play, with the games truncated at the decision limit next to the wins (a
  policy whose games mostly truncate is flagged as stalling in the log);
- ``model.zip`` + ``model.meta.json``: the final policy.

``--resume RUN_DIR`` continues from the run's last checkpoint with its saved config
(``--steps`` may raise the total): the step counter, optimiser state (inside the SB3 zip),
snapshot pool and its generator continue; every log row up to that checkpoint stays
(``progress.csv``, ``eval.csv``), and rows written after it, whose training is redone, move to
``progress.superseded.csv`` / ``eval.superseded.csv``. Resume reads only the run directory
(rules from ``rules.txt``; ``checkpoints/latest.json`` must name a ``step_<N>.zip`` there, no
link leading out) and checks the checkpoint's sidecar against the run's rules, player count
and the installed observation spec and env version.
Reproducibility: the same config and seed give the same parameters on the same machine
(torch, numpy and env seeds from ``--seed``, fixed thread count); a resumed run is
reproducible too but reseeds its games from ``seed + steps`` at the resume point.

Torch threads: ``--threads`` (default 1, see :mod:`training.common`).

**SB3 checkpoints are pickles**: every checkpoint a run writes is signed with this user's key
(:mod:`agents.trust`); ``--resume`` loads an unsigned or changed one only with
``--trust-checkpoint``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import io
import json
import math
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import uno_env
from agents.policy_agent import (
    check_policy_metadata,
    current_env_version,
    current_observation_spec,
    load_policy_metadata,
    metadata_path,
    save_policy_metadata,
)
from agents.spec import parse_agent, parse_seats, parse_weighted
from agents.trust import check_trusted
from uno_env import files
from uno_env.compiler.compiling import warm_up
from uno_env.engine.rng import SEED_LIMIT
from uno_env.engine.rules import RuleSet
from uno_env.sim.learned import load_policy
from uno_env.stats import grouped_ratio, wilson_interval
from uno_env.styles.params import spelled_out

from .common import (
    BatchActor,
    Subcommand,
    add_rule_arguments,
    add_trust_argument,
    check_number,
    check_player_count,
    check_training_seed,
    check_widths,
    given_options,
    resolve_rules,
    rules_label,
    set_torch_threads,
)
from .evaluate import STALLING_SHARE, opponent_seats, play_policy, summarize
from .export import load_actor
from .extras import EXTRA_MODULES, require
from .runner import check_agent_files, lock_folder, make_run_folder, write_file_atomic
from .snapshots import SNAPSHOT_LIMIT, SNAPSHOT_ZIP, SnapshotFileError, SnapshotPool

STRONGEST_STYLE = "blocker"
"""The strongest scripted style head to head at 2 players (``docs/agents.md``: 54.0% vs greedy)."""

EVAL_FIELDS = [
    "step",
    "seconds",
    "opponents",
    "games",
    "wins",
    "win_rate",
    "win_low",
    "win_high",
    "mean_rank",
    "points",
    "truncated",
    "rank_low",
    "rank_high",
    "points_low",
    "points_high",
]
"""The columns of ``eval.csv``; the intervals of the mean rank and points come last (runs from
before them lack the four columns, so readers and resume keep the earlier order)."""
EVAL_INTERVAL_FIELDS = ("rank_low", "rank_high", "points_low", "points_high")
"""The columns of ``eval.csv`` that runs from before them lack."""


NUMBER_OPTIONS: dict[str, tuple[float, float, bool]] = {
    "learning_rate": (0.0, math.inf, False),
    "ent_coef": (0.0, math.inf, True),
    "gamma": (0.0, 1.0, True),
    "gae_lambda": (0.0, 1.0, True),
    "clip_range": (0.0, math.inf, False),
    "vf_coef": (0.0, math.inf, True),
    "max_grad_norm": (0.0, math.inf, False),
    "max_minutes": (0.0, math.inf, True),
    "snapshot_weight": (0.0, math.inf, True),
}
"""The number options of :class:`TrainConfig`: (lowest, highest, whether the lowest itself is allowed)."""


@dataclass
class TrainConfig:
    """Everything a training run depends on (written resolved to ``config.json``)."""

    rules: str = "uno"
    """Preset name or rule TOML file."""
    overrides: list[str] = field(default_factory=list)
    """Rule overrides ``key=value`` (``--set``)."""
    players: int = 2
    exp: str = "ppo"
    """Experiment name (part of the run directory's name)."""
    seed: int = 0
    total_steps: int = 2_000_000
    """Learner decisions to train for (``--steps``)."""
    num_envs: int = 64
    """Games played at once (rows of the vector envs)."""
    n_steps: int = 64
    """Rollout length per game row: a PPO batch is ``n_steps * num_envs`` decisions."""
    batch_size: int = 1024
    n_epochs: int = 4
    learning_rate: float = 3e-4
    lr_schedule: str = "constant"
    """``constant`` or ``linear`` (decays to 0 at ``total_steps``)."""
    ent_coef: float = 0.01
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    init_policy: str = ""
    """Exported policy (``.npz`` or a shipped name) whose weights start the actor (e.g. a
    distilled search, ``uno-env distill``); ``net_arch`` must be its hidden widths. Empty: random."""
    reward: str = "win"
    """Env reward: ``win``, ``rank`` or ``score`` (see the AEC env)."""
    opponents: list[str] = field(
        default_factory=lambda: ["random_playable", "greedy", "blocker@2", "aggressor"]
    )
    """Agent specs (:mod:`agents.spec`) with optional ``@weight`` (default 1): one agent for
    every opponent seat, or a seat table (``a | b | c``; ``a/b/c`` of names) per seat."""
    best_response: str = ""
    """Train a best response to this agent (every opponent seat, no other opponents) and
    measure it against that agent at the end (:func:`best_response_report`). Empty: off."""
    best_response_deals: int = 2000
    """Deals of the closing best-response measurement, each played with the learner at every seat."""
    snapshot_weight: float = 0.0
    """Weight of the snapshot entry in the pool (0: no self-play opponents)."""
    snapshot_every: int = 250_000
    snapshot_pool: int = 5
    snapshot_sample: bool = True
    """Snapshots sample their actions (else arg-max)."""
    eval_every: int = 250_000
    eval_games: int = 1000
    eval_opponents: list[str] = field(default_factory=lambda: ["random_playable", STRONGEST_STYLE])
    eval_seed: int = 1_000_000_000
    max_minutes: float = 0.0
    """Wall-time budget of the run in minutes, evaluations included (0: none); training stops
    at the first step past it, then the final evaluation and checkpoint are written."""
    threads: int = 1
    device: str = "cpu"
    runs_dir: str = "runs"
    progress_bar: bool = True
    tensorboard: bool = True

    def check(self) -> None:
        """Raise ValueError naming a bad value and what is allowed."""
        positive = ["players", "total_steps", "num_envs", "n_steps", "batch_size", "n_epochs", "eval_every"]
        positive += ["eval_games", "snapshot_every", "snapshot_pool", "threads"]
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.lr_schedule not in ("constant", "linear"):
            raise ValueError(f"lr_schedule must be 'constant' or 'linear', got {self.lr_schedule!r}")
        if self.reward not in ("win", "rank", "score"):
            raise ValueError(f"reward must be win, rank or score, got {self.reward!r}")
        for name, (lowest, highest, closed) in NUMBER_OPTIONS.items():
            check_number(name, getattr(self, name), lowest, highest, closed=closed)
        check_widths("net_arch", self.net_arch)
        check_training_seed("seed", self.seed, self.total_steps)
        if not isinstance(self.best_response_deals, int) or self.best_response_deals < 1:
            raise ValueError(
                f"best_response_deals must be a positive integer, got {self.best_response_deals!r}"
            )
        deals = self.eval_games + self.best_response_deals  # deal d of an evaluation: eval_seed + d
        if isinstance(self.eval_seed, bool) or not isinstance(self.eval_seed, int):
            raise ValueError(f"eval_seed must be an integer, got {self.eval_seed!r}")
        if not 0 <= self.eval_seed <= SEED_LIMIT - deals:
            raise ValueError(
                f"eval_seed must be in 0..{SEED_LIMIT - deals:,} (the evaluations deal from eval_seed up "
                f"to eval_seed + {deals - 1:,}, and game seeds end at 2**63-1), got {self.eval_seed!r}"
            )
        if self.best_response and self.snapshot_weight > 0:
            raise ValueError("a best response trains against its agent alone: --snapshot-weight must be 0")
        if not self.opponents and not self.best_response and self.snapshot_weight <= 0:
            raise ValueError("the opponent pool is empty: give --opponents or a positive --snapshot-weight")
        if not self.eval_opponents:
            raise ValueError("eval_opponents must name at least one opponent set")


def parse_opponent(entry: str) -> tuple[str, float]:
    """``"blocker@2"`` -> ``("blocker", 2.0)``; no ``@`` means weight 1
    (:func:`agents.spec.parse_weighted`)."""

    return parse_weighted(entry, where=f"opponent {entry!r}")


def resolved_opponents(cfg: TrainConfig) -> list[str]:
    """The opponent entries a run trains against: its best-response agent alone, or its pool."""
    return [cfg.best_response] if cfg.best_response else list(cfg.opponents)


def agent_files(cfg: TrainConfig, *, start: bool) -> list[str]:
    """The files the run's agents read (:meth:`agents.spec.AgentSpec.files`): its opponents' (a
    best response's agent), its evaluation opponents', and at the ``start`` of training
    ``init_policy``'s (read then only). Their SHA-256 are recorded when a run starts and a
    resume refuses any of them changed since (:func:`training.runner.check_agent_files`): the
    steps trained and those still to train would otherwise face two agents under one name."""
    paths: list[str] = []
    for entry in [*resolved_opponents(cfg), *cfg.eval_opponents]:
        text, _ = parse_weighted(entry)
        paths += [path for spec in parse_seats(text, cfg.players - 1) for path in spec.files()]
    if start and cfg.init_policy:
        paths += parse_agent(cfg.init_policy, where="init_policy").files()
    return sorted(set(paths))


# ---------------------------------------------------------------- logging
def namespaced_key(key: str) -> str:
    """SB3 logger keys mapped to the ``charts/`` / ``losses/`` / ``eval/`` namespaces."""
    prefix, _, name = key.partition("/")
    if prefix in ("charts", "losses", "eval") or not name:
        return key
    if prefix == "train":
        if name in ("learning_rate", "n_updates", "clip_range", "std"):
            return f"charts/{name}"
        return f"losses/{name}"
    if prefix in ("rollout", "time"):
        return f"charts/{name}"
    return key


def move_superseded(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Append ``rows`` of log ``path`` to ``<stem>.superseded.csv``: rows written after the
    checkpoint a run resumes from (their training is redone), kept rather than deleted."""
    moved = path.with_name(path.stem + ".superseded.csv")
    fresh = not moved.exists()
    with moved.open("a", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        if fresh:
            writer.writerow(header)
        writer.writerows(rows)
    print(
        f"{len(rows)} row(s) of {path.name} written after the checkpoint (their training is redone) "
        f"moved to {moved.name}"
    )


class ProgressLog:
    """``progress.csv`` that keeps the rows of earlier sessions of the run.

    SB3's CSV writer truncates its file when it opens it, which would erase a resumed run's
    history. This writer reads the rows already there and appends to them; with
    ``keep_rows`` (the row count the resumed checkpoint recorded) the rows written after that
    checkpoint, whose training is about to be redone, move to ``progress.superseded.csv``
    instead of being dropped. A new metric column rewrites the file (atomically) with the
    column added to every row.
    """

    def __init__(self, path: Path, keep_rows: int | None = None) -> None:
        self.path = path
        self.keys: list[str] = []
        self.rows = 0
        rows: list[list[str]] = []
        if path.exists():
            table = files.read_csv(path, "progress log")
            if table:
                self.keys, rows = table[0], table[1:]
        if keep_rows is not None and len(rows) > keep_rows:
            move_superseded(path, self.keys, rows[keep_rows:])
            rows = rows[:keep_rows]
        self._rewrite(rows)

    def _rewrite(self, rows: Sequence[Sequence[str]]) -> None:
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, lineterminator="\n")
        if self.keys:
            writer.writerow(self.keys)
        for row in rows:
            writer.writerow([*row, *[""] * (len(self.keys) - len(row))])
        data = buffer.getvalue().encode("utf-8")
        write_file_atomic(self.path, lambda handle: handle.write(data))
        self.rows = len(rows)

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0) -> None:
        """Append one row (SB3's ``KVWriter.write``); values excluded from ``csv`` are left out, and
        a row with no value is not written."""
        values = {k: v for k, v in key_values.items() if "csv" not in (key_excluded.get(k) or ())}
        if not values:  # a dump with nothing recorded (resuming a finished run): no empty row
            return
        new_keys = [k for k in values if k not in self.keys]
        if new_keys:
            with self.path.open(newline="", encoding="utf-8") as fh:
                rows = list(csv.reader(fh))[1:] if self.keys else []
            self.keys.extend(new_keys)
            self._rewrite(rows)
        with self.path.open("a", newline="", encoding="utf-8") as fh:
            csv.writer(fh, lineterminator="\n").writerow(
                ["" if values.get(k) is None else values[k] for k in self.keys]
            )
        self.rows += 1

    def close(self) -> None:
        """Nothing to close: every row is written and closed at once."""


def make_logger(run_dir: Path, tensorboard: bool, progress: ProgressLog | None = None) -> Any:
    """An SB3 logger writing ``progress.csv`` (``progress``, by default a fresh :class:`ProgressLog`)
    and, if available, TensorBoard logs under ``tb/``."""
    from stable_baselines3.common import logger as sb3_logger

    class Namespaced(sb3_logger.KVWriter):
        """Renames SB3's keys (see :func:`namespaced_key`) before handing them on."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def write(self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0) -> None:
            values = {namespaced_key(k): v for k, v in key_values.items()}
            excluded = {namespaced_key(k): v for k, v in key_excluded.items()}
            self.inner.write(values, excluded, step)

        def close(self) -> None:
            self.inner.close()

    progress = ProgressLog(run_dir / "progress.csv") if progress is None else progress
    formats: list[Any] = [Namespaced(progress)]
    if tensorboard:
        try:
            formats.append(Namespaced(sb3_logger.TensorBoardOutputFormat(str(run_dir / "tb"))))
        except ImportError:
            print("tensorboard is not installed: no TensorBoard logs (progress.csv has the same values)")
    return sb3_logger.Logger(str(run_dir), formats)


# ---------------------------------------------------------------- building blocks
def build_env(cfg: TrainConfig, rules: RuleSet, *, trust: bool = False) -> Any:
    """The vector env of ``cfg`` behind the SB3 adapter, with the agent tables of the pool.

    Every agent is made ready once (:func:`training.pool.build_tables`: exported policies and
    checkpoints loaded, Python agents built); snapshot tables join with :func:`refresh_pool`
    (a pool with no agent gets a placeholder ``random_playable`` table until then; it never
    deals a game, as the pool is refreshed before the first reset).
    """
    from .pool import PoolVecEnv, build_tables, parse_pool, pool_of

    entries = parse_pool(resolved_opponents(cfg))
    built = build_tables(entries or [("random_playable", 1.0)], rules, cfg.players, trust=trust)
    pool, labels = pool_of(built, [], 0.0)
    venv = uno_env.VectorEnv(
        cfg.num_envs, rules, cfg.players, opponents=pool, seat=None, reward=cfg.reward, copy=False
    )
    env = PoolVecEnv(venv, labels)
    env.built_tables = built if entries else []
    return env


def refresh_pool(env: Any, cfg: TrainConfig, snapshots: Any) -> None:
    """Seat the current snapshots (each an opponent table) next to the agents, for the next games."""
    from .pool import pool_of

    if cfg.snapshot_weight > 0:
        env.set_pool(*pool_of(env.built_tables, list(snapshots), cfg.snapshot_weight))


def make_model(cfg: TrainConfig, env: Any) -> Any:
    """A fresh MaskablePPO for ``cfg`` (seeded: torch, numpy, env seeds)."""
    from sb3_contrib import MaskablePPO

    lr: Any = cfg.learning_rate
    if cfg.lr_schedule == "linear":
        start = cfg.learning_rate

        def lr(progress_remaining: float) -> float:
            return start * progress_remaining

    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=lr,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        policy_kwargs={"net_arch": list(cfg.net_arch)},
        seed=cfg.seed,
        device=cfg.device,
        verbose=0,
    )


def evaluate_policy(
    policy: Any, cfg: TrainConfig, rules: RuleSet, step: int, seconds: float, *, trust: bool = False
) -> list[dict[str, Any]]:
    """One evaluation point against each evaluation opponent set: win rate (95% Wilson interval),
    mean rank and points per game (95% intervals of :func:`training.evaluate.summarize`; every
    game is its own deal, so the games are independent)."""

    actor = BatchActor(policy, deterministic=True)
    rows = []
    for entry in cfg.eval_opponents:
        seats = opponent_seats(entry, cfg.players)
        start = time.perf_counter()
        records = play_policy(actor, rules, cfg.players, seats, cfg.eval_games, cfg.eval_seed, trust=trust)
        res = summarize(
            records, model="learner", opponents=entry, rules=rules, players=cfg.players,
            seconds=time.perf_counter() - start,
        )  # fmt: skip
        rows.append(
            {
                "step": step,
                "seconds": round(seconds, 1),
                "opponents": entry,
                "games": res.games,
                "wins": res.wins,
                "win_rate": res.win_rate,
                "win_low": res.win_low,
                "win_high": res.win_high,
                "mean_rank": res.mean_rank,
                "points": res.points,
                "truncated": res.truncated,
                "rank_low": res.rank_low,
                "rank_high": res.rank_high,
                "points_low": res.points_low,
                "points_high": res.points_high,
            }
        )
    return rows


BEST_RESPONSE_FILE = "best_response.json"


def best_response_report(
    policy: Any, cfg: TrainConfig, rules: RuleSet, step: int, *, trust: bool = False
) -> dict[str, Any]:
    """The learner's win rate against the frozen agent ``cfg.best_response``, duplicate format.

    ``cfg.best_response_deals`` fresh deals (seeds ``eval_seed + eval_games`` on, past the
    periodic evaluation's), each played once with the learner at every seat and the agent in
    all the others (deterministic play): ``deals x players`` games. The 95% interval takes the
    deal as the unit (the learner's games of one deal share its cards): the Wilson interval at
    the effective sample size of the cluster-robust standard error over the deals
    (:func:`uno_env.stats.grouped_ratio`). Truncated games (E-END-1) count as not won.
    """

    actor = BatchActor(policy, deterministic=True)
    seats = opponent_seats(cfg.best_response, cfg.players)
    deals = cfg.best_response_deals
    seed = cfg.eval_seed + cfg.eval_games
    wins = np.zeros(deals, dtype=np.int64)
    truncated = 0
    start = time.perf_counter()
    for seat in range(cfg.players):
        records = play_policy(actor, rules, cfg.players, seats, deals, seed, learner_seat=seat, trust=trust)
        wins += records.won
        truncated += int(records.truncated.sum())
    estimate = grouped_ratio(wins, cfg.players)
    low, high = estimate.proportion_interval()
    return {
        "agent": cfg.best_response,
        "step": step,
        "rules": str(rules),
        "players": cfg.players,
        "deals": deals,
        "games": deals * cfg.players,
        "seed": seed,
        "wins": int(wins.sum()),
        "win_rate": estimate.value,
        "win_low": low,
        "win_high": high,
        "fair_share": 1 / cfg.players,
        "truncated": truncated,
        "interval": "95%, by deal (each deal at every seat; Wilson at the cluster-robust effective size)",
        "seconds": round(time.perf_counter() - start, 1),
    }


def best_response_summary(report: dict[str, Any]) -> str:
    """One line: the best response's win rate against its agent with the interval."""
    return (
        f"best response vs {spelled_out(report['agent'])}: {report['win_rate']:.1%} ({report['win_low']:.1%}-"
        f"{report['win_high']:.1%}, 95%, by deal) of {report['games']:,} games ({report['deals']:,} deals, "
        f"the learner at every seat; fair share {report['fair_share']:.0%}; {report['truncated']} truncated)"
    )


def read_eval_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of ``eval.csv`` (numbers converted)."""
    if not path.exists():
        return []
    table = files.read_csv(path, "evaluation log")
    header = table[0] if table else []
    rows: list[dict[str, Any]] = [dict(zip(header, row, strict=False)) for row in table[1:] if row]
    for line, row in enumerate(rows, 2):
        try:
            for key in ("step", "games", "wins"):
                row[key] = int(row[key])
            row["truncated"] = int(row.get("truncated") or 0)  # eval.csv of older runs has no column
            for key in ("seconds", "win_rate", "win_low", "win_high", "mean_rank", "points"):
                row[key] = float(row[key])
            for key in EVAL_INTERVAL_FIELDS:  # eval.csv of older runs has no columns (or empty cells)
                if row.get(key) in (None, ""):
                    row.pop(key, None)
                else:
                    row[key] = float(row[key])
        except (KeyError, TypeError, ValueError) as exc:
            fields = ", ".join(EVAL_FIELDS)
            raise ValueError(f"{path}, line {line}: not an evaluation row of {fields} ({exc})") from None
    return rows


def last_checkpoint_summary(run_dir: Path) -> dict[str, Any]:
    """Where a run directory's last checkpoint stands: its ``step``, the run's wall ``seconds``
    then, its file name (``checkpoint``) and the ``evaluation`` rows of that step (without their
    timing); step 0, no file and no rows before the first checkpoint."""
    latest = run_dir / "checkpoints" / "latest.json"
    if not latest.is_file():
        return {"step": 0, "seconds": 0.0, "checkpoint": "", "evaluation": []}
    state = files.read_json_object(latest, "checkpoint record")
    rows = [r for r in read_eval_rows(run_dir / "eval.csv") if r["step"] == state["step"]]
    return {
        "step": int(state["step"]),
        "seconds": round(float(state["seconds"]), 1),
        "checkpoint": str(state["checkpoint"]),
        "evaluation": [{k: v for k, v in r.items() if k != "seconds"} for r in rows],
    }


def write_eval_rows(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Rewrite ``eval.csv`` with ``rows`` (atomically)."""
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=EVAL_FIELDS)
    writer.writeheader()
    writer.writerows(rows)
    data = buffer.getvalue().encode("utf-8")
    write_file_atomic(path, lambda handle: handle.write(data))


def eval_summary(row: dict[str, Any]) -> str:
    """One evaluation row for the log: win rate with its interval, truncated games, a stall flag."""

    share = row["truncated"] / max(row["games"], 1)
    text = (
        f"vs {spelled_out(row['opponents'])} {row['win_rate']:.1%} "
        f"({row['win_low']:.1%}-{row['win_high']:.1%}), "
        f"{row['truncated']} truncated"
    )
    return text + (" STALLING" if share > STALLING_SHARE else "")


def plot_eval_curve(rows: Sequence[dict[str, Any]], path: Path, title: str) -> None:
    """Win rate per evaluation opponent over training steps, with the 95% band, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opp in dict.fromkeys(r["opponents"] for r in rows):
        pts = sorted((r for r in rows if r["opponents"] == opp), key=lambda r: r["step"])
        steps = [r["step"] for r in pts]
        ax.plot(steps, [r["win_rate"] for r in pts], marker="o", ms=3, label=f"vs {spelled_out(opp)}")
        ax.fill_between(steps, [r["win_low"] for r in pts], [r["win_high"] for r in pts], alpha=0.25)
        truncated = [r["truncated"] / max(r["games"], 1) for r in pts]
        if any(truncated):  # games cut at the decision limit: a stalling policy shows here
            ax.plot(steps, truncated, ls=":", label=f"truncated vs {opp}")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("win rate (95% interval); truncated share")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- the run
class Run:
    """One training run in its directory: set-up, callbacks, checkpoints, resume."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, rules: RuleSet, *, trust: bool = False) -> None:
        self.cfg = cfg
        self.trust = trust
        """Load checkpoints among the opponents that this installation did not sign."""
        self.dir = run_dir
        self.rules = rules
        self.ckpt_dir = run_dir / "checkpoints"
        self.eval_path = run_dir / "eval.csv"
        self.eval_rows: list[dict[str, Any]] = read_eval_rows(self.eval_path)
        self.snapshot_steps: list[int] = []
        self.progress: ProgressLog | None = None
        self.seconds_before = 0.0  # wall time of earlier sessions of this run
        self.start_time = time.perf_counter()

        self.snapshots = SnapshotPool(cfg.snapshot_pool, seed=cfg.seed + 1, sample=cfg.snapshot_sample)

    @property
    def seconds(self) -> float:
        """Wall time of the run so far (all sessions)."""
        return self.seconds_before + time.perf_counter() - self.start_time

    def supersede_eval_rows(self, step: int) -> None:
        """Keep the evaluation rows up to ``step``; later ones move to ``eval.superseded.csv``."""
        later = [r for r in self.eval_rows if r["step"] > step]
        if later:
            cells = [[r.get(k, "") for k in EVAL_FIELDS] for r in later]  # an older run's rows lack some
            move_superseded(self.eval_path, EVAL_FIELDS, cells)
            self.eval_rows = [r for r in self.eval_rows if r["step"] <= step]
            write_eval_rows(self.eval_path, self.eval_rows)

    def write_header(self) -> None:
        """config.json, rules.txt, env.json."""

        self.dir.mkdir(parents=True, exist_ok=True)
        self.ckpt_dir.mkdir(exist_ok=True)
        config = dataclasses.asdict(self.cfg)
        config["rules_string"] = str(self.rules)
        # each whole or not at all (a resume reads them), rules.txt first: config.json marks a run
        # directory (resume, sweep and exploitability resume one that has it), so a kill between
        # the two must not leave a config.json without its rules
        self._write("rules.txt", str(self.rules) + "\n")
        self._write("config.json", json.dumps(config, indent=2) + "\n")
        layout = uno_env.envs.obs_layout(self.rules.deck_family)
        env_info = {
            "observation_spec": current_observation_spec(),
            "env_version": current_env_version(),
            "observation_size": layout.size,
            "num_actions": self.rules.num_actions,
            "deck_family": self.rules.deck_family,
            "uno_env_version": getattr(uno_env, "__version__", "unknown"),
        }
        self._write("env.json", json.dumps(env_info, indent=2) + "\n")

    def _write(self, name: str, text: str) -> None:
        """Write the run's file ``name`` atomically (:func:`training.runner.write_file_atomic`)."""
        data = text.encode("utf-8")
        write_file_atomic(self.dir / name, lambda handle: handle.write(data))

    def save_checkpoint(self, model: Any, step: int) -> Path:
        """Model zip + sidecar + progress state + snapshot pool for ``step``.

        Every file is written whole or not at all (:func:`training.runner.write_file_atomic`),
        and ``latest.json`` last: it names the last complete checkpoint. A write that fails (a
        full disk) removes the files of this step already written and raises the OSError, so
        no partial checkpoint is left and ``--resume`` continues from the previous one.
        """

        stem = self.ckpt_dir / f"step_{step:010d}"
        zip_path = Path(str(stem) + ".zip")
        parts = [
            zip_path,
            metadata_path(zip_path),
            Path(str(stem) + ".snapshots.pt"),
            Path(f"{stem}.state.json"),
        ]
        state = {
            "step": step,
            "seconds": self.seconds,
            "eval_rows": len(self.eval_rows),
            "progress_rows": None if self.progress is None else self.progress.rows,
            "snapshot_steps": list(self.snapshots.steps),
            "checkpoint": stem.name + ".zip",
        }
        text = (json.dumps(state, indent=2) + "\n").encode("utf-8")
        try:
            write_file_atomic(zip_path, model.save)
            extra = {"run": self.dir.name, "step": step, "seed": self.cfg.seed}
            save_policy_metadata(zip_path, self.rules, num_players=self.cfg.players, extra=extra)
            write_file_atomic(parts[2], self.snapshots.write)
            write_file_atomic(parts[3], lambda handle: handle.write(text))
            write_file_atomic(self.ckpt_dir / "latest.json", lambda handle: handle.write(text))
        except OSError:
            for part in parts:  # this step's files: none is left without the others
                part.unlink(missing_ok=True)
            raise
        return stem

    def record_eval(self, model: Any, step: int) -> list[dict[str, Any]]:
        """Evaluate, append to eval.csv, redraw eval_curve.png, log ``eval/``."""
        rows = evaluate_policy(model.policy, self.cfg, self.rules, step, self.seconds, trust=self.trust)
        self.eval_rows.extend(rows)
        write_eval_rows(self.eval_path, self.eval_rows)
        title = (
            f"{rules_label(self.rules)}, {self.cfg.players} players, seed {self.cfg.seed}: {self.dir.name}"
        )
        plot_eval_curve(self.eval_rows, self.dir / "eval_curve.png", title)
        for row in rows:
            key = row["opponents"].replace("/", "-").replace(":", "_")
            model.logger.record(f"eval/win_rate_vs_{key}", row["win_rate"])
            model.logger.record(f"eval/win_low_vs_{key}", row["win_low"])
            model.logger.record(f"eval/mean_rank_vs_{key}", row["mean_rank"])
            model.logger.record(f"eval/truncated_vs_{key}", row["truncated"] / max(row["games"], 1))
        for row in rows:  # the intervals after the columns above, which keep their places
            key = row["opponents"].replace("/", "-").replace(":", "_")
            truncated_low, truncated_high = wilson_interval(row["truncated"], row["games"])
            model.logger.record(f"eval/win_high_vs_{key}", row["win_high"])
            model.logger.record(f"eval/rank_low_vs_{key}", row["rank_low"])
            model.logger.record(f"eval/rank_high_vs_{key}", row["rank_high"])
            model.logger.record(f"eval/truncated_low_vs_{key}", truncated_low)
            model.logger.record(f"eval/truncated_high_vs_{key}", truncated_high)
        return rows


def make_callback(run: Run, start_step: int) -> Any:
    """The SB3 callback: charts per rollout, snapshots, evaluation + checkpoint on schedule."""
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = run.cfg

    class TrainCallback(BaseCallback):
        """Snapshots every ``snapshot_every``, evaluation + checkpoint every ``eval_every`` steps."""

        def __init__(self) -> None:
            super().__init__(verbose=0)
            self.next_eval = (start_step // cfg.eval_every + 1) * cfg.eval_every
            self.next_snapshot = (start_step // cfg.snapshot_every + 1) * cfg.snapshot_every
            self.rollout_start = time.perf_counter()
            self.rollout_steps = start_step

        def _on_step(self) -> bool:
            step = self.num_timesteps
            if cfg.snapshot_weight > 0 and step >= self.next_snapshot:
                run.snapshots.add(self.model.policy, step)
                refresh_pool(self.model.get_env(), cfg, run.snapshots)
                self.next_snapshot += cfg.snapshot_every
            # the last rollout's update comes after this callback, so its evaluation and
            # checkpoint wait for the end of learning (_learn), where they describe model.zip
            if step >= self.next_eval and step < cfg.total_steps:
                rows = run.record_eval(self.model, step)
                run.save_checkpoint(self.model, step)
                summary = ", ".join(eval_summary(r) for r in rows)
                self.model.logger.record("charts/wall_seconds", run.seconds)
                print(f"\nstep {step:,} ({run.seconds:.0f} s): {summary}", flush=True)
                self.next_eval += cfg.eval_every
            if cfg.max_minutes and run.seconds >= cfg.max_minutes * 60:
                print(
                    f"\nwall-time budget of {cfg.max_minutes:g} minutes reached at step {step:,}", flush=True
                )
                return False
            return True

        def _on_rollout_end(self) -> None:
            env: Any = self.model.get_env()
            stats = env.pop_stats() if hasattr(env, "pop_stats") else {}
            for key, value in stats.items():
                self.model.logger.record(f"charts/{key}", value)
            now = time.perf_counter()
            steps = self.num_timesteps - self.rollout_steps
            if now > self.rollout_start:
                self.model.logger.record("charts/steps_per_second", steps / (now - self.rollout_start))
            self.rollout_start, self.rollout_steps = now, self.num_timesteps
            self.model.logger.record("charts/snapshots", len(run.snapshots))

    return TrainCallback()


def new_run_dir(cfg: TrainConfig, rules: RuleSet) -> Path:
    """``runs/<rules>__<exp>__<seed>__<time>/`` (a suffix keeps two runs in one second apart)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_dir) / f"{rules_label(rules)}__{cfg.exp}__{cfg.seed}__{stamp}"
    path, k = base, 1
    while path.exists():
        path = base.with_name(f"{base.name}-{k}")
        k += 1
    return path


def train(
    cfg: TrainConfig,
    *,
    run_dir: Path | None = None,
    rules: RuleSet | None = None,
    restart: bool = False,
    trust: bool = False,
) -> Path:
    """Run ``cfg`` from scratch in a new run directory (or ``run_dir``); return that directory.

    ``rules`` replaces the rules ``cfg`` names (a resumed run's own ``rules.txt``); ``restart``
    starts an existing run directory again from step 0, its earlier log rows superseded;
    ``trust`` loads opponent checkpoints this installation did not sign.
    """
    cfg.check()
    set_torch_threads(cfg.threads)
    rules = resolve_rules(cfg.rules, cfg.overrides) if rules is None else rules
    rules.check_players(cfg.players)
    warm_up("vector")  # before the run's clock starts: --max-minutes budgets training, not compiling
    env = build_env(cfg, rules, trust=trust)  # every opponent checked before the run folder is made
    folder = run_dir or new_run_dir(cfg, rules)
    with storage_errors(folder):
        make_run_folder(folder, "training")
        with lock_folder(folder, "training"):
            check_agent_files(folder, agent_files(cfg, start=True), "training run")
            return _train(cfg, env, Run(cfg, folder, rules, trust=trust), restart=restart)


def _train(cfg: TrainConfig, env: Any, run: Run, *, restart: bool) -> Path:
    """:func:`train` in its run folder, held (:func:`training.runner.lock_folder`)."""
    with storage_errors(run.dir):
        if restart:
            run.supersede_eval_rows(0)
        run.write_header()
        print(f"run directory: {run.dir}")
        model = make_model(cfg, env)
        if cfg.init_policy:
            load_actor(model.policy, load_policy(cfg.init_policy))
        run.progress = ProgressLog(run.dir / "progress.csv", keep_rows=0 if restart else None)
        model.set_logger(make_logger(run.dir, cfg.tensorboard, run.progress))
        if cfg.snapshot_weight > 0:
            run.snapshots.add(model.policy, 0)
            refresh_pool(env, cfg, run.snapshots)
        return _learn(run, model, 0)


class RunStorageError(ValueError):
    """A training run that could not write its folder (a full disk, a read-only folder)."""


@contextlib.contextmanager
def storage_errors(run_dir: Path) -> Iterator[None]:
    """Turn a file-system error while training into one :class:`RunStorageError` line that says
    which checkpoint ``--resume`` continues from (a failed checkpoint leaves no files behind:
    :meth:`Run.save_checkpoint`)."""
    try:
        yield
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        try:
            latest = files.read_json_object(run_dir / "checkpoints" / "latest.json", "checkpoint record")
            resumes = f"the last complete checkpoint is step {int(latest['step']):,}"
        except (OSError, ValueError, KeyError, TypeError):
            resumes = "there is no complete checkpoint yet (--resume starts again from step 0)"
        raise RunStorageError(
            f"training stopped: cannot write the run folder {run_dir}: {exc.strerror or exc}{where}; "
            f"{resumes}: free space (or fix the folder) and continue with uno-env train --resume {run_dir}"
        ) from None


CHECKPOINT_NAME = re.compile(r"step_(\d{10})\.zip")
"""The file names of a run's checkpoints (``step_<N>.zip``, ``N`` on ten digits)."""


def _inside(path: Path, folder: Path, what: str) -> Path:
    """``path`` after resolving links, refused unless it lies inside ``folder``."""
    resolved = path.resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise ValueError(f"{what} {path} leads outside the run directory {folder} (to {resolved}); refused")
    return resolved


def _read_json(path: Path, what: str) -> dict[str, Any]:
    """A JSON object from a run directory's file (:func:`uno_env.files.read_json_object`)."""
    return files.read_json_object(path, what)


def resume_config(
    run_path: Path, total_steps: int | None = None, max_minutes: float | None = None
) -> tuple[TrainConfig, RuleSet]:
    """The config and rules of the run in ``run_path``, read from its own files only.

    The rules come from ``rules.txt`` (never from the rule file ``config.json`` names, which
    may have changed or lie elsewhere) and must equal the config's ``rules_string``.
    ``total_steps`` and ``max_minutes`` replace the run's own step total and wall-time budget
    (the budget counts every session's wall time, so a run stopped by its budget continues
    only with a larger one).
    """
    config_path = run_path / "config.json"
    if not config_path.is_file():
        raise ValueError(f"{run_path} is not a training run directory (no config.json)")
    data = _read_json(_inside(config_path, run_path, "config.json"), "run config")
    recorded = data.pop("rules_string", None)
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    try:
        cfg = TrainConfig(**{k: v for k, v in data.items() if k in names})
        if total_steps is not None:
            cfg.total_steps = total_steps
        if max_minutes is not None:
            cfg.max_minutes = max_minutes
        cfg.check()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{config_path}: {exc}") from None
    rules_path = _inside(run_path / "rules.txt", run_path, "rules.txt")
    try:
        rules = RuleSet.parse(files.read_text(rules_path, "run rules").strip())
    except uno_env.RuleError as exc:
        raise ValueError(f"cannot read the run's rules {rules_path}: {exc}") from None
    try:
        same = RuleSet.parse(str(recorded)) == rules
    except uno_env.RuleError:
        same = False
    if not same:
        raise ValueError(f"{rules_path} does not match the rules_string of {config_path}")
    return cfg, rules


def resume_checkpoint(run: Run, *, trust: bool = False) -> tuple[dict[str, Any], Path]:
    """The state of the run's last checkpoint and the path of its zip, after every check.

    ``checkpoints/latest.json`` must name a checkpoint of this run (``step_<N>.zip`` in
    ``checkpoints/``, no link leading elsewhere, ``N`` its step); the checkpoint's sidecar
    must record the run's rules, player count and the installed observation spec and env
    version (:class:`agents.PolicyMismatchError` otherwise); and the checkpoint must be one
    this installation signed, unless ``trust`` (:mod:`agents.trust`).
    """

    latest = run.ckpt_dir / "latest.json"
    state = _read_json(_inside(latest, run.dir, "latest.json"), "checkpoint record")
    name = state.get("checkpoint")
    match = CHECKPOINT_NAME.fullmatch(name) if isinstance(name, str) else None
    step = state.get("step")
    if match is None or isinstance(step, bool) or not isinstance(step, int) or int(match[1]) != step:
        raise ValueError(
            f"{latest}: 'checkpoint' must name a file step_<N>.zip of {run.ckpt_dir} (N: ten digits) and "
            f"'step' must be N; got checkpoint={name!r}, step={step!r}"
        )
    seconds = state.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < math.inf:
        raise ValueError(f"{latest}: 'seconds' must be a number >= 0, got {seconds!r}")
    ckpt = run.ckpt_dir / match[0]
    for part, what in ((ckpt, "checkpoint"), (metadata_path(ckpt), "sidecar")):
        if not part.is_file():
            raise ValueError(f"{latest} names {ckpt.name}, but its {what} {part} is missing")
        _inside(part, run.dir, what)
    snapshots = ckpt.with_suffix("").with_suffix(".snapshots.pt")
    if snapshots.exists():
        _inside(snapshots, run.dir, "snapshot file")
    meta = load_policy_metadata(ckpt)
    check_policy_metadata(meta, run.rules, num_players=run.cfg.players, source=f"checkpoint {ckpt}")
    check_trusted(ckpt, metadata_path(ckpt), trust=trust)

    # the snapshot file's own checks before the model is loaded (torch reads it after)
    files.check_zip_file(snapshots, "snapshot file", SNAPSHOT_LIMIT, SNAPSHOT_ZIP, error=SnapshotFileError)
    return state, ckpt


def resume(
    run_dir: str | Path,
    *,
    total_steps: int | None = None,
    max_minutes: float | None = None,
    trust: bool = False,
) -> Path:
    """Continue the run in ``run_dir`` from its last checkpoint with its own config.

    ``total_steps`` and ``max_minutes`` (0: no budget) replace the run's step total and
    wall-time budget; the new values are written to its ``config.json``, so a later resume
    keeps them. Everything is read from the run directory and checked first
    (:func:`resume_config`, :func:`resume_checkpoint`); ``trust`` loads a checkpoint this
    installation did not sign. Log rows up to the checkpoint stay; rows written after it move
    to ``*.superseded.csv``.
    """
    run_path = Path(run_dir)
    cfg, rules = resume_config(run_path, total_steps, max_minutes)
    set_torch_threads(cfg.threads)
    warm_up("vector")  # before the session's clock starts (as in train)
    # one session at a time: two would log and checkpoint over each other
    with storage_errors(run_path), lock_folder(run_path, "training"):
        run = Run(cfg, run_path, rules, trust=trust)
        started = (run.ckpt_dir / "latest.json").exists()
        # an agent file replaced since the run started: refused (a run from before the record starts it)
        check_agent_files(run_path, agent_files(cfg, start=not started), "training run")
        if not started:
            print(f"{run_path} has no checkpoint yet: starting it again from step 0")
            cfg.check()
            rules.check_players(cfg.players)
            return _train(cfg, build_env(cfg, rules, trust=trust), run, restart=True)
        return _resume(run, trust=trust)


def _resume(run: Run, *, trust: bool) -> Path:
    """:func:`resume` from the run's last checkpoint, its folder held."""
    from sb3_contrib import MaskablePPO

    cfg, rules = run.cfg, run.rules
    state, ckpt = resume_checkpoint(run, trust=trust)
    step = int(state["step"])
    with storage_errors(run.dir):
        run.supersede_eval_rows(step)
        run.seconds_before = float(state["seconds"])
        run.write_header()
        env = build_env(cfg, rules, trust=trust)
        model = MaskablePPO.load(str(ckpt), env=env, device=cfg.device)
        model.set_random_seed(cfg.seed + step)  # fresh games from here; same again on another resume
        keep = state.get("progress_rows")
        run.progress = ProgressLog(
            run.dir / "progress.csv", keep_rows=keep if isinstance(keep, int) else None
        )
        model.set_logger(make_logger(run.dir, cfg.tensorboard, run.progress))
        run.snapshots.load(ckpt.with_suffix("").with_suffix(".snapshots.pt"), lambda: _empty_policy(model))
        refresh_pool(env, cfg, run.snapshots)
        print(f"resuming {run.dir} at step {step:,} of {cfg.total_steps:,}")
        return _learn(run, model, step)


def _empty_policy(model: Any) -> Any:
    """A policy network shaped like ``model``'s (for loading snapshot weights)."""
    return model.policy_class(
        model.observation_space, model.action_space, model.lr_schedule, **model.policy_kwargs
    ).to(model.device)


def _learn(run: Run, model: Any, start_step: int) -> Path:
    cfg = run.cfg
    remaining = cfg.total_steps - start_step
    if remaining > 0 and cfg.max_minutes and run.seconds_before >= cfg.max_minutes * 60:
        # a run its budget stopped: a resume with the same budget trains no further (it used to
        # take another step and another evaluation past the budget on every resume)
        print(
            f"the wall-time budget of {cfg.max_minutes:g} minutes was spent at step {start_step:,} "
            f"({run.seconds_before:.0f} s): nothing to train; give a larger --max-minutes "
            "(or 0: none) to go on"
        )
        remaining = 0
    if remaining > 0:
        model.learn(
            remaining,
            callback=make_callback(run, start_step),
            reset_num_timesteps=start_step == 0,
            progress_bar=cfg.progress_bar,
        )
    step = int(model.num_timesteps)
    if not run.eval_rows or run.eval_rows[-1]["step"] != step:
        rows = run.record_eval(model, step)
        print(
            "final evaluation: "
            + ", ".join(
                f"vs {spelled_out(r['opponents'])} {r['win_rate']:.1%} "
                f"({r['win_low']:.1%}-{r['win_high']:.1%})"
                for r in rows
            )
        )
    model.logger.dump(step)
    run.save_checkpoint(model, step)
    if cfg.best_response:
        report = best_response_report(model.policy, cfg, run.rules, step, trust=run.trust)
        text = files.json_text(report, indent=2) + "\n"  # whole or not at all: exploitability reads it
        write_file_atomic(run.dir / BEST_RESPONSE_FILE, lambda handle: handle.write(text.encode("utf-8")))
        print(best_response_summary(report))

    write_file_atomic(run.dir / "model.zip", model.save)
    save_policy_metadata(
        run.dir / "model.zip", run.rules, num_players=cfg.players, extra={"run": run.dir.name, "step": step}
    )
    print(f"done: {step:,} steps in {run.seconds:.0f} s; final model {run.dir / 'model.zip'}")
    return run.dir


# ---------------------------------------------------------------- command line
def _add_arguments(parser: argparse.ArgumentParser) -> None:
    d = TrainConfig()
    a = parser.add_argument
    add_rule_arguments(parser, d.rules)
    a("--players", type=int, default=d.players, help=f"players per game (default: {d.players})")
    a("--exp", default=d.exp, help="experiment name in the run directory's name")
    a("--seed", type=int, default=d.seed, help="seed of torch, numpy and the games")
    a(
        "--steps",
        dest="total_steps",
        type=int,
        default=None,
        help=f"learner decisions to train for (default: {d.total_steps:,}; with --resume: the new total)",
    )
    a("--num-envs", type=int, default=d.num_envs, help="games played at once")
    a(
        "--n-steps",
        type=int,
        default=d.n_steps,
        help="rollout length per game row (batch = n_steps x num_envs)",
    )
    a("--batch-size", type=int, default=d.batch_size, help="PPO minibatch size")
    a("--n-epochs", type=int, default=d.n_epochs, help="PPO epochs per batch")
    a("--lr", dest="learning_rate", type=float, default=d.learning_rate, help="learning rate")
    a("--lr-schedule", default=d.lr_schedule, choices=["constant", "linear"], help="learning-rate schedule")
    a("--ent-coef", type=float, default=d.ent_coef, help="entropy bonus")
    a("--gamma", type=float, default=d.gamma, help="discount")
    a("--gae-lambda", type=float, default=d.gae_lambda, help="GAE lambda")
    a("--clip-range", type=float, default=d.clip_range, help="PPO clip range")
    a("--net-arch", type=int, nargs="+", default=d.net_arch, help="hidden layer widths (default: 256 256)")
    a(
        "--init-policy",
        default=d.init_policy,
        metavar="POLICY",
        help="start the actor from an exported policy (.npz or shipped name; --net-arch must match)",
    )
    a("--reward", default=d.reward, choices=["win", "rank", "score"], help="env reward")
    a(
        "--opponents",
        nargs="*",
        default=d.opponents,
        help="agent specs with optional @weight (a weighted mixture): styles (search:sims=300), shipped "
        "or exported policies (ppo_uno_2p, /abs/p.npz), checkpoints, FILE.py:NAME, MODULE:ATTR, "
        "cmd:COMMAND; a seat table 'a | b | c' (a/b/c of names) per seat; docs/agents.md#agent-specs "
        "(default: " + " ".join(d.opponents) + ")",
    )
    a(
        "--best-response",
        metavar="AGENT",
        default=d.best_response,
        help="train against this agent alone (every opponent seat) and end with the learner's win rate "
        "against it, duplicate format, 95% interval by deal (best_response.json)",
    )
    a(
        "--best-response-deals",
        type=int,
        default=d.best_response_deals,
        help="deals of the closing best-response measurement, each at every seat",
    )
    a(
        "--snapshot-weight",
        type=float,
        default=d.snapshot_weight,
        help="weight of self-play snapshots (0: none)",
    )
    a("--snapshot-every", type=int, default=d.snapshot_every, help="steps between snapshots")
    a("--snapshot-pool", type=int, default=d.snapshot_pool, help="most recent snapshots kept")
    a("--snapshot-argmax", dest="snapshot_sample", action="store_false", help="snapshots play arg-max")
    a("--eval-every", type=int, default=d.eval_every, help="steps between evaluations + checkpoints")
    a("--eval-games", type=int, default=d.eval_games, help="games per evaluation opponent")
    a("--eval-opponents", nargs="+", default=d.eval_opponents, help="evaluation opponent sets")
    a(
        "--max-minutes",
        type=float,
        default=None,
        help="wall-time budget in minutes, every session of the run counted (default: 0, no budget; "
        "with --resume: the new budget)",
    )
    a("--threads", type=int, default=d.threads, help="torch threads (default: 1)")
    a("--runs-dir", default=d.runs_dir, help="parent of run directories (default: runs)")
    a("--no-progress", dest="progress_bar", action="store_false", help="no progress bar")
    a("--no-tensorboard", dest="tensorboard", action="store_false", help="no TensorBoard logs")
    a(
        "--resume",
        metavar="RUN_DIR",
        help="continue this run from its last checkpoint with its own config (only --steps, "
        "--max-minutes and --trust-checkpoint may be given with it)",
    )
    add_trust_argument(parser)


RESUME_OPTIONS = ("resume", "total_steps", "max_minutes", "trust_checkpoint")
"""The options ``uno-env train --resume`` takes: a run continues with its own config."""


def options_ignored_on_resume(args: argparse.Namespace) -> list[str]:
    """The command-line options of ``args`` set away from their defaults that a resumed run
    would not use (every option but :data:`RESUME_OPTIONS`), by their long names."""
    parser = argparse.ArgumentParser(add_help=False)
    _add_arguments(parser)
    on_command_line = given_options(args, _add_arguments)  # --seed 0 as well as --seed 5
    given = []
    for action in parser._actions:
        if action.dest in RESUME_OPTIONS or not action.option_strings:
            continue
        if action.dest in on_command_line or getattr(args, action.dest, action.default) != action.default:
            given.append(action.option_strings[-1])
    return given


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The :class:`TrainConfig` of parsed arguments."""
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in vars(args).items() if k in names and v is not None})


def run_cli(args: argparse.Namespace) -> int:
    """Run ``uno-env train`` from parsed arguments."""

    require(
        "train",
        {"train": EXTRA_MODULES["train"]},
        resume_dir=args.resume,
        keeps="a training run saves checkpoints in its run folder as it goes; "
        "uno-env train --resume DIR continues from the last one",
    )
    if args.resume:
        ignored = options_ignored_on_resume(args)
        if ignored:
            raise ValueError(
                f"--resume continues a run with its own config: it takes only --steps, --max-minutes and "
                f"--trust-checkpoint, not {', '.join(ignored)} (a new run takes every option)"
            )
        steps, minutes = args.total_steps, args.max_minutes
        resume(args.resume, total_steps=steps, max_minutes=minutes, trust=args.trust_checkpoint)
    else:
        check_player_count(resolve_rules(args.rules, args.overrides), args.players)
        cfg = config_from_args(args)
        if cfg.best_response and args.eval_opponents == TrainConfig().eval_opponents:
            cfg.eval_opponents = [cfg.best_response]  # the periodic evaluation follows the agent too
        train(cfg, trust=args.trust_checkpoint)
    return 0


COMMAND = Subcommand("train", "train MaskablePPO against an opponent pool", _add_arguments, run_cli)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

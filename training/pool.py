"""The opponent pool of MaskablePPO training on the native vector env.

One :class:`uno_env.VectorEnv` runs every game; its :class:`uno_env.envs.vector.OpponentPool`
seats each new game at one *table* of opponents, picked with the tables' weights from the
game's seed (so the same seeds meet the same tables):

- **agent tables**: any agent of the agent-spec grammar (:mod:`agents.spec`) at every
  opponent seat, or a seat table (``a | b | c``, or ``a/b/c`` of names) naming the seats 1,
  2, 3 places clockwise from the learner; weight from ``SPEC@WEIGHT`` (default 1). Compiled
  play styles (``random``, ``blocker``, ``search:sims=300``) play inside the compiled step;
  exported policies (a shipped name such as ``ppo_uno_2p``, or an ``.npz`` path) and
  MaskablePPO checkpoints one batched forward pass for every game waiting on them; Python,
  out-of-process and chat-model agents, and searches guided by a network
  (``search:net=NAME``), are asked game by game with their view
  (:class:`uno_env.envs.vector.VectorEnv`'s external opponents);
- **snapshot tables**: one per frozen snapshot of the learner (fictitious self-play,
  :mod:`training.snapshots`), a batch policy the vector env asks for all games waiting on
  it at once (batched inference). The snapshot weight is split equally between the
  snapshots kept, so a snapshot game meets each of them with the same probability.

The share of games at a table is its weight over the total weight. :class:`PoolVecEnv` is
the SB3 adapter of :mod:`uno_env.envs.sb3` plus per-table outcome counts for the
``charts/`` metrics.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.spec import AgentLike, AgentSpec, as_spec, parse_weighted, split_seats
from uno_env.engine.rules import RuleSet
from uno_env.envs.sb3 import SB3VecEnv
from uno_env.envs.vector import OpponentPool, VectorEnv
from uno_env.sim.learned import load_policy
from uno_env.stats import wilson_interval

from .common import load_checkpoint_actor

_LOADED: dict[tuple[str, str, str, int, bool, bool], Any] = {}
"""Batch policies of exported policies and checkpoints, loaded and checked once per process and game."""


class ExportedBatchPolicy:
    """An exported policy as a batch policy: one NumPy forward pass over the waiting games,
    the legal action with the highest logit (ties: the lowest id), as
    :meth:`uno_env.sim.learned.ExportedPolicy.act` plays one game."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action in every row."""
        logits = np.where(np.asarray(masks, dtype=bool), self.policy.logits(obs), -np.inf)
        return np.argmax(logits, axis=1).astype(np.int64)

    def check_game(
        self, rules: Any, num_players: int | None = None, allow_rules_mismatch: bool = False
    ) -> None:
        """The policy's :meth:`~uno_env.sim.learned.ExportedPolicy.check_game` (envs seating it call it)."""
        self.policy.check_game(rules, num_players, allow_rules_mismatch=allow_rules_mismatch)

    def __repr__(self) -> str:
        return f"exported policy {self.policy.name!r}"


def vector_opponent(
    spec: AgentLike,
    rules: RuleSet,
    players: int,
    *,
    trust: bool = False,
    seed: int | None = None,
    allow_rules_mismatch: bool = False,
) -> Any:
    """What a :class:`uno_env.VectorEnv` seats for one agent: a compiled style's text, a batch
    policy (exported policies, checkpoints; each loaded once per process) or the agent object
    itself (Python, out-of-process and chat-model agents).

    An exported policy, or a search's guide network, is checked against the rules and player
    count (unless ``allow_rules_mismatch``: a transfer, the same deck family); a checkpoint's
    sidecar too, and it must be signed by this installation unless ``trust``.
    """
    if isinstance(spec, ExportedBatchPolicy):  # already loaded and checked by the caller
        return spec
    agent = as_spec(spec)
    if agent.kind == "style":
        if agent.networks:  # a network-guided search plays at a Game: asked in Python
            agent.check_networks(rules, players, allow_rules_mismatch=allow_rules_mismatch)
            return agent.make(rules, players, seed, trust=trust)
        return agent.target
    # checked against these rules once: the cache is keyed by what the check read
    key = (agent.kind, agent.target, str(rules), players, trust, allow_rules_mismatch)
    if agent.kind == "policy":
        loaded = _LOADED.get(key)
        if loaded is None:
            policy = load_policy(agent.target)
            policy.check_game(rules, players, allow_rules_mismatch=allow_rules_mismatch)
            loaded = _LOADED[key] = ExportedBatchPolicy(policy)
        return loaded
    if agent.kind == "checkpoint":
        loaded = _LOADED.get(key)
        if loaded is None:
            loaded = load_checkpoint_actor(
                agent.target, rules, players, trust=trust, log=lambda _: None,
                allow_rules_mismatch=allow_rules_mismatch,
            )  # fmt: skip
            _LOADED[key] = loaded
        return loaded
    return agent.make(rules, players, seed, trust=trust)


def table_entries(
    table: AgentLike | Sequence[AgentLike],
    rules: RuleSet,
    players: int,
    *,
    trust: bool = False,
    seed: int = 0,
) -> tuple[list[Any], str]:
    """The vector-env entries of one opponent table (one spec for every seat, or a seat
    table) and its label."""
    if isinstance(table, str):
        specs: list[AgentSpec] = split_seats(table)
    elif isinstance(table, Sequence):
        specs = [as_spec(t) for t in table]
    else:
        specs = [as_spec(table)]
    if len(specs) == 1:
        specs = specs * (players - 1)
    if len(specs) != players - 1:
        raise ValueError(
            f"an opponent table lists {len(specs)} entries; {players} players need {players - 1} "
            "(entry k sits k seats clockwise from the learner), or one agent for every seat"
        )
    entries = [  # a Python agent per seat: its state is its own
        vector_opponent(spec, rules, players, trust=trust, seed=seed * 16 + k + 1)
        for k, spec in enumerate(specs)
    ]
    label = "-".join(dict.fromkeys(s.label for s in specs)) if len(set(specs)) > 1 else specs[0].label
    return entries, label


def opponent_label(text: str) -> str:
    """An opponent entry as a metric key (no slashes, colons or spaces)."""
    return re.sub(r"[^A-Za-z0-9_.=,-]+", "_", text).strip("_")


BuiltTable = tuple[list[Any], float, str]
"""An opponent table ready for the vector env: its entries (one per opponent seat), weight, label."""


def build_tables(
    entries: Sequence[tuple[AgentLike | Sequence[AgentLike], float]],
    rules: RuleSet,
    players: int,
    *,
    trust: bool = False,
) -> list[BuiltTable]:
    """Every ``(table, weight)`` of a pool made ready once: agents loaded, Python agents built
    (one per seat), so a pool refreshed with new snapshots keeps the same agent objects."""
    built = []
    for t, (table, weight) in enumerate(entries):
        seats, label = table_entries(table, rules, players, trust=trust, seed=t)
        built.append((seats, weight, opponent_label(label)))
    return built


def pool_of(
    built: Sequence[BuiltTable], snapshots: Sequence[Any], snapshot_weight: float
) -> tuple[OpponentPool, list[str]]:
    """The :class:`OpponentPool` of built tables and snapshots, and a label per table. The
    snapshot weight is split equally between the snapshots kept."""
    tables: list[Any] = [seats for seats, _, _ in built]
    weights: list[float] = [weight for _, weight, _ in built]
    labels: list[str] = [label for _, _, label in built]
    if snapshot_weight > 0:
        for actor in snapshots:
            tables.append(actor)
            weights.append(snapshot_weight / len(snapshots))
            labels.append("snapshots")
    if not tables or sum(weights) <= 0:
        raise ValueError("the opponent pool is empty: give agents with positive weights or snapshots")
    return OpponentPool(tables, weights), labels


def pool_tables(
    styles: Sequence[tuple[str, float]], snapshots: Sequence[Any], snapshot_weight: float
) -> tuple[OpponentPool, list[str]]:
    """The :class:`OpponentPool` of compiled style tables (``name`` or ``a/b/c``) and
    snapshots, and a label per table (:func:`build_tables` and :func:`pool_of` take any agent)."""
    built = [
        (name.split("/") if "/" in name else [name], weight, opponent_label(name)) for name, weight in styles
    ]
    return pool_of(built, snapshots, snapshot_weight)


def parse_pool(entries: Sequence[str], *, where: str = "--opponents") -> list[tuple[str, float]]:
    """``SPEC@WEIGHT`` entries as ``(spec text, weight)``, each spec checked (one agent or a seat table)."""
    out = []
    for entry in entries:
        text, weight = parse_weighted(entry, where=where)
        split_seats(text, where=f"{where} {entry!r}")
        out.append((text, weight))
    return out


class PoolVecEnv(SB3VecEnv):
    """The vector env as an SB3 ``VecEnv`` that counts outcomes per opponent label."""

    def __init__(self, venv: VectorEnv, labels: Sequence[str]) -> None:
        super().__init__(venv)
        self.labels = list(labels)
        self.built_tables: list[BuiltTable] = []
        """The agent tables of the pool (:func:`build_tables`), reused when snapshots join."""
        self._outcomes: dict[str, list[float]] = {}
        self._wins: dict[str, int] = {}
        self._lengths: list[int] = []
        self._steps = np.zeros(venv.num_envs, dtype=np.int64)

    def set_pool(self, pool: OpponentPool, labels: Sequence[str]) -> None:
        """New tables for the games dealt from now on (labels: one per table)."""
        self.venv.set_opponents(pool)
        self.labels = list(labels)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game (see :class:`SB3VecEnv`) and count the finished games per table."""
        tables = self.venv.table_index  # the tables of the games in progress
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        out = self._infos(terminated, truncated, infos)
        self._steps += 1
        if dones.any():
            for i in np.flatnonzero(dones):
                t = int(tables[i])
                label = self.labels[t] if t < len(self.labels) else "snapshots"
                self._outcomes.setdefault(label, []).append(float(rewards[i]))
                self._wins[label] = self._wins.get(label, 0) + int(terminated[i] and rewards[i] > 0)
                self._lengths.append(int(self._steps[i]))
                self._steps[i] = 0
        return obs, rewards.astype(np.float32), dones, out

    def pop_stats(self) -> dict[str, float]:
        """Since the last call: games, win rate (reward > 0) with its 95% Wilson interval, mean
        reward and length, per label too."""
        stats: dict[str, float] = {}
        games = sum(len(v) for v in self._outcomes.values())
        if games:
            stats["games"] = float(games)
            stats["win_rate"] = sum(self._wins.values()) / games
            stats["episode_reward"] = float(np.mean([r for v in self._outcomes.values() for r in v]))
            stats["episode_length"] = float(np.mean(self._lengths))
        for label, values in self._outcomes.items():
            stats[f"win_rate_vs_{label}"] = self._wins[label] / len(values)
            stats[f"reward_vs_{label}"] = float(np.mean(values))
        # the win rates' 95% Wilson intervals after the keys above, which keep their places in
        # progress.csv (every game is dealt from its own seed: independent games)
        if games:
            stats["win_low"], stats["win_high"] = wilson_interval(sum(self._wins.values()), games)
        for label, values in self._outcomes.items():
            low, high = wilson_interval(self._wins[label], len(values))
            stats[f"win_low_vs_{label}"], stats[f"win_high_vs_{label}"] = low, high
        self._outcomes.clear()
        self._wins.clear()
        self._lengths.clear()
        return stats

"""The opponent pool of MaskablePPO training on the native vector env.

One :class:`uno_env.VectorEnv` runs every game; its :class:`uno_env.envs.vector.OpponentPool`
seats each new game at one *table* of opponents, picked with the tables' weights from the
game's seed (so the same seeds meet the same tables):

- **style tables**: a compiled play style (``random``, ``blocker``, ``bluffer:bluff=0.3``) at
  every opponent seat, or ``a/b/c`` naming the seats 1, 2, 3 places clockwise from the
  learner, played inside the compiled step; weight from ``STYLE@WEIGHT`` (default 1);
- **snapshot tables**: one per frozen snapshot of the learner (fictitious self-play,
  :mod:`training.snapshots`), a batch policy the vector env asks for all games waiting on
  it at once (batched inference). The snapshot weight is split equally between the
  snapshots kept, so a snapshot game meets each of them with the same probability.

The share of games at a table is its weight over the total weight. :class:`PoolVecEnv` is
the SB3 adapter of :mod:`uno_env.envs.sb3` plus per-table outcome counts for the
``charts/`` metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from uno_env.envs.sb3 import SB3VecEnv
from uno_env.envs.vector import OpponentPool, VectorEnv


def pool_tables(
    styles: Sequence[tuple[str, float]], snapshots: Sequence[Any], snapshot_weight: float
) -> tuple[OpponentPool, list[str]]:
    """The :class:`OpponentPool` of the styles and snapshots, and a label per table."""
    tables: list[Any] = []
    weights: list[float] = []
    labels: list[str] = []
    for name, weight in styles:
        tables.append(name.split("/") if "/" in name else name)
        weights.append(weight)
        labels.append(name.replace("/", "-").replace(":", "_"))
    if snapshot_weight > 0:
        for actor in snapshots:
            tables.append(actor)
            weights.append(snapshot_weight / len(snapshots))
            labels.append("snapshots")
    if not tables or sum(weights) <= 0:
        raise ValueError("the opponent pool is empty: give styles with positive weights or snapshots")
    return OpponentPool(tables, weights), labels


class PoolVecEnv(SB3VecEnv):
    """The vector env as an SB3 ``VecEnv`` that counts outcomes per opponent label."""

    def __init__(self, venv: VectorEnv, labels: Sequence[str]) -> None:
        super().__init__(venv)
        self.labels = list(labels)
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
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._steps += 1
        if dones.any():
            final = infos["final_obs"]
            for i in np.flatnonzero(dones):
                out[i]["terminal_observation"] = final[i]
                out[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                t = int(tables[i])
                label = self.labels[t] if t < len(self.labels) else "snapshots"
                self._outcomes.setdefault(label, []).append(float(rewards[i]))
                self._wins[label] = self._wins.get(label, 0) + int(terminated[i] and rewards[i] > 0)
                self._lengths.append(int(self._steps[i]))
                self._steps[i] = 0
        return obs, rewards.astype(np.float32), dones, out

    def pop_stats(self) -> dict[str, float]:
        """Since the last call: games, win rate (reward > 0), mean reward and length, per label too."""
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
        self._outcomes.clear()
        self._wins.clear()
        self._lengths.clear()
        return stats

"""The self-play wrapper of the PettingZoo AEC env (see :mod:`training.selfplay`).

:class:`SelfPlayEnv` shows one seat of a :func:`uno_env.env` game as a Gymnasium env with
``action_masks()`` for MaskablePPO; every other seat is played by an ``opponent`` callable
(the current policy during self-play training).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import uno_env
from uno_env.engine.rules import RuleSet
from uno_env.envs import core

Opponent = Callable[[np.ndarray, np.ndarray], int]
"""``(observation, action_mask) -> action`` for the seats other than the learner's."""


class SelfPlayEnv(gym.Env[np.ndarray, np.int64]):
    """One seat of an AEC game as a Gymnasium env; the other seats are played by ``opponent``.

    ``opponent(observation, mask) -> action`` is called for every decision of another seat
    (set it with :meth:`set_opponent`; the training loop passes the current policy). The
    learner's seat is ``game_seed % players``; the reward is the AEC env's final reward of
    that seat. ``reset(seed=s)`` deals like ``uno_env.Game(rules, n, seed=s)``; later resets
    deal the next seeds of :func:`uno_env.envs.core.next_seed`.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's class attribute)

    def __init__(
        self, rules: RuleSet | str | Path = "uno", num_players: int = 4, *, reward: str = "win"
    ) -> None:
        super().__init__()
        self.aec = uno_env.env(rules, num_players, reward=reward)
        agent = self.aec.possible_agents[0]
        space: Any = self.aec.observation_space(agent)
        self.observation_space = space["observation"]
        self.action_space = self.aec.action_space(agent)
        self.num_players = num_players
        self.opponent: Opponent | None = None
        self.learner = self.aec.possible_agents[0]
        self._seed: int | None = None

    def set_opponent(self, opponent: Opponent) -> None:
        """Who plays the other seats (the current policy during training)."""
        self.opponent = opponent

    def _play_others(self) -> None:
        """Let the other seats move until the learner decides or the game ends."""
        aec = self.aec
        while (
            aec.agents and aec.agent_selection != self.learner and not aec.terminations[aec.agent_selection]
        ):
            if aec.truncations[aec.agent_selection]:
                return
            if self.opponent is None:
                raise RuntimeError("SelfPlayEnv has no opponent: call set_opponent(policy) first")
            obs = aec.observe(aec.agent_selection)
            aec.step(self.opponent(obs["observation"], obs["action_mask"]))

    def _over(self) -> bool:
        return bool(self.aec.terminations[self.learner] or self.aec.truncations[self.learner])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal the next game (a game that ends before the learner decides is skipped)."""

        super().reset(seed=seed)
        if seed is not None:
            game_seed = int(seed)
        elif self._seed is not None:
            game_seed = core.next_seed(self._seed)
        else:
            game_seed = int(self.np_random.integers(0, 2**62))
        while True:
            self._seed = game_seed
            self.aec.reset(seed=game_seed)
            self.learner = self.aec.possible_agents[game_seed % self.num_players]
            self._play_others()
            if not self._over():
                break
            game_seed = core.next_seed(game_seed)
        return self.aec.observe(self.learner)["observation"], {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner's decision, then the other seats' until the learner decides again."""
        self.aec.step(int(action))
        self._play_others()
        obs = self.aec.observe(self.learner)["observation"]
        if self._over():
            reward = float(self.aec._cumulative_rewards[self.learner])
            truncated = bool(self.aec.truncations[self.learner] and not self.aec.terminations[self.learner])
            return obs, reward, not truncated, truncated, {}
        return obs, 0.0, False, False, {}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (what MaskablePPO asks for)."""
        return self.aec.observe(self.learner)["action_mask"].astype(bool)

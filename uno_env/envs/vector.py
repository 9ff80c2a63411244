"""The native vector environment: N games stepped in lockstep inside one compiled call.

``VectorEnv(num_envs=256, rules="uno", num_players=4, opponents="random", seat=0)`` is a
``gymnasium.vector.VectorEnv`` of single-agent games (one learner seat per game, as in
:class:`~uno_env.envs.single.SingleAgentEnv`). One :meth:`VectorEnv.step` is one compiled
call that, for every game, applies the learner's action, plays the opponents' moves with
compiled policies (texts of :data:`uno_env.batch.POLICIES` such as ``"random"`` or
``"bluffer:bluff=0.3"``, computed by :func:`uno_env.batch.choose_action` inside the loop),
auto-resets finished games and writes observations and masks into preallocated arrays.
:meth:`VectorEnv.action_masks` gives the legal actions of every game;
:meth:`VectorEnv.to_sb3` wraps the same games as a Stable-Baselines3 ``VecEnv`` for
sb3-contrib's MaskablePPO.

Auto-reset is *same-step* (``metadata["autoreset_mode"]``): when game ``i`` ends, the step
returns the first observation of the next game in row ``i`` and puts the last observation
of the finished game in ``infos["final_obs"][i]`` (SB3: ``infos[i]["terminal_observation"]``).

Seeds: ``reset(seed=s)`` deals game ``i`` from seed ``s + i`` (or ``seed=[s0, s1, ...]``
one seed per game); each later game of row ``i`` is dealt from
:func:`uno_env.envs.core.next_seed` of the previous one, exactly as a
:class:`SingleAgentEnv` reset with the same first seed and driven by the same learner
actions plays, game for game.

Observations are written into preallocated arrays. With ``copy=True`` (the default) each
call returns a copy. With ``copy=False`` it returns one of two preallocated buffers, used
in turn: an observation stays valid through the next step (what a training loop that keeps
``obs`` and ``next_obs`` needs, as Stable-Baselines3 does) and is overwritten by the step
after that; keep a copy to hold it longer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from .. import actions
from .. import layout as L
from ..batch import NUM_POLICY_PARAMS, policy_table
from ..game import IllegalActionError
from ..position import format_position
from ..rules import RuleSet, compile_spec, load_rules
from . import core
from .common import check_choice, check_seed
from .encoding import obs_layout
from .registration import ENV_VERSION


class VectorEnv(gym.vector.VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """N single-agent games against compiled opponents, stepped in compiled code."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (Gymnasium's class attribute)
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
        "name": f"uno_env_vector_v{ENV_VERSION}",
    }

    def __init__(
        self,
        num_envs: int = 256,
        rules: RuleSet | str | Path = "uno",
        num_players: int = 4,
        opponents: str | Sequence[str] = "random",
        seat: int | None = 0,
        *,
        reward: str = "win",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        copy: bool = True,
        **rule_overrides: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rules = load_rules(rules, **rule_overrides)
        self.rules.check_players(num_players)
        if seat is not None and (isinstance(seat, bool) or not 0 <= seat < num_players):
            raise ValueError(f"seat must be None (rotating) or a seat 0..{num_players - 1}, got {seat!r}")
        self.num_envs = int(num_envs)
        self.num_players = int(num_players)
        self.seat = seat
        self.copy = copy
        self.render_mode = None
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self._reward_code = check_choice("reward", reward, core.REWARDS)
        self._illegal_code = check_choice("illegal_action", illegal_action, core.ILLEGAL_ACTIONS)
        self.illegal_reward = float(illegal_reward)
        self.deck = self.rules.deck_family
        names = [opponents] * (num_players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != num_players - 1:
            raise ValueError(
                f"opponents lists {len(names)} names; {num_players} players need {num_players - 1} "
                "(entry k-1 sits k seats clockwise from the learner)"
            )
        for name in names:
            if not isinstance(name, str):
                raise TypeError(
                    f"the vector env plays compiled opponents only (policy names such as 'random'), "
                    f"got {name!r}; use SingleAgentEnv for Python opponents"
                )
        codes, params = policy_table(names)  # ValueError names the valid styles
        self.opponents = names
        self._template = np.full(L.MAX_PLAYERS - 1, core.EXTERNAL, dtype=np.int64)
        self._template[: num_players - 1] = codes
        self._template_params = np.full((L.MAX_PLAYERS - 1, NUM_POLICY_PARAMS), -1, dtype=np.int64)
        self._template_params[: num_players - 1] = params
        self._seat_mode = -1 if seat is None else int(seat)
        self._spec = compile_spec(self.rules)
        self._deck_counts = self.rules.deck_counts(num_players)
        self._layout = obs_layout(self.deck)
        self._offsets = self._layout.offsets
        self._num_actions = self.rules.num_actions
        size = self._layout.size
        n = self.num_envs
        self.single_observation_space = spaces.Box(self._layout.low, self._layout.high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self._num_actions)
        self.observation_space = spaces.Box(
            np.broadcast_to(self._layout.low, (n, size)),
            np.broadcast_to(self._layout.high, (n, size)),
            dtype=np.float32,
        )
        self.action_space = spaces.MultiDiscrete(np.full(n, self._num_actions, dtype=np.int64))
        self._states = np.zeros((n, L.STATE_SIZE), dtype=np.int64)
        self._masks = np.zeros((n, L.MAX_ACTIONS), dtype=np.int8)
        self._seats = np.full((n, L.MAX_PLAYERS), core.EXTERNAL - 1, dtype=np.int64)
        self._params = np.full((n, L.MAX_PLAYERS, NUM_POLICY_PARAMS), -1, dtype=np.int64)
        self._learners = np.zeros(n, dtype=np.int64)
        self._seeds = np.zeros(n, dtype=np.int64)
        self._buffers = (np.zeros((n, size), dtype=np.float32), np.zeros((n, size), dtype=np.float32))
        self._turn = 0
        self._obs = self._buffers[0]
        self._out_masks = np.zeros((n, self._num_actions), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._illegal = np.zeros(n, dtype=np.bool_)
        self._final_obs = np.zeros((n, size), dtype=np.float32)
        self._actions = np.zeros(n, dtype=np.int64)
        self._has_reset = False

    # ------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game (see the module docstring for seeds); return observations and infos."""
        if seed is None:
            if self._has_reset:
                seeds = [core.next_seed(int(s)) for s in self._seeds]
            else:
                self._np_random, _ = gym.utils.seeding.np_random(None)
                base = int(self._np_random.integers(0, 2**63 - self.num_envs))
                seeds = [base + i for i in range(self.num_envs)]
        elif isinstance(seed, (int, np.integer)):
            first = check_seed(seed)
            if first + self.num_envs > 2**63:
                raise ValueError(f"seed + num_envs must stay below 2**63, got seed {seed}")
            seeds = [first + i for i in range(self.num_envs)]
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random(first)
        else:
            seeds = [check_seed(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} games")
        self._seeds[:] = seeds
        self._next_buffer()
        core.vector_reset(
            self._states,
            self._spec,
            self._masks,
            self._seats,
            self._params,
            self._learners,
            self._template,
            self._template_params,
            self._seat_mode,
            self._seeds,
            self.num_players,
            self._deck_counts,
            self._offsets,
            self._obs,
            self._out_masks,
        )
        self._has_reset = True
        return self._observations(), {"action_mask": self._out_masks.copy()}

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game with the learners' actions; finished games restart in the same step."""
        if not self._has_reset:
            raise RuntimeError("reset() needs to be called before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} integer action ids (shape ({self.num_envs},)), "
                f"got {acts.dtype} array of shape {acts.shape}"
            )
        self._actions[:] = acts
        self._next_buffer()
        failed = core.vector_step(
            self._states,
            self._spec,
            self._masks,
            self._seats,
            self._params,
            self._learners,
            self._template,
            self._template_params,
            self._seat_mode,
            self._seeds,
            self.num_players,
            self._deck_counts,
            self._actions,
            self._offsets,
            self._obs,
            self._out_masks,
            self._rewards,
            self._terminated,
            self._truncated,
            self._illegal,
            self._final_obs,
            self._reward_code,
            self._illegal_code,
            self.illegal_reward,
        )
        if failed >= 0:
            raise self._illegal_error(failed)
        infos: dict[str, Any] = {"action_mask": self._out_masks.copy()}
        done = self._terminated | self._truncated
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(done):
                final_obs[i] = self._final_obs[i].copy()
            infos["final_obs"] = final_obs
            infos["_final_obs"] = done.copy()
            infos["final_info"] = {"illegal_action": self._illegal & done, "_illegal_action": done.copy()}
            infos["_final_info"] = done.copy()
        if self._illegal.any():
            infos["illegal_action"] = self._illegal.copy()
            infos["_illegal_action"] = self._illegal.copy()
        return (
            self._observations(),
            self._rewards.copy(),
            self._terminated.copy(),
            self._truncated.copy(),
            infos,
        )

    def _next_buffer(self) -> None:
        """Write the coming observations into the other buffer (see ``copy``)."""
        self._turn ^= 1
        self._obs = self._buffers[self._turn]

    def _observations(self) -> np.ndarray:
        return self._obs.copy() if self.copy else self._obs

    def _illegal_error(self, i: int) -> IllegalActionError:
        action = int(self._actions[i])
        legal = [int(a) for a in np.flatnonzero(self._out_masks[i])]
        position = format_position(self._states[i], self._spec, self.deck)
        what = actions.format_action(action, self.deck) if 0 <= action < self._num_actions else "out of range"
        return IllegalActionError(
            f"game {i}: illegal action {action} ({what}) for the learner at seat {int(self._learners[i])}; "
            f"legal actions: {', '.join(f'{a}={actions.format_action(a, self.deck)}' for a in legal)}; "
            f"position: {position}",
            action,
            legal,
            position,
        )

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action masks of every game's learner, shape ``(num_envs, num_actions)``."""
        return self._out_masks.astype(bool)

    # ------------------------------------------------------------ inspection
    @property
    def game_seeds(self) -> np.ndarray:
        """Seed of the game in each row (a copy)."""
        return self._seeds.copy()

    @property
    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each row's game (a copy)."""
        return self._learners.copy()

    def position(self, i: int) -> str:
        """Game ``i`` in position notation (see :mod:`uno_env.position`)."""
        return format_position(self._states[i], self._spec, self.deck)

    def to_sb3(self) -> Any:
        """These games as a Stable-Baselines3 ``VecEnv`` (needs stable-baselines3)."""
        from .sb3 import SB3VecEnv

        return SB3VecEnv(self)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

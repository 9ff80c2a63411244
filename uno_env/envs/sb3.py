"""The native vector env as a Stable-Baselines3 ``VecEnv`` (imported only when asked for).

``VectorEnv(...).to_sb3()`` (or ``SB3VecEnv(VectorEnv(...))``) exposes the same compiled
games through SB3's interface (with the vector env's ``copy=False`` buffers, valid for the
one step SB3 keeps an observation): ``reset() -> obs``, ``step_async``/``step_wait`` returning
``(obs, rewards, dones, infos)`` with ``infos[i]["terminal_observation"]`` and
``infos[i]["TimeLimit.truncated"]`` for finished games, beside the finished game's
``illegal_action``, ``decision_limit`` (cut by E-END-1), ``step_limit``, ``decisions`` and
``turns`` (the vector env's ``final_info``: what ``VecMonitor(venv, info_keywords=...)`` and
callbacks read), ``infos[i]["illegal_action"]`` also for a game that goes on after an illegal
action (``illegal_action="draw_penalty"``, U-WRONG-1), and ``env_method("action_masks")``
for sb3-contrib's MaskablePPO. With ``VectorEnv(..., public_views=True)`` each game's public
view is ``public_view(i)`` or ``env_method("public_view", indices=...)`` (one view per index).
``env_method("position")``, ``get_attr("game_seed")`` and ``get_attr("learner_seat")`` are per
game too, as SB3's ``DummyVecEnv`` over :class:`~uno_env.envs.single.SingleAgentEnv` gives them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

if TYPE_CHECKING:
    from ..styles.view import PublicView
    from .vector import VectorEnv


_PER_GAME_METHODS = ("public_view", "position")
"""Methods of the vector env that take a game's index, called once per index."""

_PER_GAME_ATTRIBUTES = {"game_seed": "game_seeds", "learner_seat": "learner_seats"}
"""SingleAgentEnv's per-game attribute names and the vector env's arrays that hold them."""

_FINAL_INFO_KEYS = ("illegal_action", "decision_limit", "step_limit", "decisions", "turns")
"""What the vector env's ``final_info`` says of a finished game, copied into its SB3 info (the
first two are keys of :class:`~uno_env.envs.single.SingleAgentEnv`'s info too)."""


class SB3VecEnv(VecEnv):
    """A :class:`~uno_env.envs.vector.VectorEnv` behind SB3's ``VecEnv`` interface."""

    def __init__(self, venv: VectorEnv) -> None:
        venv.copy = False  # two alternating buffers: SB3 keeps one observation across a step
        self.venv = venv
        self.render_mode = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions = np.zeros(venv.num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        """Deal every game (from the seed given to :meth:`seed`, if any). Options given to
        ``set_options`` are passed on to the vector env's ``reset``, which takes none (a
        ``ValueError`` names them)."""
        options = next((o for o in self._options if o), None)
        seeds = [s for s in self._seeds if s is not None]
        if len(seeds) == self.num_envs:  # VecEnv.seed(s) gave game i the seed s + i
            obs, _ = self.venv.reset(seed=[int(s) for s in seeds], options=options)
        else:
            obs, _ = self.venv.reset(options=options)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Remember the actions of the next :meth:`step_wait`: one integer id per game (a
        ``(num_envs, 1)`` array is flattened); the vector env's step refuses anything else."""
        given = np.array(actions)  # a copy: the caller may reuse its array before step_wait
        # not cast here: casting floats to the int64 buffer played 26.9 as 26 without a word
        self._actions = given.reshape(self.num_envs) if given.size == self.num_envs else given

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game; finished games restart at once (their last view in the infos)."""
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        out = self._infos(terminated, truncated, infos)
        return obs, rewards.astype(np.float32), terminated | truncated, out

    def _infos(
        self, terminated: np.ndarray, truncated: np.ndarray, infos: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """SB3's per-game infos of a vector env step: a finished game's last view, whether it was
        cut by a step limit (SB3 bootstraps it), and its ``final_info``; an illegal action."""
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "illegal_action" in infos:  # a game that goes on after it (U-WRONG-1) is flagged too
            for i in np.flatnonzero(infos["illegal_action"]):
                out[i]["illegal_action"] = np.bool_(True)
        if "final_obs" in infos:
            final = infos["final_obs"]
            final_info = infos["final_info"]
            for i in np.flatnonzero(terminated | truncated):
                out[i]["terminal_observation"] = final[i]
                out[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                for key in _FINAL_INFO_KEYS:
                    out[i][key] = final_info[key][i]
        return out

    def close(self) -> None:
        """Close the underlying vector env."""
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action masks, shape ``(num_envs, num_actions)``."""
        return self.venv.action_masks()

    def public_view(self, i: int) -> PublicView:
        """Game ``i``'s public view for its learner (the vector env's
        :meth:`~uno_env.envs.vector.VectorEnv.public_view`; needs ``public_views=True``)."""
        return self.venv.public_view(i)

    # ------------------------------------------------------------ attribute plumbing
    def _indices(self, indices: int | Iterable[int] | None) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
        """An attribute once per index: ``game_seed`` and ``learner_seat`` (the names of
        :class:`~uno_env.envs.single.SingleAgentEnv`) are each game's own; any other attribute
        of the vector env is shared by all of them."""
        idx = self._indices(indices)
        per_game = _PER_GAME_ATTRIBUTES.get(attr_name)
        if per_game is not None:
            values = getattr(self.venv, per_game)
            return [int(values[i]) for i in idx]
        value = getattr(self.venv, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None) -> None:
        """Set an attribute of the vector env (shared by every game)."""
        setattr(self.venv, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: int | Iterable[int] | None = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks``, ``public_view`` and ``position`` per game (the first is what
        MaskablePPO asks for); other methods of the vector env (``describe_action``) are called
        once, their result given per index."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        if method_name in _PER_GAME_METHODS:
            if method_args or method_kwargs:
                raise TypeError(
                    f"env_method({method_name!r}) takes the games as indices=, no other arguments"
                )
            method = getattr(self.venv, method_name)
            return [method(i) for i in idx]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]], indices: int | Iterable[int] | None = None
    ) -> list[bool]:
        """No game is wrapped."""
        return [False for _ in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        """Whether the vector env has the attribute (``action_masks`` for MaskablePPO)."""
        return hasattr(self.venv, attr_name) or hasattr(self, attr_name)

    def get_images(self) -> Sequence[np.ndarray | None]:
        """No images: the env renders no frames."""
        return [None for _ in range(self.num_envs)]

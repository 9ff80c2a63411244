"""The single-agent Gymnasium environment: one learner seat, the other seats played by opponents.

``SingleAgentEnv(rules="uno", num_players=4, opponents="random_playable", seat=0)`` is a real
``gymnasium.Env``: the observation is the learner's flat vector (the layout of
:mod:`uno_env.game.encoding`), the action space ``Discrete(num_actions)`` and
:meth:`SingleAgentEnv.action_masks` gives the legal actions for sb3-contrib's
MaskablePPO (also in ``info["action_mask"]``). Registered with Gymnasium as
``uno_env/<Preset>-v1`` (see :mod:`uno_env.envs.registration`).

Dict observation (opt-in)
    ``dict_observation=True`` makes the observation ``{"observation": vector,
    "action_mask": int8 mask}`` (a ``spaces.Dict``, the AEC env's format), so clients
    whose masked models read the mask from the observation (TorchRL's ``ActionMask``
    transform, RLlib's action-masking modules, Tianshou) need no info-dict reader.

Opponents
    ``opponents`` is one opponent for every other seat or a list of ``num_players - 1``,
    where entry ``k-1`` sits ``k`` places clockwise from the learner. An opponent is

    - the name of a compiled policy of :data:`uno_env.styles.registry.POLICIES`, with parameters if
      wanted (``"random_playable"``, the default: the literature's random player;
      ``"random_legal"``, uniform over the legal actions; ``"bluffer:bluff=0.3"``): it moves
      inside the compiled step
      through :func:`uno_env.styles.dispatch.choose_action`, drawing from the game's agent generator;
    - an object with ``act(observation, action_mask) -> int`` or a callable
      ``(observation, action_mask) -> int`` (an ``agents`` play style, a frozen copy of a
      model for self-play...): it gets its own seat-relative observation and mask. An
      ``act`` that takes a ``view`` keyword (the scripted agents of :mod:`agents`) also
      gets ``view=`` the public view of its seat (:class:`uno_env.styles.view.PublicView`),
      whose public history (``view.public_history()``) holds every decision of the game,
      the compiled opponents' moves included: the compiled step writes each decision it
      applies into the game's public move log (:class:`uno_env.envs.common.PublicLog`).
      :meth:`SingleAgentEnv.public_view` gives the learner's view the same way.

    An opponent's illegal action raises :class:`~uno_env.IllegalActionError` (a bug in the
    opponent, whatever ``illegal_action`` says about the learner). An opponent that plays
    with a network (:class:`agents.ExportedAgent`, a ``search:net=NAME`` agent: any object with
    ``check_game``) is refused with :class:`~uno_env.sim.learned.PolicyGameMismatchError` when its
    network was trained for other rules or another player count, unless
    ``allow_rules_mismatch=True`` (a transfer; :func:`uno_env.sim.learned.check_fits`).

Episodes
    One episode is one game (a whole match when the rules play a match). The learner's
    seat is ``seat``, or with ``seat=None`` it rotates with the game: ``game_seed %
    num_players``. A game that ends before the learner's first decision (possible with
    two players and a run of Skips) is dropped and the game of the next seed is dealt.
    Rewards, truncation and the illegal-action policies are those of the AEC env (see
    :mod:`uno_env.envs.aec`), from the learner's seat; the reward is paid on the step
    that ends the game.

Seeds
    ``reset(seed=s)`` deals like ``Game(rules, n, seed=s)``; ``reset()`` then deals the
    game of :func:`uno_env.envs.core.next_seed` of the previous game's seed, as the
    native vector env's auto-reset does, so game ``i`` of a vector env matches a single
    env reset with the same seed, game for game.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..compiler.compiling import ensure_compiled
from ..engine import actions
from ..engine import layout as L
from ..engine.rules import RuleSet
from ..game.encoding import observe_state
from ..game.facade import EngineError, IllegalActionError, engine_error_message
from ..sim.learned import check_fits, check_switch
from ..styles.dispatch import planning_needed, scripted_needed
from ..styles.params import NUM_POLICY_PARAMS
from ..styles.registry import POLICIES
from ..styles.view import PublicView, last_visible_decision
from . import core
from .common import (
    RENDER_MODES,
    CompiledEnv,
    PublicLog,
    SeatedAgent,
    check_learner_seat,
    check_options,
    check_render_mode,
    check_seed,
    coerce_action,
    compiled_opponent,
    episode_seed,
    refuse_agent_class,
)
from .registration import ENV_VERSION
from .render import render_rgb, render_table, seat_and_seen


@runtime_checkable
class Opponent(Protocol):
    """Anything that picks an action from an observation and its legal-action mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action id to play (must be legal in ``action_mask``)."""
        ...


OpponentSpec = str | Opponent | Callable[[np.ndarray, np.ndarray], int]
OpponentFn = Callable[..., int]
"""A compiled policy text, an object with ``act(observation, action_mask)``, or a callable."""


def opponent_table(
    opponents: OpponentSpec | Sequence[OpponentSpec],
    num_players: int,
    rules: Any = None,
    *,
    allow_rules_mismatch: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[tuple[OpponentFn | SeatedAgent, bool] | None]]:
    """Seat codes and policy parameters (relative seats 1..n-1) and the external callables.

    Code ``>= 0``: a compiled policy of :data:`uno_env.styles.registry.POLICIES` (parameters in the
    same row of the second array); ``EXTERNAL``: a Python opponent, whose callable (and
    whether it takes a ``view`` keyword) is in the list at the same index; an agent object
    as a :class:`~uno_env.envs.common.SeatedAgent` (one instance per seat when it keeps state).
    Given ``rules``, a Python opponent that plays with a network must fit them and
    ``num_players`` (:func:`uno_env.sim.learned.check_fits`) unless ``allow_rules_mismatch``.
    """
    if isinstance(opponents, (str, Opponent)) or callable(opponents):
        entries: list[Any] = [opponents] * (num_players - 1)
    elif isinstance(opponents, (Sequence, np.ndarray)):
        entries = list(opponents)
    else:  # not one opponent nor a list of them: the entry check below names the kinds
        entries = [opponents] * (num_players - 1)
    if len(entries) != num_players - 1:
        raise ValueError(
            f"opponents lists {len(entries)} entries; {num_players} players need {num_players - 1} "
            "(entry k-1 sits k seats clockwise from the learner)"
        )
    codes = np.full(L.MAX_PLAYERS - 1, core.EXTERNAL, dtype=np.int64)
    params = np.full((L.MAX_PLAYERS - 1, NUM_POLICY_PARAMS), -1, dtype=np.int64)
    callables: list[tuple[OpponentFn | SeatedAgent, bool] | None] = []
    seated: dict[int, SeatedAgent] = {}  # one object at several seats: one record of its instances
    for k, entry in enumerate(entries):
        refuse_agent_class(entry, f"opponents[{k}]: ")
        if isinstance(entry, str):
            codes[k], params[k] = compiled_opponent(entry)
            callables.append(None)
        elif isinstance(entry, Opponent) or callable(entry):
            if rules is not None:
                check_fits(
                    entry,
                    rules,
                    num_players,
                    allow_rules_mismatch=allow_rules_mismatch,
                    where=f"opponents[{k}]: ",
                )
            if isinstance(entry, Opponent):
                callables.append((seated.setdefault(id(entry), SeatedAgent(entry)), _takes_view(entry.act)))
            else:
                callables.append((entry, False))
        else:
            raise TypeError(
                f"opponent {entry!r} is neither a compiled policy name ({', '.join(POLICIES)}), an object "
                "with act(observation, action_mask), nor a callable (observation, action_mask) -> int"
            )
    return codes, params, callables


def _opponent_name(policy: Any) -> str:
    """What an error calls a Python opponent: ``agent 'NAME'`` for an agent object (its ``name``,
    else its class), else the callable's name."""
    if isinstance(policy, SeatedAgent):
        return repr(policy)
    return repr(getattr(policy, "__name__", type(policy).__name__))


def _takes_view(act: OpponentFn) -> bool:
    try:
        return "view" in inspect.signature(act).parameters
    except (TypeError, ValueError):
        return False


class SingleAgentEnv(CompiledEnv, gym.Env[Any, np.int64]):
    """One learner against fixed opponents, as a Gymnasium env (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (Gymnasium's class attribute)
        "render_modes": list(RENDER_MODES),
        "render_fps": 1,
        "name": f"uno_env_single_v{ENV_VERSION}",
    }

    def __init__(
        self,
        rules: RuleSet | str | Path = "uno",
        num_players: int = 4,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random_playable",
        seat: int | None = 0,
        *,
        reward: str = "win",
        truncation_reward: str = "standing",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        dict_observation: bool = False,
        allow_rules_mismatch: bool = False,
        **rule_overrides: Any,
    ) -> None:
        self._compile(rules, num_players, rule_overrides)
        ensure_compiled("env")
        check_learner_seat(seat, num_players)
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.seat = seat
        self._set_payoffs(reward, truncation_reward, illegal_action, illegal_reward)
        self._template, self._template_params, self._external = opponent_table(
            opponents,
            num_players,
            self.rules,
            allow_rules_mismatch=check_switch("allow_rules_mismatch", allow_rules_mismatch),
        )
        # None compiles the steps without the planning styles, and with random opponents only
        # without the scripted ones too: a shorter cold start for loops that never seat them
        self._planning = True if planning_needed(self._template) else None
        self._scripted = True if scripted_needed(self._template) else None
        self._seat_mode = -1 if seat is None else int(seat)
        self.dict_observation = check_switch("dict_observation", dict_observation)
        vector_space = spaces.Box(self._layout.low, self._layout.high, dtype=np.float32)
        self.observation_space: spaces.Space[Any] = (
            spaces.Dict(
                [
                    ("observation", vector_space),
                    ("action_mask", spaces.Box(0, 1, (self._num_actions,), dtype=np.int8)),
                ]
            )
            if self.dict_observation
            else vector_space
        )
        self.action_space = spaces.Discrete(self._num_actions)
        self._state = self.compiled.new_state()
        self._mask = self.compiled.new_mask()
        self._seats = np.full(L.MAX_PLAYERS, core.EXTERNAL - 1, dtype=np.int64)
        self._params = np.full((L.MAX_PLAYERS, NUM_POLICY_PARAMS), -1, dtype=np.int64)
        self._seed: int | None = None
        self._has_reset = False
        self._learner = 0
        self._over = True
        self._obs = np.zeros(self._layout.size, dtype=np.float32)
        self._out_mask = np.zeros(self._num_actions, dtype=np.int8)
        self._scratch = np.zeros(L.MAX_PLAYERS, dtype=np.float64)
        self._public_log = PublicLog(1, int(self._spec[L.SP_MAX_DECISIONS]))
        """The game's decisions, compiled opponents' included, for the views' public history."""

    # ------------------------------------------------------------ episode
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a game and play the opponents until the learner decides; return its view.

        ``seed`` as the other envs take it (an integer in ``0..2**63-1``, numpy's too);
        ``options`` must be None or empty: this env takes none (ValueError otherwise)."""
        check_options(options, "SingleAgentEnv")
        seed = None if seed is None else check_seed(seed)
        super().reset(seed=seed)
        game_seed = episode_seed(seed, self._seed)
        for external in self._external:
            if external is not None and isinstance(external[0], SeatedAgent):
                external[0].new_deals()
        self._has_reset = True  # from the deal below on (external opponents read public views)
        while True:
            game_seed = core.reset_game(
                self._state,
                self._spec,
                self._mask,
                self._seats,
                self._params,
                self._template,
                self._template_params,
                self._seat_mode,
                game_seed,
                self.num_players,
                self._deck_counts,
                self._public_log.log,
                self._staged,
                self._planning,
                self._scripted,
            )
            self._learner = core.seat_for_seed(game_seed, self.num_players, self._seat_mode)
            self._seed = game_seed  # the opponents' instances are reset from it
            if self._ask_external(int(self._state[L.S_CURRENT])) != core.OVER:
                break
            game_seed = core.next_seed(game_seed)
        self._seed = game_seed
        self._over = False
        obs, mask = self._view()
        if self.render_mode == "human":
            self.render()
        return self._shaped(obs, mask), self._info(mask.copy())

    def _info(self, mask: np.ndarray, *, illegal: bool = False) -> dict[str, Any]:
        """The info of a reset or a step: the same keys every time and NumPy values (TorchRL's
        info reader builds its specs from the reset's and reads each value's dtype);
        ``decision_limit`` is set by :meth:`_end_game`. The flags are 0-d bool arrays, not
        ``np.bool_`` scalars: Gymnasium's own vector envs batch an array by its dtype but a
        ``np.bool_`` (not a ``np.number``) into an object array."""
        return {
            "action_mask": mask,
            "seat": np.int64(self._learner),
            "game_seed": np.int64(self._seed if self._seed is not None else -1),
            "illegal_action": np.array(illegal),
            "decision_limit": np.array(False),
        }

    def _shaped(self, obs: np.ndarray, mask: np.ndarray) -> Any:
        """The observation as returned: the vector, or with ``dict_observation`` the vector and mask."""
        if self.dict_observation:
            return {"observation": obs, "action_mask": mask.copy()}
        return obs

    def _view(self) -> tuple[np.ndarray, np.ndarray]:
        obs = np.empty(self._layout.size, dtype=np.float32)
        mask = np.empty(self._num_actions, dtype=np.int8)
        core.learner_view(self._state, self._spec, self._mask, self._learner, self._offsets, obs, mask)
        self._obs = obs
        self._out_mask = mask
        return obs, mask

    def _ask_external(self, seat: int) -> int:
        """Let Python opponents (and the compiled ones after them) move until the learner or the end."""
        while seat >= 0 and seat != self._learner:
            k = (seat - self._learner) % self.num_players
            external = self._external[k - 1]
            assert external is not None, "a compiled opponent is played inside the compiled step"
            policy, takes_view = external
            obs = observe_state(self._state, self._spec, seat, self.deck)
            mask = self._mask[: self._num_actions].copy()
            view = self._complete_view() if takes_view else None
            if isinstance(policy, SeatedAgent):  # call_act hands it the public view (the oracle, all)
                game_seed = self._seed if self._seed is not None else 0
                chosen: Any = policy.ask(0, seat, game_seed, obs, mask, view)
            else:
                chosen = policy(obs, mask, view=view.public()) if view is not None else policy(obs, mask)
            who = _opponent_name(policy)
            try:
                action = coerce_action(chosen, self._num_actions)
            except ValueError as exc:
                raise IllegalActionError(
                    f"opponent {who} at seat {seat} returned {chosen!r}: {exc}", chosen, [], self.position()
                ) from None
            result = core.single_step(
                self._state,
                self._spec,
                action,
                self._mask,
                self._seats,
                self._params,
                self._public_log.log,
                self._staged,
                self._planning,
                self._scripted,
            )
            if result == core.ILLEGAL:
                lead = f"opponent {who} at seat {seat} played the illegal action "
                raise self.compiled.illegal_action(self._state, mask, action, lead=lead)
            self._public_log.keep_up()
            seat = result
        return seat

    def step(self, action: int | np.integer[Any]) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents until the learner decides or the game ends."""
        if self._over:
            if not self._has_reset:
                raise RuntimeError("reset() needs to be called before step()")
            raise RuntimeError("step() called after the episode ended: call reset() first")
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = coerce_action(action, self._num_actions)  # ActionOutOfBoundsError if outside
        obs = np.empty(self._layout.size, dtype=np.float32)
        mask = np.empty(self._num_actions, dtype=np.int8)
        seat = core.learner_step(
            self._state,
            self._spec,
            action,
            self._mask,
            self._seats,
            self._params,
            self._learner,
            self._offsets,
            obs,
            mask,
            self._public_log.log,
            self._staged,
            self._planning,
            self._scripted,
        )
        if seat == core.ILLEGAL:
            return self._illegal(action)
        self._public_log.keep_up()
        if seat != self._learner and seat != core.OVER:
            seat = self._ask_external(seat)
            obs, mask = self._view()
        info = self._info(mask)
        self._obs = obs
        self._out_mask = mask
        reward = 0.0
        terminated = truncated = False
        if seat == core.OVER:
            reward, terminated, truncated = self._end_game(info)
        if self.render_mode == "human":
            self.render()
        return self._shaped(obs, mask), reward, terminated, truncated, info

    def _end_game(self, info: dict[str, Any]) -> tuple[float, bool, bool]:
        """The learner's reward and flags of the game that just ended (E-END-1 noted in ``info``)."""
        self._over = True
        if self._state[L.S_ENGINE_ERROR] != L.ERR_NONE:  # only a state written directly gets here
            raise EngineError(engine_error_message(self._state, self.position()))
        core.final_rewards(self._state, self._spec, self._reward_code, self._scratch)
        terminated = bool(self._state[L.S_STATUS] == L.ST_WON)
        info["decision_limit"] = np.array(not terminated)
        return float(self._scratch[self._learner]), terminated, not terminated

    def _illegal(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not 0 <= action < self._num_actions:
            coerce_action(action, self._num_actions)  # raises ActionOutOfBoundsError
        if self._illegal_code == core.ILLEGAL_RAISE:
            who = f"the learner at seat {self._learner}"
            raise self.compiled.illegal_action(self._state, self._mask, action, who=who)
        if self._illegal_code == core.ILLEGAL_DRAW_PENALTY:  # U-WRONG-1
            core.wrong_move(self._state, self._spec, self._mask, self._staged)
            obs, mask = self._view()
            info = self._info(mask.copy(), illegal=True)
            reward, truncated = 0.0, False
            if self._state[L.S_STATUS] == L.ST_TRUNCATED:  # the wrong move reached the limit
                reward, _, truncated = self._end_game(info)
            return self._shaped(obs, mask), reward, False, truncated, info
        self._over = True
        obs = observe_state(self._state, self._spec, self._learner, self.deck)
        mask = np.zeros(self._num_actions, dtype=np.int8)
        self._obs = obs
        self._out_mask = mask
        info = self._info(mask.copy(), illegal=True)
        return self._shaped(obs, mask), self.illegal_reward, True, False, info

    # ------------------------------------------------------------ masks and people
    def action_masks(self) -> np.ndarray:
        """Boolean legal-action mask of the learner (all False once the episode ended)."""
        return self._out_mask.astype(bool)

    def describe_action(self, action: int) -> str:
        """Notation of an action id (``R7``, ``colour G``, ``draw``...)."""
        return actions.format_action(int(action), self.deck)

    def position(self) -> str:
        """The current situation in position notation (see :mod:`uno_env.game.position`)."""
        return self.compiled.position(self._state)

    def public_view(self) -> PublicView:
        """The game as the seat to move may see it (the learner's view between steps): the
        typed accessors (own hand, top card, decision...) and the public history of every
        decision of the game, the compiled opponents' included
        (:class:`~uno_env.styles.view.PublicView`)."""
        if not self._has_reset:
            raise RuntimeError("reset() needs to be called before public_view()")
        return self._complete_view().public()

    def _complete_view(self) -> PublicView:
        """The game's whole state with its public history (agents get its ``public()`` copy)."""
        log = self._public_log.entries(0)
        digest = self._public_log.digest(0)
        return PublicView(self._state, self._spec, self.rules, log, len(log), history_digest=digest)

    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current game."""
        return self._learner

    @property
    def game_seed(self) -> int | None:
        """Seed of the current game (``Game(rules, n, seed=...)`` deals the same)."""
        return self._seed

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat: text (``"ansi"``), printed (``"human"``) or a picture.

        ``"rgb_array"`` gives :func:`uno_env.envs.render.render_rgb` with the learner's hand.
        """
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        if not self._has_reset:  # the state is all zeros: no table to draw
            raise gym.error.ResetNeeded("reset() needs to be called before render()")
        # the learner's table: the last decision as the learner may know it (not a card given
        # between two opponents, H-TWO-1, nor an opponent's let-go answer to a window, H-JUMP-1)
        state = self._state.copy()
        log = self._public_log.entries(0)
        state[L.S_LAST_ACTOR], state[L.S_LAST_ACTION] = last_visible_decision(
            log, len(log), self._learner, self.deck, self.num_players
        )
        if self.render_mode == "rgb_array":
            return render_rgb(
                state,
                self.deck,
                self.rules.num_faces,
                self._learner,
                None,
                title=f"{self.rules.preset_name() or 'custom rules'} · learner seat {self._learner}",
                call_word=self.rules.call_name,
            )
        text = render_table(
            state,
            self.deck,
            self.rules.num_faces,
            seat_and_seen(state, self._learner),
            None,
            title=f"{self.rules.preset_name() or 'custom rules'} · you are seat {self._learner}",
            call_word=self.rules.call_name,
        )
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

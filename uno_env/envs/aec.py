"""The PettingZoo AEC environment: every rule variant of the Uno family, one class.

``uno_env.env(rules="uno", num_players=4, render_mode=None, **rule_overrides)`` returns a
ready-to-use environment; ``uno_env.raw_env`` is the bare class for people who want to
wrap it themselves. Both are registered as ``uno_env/<preset>-v1`` for every preset::

    import pettingzoo, uno_env
    env = pettingzoo.make("aec", "uno_env/uno-v1", num_players=4)
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

``rules`` is a preset name, a TOML path or a :class:`~uno_env.RuleSet`; keyword overrides
derive a variant (``env("uno", 4, draw="until_playable", max_decisions=500)``).

Agents
    ``player_0`` .. ``player_{n-1}``, seat ``i`` is ``player_i`` (seats clockwise, E-DIR-1).
    ``agent_selection`` is always the player who must decide: multi-decision turns (name a
    colour, play or keep the drawn card, challenge) and out-of-turn decisions (the victim
    of a Wild Draw Four) move it to whoever decides.

Observation
    ``Dict{"observation": Box(float32), "action_mask": Box(0, 1, (num_actions,), int8)}``
    in that key order. The vector is seat-relative; its named slices are listed by
    :func:`uno_env.game.encoding.layout_table` and explained in the docs
    (``docs/environments/index.md``, "Observation");
    :func:`uno_env.envs.describe` prints one for people. The layout depends only on the
    deck family, so a policy moves between presets of the same family. The mask is all
    zeros for every agent but the one to move.

Actions
    ``Discrete(num_actions)``, the engine's flat table (:mod:`uno_env.engine.actions`): play each
    card face, name each colour/suit, choose each relative target seat, draw, pass/keep,
    call, challenge, accept. :meth:`raw_env.describe_action` names an id.

Global state
    ``state()`` (PettingZoo's state for centralised training, in ``state_space``, a float32
    ``Box`` of ``num_players * size`` values) is every seat's observation vector of the game as
    it stands, seat 0 first, as PettingZoo's own envs concatenate their agents' observations.
    The parts hold every hand, so together they are the whole game but the draw pile's order;
    while an out-of-turn window is open every part shows it (``observe`` hides it from the seats
    not asked). The Parallel env's ``state()`` and ``state_space`` are these.

Rewards (at the end of the game only; ``reward=``)
    ``"win"`` (default): +1 to the winner, -1/(n-1) to every other player.
    ``"rank"``: 1 - 2r/(n-1) for finishing rank r (0 = best), from +1 down to -1.
    ``"score"``, by the rules' scoring: where the round winner scores the cards left in
    the other hands (U-SCORE-1), a single round pays the winner those points and every
    other player minus their own points, and a first-to-target match (U-SCORE-2) pays
    match points minus the table mean; where players keep their own points and lower is
    better (U-SCORE-3, MM-SCORE-1, and the loser's hand under MC-END-1), it pays the table
    mean minus own points. All three are zero-sum. A game ended by the decision limit
    (E-END-1) is truncated: ``truncations`` are True, ``infos[agent]["decision_limit"]``
    is True, and it pays by the standing (``truncation_reward="standing"``, the default):
    the players are ranked by what the rules would count at that moment (points left in
    hand, with match points in a match; under MC-END-1 the players who left first) and
    every scheme pays that ranking as it pays a finished game, tied players sharing their
    positions' payoffs (``score``: the standing's points less the table mean). So stalling
    to the limit never pays more than the position: an always-draw policy loses.
    ``truncation_reward="zero"`` pays 0 to everyone, as env version 0 did.

Illegal actions (``illegal_action=``)
    ``"terminate"`` (default, PettingZoo's TerminateIllegalWrapper semantics): the game
    ends, the offender gets ``illegal_reward`` (default -1), everyone else 0, every agent
    is terminated. ``"raise"``: :class:`~uno_env.IllegalActionError` (the game unchanged)
    naming the legal actions and the position. ``"draw_penalty"`` (U-WRONG-1): the card is
    taken back and the player draws 2, then decides again; the wrong move counts as a
    decision, so the decision limit still ends the game. An action outside the action
    space (not an integer in ``0..num_actions-1``) always raises
    :class:`ActionOutOfBoundsError`, an ``AssertionError`` like PettingZoo's
    AssertOutOfBoundsWrapper raises.

Safety
    :func:`env` gives the guarantees of PettingZoo's classic wrapper stack (order
    enforcing, out-of-bounds check, illegal action ends the game with a penalty) built into
    one class (:class:`UnoEnv`) instead of three wrapper layers, which would cost more per
    step than the game itself. :class:`raw_env` has the same rules and checks except the
    order enforcing of ``agent_iter``; wrapping it in PettingZoo's own wrappers works.

Rendering
    ``"ansi"`` returns a text table (whose cards: ``render_seat``, default every hand);
    ``"human"`` prints it after every step. ``"rgb_array"`` returns a picture of the table
    (800 x 600, uint8 ``(600, 800, 3)``; :func:`uno_env.envs.render.render_rgb`) with the
    hand of ``render_seat`` face up, or with ``render_seat=None`` the hand of the agent to
    move; the other seats show card backs and hand counts.

Seeds
    ``reset(seed=s)`` deals exactly like ``Game(rules, n, seed=s)``. ``reset()`` without a
    seed deals the game of :func:`uno_env.envs.core.next_seed` of the previous seed (a
    fresh random seed the first time). ``reset(options={"position": text})`` starts from a
    position in :mod:`uno_env.game.position` notation.

Version history
    v0: first release (observation layout version 2: version 1 plus the Uno cube's dice).
    v1: a game cut by the decision limit pays by the standing (was 0: stalling paid more
    than losing); the single-agent and vector envs' default opponents are the literature's
    random player, ``random_playable`` (was uniform over the legal actions). Observation
    layout unchanged (version 2).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from ..compiler.compiling import ensure_compiled
from ..engine import actions, engine
from ..engine import layout as L
from ..engine.rules import RuleSet
from ..game.encoding import encode, observe_state
from ..game.facade import EngineError, Game, IllegalActionError, engine_error_message, state_as_seen_by
from ..styles.public import HistoryDigest
from ..styles.view import PublicView, visible_last_actions
from . import core
from .common import RENDER_MODES, CompiledEnv, check_render_mode, coerce_action, episode_seed, is_seat
from .registration import ENV_VERSION
from .render import render_rgb, render_table, seat_and_seen

_BEFORE_RESET = frozenset(
    {
        "rewards",
        "terminations",
        "truncations",
        "infos",
        "agent_selection",
        "agents",
        "num_agents",  # PettingZoo's property over agents: its AttributeError lands here
        "_cumulative_rewards",
    }
)


class Observation(dict[str, np.ndarray]):
    """The observation of the agent to move: PettingZoo's ``{"observation", "action_mask"}``
    dict, which also carries the public view of the game (:attr:`view`, a
    :class:`~uno_env.styles.view.PublicView`), so scripted and other view-reading agents play from
    ``agent.act(observation)`` alone. Copied or pickled it is a plain dict (without the view)."""

    __slots__ = ("source",)
    source: raw_env

    @property
    def view(self) -> PublicView:
        """The public view of the game at this decision."""
        return self.source.public_view()

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class raw_env(CompiledEnv, AECEnv[str, dict[str, np.ndarray], int]):  # noqa: N801 (PettingZoo naming)
    """The Uno-family AEC environment without order enforcing (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's class attribute)
        "render_modes": list(RENDER_MODES),
        "name": f"uno_env_v{ENV_VERSION}",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: RuleSet | str | Path = "uno",
        num_players: int = 4,
        render_mode: str | None = None,
        *,
        reward: str = "win",
        truncation_reward: str = "standing",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_seat: int | None = None,
        **rule_overrides: Any,
    ) -> None:
        super().__init__()
        self._compile(rules, num_players, rule_overrides)
        ensure_compiled("env")
        check_render_mode(render_mode)
        if render_seat is not None and not is_seat(render_seat, num_players):
            raise ValueError(f"render_seat must be None or a seat 0..{num_players - 1}, got {render_seat!r}")
        self.render_mode = render_mode
        self.render_seat = render_seat
        self._set_payoffs(reward, truncation_reward, illegal_action, illegal_reward)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._names = tuple(self.possible_agents)
        self._seat_of = {name: i for i, name in enumerate(self._names)}
        self._obs_size = self._layout.size
        box = spaces.Box(self._layout.low, self._layout.high, dtype=np.float32)
        self.observation_spaces = {
            name: spaces.Dict(
                [
                    ("observation", spaces.Box(box.low, box.high, dtype=np.float32)),
                    ("action_mask", spaces.Box(0, 1, (self._num_actions,), dtype=np.int8)),
                ]
            )
            for name in self._names
        }
        self.action_spaces = {name: spaces.Discrete(self._num_actions) for name in self._names}
        self.state_space = spaces.Box(
            np.tile(box.low, num_players), np.tile(box.high, num_players), dtype=np.float32
        )
        """The space of :meth:`state`: ``num_players`` observation vectors end to end."""
        self._state = self.compiled.new_state()
        self._mask = self.compiled.new_mask()
        self._seed: int | None = None
        self._has_reset = False
        self._has_updated = False
        self._over = True  # no game yet: step() takes the slow path
        self._cur_seat = -1
        self._cur_agent = ""
        self._cur_obs: dict[str, np.ndarray] = {}
        self._skip_agent_selection: str | None = None
        self._last_actions: list[int | None] | None = None
        self._log: list[tuple[int, int, int]] = []
        """The game's decisions as ``(seat, action, phase)`` (as :attr:`uno_env.Game.log`), for
        the views' public history."""
        self._log_digest: HistoryDigest | None = None
        """What each seat may know of :attr:`_log`, kept from view to view (a new log, a new one)."""

    # ------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object on every call)."""
        space = self.observation_spaces.get(agent)
        if space is None:
            raise self._unknown_agent(agent)
        return space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object on every call)."""
        space = self.action_spaces.get(agent)
        if space is None:
            raise self._unknown_agent(agent)
        return space

    def _unknown_agent(self, agent: Any) -> KeyError:
        return KeyError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")

    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: the per-game attributes before reset()
        if name in _BEFORE_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (see the module docstring for seeds and ``options["position"]``)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(
                "reset options are None or a dict (the key 'position': a position to start from), "
                f"got {options!r}"
            )
        # other keys are ignored: PettingZoo's api_test resets with options={"options": 1}
        position = (options or {}).get("position")
        game_seed = self._seed = episode_seed(seed, self._seed)
        if position is not None:
            game = Game.from_position(self.rules, position, seed=game_seed)
            if game.num_players != self.num_players:
                raise ValueError(
                    f"the position has {game.num_players} hands, this env seats {self.num_players} players"
                )
            if game.is_over():
                raise ValueError(f"the position is a finished game: {position}")
            self._state[:] = game.state
        else:  # as Game(rules, n, seed) deals: stream 0
            engine.new_game(
                self._state, self._spec, self.num_players, self._deck_counts, game_seed, 0, self._staged
            )
        engine.fill_mask(self._state, self._spec, self._mask, self._staged)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._has_reset = True
        self._has_updated = True
        self._over = False
        self._last_actions = [None] * self.num_players if self.render_mode is not None else None
        self._log = []
        obs = np.empty(self._obs_size, dtype=np.float32)
        mask = np.empty(self._num_actions, dtype=np.int8)
        seat = core.aec_view(self._state, self._spec, self._mask, self._offsets, obs, mask)
        self._select(seat, obs, mask)
        if self.render_mode == "human":
            self.render()

    def _select(self, seat: int, obs: np.ndarray, mask: np.ndarray) -> None:
        self._cur_seat = seat
        self._cur_agent = self._names[seat]
        self._cur_obs = Observation(observation=obs, action_mask=mask)
        self._cur_obs.source = self
        self.agent_selection = self._cur_agent

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Apply the decision of ``agent_selection`` (None for an agent that is done)."""
        self._has_updated = True
        if self._over:
            self._step_done(action)
            return
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = coerce_action(action, self._num_actions)  # ActionOutOfBoundsError if outside
        obs = np.empty(self._obs_size, dtype=np.float32)
        mask = np.empty(self._num_actions, dtype=np.int8)
        actor = self._cur_seat
        phase = int(self._state[L.S_PHASE])
        seat = core.aec_step(
            self._state, self._spec, action, self._mask, self._offsets, obs, mask, self._staged
        )
        if seat >= 0 or seat == core.OVER:
            self._log.append((actor, int(action), phase))
        if seat >= 0:
            self._cur_seat = seat
            self._cur_agent = self.agent_selection = self._names[seat]
            self._cur_obs = Observation(observation=obs, action_mask=mask)
            self._cur_obs.source = self
            if self._last_actions is not None:
                self._after_step(actor, action)
            return
        if seat == core.OVER:
            if self._last_actions is not None:
                self._last_actions[actor] = action
            self._end_game()
        elif seat == core.ENGINE_ERROR:
            self._end_game()
            raise EngineError(engine_error_message(self._state, self.position()))
        else:
            self._illegal(action)
        if self.render_mode == "human":
            self.render()

    def _after_step(self, actor: int, action: int) -> None:
        assert self._last_actions is not None
        self._last_actions[actor] = action
        if self.render_mode == "human":
            self.render()

    def _step_done(self, action: Any) -> None:
        """A step once the game is over (or before it began): remove a finished agent."""
        if not self._has_reset:
            raise AssertionError("reset() needs to be called before step.")
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._was_dead_step(action)

    def _end_game(self) -> None:
        self._over = True
        out = np.zeros(self.num_players, dtype=np.float64)
        core.final_rewards(self._state, self._spec, self._reward_code, out)
        truncated = self._state[L.S_STATUS] == L.ST_TRUNCATED
        self.rewards = {agent: float(r) for agent, r in zip(self._names, out, strict=True)}
        if truncated:
            self.truncations = dict.fromkeys(self.agents, True)
            for agent in self.agents:  # the game was cut, not played out (E-END-1)
                self.infos[agent]["decision_limit"] = True
        else:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _illegal(self, action: int) -> None:
        if not 0 <= action < self._num_actions:
            coerce_action(action, self._num_actions)  # raises ActionOutOfBoundsError
        if self._illegal_code == core.ILLEGAL_RAISE:
            raise self.illegal_error(action)
        if self._illegal_code == core.ILLEGAL_DRAW_PENALTY:  # U-WRONG-1
            core.wrong_move(self._state, self._spec, self._mask, self._staged)
            obs = np.empty(self._obs_size, dtype=np.float32)
            mask = np.empty(self._num_actions, dtype=np.int8)
            seat = core.aec_view(self._state, self._spec, self._mask, self._offsets, obs, mask)
            if seat >= 0:
                self._select(seat, obs, mask)
            else:
                self._end_game()
            return
        EnvLogger.warn_on_illegal_move()
        self._over = True
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[self._cur_agent] = self.illegal_reward
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def illegal_error(self, action: int) -> IllegalActionError:
        """The error for an illegal ``action`` of the player to move, naming the legal ones."""
        return self.compiled.illegal_action(self._state, self._mask, action, who=self._cur_agent)

    # ------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: its view vector and its legal-action mask (zeros if not to move)."""
        if agent is self._cur_agent and not self._over:
            return self._cur_obs
        if not self._has_reset:
            raise AssertionError("reset() needs to be called before observe.")
        seat = self._seat_of.get(agent)
        if seat is None:
            raise self._unknown_agent(agent)
        if seat == self._cur_seat and not self._over:
            return self._cur_obs
        # a window asks only the seats holding a card to lay: the others see the game as if
        # nobody held one (H-JUMP-1, H-ZEROSEE-1), where that shows nothing hidden
        ahead = None if self._over else state_as_seen_by(self._state, self._spec, seat, self._staged)
        seen = self._state if ahead is None else ahead
        return {
            "observation": observe_state(seen, self._spec, seat, self.deck),
            "action_mask": np.zeros(self._num_actions, dtype=np.int8),
        }

    def state(self) -> np.ndarray:
        """The global state for centralised training: every seat's observation vector of the
        game as it stands, seat 0 first (``num_players * size`` float32 values, in
        :attr:`state_space`). Together they hold every hand, so this is the whole game but the
        order of the draw pile; an open out-of-turn window shows in every seat's part."""
        if not self._has_reset:
            raise AssertionError("reset() needs to be called before state.")
        out = np.empty((self.num_players, self._obs_size), dtype=np.float32)
        for seat in range(self.num_players):
            encode(self._state, self._spec, seat, self._offsets, out[seat])
        return out.reshape(-1)

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """Observation, reward since its last step, termination, truncation, info of ``agent_selection``."""
        agent = self.agent_selection
        if not self.agents:  # every agent stepped out (before reset, ``agents`` itself raises)
            raise KeyError(
                f"last(): every agent has left the finished game; call reset() to deal the next "
                f"(the rewards of {agent!r} and the others were given by last() before each "
                "stepped out with None)"
            )
        if observe:
            obs: dict[str, np.ndarray] | None = (
                self._cur_obs if agent is self._cur_agent and not self._over else self.observe(agent)
            )
        else:
            obs = None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    # ------------------------------------------------------------ for people
    def describe_action(self, action: int) -> str:
        """Notation of an action id (``R7``, ``colour G``, ``draw``...)."""
        return actions.format_action(int(action), self.deck)

    def position(self) -> str:
        """The current situation in position notation (see :mod:`uno_env.game.position`)."""
        return self.compiled.position(self._state)

    def public_view(self) -> PublicView:
        """The game as the agent to move may see it (typed accessors: own hand, top card,
        decision..., the public history of the game's decisions); the observation of the agent
        to move carries it too (``obs.view``), so ``agent.act(obs)`` works for every agent of
        :mod:`agents`. Its fields hold nothing that agent may not know
        (:meth:`~uno_env.styles.view.PublicView.public`)."""
        log = self._log
        digest = self._log_digest = HistoryDigest.of(log, self._log_digest)
        return PublicView(self._state, self._spec, self.rules, log, len(log), history_digest=digest).public()

    @property
    def game_seed(self) -> int | None:
        """Seed of the game being played (``Game(rules, n, seed=...)`` deals the same)."""
        return self._seed

    def render(self) -> str | np.ndarray | None:
        """The table as text (``"ansi"``), printed (``"human"``) or a picture (``"rgb_array"``).

        See :mod:`uno_env.envs.render`.
        """
        if not self._has_reset:
            raise AssertionError("reset() needs to be called before render.")
        if self.render_mode is None:
            EnvLogger._generic_warning("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(
                self._state,
                self.deck,
                self.rules.num_faces,
                self.render_seat,
                self._seat_last_actions(self._rgb_seat()),
                title=f"{self.rules.preset_name() or 'custom rules'}",
                call_word=self.rules.call_name,
            )
        shown = None if self.render_seat is None else seat_and_seen(self._state, self.render_seat)
        text = render_table(
            self._state,
            self.deck,
            self.rules.num_faces,
            shown,
            self._last_actions if self.render_seat is None else self._seat_last_actions(self.render_seat),
            title=f"{self.rules.preset_name() or 'custom rules'}",
            call_word=self.rules.call_name,
        )
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def _rgb_seat(self) -> int:
        """The seat whose hand the picture shows: ``render_seat``, else the seat to move (seat 0
        once the game is over), as :func:`~uno_env.envs.render.render_rgb` picks it."""
        if self.render_seat is not None:
            return self.render_seat
        current = int(self._state[L.S_CURRENT])
        return current if current >= 0 else 0

    def _seat_last_actions(self, seat: int) -> list[int | None]:
        """Each seat's last action as ``seat`` may know it: no card given between two other
        seats (H-TWO-1), no other seat's let-go answer to an out-of-turn window (H-JUMP-1)."""
        return visible_last_actions(self._log, seat, self.deck, self.num_players)

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return str(self.metadata["name"])


class UnoEnv(raw_env):
    """:class:`raw_env` with PettingZoo's order enforcing built in (what :func:`env` returns).

    Accessing the game's attributes, ``step``, ``observe``, ``render`` or ``agent_iter``
    before ``reset`` raises; ``agent_iter`` asserts that ``step`` or ``reset`` was called
    between two agents; ``step`` after every agent is done only warns.
    """

    def agent_iter(self, max_iter: int = 2**63) -> _OrderedAgents:
        """Iterate over the agent to act until the game is done (at most ``max_iter`` times)."""
        if not self._has_reset:
            raise AssertionError("reset() needs to be called before agent_iter().")
        return _OrderedAgents(self, max_iter)


class _OrderedAgents:
    """``agent_iter`` of :class:`UnoEnv`: fails if an agent is yielded twice without a step."""

    __slots__ = ("env", "left")

    def __init__(self, env: UnoEnv, max_iter: int) -> None:
        self.env = env
        self.left = max_iter

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        env = self.env
        if not env.agents or self.left <= 0:
            raise StopIteration
        self.left -= 1
        if not env._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        env._has_updated = False
        return env.agent_selection


def env(
    rules: RuleSet | str | Path = "uno",
    num_players: int = 4,
    render_mode: str | None = None,
    **kwargs: Any,
) -> UnoEnv:
    """The ready-to-use AEC environment (see the module docstring for every option).

    ``kwargs`` are the env options (``reward``, ``illegal_action``, ``illegal_reward``,
    ``render_seat``) and rule overrides (any :class:`~uno_env.RuleSet` field).
    """
    return UnoEnv(rules, num_players, render_mode, **kwargs)

"""What the three environments share: their setup from the compiled game, seeds, argument
checks and errors (no PettingZoo or Gymnasium here)."""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import operator
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import cards
from ..engine.engine import staged_argument
from ..engine.rng import check_seed, fresh_seed
from ..engine.rules import RuleError, RuleSet
from ..game.compiled import CompiledGame, compile_game
from ..game.encoding import ObsLayout, obs_layout
from ..sim.learned import is_learned_policy
from ..styles.params import Style
from ..styles.public import HistoryDigest
from ..styles.registry import STYLES, policy_table
from ..styles.view import PublicView
from . import core
from .core import next_seed

__all__ = [
    "AGENT_FAILURES",
    "RENDER_MODES",
    "ActionOutOfBoundsError",
    "CompiledEnv",
    "OpponentError",
    "PublicLog",
    "SeatedAgent",
    "UnknownKeywordError",
    "call_act",
    "check_choice",
    "check_learner_seat",
    "check_options",
    "check_render_mode",
    "check_seed",
    "coerce_action",
    "episode_seed",
    "raised_at",
    "seat_seed",
]

RENDER_MODES = ("ansi", "human", "rgb_array")

AGENT_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit)
"""What a user's agent code may raise that the tools turn into one line naming the agent:
any error, and ``SystemExit`` too (an agent module that calls ``sys.exit()`` or parses the
command line with argparse when loaded), which would otherwise end the tool with the exit
code alone and no word of which agent did it. ``KeyboardInterrupt`` is left to the tool."""


def raised_at(exc: BaseException) -> str:
    """Where in its code an agent raised ``exc``, as `` (at FILE:LINE, in FUNCTION)`` (the
    innermost frame), or "" when it carries no traceback: one-line errors name the place."""
    frames = traceback.extract_tb(exc.__traceback__)
    return f" (at {frames[-1].filename}:{frames[-1].lineno}, in {frames[-1].name})" if frames else ""


def refuse_agent_class(entry: Any, where: str) -> None:
    """TypeError when ``entry`` is a class: an env opponent or a seat of ``agents.play`` is an
    agent object, and a class's ``act`` called as a plain function would read the
    observation as ``self`` (the tools that take a class, tournaments and studies, build it)."""
    if isinstance(entry, type):
        name = entry.__qualname__
        raise TypeError(
            f"{where}{name} is a class, not an agent: pass an agent object ({name}()); a class or "
            "factory is built by the tools that take one (run_tournament, evaluate, a study's styles)"
        )


class ActionOutOfBoundsError(ValueError, AssertionError):
    """An action outside the action space (not an integer id of the action table)."""


class UnknownKeywordError(RuleError, TypeError):
    """A keyword argument of an env constructor that is neither an env option nor a rule field.

    A ``TypeError`` as Python raises for an unexpected keyword argument (clients such as
    TorchRL's ``GymEnv`` try a keyword and drop it on that error), and a
    :class:`~uno_env.RuleError`, as the env raised for it before.
    """


_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))

_KEYWORD_HINTS = {
    "max_cycles": (
        "PettingZoo's max_cycles (pettingzoo.make(..., max_cycles=k)) limits cycles in which every "
        "agent acts once, which a turn-based game does not have: its length limit is the rule field "
        "max_decisions (E-END-1)"
    ),
}
"""What a keyword that other envs take means here, said after the unknown-keyword error."""


def check_choice(name: str, value: str, allowed: dict[str, int]) -> int:
    """The code of an option value; a bad value raises ValueError listing the allowed ones."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(k) for k in allowed)}, got {value!r}")
    return allowed[value]


def coerce_action(action: Any, num_actions: int) -> int:
    """An action id as int; anything outside ``0..num_actions-1`` raises ActionOutOfBoundsError."""
    value: int | None = None
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        value = int(action)
    elif isinstance(action, np.ndarray) and action.shape in ((), (1,)) and action.dtype.kind in "iu":
        value = int(action.reshape(()))
    elif not isinstance(action, (bool, np.bool_)) and hasattr(action, "__index__"):
        try:  # an integer scalar of another array library (a torch tensor of one integer, say)
            value = operator.index(action)
        except TypeError:
            value = None
    if action is None:
        raise ActionOutOfBoundsError(
            "action None is only for an agent that is done (PettingZoo's convention); the agent to "
            f"move must give an integer id 0..{num_actions - 1} (see uno_env.action_table)"
        )
    if value is None or not 0 <= value < num_actions:
        raise ActionOutOfBoundsError(
            f"action {action!r} is not in the action space: expected an integer id 0..{num_actions - 1} "
            "(see uno_env.action_table)"
        )
    return value


def episode_seed(seed: int | None, previous: int | None) -> int:
    """The seed of the next game an env deals: ``seed`` if given (checked), else the one after
    the ``previous`` game's (:func:`uno_env.envs.core.next_seed`), else a fresh one."""
    if seed is not None:
        return check_seed(seed)
    if previous is not None:
        return next_seed(previous)
    return fresh_seed()


class CompiledEnv:
    """The setup every environment shares (a mixin): the compiled game and its observation layout.

    :meth:`_compile` resolves and checks the rules and the player count once
    (:func:`uno_env.game.compiled.compile_game`) and names what the compiled calls take.
    """

    compiled: CompiledGame
    rules: RuleSet
    num_players: int
    deck: cards.DeckFamily
    _spec: np.ndarray
    _deck_counts: np.ndarray
    _layout: ObsLayout
    _offsets: np.ndarray
    _num_actions: int
    reward_mode: str
    truncation_reward: str
    illegal_action: str
    illegal_reward: float
    _reward_code: int
    _illegal_code: int

    def _compile(self, rules: RuleSet | str | Path, num_players: int, overrides: dict[str, Any]) -> None:
        unknown = [key for key in overrides if key not in _RULE_FIELDS]
        if unknown:
            raise self._unknown_keywords(unknown)
        self.compiled = compile_game(rules, num_players, **overrides)
        self.rules = self.compiled.rules
        self.num_players = self.compiled.num_players
        self.deck = self.compiled.deck
        self._spec = self.compiled.spec
        self._staged = staged_argument(self._spec)  # None: the engine without the staged machinery
        self._deck_counts = self.compiled.deck_counts
        self._layout = obs_layout(self.deck)
        self._offsets = self._layout.offsets
        self._num_actions = self.compiled.num_actions

    def _unknown_keywords(self, unknown: list[str]) -> UnknownKeywordError:
        """The error for constructor keywords that are neither env options nor rule fields."""
        skip = {"self", "rules", "num_players"}
        options = [
            name
            for name, parameter in inspect.signature(type(self).__init__).parameters.items()
            if name not in skip and parameter.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        also = f"; also unknown: {', '.join(repr(k) for k in unknown[1:])}" if len(unknown) > 1 else ""
        hints = "".join(f"; {_KEYWORD_HINTS[key]}" for key in unknown if key in _KEYWORD_HINTS)
        return UnknownKeywordError(
            f"{type(self).__name__}() got an unexpected keyword argument {unknown[0]!r}{also}: "
            f"neither an env option ({', '.join(options)}) nor a rule field ({', '.join(_RULE_FIELDS)})"
            f"{hints}"
        )

    def _set_payoffs(
        self, reward: str, truncation_reward: str, illegal_action: str, illegal_reward: float
    ) -> None:
        """Check and keep the reward scheme, the pay of a truncated game and what an illegal action does."""
        self.reward_mode = reward
        self.truncation_reward = truncation_reward
        self.illegal_action = illegal_action
        if (
            isinstance(illegal_reward, bool)
            or not isinstance(illegal_reward, (int, float, np.integer, np.floating))
            or not np.isfinite(illegal_reward)
        ):
            raise ValueError(f"illegal_reward must be a finite number, got {illegal_reward!r}")
        self._reward_code = check_choice("reward", reward, core.REWARDS) | check_choice(
            "truncation_reward", truncation_reward, core.TRUNCATION_REWARDS
        )
        self._illegal_code = check_choice("illegal_action", illegal_action, core.ILLEGAL_ACTIONS)
        self.illegal_reward = float(illegal_reward)


class PublicLog:
    """The games' public move logs as the views read them: each game's decisions as
    ``(seat, action, phase)``, as :attr:`uno_env.Game.log` keeps them.

    The compiled steps write every decision they apply, compiled opponents' included, into
    a ring per game (a row of :attr:`log`, see :func:`uno_env.envs.core.log_move`);
    :meth:`entries` reads a game's new entries into its list when a view needs them. The
    ring holds a whole game of the rule set (:func:`uno_env.envs.core.log_capacity` of its
    ``max_decisions``, E-END-1), so nothing is overwritten however many decisions one
    compiled call applies (opponents playing on under MC-END-1 after the learner left, say).
    Only when ``max_decisions`` exceeds :data:`~uno_env.envs.core.LOG_MAX_CAPACITY` is the
    ring shorter than a game; :meth:`keep_up` (called once a step) then reads the games whose
    unread entries fill half of it. :meth:`uno_env.styles.public.PublicAccessors.public_history`
    shows a viewer only what it may know of them, read through each game's :meth:`digest`.
    """

    def __init__(self, games: int, max_decisions: int) -> None:
        self.capacity = core.log_capacity(max_decisions)
        self.max_decisions = int(max_decisions)
        self.whole_games = self.capacity >= max_decisions
        """Whether the ring holds a whole game (then :meth:`keep_up` has nothing to do)."""
        self.log = np.zeros((games, core.LOG_HEAD + self.capacity), dtype=np.int64)
        self._entries: list[list[tuple[int, int, int]]] = [[] for _ in range(games)]
        self._digests: list[HistoryDigest | None] = [None] * games
        self._read = np.zeros(games, dtype=np.int64)  # entries of the row's game read so far
        self._serial = np.zeros(games, dtype=np.int64)  # which game of the row they belong to
        self._lost = np.zeros(games, dtype=np.bool_)
        self._first = self.log[0] if games == 1 else None  # the single-agent env's one row
        self._idle = self.whole_games or games == 0  # keep_up has nothing to do

    def entries(self, row: int) -> list[tuple[int, int, int]]:
        """Game ``row``'s decisions so far (the list grows as the game goes on: a view keeps
        its length). Raises RuntimeError if the ring was overwritten before it was read (only
        possible when ``max_decisions`` exceeds :data:`~uno_env.envs.core.LOG_MAX_CAPACITY`
        and more decisions than that were applied between two reads)."""
        self.read(row)
        if self._lost[row]:
            raise RuntimeError(
                f"the public move log of game {row} lost entries: more than {self.capacity} "
                f"decisions were applied between two reads (max_decisions={self.max_decisions}; "
                f"the log holds a whole game when max_decisions <= {core.LOG_MAX_CAPACITY})"
            )
        return self._entries[row]

    def digest(self, row: int) -> HistoryDigest:
        """The digest of game ``row``'s decisions for its views (read them with :meth:`entries`
        first): one per game, a new game in the row has a new one."""
        digest = self._digests[row] = HistoryDigest.of(self._entries[row], self._digests[row])
        return digest

    def keep_up(self) -> None:
        """Read every game whose unread entries fill half its ring (a new game's: all of them);
        nothing to do when the ring holds a whole game."""
        if self._idle:
            return
        first = self._first
        half = self.capacity // 2
        if first is not None:  # one row: the scalar reads are the cheaper ones
            read = self._read[0] if first[core.LOG_SERIAL] == self._serial[0] else 0
            if first[core.LOG_COUNT] - read > half:
                self.read(0)
            return
        counts, serials = self.log[:, core.LOG_COUNT], self.log[:, core.LOG_SERIAL]
        unread = counts - np.where(serials == self._serial, self._read, 0)
        for row in np.flatnonzero(unread > half):
            self.read(int(row))

    def read(self, row: int) -> None:
        """Read game ``row``'s new entries into its list (a new game in the row starts a new list)."""
        count = int(self.log[row, core.LOG_COUNT])
        serial = int(self.log[row, core.LOG_SERIAL])
        if serial != self._serial[row]:
            self._entries[row] = []
            self._read[row] = 0
            self._serial[row] = serial
            self._lost[row] = False
        start = int(self._read[row])
        capacity = self.capacity
        if count - start > capacity:
            self._lost[row] = True
            start = count - capacity
        if count > start:
            lo = start & (capacity - 1)
            hi = lo + count - start
            ring = self.log[row, core.LOG_HEAD :]
            packed = ring[lo:hi] if hi <= capacity else np.concatenate((ring[lo:], ring[: hi - capacity]))
            seat_bits = (1 << core.LOG_ACTION_SHIFT) - 1
            action_bits = (1 << (core.LOG_PHASE_SHIFT - core.LOG_ACTION_SHIFT)) - 1
            shift, phase_shift = core.LOG_ACTION_SHIFT, core.LOG_PHASE_SHIFT
            self._entries[row].extend(
                (e & seat_bits, (e >> shift) & action_bits, e >> phase_shift) for e in packed.tolist()
            )
            self._read[row] = count


SEAT_STREAMS = 16
"""Seat ``s`` of the game dealt from seed ``d`` is seeded ``d * 16 + s`` (every tool's rule)."""


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in the game dealt from ``game_seed``."""
    return (int(game_seed) * SEAT_STREAMS + int(seat)) % 2**63


VIEW_POSITIONAL, VIEW_KEYWORD, VIEW_NONE, VIEW_UNFIT = 0, 1, 2, 3
"""How :func:`call_act` hands an ``act`` the view: third positional argument, ``view=`` keyword
(a keyword-only parameter), or not at all (an ``act(observation, action_mask)``); ``VIEW_UNFIT``:
an ``act`` that takes none of these calls."""


def _view_passing(act: Callable[..., Any], leading: int = 0) -> int:
    """How ``act`` takes the view; ``leading`` arguments come first (1: ``self`` of a function
    read from its class)."""
    try:
        signature = inspect.signature(act)
    except (TypeError, ValueError):  # no signature to read (a builtin): the documented call
        return VIEW_POSITIONAL
    first = (0,) * leading
    for args, kwargs, how in (
        ((*first, 0, 0, 0), {}, VIEW_POSITIONAL),
        ((*first, 0, 0), {"view": 0}, VIEW_KEYWORD),
        ((*first, 0, 0), {}, VIEW_NONE),
    ):
        try:
            signature.bind(*args, **kwargs)
        except TypeError:
            continue
        return how
    return VIEW_UNFIT  # takes none of these: call_act says which calls it would take


@functools.lru_cache(maxsize=1024)
def _view_passing_of_method(function: Callable[..., Any]) -> int:
    return _view_passing(function, leading=1)


def cheats_by_design(agent: Any) -> bool:
    """Whether ``agent`` plays a registered style that reads hidden cards by design (the
    oracle: its ``style`` is the package's own :class:`~uno_env.styles.params.Style` object with
    ``cheats``). An object that only carries a ``cheats`` flag of its own, or a style built
    outside the registry, does not count: it is handed the public view as every agent is."""
    style = getattr(agent, "style", None)
    return isinstance(style, Style) and style.cheats and STYLES.get(style.name) is style


def call_act(agent: Any, observation: Any, action_mask: np.ndarray, view: Any) -> Any:
    """``agent.act(observation, action_mask, view)``, the view handed over the way that ``act``
    takes it: by position, as the keyword ``view=`` (keyword-only), or not at all when ``act``
    takes only ``(observation, action_mask)``, as the environments call an opponent's ``act``.

    A complete :class:`~uno_env.styles.view.PublicView` is handed over as its
    :meth:`~uno_env.styles.view.PublicView.public` copy (nothing the player to move may not
    know), except to an agent whose play style is a registered style that cheats by design
    (:func:`cheats_by_design`: the oracle), which tournaments and studies seat only when
    cheating agents are allowed."""
    act = agent.act
    function = getattr(act, "__func__", None)
    if inspect.isfunction(function) and getattr(act, "__self__", None) is agent:
        how = _view_passing_of_method(function)  # a method of the agent's class: read once
    else:
        how = _view_passing(act)
    if how == VIEW_UNFIT:
        raise TypeError(
            f"{type(agent).__name__}.act({', '.join(inspect.signature(act).parameters)}) cannot be called "
            "as act(observation, action_mask, view) nor as act(observation, action_mask): an agent's "
            "act takes the observation and the legal-action mask, and the view when it reads one"
        )
    if how == VIEW_NONE:
        return act(observation, action_mask)
    if isinstance(view, PublicView) and not cheats_by_design(agent):
        view = view.public()
    if how == VIEW_KEYWORD:
        return act(observation, action_mask, view=view)
    return act(observation, action_mask, view)


class OpponentError(ValueError):
    """An agent seated as an opponent failed: its ``act`` or ``reset`` raised, or it answered
    something that is not an action id. One line naming the agent, its seat and what happened."""


class SeatedAgent:
    """An agent object seated as an opponent in an env, for every game and seat it plays.

    An agent with ``reset(seed)`` keeps state across a game, so it needs one instance per
    game and seat, reset before each game: :meth:`at` gives the instance for a game row and
    seat (the agent itself for the first, a copy for the others, kept while the rows deal on)
    and calls its ``reset(seat_seed(game_seed, seat))`` when the row holds a new game, as the
    tournament and evaluation do. An agent without ``reset`` is shared as it is.
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.stateful = callable(getattr(agent, "reset", None))
        self._held: dict[tuple[int, int], tuple[int | None, Any]] = {}

    def __repr__(self) -> str:
        return f"agent {getattr(self.agent, 'name', type(self.agent).__name__)!r}"

    def at(self, row: int, seat: int, game_seed: int) -> Any:
        """The instance that plays ``seat`` of the game in ``row``, dealt from ``game_seed``."""
        if not self.stateful:
            return self.agent
        key = (int(row), int(seat))
        held = self._held.get(key)
        if held is not None and held[0] == int(game_seed):
            return held[1]
        if held is not None:
            agent = held[1]
        elif not self._held:
            agent = self.agent
        else:
            try:
                agent = copy.deepcopy(self.agent)
            except Exception as exc:
                raise TypeError(
                    f"{self!r} has reset() (it keeps state across a game), so each game and seat "
                    f"gets its own copy, and copying it failed: {type(exc).__name__}: {exc}"
                ) from exc
        agent.reset(seat_seed(game_seed, seat))
        self._held[key] = (int(game_seed), agent)
        return agent

    def ask(
        self, row: int, seat: int, game_seed: int, observation: Any, mask: np.ndarray, view: Any = None
    ) -> int:
        """The action id the instance at ``seat`` of ``row``'s game answers (``view`` passed
        when given); :class:`OpponentError` when it raises or answers anything but an integer
        (whether the id is legal, the step that plays it checks)."""
        try:
            agent = self.at(row, seat, game_seed)
            if view is None:
                answer = agent.act(observation, mask)
            else:  # the view handed over the way act takes it: act(observation, action_mask) works
                answer = call_act(agent, observation, mask, view)
        except AGENT_FAILURES as exc:
            text = " ".join(str(exc).split())[:300]
            raise OpponentError(
                f"{self!r} at seat {seat} raised {type(exc).__name__}: {text}{raised_at(exc)}"
            ) from exc
        if isinstance(answer, (int, np.integer)) and not isinstance(answer, (bool, np.bool_)):
            return int(answer)
        shown = " ".join(repr(answer).split())[:60]
        raise OpponentError(
            f"{self!r} at seat {seat} answered {shown} (a {type(answer).__name__}), not an action id; "
            "act() returns one of the legal action ids (an int)"
        )

    def new_deals(self) -> None:
        """Every row is dealt anew (an explicit reset, even from the same seeds): reset each
        instance before its next decision."""
        self._held = {key: (None, agent) for key, (_, agent) in self._held.items()}


def check_options(options: Any, env: str, keys: tuple[str, ...] = ()) -> dict[str, Any]:
    """``reset``'s ``options`` as a dict; ValueError unless it is None or a dict of ``keys`` only.

    An option an env does not take (a misspelt key, the AEC env's ``position`` in another env,
    Gymnasium's ``reset_mask``) would otherwise be ignored without a word. (The AEC env does
    not use it: PettingZoo's ``api_test`` resets it with ``options={"options": 1}``.)
    """
    if options is None:
        return {}
    if isinstance(options, dict):
        unknown = [key for key in options if key not in keys]
        if not unknown:
            return options
        got = f"the key(s) {', '.join(map(repr, unknown))}"
    else:
        got = repr(options)
    takes = (
        f"{env}.reset options are None or a dict with the key(s) {', '.join(map(repr, keys))}"
        if keys
        else f"{env}.reset takes no options (None or {{}})"
    )
    raise ValueError(f"{takes}, got {got}")


def check_render_mode(render_mode: str | None) -> None:
    """Raise ValueError unless ``render_mode`` is None or one of :data:`RENDER_MODES`."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}, got {render_mode!r}")


def compiled_opponent(entry: str) -> tuple[int, np.ndarray]:
    """The compiled style code and parameters of an opponent named by text. An exported policy's
    name or path is refused naming the agent object that seats it (the compiled step runs styles
    without networks); an unknown name lists the styles."""
    if is_learned_policy(entry):
        raise ValueError(
            f"opponent {entry!r} is an exported policy: the env's compiled step runs play styles only; "
            f"seat it as an agent object, agents.make({entry.strip()!r})"
        )
    codes, params = policy_table([entry])  # ValueError names the valid styles
    return int(codes[0]), params[0]


def check_learner_seat(seat: int | None, num_players: int) -> None:
    """Raise ValueError unless ``seat`` is None (rotating) or a seat of the table."""
    if seat is not None and not is_seat(seat, num_players):
        raise ValueError(f"seat must be None (rotating) or a seat 0..{num_players - 1}, got {seat!r}")


def is_seat(seat: object, num_players: int) -> bool:
    """Whether ``seat`` is an integer (numpy's too, not a bool) in ``0..num_players-1``."""
    return not isinstance(seat, bool) and isinstance(seat, (int, np.integer)) and 0 <= int(seat) < num_players

"""Play whole games between Python agents at :class:`uno_env.Game` tables: the one loop the
tournament, the study, evaluation and the language-model benchmark run agents through when an
agent is not compiled (Python agents, out-of-process and chat-model agents, checkpoints).

Game ``i`` is dealt like ``uno_env.Game(rules, n, seed=seeds[i])``. Each seat's agent is made
once (:meth:`agents.spec.AgentSpec.make`) and, when it has ``reset(seed)``, re-seeded before
every game with :func:`seat_seed` of that game's seed and its seat, so a game's moves depend
only on its seed and its agents, never on the other games of the batch or the process it runs
in. Each decision hands the agent to move its observation vector, its legal-action mask and
its public view (:class:`uno_env.styles.view.PublicView`, hidden cards wiped when read).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import uno_env
from uno_env.envs.common import AGENT_FAILURES, raised_at, seat_seed
from uno_env.game.encoding import observe_state
from uno_env.styles.view import PublicView

from .base import call_act
from .llm import ChatError
from .process import ProtocolError
from .spec import AgentLike, AgentSpec, as_spec
from .trace import TraceWriter


class AgentError(ValueError):
    """An agent failed at a decision: its ``act`` raised, or answered something that is not one
    of the legal action ids (an out-of-process or chat-model agent: broke its protocol). The
    text, one line, names the agent and its seat, what went wrong and what an agent returns."""


SHOWN_LEGAL = 16
"""Legal actions listed in an :class:`AgentError` (the rest are counted)."""


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def decide(agent: Any, observation: Any, mask: np.ndarray, view: PublicView, *, name: str, seat: int) -> int:
    """``agent``'s action id for the decision of ``view`` (the player at ``seat``), checked:
    :class:`AgentError` names the agent ``name`` when ``act`` raises or answers anything but
    a legal action id (an ``int`` or a NumPy integer; the game's own rule, ``Game.step``)."""
    try:
        answer = call_act(agent, observation, mask, view)
    except AGENT_FAILURES as exc:
        raise failure(exc, name, seat, "act") from exc
    legal = [int(a) for a in np.flatnonzero(mask)]
    if isinstance(answer, (int, np.integer)) and not isinstance(answer, (bool, np.bool_)):
        if int(answer) in legal:
            return int(answer)
        why = ", which is not legal here"
    else:
        why = f" (a {type(answer).__name__}), not an action id"
    shown = ", ".join(f"{a} ({view.describe_action(a)})" for a in legal[:SHOWN_LEGAL])
    more = f" and {len(legal) - SHOWN_LEGAL} more" if len(legal) > SHOWN_LEGAL else ""
    raise AgentError(
        f"agent {name!r} at seat {seat} answered {_one_line(repr(answer), 60)}{why}; act() returns "
        f"one of the legal action ids (an int): {shown}{more}"
    )


def reset_agent(agent: Any, seed: int, *, name: str, seat: int) -> None:
    """``agent.reset(seed)`` when it has one (a new game); :class:`AgentError` if it fails."""
    reset = getattr(agent, "reset", None)
    if callable(reset):
        try:
            reset(seed)
        except AGENT_FAILURES as exc:
            raise failure(exc, name, seat, "reset") from exc


def failure(exc: BaseException, name: str, seat: int, method: str) -> AgentError:
    """The :class:`AgentError` of an exception raised by ``name``'s ``method`` at ``seat``."""
    if isinstance(exc, AgentError):
        return exc
    if isinstance(exc, (ProtocolError, ChatError)):  # these name the agent and what it did
        return AgentError(f"seat {seat}: {_one_line(str(exc), 800)}")
    return AgentError(
        f"agent {name!r} at seat {seat}: its {method}() raised {type(exc).__name__}: "
        f"{_one_line(str(exc))}{raised_at(exc)}"
    )


def agent_name(seat_spec: AgentLike, agent: Any) -> str:
    """What errors call the agent of a seat: its spec's text, else the agent's ``name``."""
    try:
        return as_spec(seat_spec).text
    except ValueError:
        return str(getattr(agent, "name", type(agent).__name__))


class DealResults:
    """The per-game arrays of a run of deals, as :func:`uno_env.simulate` gives them:
    ``winner`` (-1 when truncated), ``length`` (decisions), ``turns``, ``first_mover`` (the
    seat of the first decision), ``ranking`` (seats best first; -1 when truncated) and
    ``scores``; :meth:`record` fills game ``i`` from its finished ``Game``."""

    def __init__(self, count: int, players: int) -> None:
        self.arrays = {
            "winner": np.full(count, -1, dtype=np.int64),
            "length": np.zeros(count, dtype=np.int64),
            "turns": np.zeros(count, dtype=np.int64),
            "first_mover": np.zeros(count, dtype=np.int64),
            "ranking": np.full((count, players), -1, dtype=np.int64),
            "scores": np.zeros((count, players), dtype=np.int64),
        }

    def record(self, i: int, game: uno_env.Game) -> None:
        """Write the outcome of finished ``game`` as game ``i``."""
        outcome = game.outcome()
        assert outcome is not None
        self.arrays["winner"][i] = -1 if outcome.winner is None else outcome.winner
        self.arrays["length"][i] = outcome.decisions
        self.arrays["turns"][i] = outcome.turns
        if outcome.ranking:
            self.arrays["ranking"][i] = outcome.ranking
        self.arrays["scores"][i] = outcome.scores


def make_seats(
    seats: Sequence[AgentLike], rules: Any, *, trust: bool = False, first_seed: int = 0
) -> list[Any]:
    """One agent per seat (an agent spec or object each); the same checkpoint is loaded once,
    and one agent object with ``reset`` at several seats plays each with its own instance
    (:func:`own_instances`)."""
    n = len(seats)
    specs = [as_spec(s, where=f"seat {k}") for k, s in enumerate(seats)]
    shared: dict[str, Any] = {}
    out = []
    for k, spec in enumerate(specs):
        if spec.kind in ("checkpoint", "policy"):  # stateless: one copy serves every seat
            key = f"{spec.kind}:{spec.target}"
            if key not in shared:
                shared[key] = spec.make(rules, n, seat_seed(first_seed, k), trust=trust)
            out.append(shared[key])
        else:
            out.append(spec.make(rules, n, seat_seed(first_seed, k), trust=trust))
    return own_instances(out, [s.text for s in specs], shared=[id(a) for a in shared.values()])


def own_instances(
    agents: Sequence[Any], names: Sequence[str], *, keep: int = 0, shared: Sequence[int] = ()
) -> list[Any]:
    """``agents`` (one per seat) with every agent object that has ``reset(seed)`` and sits at
    more than one seat replaced by a copy at each seat after the first (from seat ``keep``
    on, clockwise): such an agent keeps state across a game, and one object at two seats would
    mix the two seats' games and be re-seeded for each in turn, so it played otherwise than
    its class at the same seats (as the envs' opponents, each seat gets an instance of its
    own). An agent without ``reset``, or whose ``id`` is in ``shared`` (a loaded network that
    serves every seat), is shared as it is. :class:`AgentError` when the copy fails, naming
    the agent and what to give instead."""
    out = list(agents)
    seen: set[int] = set()
    for seat in [(keep + j) % len(out) for j in range(len(out))]:
        agent = out[seat]
        if id(agent) in seen and id(agent) not in shared and callable(getattr(agent, "reset", None)):
            try:
                out[seat] = copy.deepcopy(agent)
            except Exception as exc:
                raise AgentError(
                    f"agent {names[seat]!r} sits at several seats and has reset() (it keeps state across a "
                    f"game), so seat {seat} gets a copy of its own, and copying it failed: "
                    f"{type(exc).__name__}: {_one_line(str(exc))}; give its class or a factory instead, "
                    "which is built once per seat"
                ) from exc
        seen.add(id(agent))
    return out


def play_deals(
    rules: Any,
    seats: Sequence[AgentLike],
    seeds: Sequence[int],
    *,
    trust: bool = False,
    agents: Sequence[Any] | None = None,
    on_decision: Callable[[int, int, float], None] | None = None,
    trace: TraceWriter | None = None,
    before_decision: Callable[[int, uno_env.Game], None] | None = None,
    decision_seconds: float | None = None,
) -> dict[str, np.ndarray]:
    """Play one game per seed with ``seats[k]`` at seat ``k``; per-game arrays.

    Returns ``winner`` (-1 when truncated), ``length`` (decisions), ``turns``,
    ``first_mover``, ``ranking`` (seats best first; -1 when truncated) and ``scores``, as
    :func:`uno_env.simulate` gives them. ``agents``: the seats' agents already made (else
    :func:`make_seats`); ``on_decision(seat, action, seconds)`` is called after every
    decision (accounting); ``trace`` records every decision and game (:mod:`agents.trace`);
    ``before_decision(i, game)`` is called with game ``i`` before each decision is asked for
    (the atlas reads every seat's position there).

    ``decision_seconds``: a time budget per decision for the agents that run in this process
    (``FILE.py:NAME``, ``MODULE:ATTR``, agent objects and factories): a decision that took
    longer raises :class:`AgentError` naming the agent once it has returned. Nothing interrupts
    code running in this process (a thread cannot be stopped, a signal is not portable), so an
    agent that never returns still stalls the match; an out-of-process agent (``cmd:``) has its
    protocol's own timeout, which stops the program.
    """

    ruleset = uno_env.load_rules(rules)
    n = len(seats)
    if decision_seconds is not None and not (math.isfinite(decision_seconds) and decision_seconds > 0):
        raise ValueError(f"decision_seconds must be a number of seconds > 0, got {decision_seconds!r}")
    players = make_seats(seats, ruleset, trust=trust) if agents is None else list(agents)
    budget = math.inf if decision_seconds is None else float(decision_seconds)
    timed = [decision_seconds is not None and _in_process(s) for s in seats]
    results = DealResults(len(seeds), n)
    deck = ruleset.deck_family
    names = [agent_name(s, a) for s, a in zip(seats, players, strict=True)]
    try:
        for i, seed in enumerate(seeds):
            for k, agent in enumerate(players):
                reset_agent(agent, seat_seed(int(seed), k), name=names[k], seat=k)
            game = uno_env.Game(ruleset, n, seed=int(seed))
            spec = game.compiled.spec
            results.arrays["first_mover"][i] = game.current_player
            while not game.is_over():
                seat = game.current_player
                if before_decision is not None:
                    before_decision(i, game)
                obs = observe_state(game.state, spec, seat, deck)
                view = PublicView.of(game)
                start = time.perf_counter()
                action = decide(players[seat], obs, game.legal_mask(), view, name=names[seat], seat=seat)
                seconds = time.perf_counter() - start
                if timed[seat] and seconds > budget:
                    raise AgentError(
                        f"agent {names[seat]!r} at seat {seat} took {seconds:.3g} s for one decision, over "
                        f"the budget of {budget:g} s a decision (measured when it returned: an "
                        "agent in this process is never interrupted)"
                    )
                if on_decision is not None:
                    on_decision(seat, action, seconds)
                if trace is not None:
                    trace.decision(game, view, players[seat], action, seconds)
                game.step(action)
            if trace is not None:
                trace.game_over(game, [str(getattr(a, "name", type(a).__name__)) for a in players])
            results.record(i, game)
    finally:  # also when an agent failed: the other seats' programs stop
        if agents is None:
            for agent in players:
                close = getattr(agent, "close", None)
                if callable(close):
                    close()
    return results.arrays


def _in_process(seat: AgentLike) -> bool:
    """Whether a seat's agent runs Python code in this process (a user's file, module or object)."""
    try:
        return as_spec(seat).kind in ("python", "object")
    except ValueError:
        return True  # an object no spec describes: it acts in this process


def is_compiled(seats: Sequence[AgentLike]) -> bool:
    """Whether every seat runs in the compiled simulator (styles, exported policies)."""
    return all(isinstance(s, AgentSpec) and s.compiled for s in (as_spec(x) for x in seats))

"""The agent interface: one ``act`` for scripted styles, random play and learned policies.

An :class:`Agent` picks a legal action id from an observation and its legal-action mask;
scripted styles also read a :class:`~uno_env.styles.view.PublicView` of the game (the public
state and their own hand). Every agent is seeded: the same seed and the same decisions asked
give the same choices. :func:`play` seats agents at a :class:`~uno_env.Game` and plays it out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from uno_env import Game, Outcome
from uno_env.envs.common import call_act, refuse_agent_class
from uno_env.game.encoding import observe_state
from uno_env.sim.learned import check_fits, check_switch
from uno_env.styles.view import PublicView

View = PublicView | Game
"""What scripted agents accept as ``view``: a :class:`PublicView` or a :class:`Game`."""


@runtime_checkable
class Agent(Protocol):
    """Anything that plays: a name and ``act``.

    ``act(observation, action_mask, view=None)`` returns a legal action id of the deck
    family's action table (:mod:`uno_env.engine.actions`). ``observation`` is the env's observation
    (an array, or PettingZoo's ``{"observation", "action_mask"}`` dict, whose mask is used
    when ``action_mask`` is None); ``action_mask`` marks the legal actions; ``view`` is the
    public game state, required by scripted styles and ignored by the others.
    """

    name: str

    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """A legal action id."""
        ...


def resolve_mask(observation: Any, action_mask: np.ndarray | None) -> np.ndarray:
    """The legal-action mask: ``action_mask``, else ``observation["action_mask"]``.

    Raises ValueError if there is none or it allows no action.
    """
    if action_mask is None:
        if isinstance(observation, Mapping) and "action_mask" in observation:
            action_mask = observation["action_mask"]
        else:
            raise ValueError(
                "no action mask: pass action_mask, or an observation dict with an 'action_mask' entry"
            )
    mask = np.asarray(action_mask)
    if mask.ndim != 1:
        raise ValueError(f"the action mask must be one-dimensional, got shape {mask.shape}")
    if not mask.any():
        raise ValueError("the action mask has no legal action (is the game over?)")
    return mask


def as_view(view: View | None, who: str, observation: Any = None) -> PublicView:
    """``view`` as a :class:`PublicView` (else the view an env's observation carries, as the AEC
    env's does: ``observation.view``); a clear error names ``who`` needs one."""
    if view is None:
        view = getattr(observation, "view", None)
    if isinstance(view, PublicView):
        return view
    if isinstance(view, Game):
        return PublicView.of(view)
    raise ValueError(
        f"{who} reads the public game state: pass view=PublicView.of(game) (or the Game itself), or the "
        f"observation of an env that carries it (the AEC env's); got {type(view).__name__}"
    )


def play(game: Game, agents: Sequence[Agent], *, allow_rules_mismatch: bool = False) -> Outcome:
    """Let ``agents[seat]`` decide for every seat until ``game`` ends; return its outcome.

    Each agent gets ``act(observation, game.legal_mask(), PublicView.of(game))``, the observation
    vector of the seat to move as the envs and tournaments give it (the view by keyword, or not
    at all, when ``act`` takes it so: :func:`call_act`); an illegal choice
    raises :class:`~uno_env.IllegalActionError` from :meth:`Game.step`. An agent that plays
    with a network (:class:`~agents.ExportedAgent`, a ``search:net=NAME`` agent) trained for
    other rules or another player count is refused before the first move
    (:class:`~uno_env.sim.learned.PolicyGameMismatchError`) unless ``allow_rules_mismatch=True``
    (a transfer); an object without ``act`` is refused by seat. The agents are used as given:
    none is reset, so their own seeds hold (``agents.make(..., seed=1)``) and an agent that
    keeps state between games needs its ``reset(seed)`` called before the next one (tournaments
    and the envs call it for every game).
    """
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence):
        raise TypeError(f"agents must be a list of one agent per seat, got {type(agents).__name__}")
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for a game of {game.num_players} players")
    allow = check_switch("allow_rules_mismatch", allow_rules_mismatch)
    for seat, agent in enumerate(agents):
        refuse_agent_class(agent, f"agents[{seat}]: ")
        if not callable(getattr(agent, "act", None)):
            raise TypeError(
                f"agents[{seat}] is a {type(agent).__name__}, not an agent (an object with "
                "act(observation, action_mask, view) -> int; agents.make('greedy') makes one from a name)"
            )
        check_fits(agent, game.rules, game.num_players, allow_rules_mismatch=allow, where=f"agents[{seat}]: ")
    spec, deck = game.compiled.spec, game.rules.deck_family
    while not game.is_over():
        seat = game.current_player
        observation = observe_state(game.state, spec, seat, deck)  # as tournaments give it
        game.step(call_act(agents[seat], observation, game.legal_mask(), PublicView.of(game)))
    outcome = game.outcome()
    assert outcome is not None
    return outcome

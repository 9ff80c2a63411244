"""What an agent saw at a decision, and each seat's chance of winning along a game.

**The agent's view** (:func:`explained_act`, :func:`analyse`): beside each decision of a
replay the page shows why the agent played what it did:

- a learned policy (exported network): its action probabilities, the softmax of its logits
  over the legal actions (it plays the most likely one);
- the search (and the oracle): the rollouts it spent on each candidate (its visit counts)
  and their mean value, from :func:`uno_env.styles.search.search_decision`;
- ``random_legal``: uniform over the legal actions;
- any other agent (a scripted style, a checkpoint, an outside agent): only its choice.

During a live game :func:`explained_act` asks the agent once and keeps what it saw (the
same action the agent's ``act`` returns); a record written elsewhere is analysed afresh by
:func:`analyse` from the agent's name (a search re-run at that position, seeded by it, is
marked ``reanalysed``).

**Win chances** (:class:`WinEstimator`): each seat's chance of winning the round at every
step of a game, drawn as a chart. :class:`SearchValue` is the search's estimate by rollouts
from the true hands (:func:`uno_env.styles.search.win_chances`); :class:`HandModel` the search's
leaf value alone (:func:`uno_env.styles.search.evaluate`: hand sizes and wild cards);
:class:`Calibrated` the calibrated model of the balance atlas (:mod:`uno_env.sim.winprob`: a
conditional logit on each seat's cards and place in the turn order, fitted on simulated games
and checked on held-out ones), microseconds per position. Estimators are looked up by name in
:data:`ESTIMATORS`; ``calibrated:FILE`` reads the models of an atlas run (its ``winprob.json``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from agents import Agent, ExportedAgent, PolicyAgent, RandomAgent, ScriptedAgent
from agents.match import decide
from uno_env import Game
from uno_env.game.encoding import observe_state
from uno_env.sim.learned import is_learned_policy, load_policy, observe_public
from uno_env.sim.winprob import ModelBook, shipped_models
from uno_env.styles.registry import parse_policy
from uno_env.styles.search import evaluate, win_chances
from uno_env.styles.view import PublicView

SEARCH_STYLES = ("search", "oracle")
ACTION_SLOTS = 256
"""Length of the per-action arrays handed to the compiled search (longer than any action table)."""


def _softmax_view(logits: np.ndarray, legal: list[int]) -> dict[str, Any]:
    chosen = np.asarray([logits[a] for a in legal], dtype=np.float64)
    weights = np.exp(chosen - chosen.max())
    probs = weights / weights.sum()
    return {"kind": "probabilities", "actions": legal, "values": [round(float(p), 4) for p in probs]}


def _search_view(visits: np.ndarray, values: np.ndarray, legal: list[int]) -> dict[str, Any]:
    if int(visits[legal].sum()) == 0:
        return {"kind": "choice", "why": "not searched (one sensible action, or a true call)"}
    return {
        "kind": "visits",
        "actions": legal,
        "values": [int(visits[a]) for a in legal],
        "means": [round(float(values[a]), 4) for a in legal],
    }


def explained_act(agent: Agent, game: Game, name: str = "") -> tuple[int, dict[str, Any]]:
    """The action ``agent`` takes for the player to move in ``game`` and what it saw (see the
    module docstring); the agent is asked once, so its generator advances as in ``act``. An
    agent of the operator's (Python, ``cmd:``, ``llm:``, a checkpoint) is checked as every tool
    checks it (:func:`agents.match.decide`; :class:`~agents.match.AgentError` names ``name``)."""
    legal = game.legal_actions()
    view = PublicView.of(game)
    if isinstance(agent, ScriptedAgent) and agent.style.name in SEARCH_STYLES:
        visits = np.zeros(ACTION_SLOTS, dtype=np.int64)
        values = np.zeros(ACTION_SLOTS, dtype=np.float64)
        action = view.search_with_counts(
            agent.params, game.legal_mask(), agent._generator, agent.style.cheats, visits, values
        )
        return action, _search_view(visits, values, legal)
    if isinstance(agent, ExportedAgent):
        logits = agent.policy.logits(observe_public(view.state, view.spec, view.seat))
        action = int(agent.act(None, game.legal_mask(), view))
        return action, _softmax_view(logits, legal)
    observation = _observation_for(agent, game)
    label = name or str(getattr(agent, "name", type(agent).__name__))
    action = decide(agent, observation, game.legal_mask(), view, name=label, seat=game.current_player)
    if isinstance(agent, RandomAgent):
        return action, {
            "kind": "probabilities",
            "actions": legal,
            "values": [round(1 / len(legal), 4)] * len(legal),
        }
    return action, {"kind": "choice"}


def _observation_for(agent: Agent, game: Game) -> Any:
    """The env observation for agents that read one (SB3 checkpoints), else None."""

    if isinstance(agent, PolicyAgent):
        return observe_state(game.state, game.compiled.spec, game.current_player, game.deck)
    return None


def analyse(name: str, game: Game, seed: int) -> dict[str, Any] | None:
    """The view of the agent called ``name`` at the decision of ``game`` (a record written
    elsewhere, no view stored): exact for learned policies and ``random_legal``; the search
    re-run at this position with a generator seeded by ``seed`` (marked ``reanalysed``);
    ``None`` for people and agents whose reasons cannot be recomputed."""
    legal = game.legal_actions()
    if not legal:
        return None
    view = PublicView.of(game)
    if is_learned_policy(name):
        try:
            policy = load_policy(name)
            logits = policy.logits(observe_public(view.state, view.spec, view.seat))
        except ValueError:
            return None
        return _softmax_view(logits, legal)
    try:
        style, _ = parse_policy(name)
    except ValueError:
        return None
    if style.name == "random_legal":
        return {"kind": "probabilities", "actions": legal, "values": [round(1 / len(legal), 4)] * len(legal)}
    if style.name in SEARCH_STYLES:
        agent = ScriptedAgent(name, seed=seed)
        _, result = explained_act(agent, game)
        if result["kind"] == "visits":
            result["reanalysed"] = True
        return result
    return {"kind": "choice"}


# ------------------------------------------------------------------ win chances
class WinEstimator(Protocol):
    """Each seat's chance of winning the round at a position (spectator's knowledge)."""

    name: str
    description: str

    def estimate(self, game: Game, step: int) -> list[float]:
        """One share per seat (summing to 1 while the round runs); ``step`` seeds any randomness."""
        ...


@dataclass
class SearchValue:
    """The search's estimate: ``sims`` rollouts of the ``rollout`` style from the true hands,
    the draw pile's order unknown (:func:`uno_env.styles.search.win_chances`)."""

    sims: int = 80
    rollout: str = "blocker"
    name: str = "search"
    description: str = "the search's rollouts from the true hands (draw pile order unknown)"

    def estimate(self, game: Game, step: int) -> list[float]:
        """Shares per seat; the same ``step`` gives the same estimate."""
        over = game.outcome()
        if over is not None:
            return _final(over.winner, game.num_players)
        values = win_chances(game.state, game.compiled.spec, sims=self.sims, seed=step, rollout=self.rollout)
        return [round(float(v), 4) for v in values]


@dataclass
class HandModel:
    """The search's leaf value alone: hand sizes and wild cards held (no rollouts)."""

    name: str = "hands"
    description: str = "the search's leaf value: hand sizes and wild cards held"

    def estimate(self, game: Game, step: int) -> list[float]:
        """Shares per seat, from the position alone."""
        over = game.outcome()
        if over is not None:
            return _final(over.winner, game.num_players)
        return [round(float(evaluate(game.state, game.compiled.spec, s)), 4) for s in range(game.num_players)]


@dataclass
class Calibrated:
    """The balance atlas' calibrated estimate (:class:`uno_env.sim.winprob.ModelBook`): the model
    fitted on the game's rules and player count, else the one pooled over the presets at that
    player count. ``path``: a model file (default: the one shipped with the package)."""

    path: str = ""
    name: str = "calibrated"
    description: str = (
        "a calibrated model of each seat's cards and place in the turn order (the balance atlas'; "
        "fitted on the game's rules where the atlas measured them, else pooled over the presets)"
    )

    def __post_init__(self) -> None:
        self.book = ModelBook.load(self.path) if self.path else shipped_models()
        if self.path:
            self.name = f"calibrated:{self.path}"

    def estimate(self, game: Game, step: int) -> list[float]:
        """Shares per seat, from the position alone (a finished round: its winner's)."""
        over = game.outcome()
        if over is not None:
            return _final(over.winner, game.num_players)
        chances = self.book.chances(game.state, game.compiled.spec, game.rules, game.num_players)
        return [round(float(v), 4) for v in chances]


def _final(winner: int | None, n: int) -> list[float]:
    return [1.0 if s == winner else 0.0 for s in range(n)]


ESTIMATORS: dict[str, Callable[[], WinEstimator]] = {
    "search": SearchValue,
    "hands": HandModel,
    "calibrated": Calibrated,
}
"""Win-chance estimators by name (``uno-env serve --win-estimate NAME``; ``calibrated:FILE``
takes an atlas run's model file)."""


def warm_up() -> None:
    """Run what the web table compiles on first use (the search with its counts, the
    estimates) once on a small game, so no request waits for the compiler."""
    game = Game("uno", 2, seed=0)
    agent = ScriptedAgent("search:sims=8", seed=0)
    network = ExportedAgent("distilled_uno_2p")
    for step in range(3):
        explained_act(network, game)
        action, _ = explained_act(agent, game)
        SearchValue(sims=2).estimate(game, step)
        HandModel().estimate(game, step)
        Calibrated().estimate(game, step)
        game.step(action)


def make_estimator(name: str) -> WinEstimator:
    """The estimator called ``name`` (``calibrated:FILE``: an atlas run's model file); ValueError
    lists the known ones."""
    if name.startswith("calibrated:"):
        return Calibrated(path=name.partition(":")[2])
    if name not in ESTIMATORS:
        raise ValueError(
            f"unknown win-chance estimate {name!r}; known: {', '.join(ESTIMATORS)}, or calibrated:FILE "
            "(an atlas run's winprob.json)"
        )
    return ESTIMATORS[name]()

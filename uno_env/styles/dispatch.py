"""The one entry point of the compiled styles: :func:`choose_action`, by style code.

The batch simulator, the vector env, game records and the Python agents (through
:class:`~uno_env.styles.view.PublicView`) call the compiled styles through
:func:`choose_action`: one source for every path. A style added to
:mod:`uno_env.styles.scripted` needs no branch here (every code that is not a random
baseline or a planning style is scripted).
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from .baselines import (
    POLICY_RANDOM_LEGAL,
    POLICY_RANDOM_PLAYABLE,
    RANDOM_POLICIES,
    random_action,
    random_playable_action,
)
from .monte_carlo import POLICY_MONTE_CARLO, monte_carlo_action
from .scripted import scripted_action
from .search import POLICY_ORACLE, POLICY_SEARCH, search_action


@njit(cache=True)
def choose_action(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    count: int,
    policy: int,
    params: np.ndarray,
    planning: bool | None = True,
    scripted: bool | None = True,
) -> int:
    """The action compiled ``policy`` takes for the player to move (``state[S_CURRENT]``).

    The one entry point for every caller (batch games, vector envs, the Python agents):

    - ``state``: the game's int64 state buffer; only public information and the mover's own
      hand are read; the game's *agent* generator (``state[AGENT_RNG:AGENT_RNG+6]``) supplies
      any randomness and is advanced, nothing else is written;
    - ``spec``: the compiled rule set (:func:`uno_env.engine.rules.compile_spec`);
    - ``mask``: int8 legal-action mask of the mover, at least ``spec[SP_NUM_ACTIONS]`` long
      (as :func:`uno_env.engine.engine.fill_mask` writes it); ``count``: how many actions it allows;
    - ``policy``: a code of :data:`POLICIES`; ``params``: int64 array of
      :data:`NUM_POLICY_PARAMS` style parameters (rates in millionths; a negative slot means
      the default; build it with :func:`policy_table` or :func:`parse_policy`);
    - ``planning``: left out, every style; ``None`` (a compiled loop passing it on) compiles
      a version without the planning styles (:data:`PLANNING_POLICIES`), which must not be
      asked for then (:func:`planning_needed` says which to pass). The planning styles
      simulate whole games and are most of the dispatcher's compile time; numba drops the
      branch for a ``None`` argument before typing, so loops of random and scripted players
      never compile them (a shorter cold start).
    - ``scripted``: likewise, ``None`` compiles a version with the random styles alone
      (``random_legal`` and ``random_playable``), for loops whose every compiled player is
      one of them (:func:`scripted_needed` says which to pass; ``planning`` is then ``None``
      too): the scripted styles' card scores are most of what is left.

    Returns a legal action id, or -1 when ``count`` is 0 (the game is over).
    """
    if count <= 0:
        return -1
    if planning is not None:  # pruned at compile time when the argument is None
        if policy == POLICY_SEARCH or policy == POLICY_ORACLE:
            return search_action(state, spec, mask, count, params, policy == POLICY_ORACLE)
        if policy == POLICY_MONTE_CARLO:
            return monte_carlo_action(state, spec, mask, count, params)
    if policy == POLICY_RANDOM_LEGAL:
        return random_action(state, mask, count)
    if scripted is None:  # pruned at compile time: then every player here is a random style
        return random_playable_action(state, spec, mask)
    if policy == POLICY_RANDOM_PLAYABLE:
        return random_playable_action(state, spec, mask)
    return scripted_action(state, spec, mask, policy, params)


PLANNING_POLICIES = (POLICY_MONTE_CARLO, POLICY_SEARCH, POLICY_ORACLE)
"""The styles that plan by simulating games: compiled into :func:`choose_action` only when
its ``planning`` argument is not ``None``."""


def planning_needed(codes: np.ndarray) -> bool:
    """Whether any of the policy ``codes`` is a planning style (:data:`PLANNING_POLICIES`):
    if not, a compiled loop may pass ``planning=None`` and compile without them."""
    return bool(np.isin(codes, PLANNING_POLICIES).any())


def scripted_needed(codes: np.ndarray) -> bool:
    """Whether any of the policy ``codes`` (negative codes: callers, not compiled styles) is
    neither ``random_legal`` nor ``random_playable``: if not, a compiled loop may pass
    ``scripted=None`` (and ``planning=None``) and compile without the other styles."""
    styles = np.asarray(codes)
    return bool(((styles >= 0) & ~np.isin(styles, RANDOM_POLICIES)).any())

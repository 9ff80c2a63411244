"""The random baselines: ``random_legal`` (uniform over the legal actions) and ``random_playable``.

``random_playable`` is the literature's random player (RLCard's and most papers' baseline):
a random playable card, drawing only with none. Both draw only from the game's *agent*
generator (``state[AGENT_RNG ...]``), so they never shift the game's chance events. The
compiled loops call :func:`quick_action` first: it decides from the legal sets as bitmasks
(:func:`uno_env.engine.engine.legal_sets`) without writing a mask, drawing exactly what the
masked version would.

Rules used: U-MATCH-1, U-WILD-1, U-DRAW-1, U-DRAW-2, U-DRAW-3, U-UNO-1, MC-CALL-1, MM-CALL-1.
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.bits import lowest_bit, popcount
from ..engine.rng import rand_below
from .facts import true_call
from .params import Style

POLICY_RANDOM_LEGAL = 0
POLICY_RANDOM_PLAYABLE = 9
RANDOM_POLICIES = (POLICY_RANDOM_LEGAL, POLICY_RANDOM_PLAYABLE)
"""The random styles: all that :func:`~uno_env.styles.dispatch.choose_action` compiles when its
``scripted`` argument is ``None``."""


@njit(cache=True)
def random_action(state: np.ndarray, mask: np.ndarray, count: int) -> int:
    """A uniformly random legal action, from the game's agent generator."""
    k = rand_below(state, L.AGENT_RNG, count)
    a = 0
    while True:
        if mask[a]:
            if k == 0:
                return a
            k -= 1
        a += 1


@njit(cache=True, inline="always")
def nth_bit(bits: int, k: int) -> int:
    """The index of the ``k``-th lowest set bit of ``bits`` (``k`` below their number)."""
    for _ in range(k):
        bits &= bits - 1
    return lowest_bit(bits)


# inlined into quick_action, its only caller: one call fewer per decision on the hot path
@njit(cache=True, inline="always")
def quick_random_action(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> int:
    """:func:`random_action` without a mask: from the legal sets of
    :func:`uno_env.engine.engine.legal_sets`, in every phase and rule set.

    Exactly the action (and the same draw from the agent generator) that :func:`random_action`
    takes on the mask :func:`uno_env.engine.engine.fill_mask` writes; -1, with nothing drawn, when
    nothing is legal. Compiled loops use it to skip writing masks nobody reads.
    """
    phase = state[L.S_PHASE]
    if (phase == L.PH_PLAY or phase == L.PH_CHOOSE_COLOUR) and state[L.S_STATUS] == L.ST_RUNNING:
        # the two commonest decisions: their (inlined) phase functions here, saving legal_sets'
        # compiled call and its dispatch on every decision
        if not engine.state_usable(state):
            return -1
        seat = state[L.S_CURRENT]
        if phase == L.PH_PLAY:
            faces, others = engine.legal_play(state, spec, seat)
        else:
            faces, others = engine.legal_choose_colour(state, spec, seat)
    else:
        faces, others = engine.legal_sets(state, spec, staged)
    playable = popcount(faces)
    count = playable + popcount(others)
    if count == 0:
        return -1
    k = rand_below(state, L.AGENT_RNG, count)  # the action table's order: faces, then the others
    if k < playable:
        return nth_bit(faces, k)
    return spec[L.SP_NUM_FACES] + nth_bit(others, k - playable)


@njit(cache=True, internal=True)
def _pick(state: np.ndarray, count: int) -> int:
    """A uniform index below ``count`` from the agent generator (nothing drawn when ``count`` is 1)."""
    return 0 if count == 1 else rand_below(state, L.AGENT_RNG, count)


@njit(cache=True, internal=True)
def random_playable_action(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """The literature's random player (RLCard's and most papers' baseline), in every phase.

    A true call first (U-UNO-1, MC-CALL-1, MM-CALL-1: two cards in hand and one to lay; never
    a false call); then a uniformly random legal card when there is one (play, answer a
    penalty, continue a multi-card play, give, jump in); else uniformly among the other
    legal actions but the call: ``draw`` only when no card can be laid, ``pass`` to keep an
    unplayable drawn card, a random colour, target, challenge or accept. -1 if nothing is legal.
    """
    nf = spec[L.SP_NUM_FACES]
    if true_call(state, spec, mask):
        return nf + L.A_CALL_OFFSET
    cards = 0
    for face in range(nf):
        cards += mask[face]
    if cards > 0:
        k = _pick(state, cards)
        for face in range(nf):
            if mask[face]:
                if k == 0:
                    return face
                k -= 1
    call = nf + L.A_CALL_OFFSET
    others = 0
    for action in range(nf, spec[L.SP_NUM_ACTIONS]):
        if mask[action] and action != call:
            others += 1
    if others == 0:
        return call if mask[call] else -1
    k = _pick(state, others)
    for action in range(nf, spec[L.SP_NUM_ACTIONS]):
        if mask[action] and action != call:
            if k == 0:
                return action
            k -= 1
    return -1


# inlined into quick_action, its only caller: one call fewer per decision on the hot path
@njit(cache=True, inline="always")
def quick_random_playable_action(state: np.ndarray, spec: np.ndarray, staged: bool | None) -> int:
    """:func:`random_playable_action` without a mask: from the legal sets of
    :func:`uno_env.engine.engine.legal_sets`, in every phase and rule set.

    Exactly its action and draws from the agent generator on the mask
    :func:`uno_env.engine.engine.fill_mask` writes; -1, with nothing drawn, when nothing is legal.
    """
    faces, others = engine.legal_sets(state, spec, staged)
    nf = spec[L.SP_NUM_FACES]
    call = 1 << L.A_CALL_OFFSET
    if (others & call) != 0 and faces != 0 and state[L.HAND_SIZE + state[L.S_CURRENT]] == 2:
        return nf + L.A_CALL_OFFSET  # a true call (U-UNO-1, MC-CALL-1, MM-CALL-1)
    if faces != 0:
        return nth_bit(faces, _pick(state, popcount(faces)))
    rest = others & ~call
    if rest == 0:
        return nf + L.A_CALL_OFFSET if others != 0 else -1
    return nf + nth_bit(rest, _pick(state, popcount(rest)))


@njit(cache=True, internal=True)
def quick_action(state: np.ndarray, spec: np.ndarray, policy: int, staged: bool | None) -> int:
    """The random baselines' mask-free shortcuts (:func:`quick_random_action`,
    :func:`quick_random_playable_action`); -1 for other policies and when nothing is legal.
    ``staged``: :func:`uno_env.engine.engine.staged_argument` of the rules, or True."""
    if policy == POLICY_RANDOM_LEGAL:
        return quick_random_action(state, spec, staged)
    if policy == POLICY_RANDOM_PLAYABLE:
        return quick_random_playable_action(state, spec, staged)
    return -1


BASELINE_STYLES = (
    Style(
        "random_legal",
        POLICY_RANDOM_LEGAL,
        "uniform over the legal actions (a weak baseline; also named `random`)",
        "Every decision uniformly at random among the legal actions, including drawing "
        "while holding a playable card (U-DRAW-3) and forgetting to call UNO. Its games "
        "are long: two of them average about 4,200 decisions a game at 2 players.",
    ),
    Style(
        "random_playable",
        POLICY_RANDOM_PLAYABLE,
        "the literature's random player: a random playable card, draws only with none",
        "Plays a uniformly random playable card (RLCard's and most papers' random agent) "
        "and draws only when it has nothing to play; names a random colour, calls UNO "
        "when the rules ask (two cards, one to lay; never falsely), and takes a random "
        "choice among the other legal actions in every other phase (challenge or accept, "
        "a target, keep an unplayable drawn card).",
    ),
)
"""The random baselines' registry entries (:mod:`uno_env.styles.registry` collects them)."""

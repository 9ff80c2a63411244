"""Compiled pieces shared by the environments: one call per step, rewards, wrong moves, seeds.

Each env step is one compiled call that checks the action, applies it (the engine resolves
chance events), lets compiled opponents move, refills the legal mask and encodes the next
observation. Rewards (:func:`final_rewards`) and the U-WRONG-1 penalty
(:func:`wrong_move`) are env-layer rules over the engine's state, so they live here and
not in :mod:`uno_env.engine.engine`.

Rules implemented: U-WRONG-1 (the ``draw_penalty`` illegal-action policy), E-END-1 (a
wrong move counts as a decision, so games still end at the decision limit; a game cut there
pays by the standing, :func:`standing_rewards`), and the reward formulas over U-SCORE-1..3
(documented in :mod:`uno_env.envs.aec`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiler.borrow import borrow
from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.rng import mix32
from ..game.encoding import encode
from ..styles.baselines import POLICY_RANDOM_LEGAL, quick_action, random_action
from ..styles.dispatch import choose_action

# reward modes
REWARD_WIN = 0
REWARD_RANK = 1
REWARD_SCORE = 2
REWARDS = {"win": REWARD_WIN, "rank": REWARD_RANK, "score": REWARD_SCORE}
SCHEME_BITS = 3  # a reward code is a scheme (the low bits) plus the truncation flag below
TRUNCATED_ZERO = 4  # flag: a game cut by the decision limit pays 0 to everyone (env version 0)
TRUNCATION_REWARDS = {"standing": 0, "zero": TRUNCATED_ZERO}
"""``truncation_reward=`` of the envs: pay a cut game by the standing, or 0 (the old behaviour)."""
LEFT_FIRST = 1 << 40  # standing key offset: under MC-END-1 the players who left rank first

# illegal-action policies
ILLEGAL_TERMINATE = 0
ILLEGAL_RAISE = 1
ILLEGAL_DRAW_PENALTY = 2
ILLEGAL_ACTIONS = {
    "terminate": ILLEGAL_TERMINATE,
    "raise": ILLEGAL_RAISE,
    "draw_penalty": ILLEGAL_DRAW_PENALTY,
}

WRONG_MOVE_CARDS = 2  # U-WRONG-1: the wrong card goes back and its player draws 2

# return codes of the step functions (seats are >= 0)
OVER = -1  # the game has ended
ILLEGAL = -2  # the action was not legal; nothing changed
ENGINE_ERROR = -3  # aec_step: the engine found the state unusable and ended the game
OUT_OF_BOUNDS = -2  # vector_run: OUT_OF_BOUNDS - i, game i's action is outside the action table
BROKEN = -2  # vector_run: waiting[i] for a game the engine ended with S_ENGINE_ERROR set (kept, not redealt)
MASK_STALE = -2  # play_compiled's count: the mask does not hold the current legal actions yet

# seat codes of a table: >= 0 a compiled policy (uno_env.styles.registry.POLICIES), else a caller
LEARNER = -1  # the learning agent (the caller decides)
EXTERNAL = -2  # a Python opponent (the caller decides); the vector env numbers its k-th EXTERNAL - k

M31 = 0x7FFFFFFF

# the public move log: per game, a row of int64: the decisions written in the row's game so far,
# the games dealt in the row (a new one restarts the count), then a ring of packed entries
LOG_COUNT = 0  # log[row, LOG_COUNT]: decisions written in the row's game so far
LOG_SERIAL = 1  # log[row, LOG_SERIAL]: games dealt in the row
LOG_HEAD = 2  # the ring: log[row, LOG_HEAD:], a power of two entries (log_capacity)
LOG_MAX_CAPACITY = 1 << 16  # the most entries a ring holds (512 KiB a game)
LOG_ACTION_SHIFT = 8  # entry = seat | action << LOG_ACTION_SHIFT | phase << LOG_PHASE_SHIFT
LOG_PHASE_SHIFT = 32


@njit(cache=True)
def next_seed(seed: int) -> int:
    """The seed of the game dealt after the game of ``seed`` (auto-reset, reset without seed).

    A fixed mixing of the 63-bit seed, so a game sequence depends only on its first seed.
    """
    lo = seed & 0xFFFFFFFF
    hi = (seed >> 32) & M31
    new_lo = mix32(lo ^ mix32(hi ^ 0x6A09E667))
    new_hi = mix32(hi ^ mix32(new_lo ^ 0xBB67AE85)) & M31
    return (new_hi << 32) | new_lo


@njit(cache=True)
def wrong_move(state: np.ndarray, spec: np.ndarray, mask: np.ndarray, staged: bool | None) -> None:
    """U-WRONG-1: the player to move took a wrong card back and draws 2; they decide again.

    Counts as a decision (E-END-1), so a game of wrong moves still ends at the limit.
    Refills ``mask``.
    """
    seat = state[L.S_CURRENT]
    engine.draw_cards(state, seat, WRONG_MOVE_CARDS)
    state[L.S_DECISIONS] += 1
    if state[L.S_STATUS] == L.ST_RUNNING and state[L.S_DECISIONS] >= spec[L.SP_MAX_DECISIONS]:
        engine.finish(state, L.ST_TRUNCATED, -1)
    engine.fill_mask(state, spec, mask, staged)


# inlined into its one caller, standing_rewards, itself inlined into final_rewards
# (uno_env/engine/engine.py, "Inlining")
@njit(cache=True, inline="always")
def standing(state: np.ndarray, spec: np.ndarray, value: np.ndarray, key: np.ndarray) -> None:
    """Where each seat stands by what the rules would count now (a game cut by E-END-1).

    ``value[s]`` (higher is better) is what the scoring counts: where the round winner
    scores the others' cards (U-SCORE-1/2), match points less the points still in hand;
    where players keep their own points (U-SCORE-3, MM-SCORE-1), minus (match points plus
    hand points); under MC-END-1, minus the hand's points. ``key[s]`` ranks the seats
    (lower is better, equal keys tie): minus the value, except that under MC-END-1 the
    players who already left come first, in leaving order.
    """
    n = state[L.S_NPLAYERS]
    winner_takes = spec[L.SP_ROUND_SCORE] == 0 and spec[L.SP_MATCH] != engine.MATCH_LOWEST_TOTAL
    for seat in range(n):
        hand = engine.hand_points(state, spec, seat)
        if spec[L.SP_END_RULE] == 1:  # MC-END-1
            value[seat] = -hand
            left = state[L.FINISHED + seat]
            key[seat] = left - LEFT_FIRST if left > 0 else hand
        elif winner_takes:  # U-SCORE-1, U-SCORE-2
            value[seat] = state[L.SCORE + seat] - hand
            key[seat] = -value[seat]
        else:  # U-SCORE-3, MM-SCORE-1
            value[seat] = -(state[L.SCORE + seat] + hand)
            key[seat] = -value[seat]


# inlined into its one caller, final_rewards (uno_env/engine/engine.py, "Inlining")
@njit(cache=True, inline="always")
def standing_rewards(state: np.ndarray, spec: np.ndarray, scheme: int, out: np.ndarray) -> None:
    """Rewards of a game cut by the decision limit (E-END-1), paid by :func:`standing`.

    ``win`` and ``rank`` pay each finishing position as a finished game would, with the
    seats ranked by the standing; tied seats share the payoffs of the positions they hold
    (so a tie for first splits the win). ``score`` pays each seat its standing value less
    the table mean. All zero-sum.
    """
    n = state[L.S_NPLAYERS]
    value = np.empty(n, dtype=np.int64)
    key = np.empty(n, dtype=np.int64)
    standing(state, spec, value, key)
    if scheme == REWARD_SCORE:
        _relative_to_mean(value, 0, n, 1.0, out)
        return
    for seat in range(n):
        better = 0
        tied = 0
        for other in range(n):
            if key[other] < key[seat]:
                better += 1
            elif key[other] == key[seat]:
                tied += 1
        total = 0.0
        for r in range(better, better + tied):
            if scheme == REWARD_WIN:
                total += 1.0 if r == 0 else -1.0 / (n - 1)
            else:
                total += 1.0 - 2.0 * r / (n - 1)
        out[seat] = total / tied


@njit(cache=True)
def final_rewards(state: np.ndarray, spec: np.ndarray, mode: int, out: np.ndarray) -> None:
    """Per-seat rewards of a finished game into ``out[:n]``.

    ``mode`` is a scheme of :data:`REWARDS`, plus :data:`TRUNCATED_ZERO` for the old
    payment of a cut game. ``win``: +1 to the winner, -1/(n-1) to each other player.
    ``rank``: 1 - 2r/(n-1) for rank r (0 = best, :func:`uno_env.engine.engine.compute_ranking`).
    ``score``, by the rules' scoring: where the round winner scores the points left in the
    other hands (U-SCORE-1), a single round pays the winner those points and every other
    player minus their own, a first-to-target match (U-SCORE-2) pays match points minus the
    table mean; where players keep their own points, lower being better (U-SCORE-3,
    MM-SCORE-1, and the hand left to the loser under MC-END-1), it pays the table mean minus
    own points. A game cut by the decision limit (E-END-1) pays by the standing
    (:func:`standing_rewards`), or 0 with :data:`TRUNCATED_ZERO`, so stalling never pays
    more than the position. Every mode is zero-sum.
    """
    n = state[L.S_NPLAYERS]
    for seat in range(n):
        out[seat] = 0.0
    scheme = mode & SCHEME_BITS
    if state[L.S_STATUS] == L.ST_TRUNCATED:
        if mode & TRUNCATED_ZERO == 0:
            standing_rewards(state, spec, scheme, out)
        return
    if state[L.S_STATUS] != L.ST_WON:
        return
    mode = scheme
    winner = state[L.S_WINNER]
    if mode == REWARD_WIN:
        for seat in range(n):
            out[seat] = -1.0 / (n - 1)
        out[winner] = 1.0
    elif mode == REWARD_RANK:
        ranking = np.empty(n, dtype=np.int64)
        engine.compute_ranking(state, spec, ranking)
        for r in range(n):
            out[ranking[r]] = 1.0 - 2.0 * r / (n - 1)
    else:
        match = spec[L.SP_MATCH]
        if spec[L.SP_END_RULE] == 1:  # MC-END-1: only the loser is left with points
            _relative_to_mean(state, L.ROUND_POINTS, n, -1.0, out)
        elif spec[L.SP_ROUND_SCORE] == 1 or match == engine.MATCH_LOWEST_TOTAL:  # MM-SCORE-1, U-SCORE-3
            _relative_to_mean(state, L.SCORE, n, -1.0, out)
        elif match == engine.MATCH_SINGLE_ROUND:  # U-SCORE-1
            total = 0.0
            for seat in range(n):
                if seat != winner:
                    points = float(state[L.ROUND_POINTS + seat])
                    out[seat] = -points
                    total += points
            out[winner] = total
        else:  # U-SCORE-2
            _relative_to_mean(state, L.SCORE, n, 1.0, out)


@njit(cache=True, internal=True)
def _relative_to_mean(state: np.ndarray, at: int, n: int, sign: float, out: np.ndarray) -> None:
    """``out[s] = sign * (state[at + s] - mean)`` over the ``n`` seats."""
    mean = 0.0
    for seat in range(n):
        mean += state[at + seat]
    mean /= n
    for seat in range(n):
        out[seat] = sign * (state[at + seat] - mean)


@njit(cache=True, internal=True)
def export_mask(spec: np.ndarray, mask: np.ndarray, out_mask: np.ndarray) -> None:
    """Copy the engine mask's action-table part into ``out_mask``."""
    for a in range(spec[L.SP_NUM_ACTIONS]):
        out_mask[a] = mask[a]


def log_capacity(max_decisions: int) -> int:
    """Entries in a game's public move log ring for a rule set truncating games at
    ``max_decisions`` (E-END-1): the least power of two that holds a whole game, so no call,
    however many decisions it applies, overwrites an entry; at most :data:`LOG_MAX_CAPACITY`
    (a rule set allowing longer games has its log read every step, see
    :class:`uno_env.envs.common.PublicLog`)."""
    return min(LOG_MAX_CAPACITY, 1 << max(int(max_decisions) - 1, 1).bit_length())


@njit(cache=True, inline="always")
def log_move(log: np.ndarray, row: int, seat: int, action: int, phase: int) -> None:
    """Write a decision about to be applied into game ``row``'s public move log.

    ``log[row]`` holds the entries' count, the game's serial, then a ring of packed entries
    (the deciding seat, the action id, the phase it answered: what :attr:`uno_env.Game.log`
    keeps, read through :meth:`uno_env.styles.public.PublicAccessors.public_history`, which
    hides what the viewer may not see) as long as :func:`log_capacity` makes it. With no rows
    (an env that keeps no log) nothing is written.
    """
    if log.shape[0] == 0:
        return
    n = log[row, LOG_COUNT]
    slot = LOG_HEAD + (n & (log.shape[1] - LOG_HEAD - 1))
    log[row, slot] = seat | (action << LOG_ACTION_SHIFT) | (phase << LOG_PHASE_SHIFT)
    log[row, LOG_COUNT] = n + 1


@njit(cache=True, inline="always")
def log_new_game(log: np.ndarray, row: int) -> None:
    """A game was dealt in ``row``: its public move log starts empty (see :func:`log_move`)."""
    if log.shape[0] == 0:
        return
    log[row, LOG_COUNT] = 0
    log[row, LOG_SERIAL] += 1


@njit(cache=True)
def aec_step(
    state: np.ndarray,
    spec: np.ndarray,
    action: int,
    mask: np.ndarray,
    offsets: np.ndarray,
    obs: np.ndarray,
    out_mask: np.ndarray,
    staged: bool | None,
) -> int:
    """One AEC step: check and apply ``action``; encode the next decider's view.

    Returns the seat that must decide now (its observation in ``obs``, legal actions in
    ``out_mask``), :data:`OVER`, :data:`ILLEGAL` (nothing changed) or :data:`ENGINE_ERROR`.
    """
    state = borrow(state)
    spec = borrow(spec)
    mask = borrow(mask)
    offsets = borrow(offsets)
    obs = borrow(obs)
    out_mask = borrow(out_mask)
    if not engine.step_checked(state, spec, action, mask, staged):
        return ILLEGAL
    if state[L.S_ENGINE_ERROR] != L.ERR_NONE:
        return ENGINE_ERROR
    if state[L.S_STATUS] != L.ST_RUNNING:
        return OVER
    seat = state[L.S_CURRENT]
    encode(state, spec, seat, offsets, obs)
    export_mask(spec, mask, out_mask)
    return seat


@njit(cache=True)
def aec_view(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    offsets: np.ndarray,
    obs: np.ndarray,
    out_mask: np.ndarray,
) -> int:
    """Encode the current decider's view (after a reset or a wrong move); as :func:`aec_step`."""
    if state[L.S_STATUS] != L.ST_RUNNING:
        return OVER
    seat = state[L.S_CURRENT]
    encode(state, spec, seat, offsets, obs)
    export_mask(spec, mask, out_mask)
    return seat


# inlined (uno_env/engine/engine.py, "Inlining"): a thin loop over the engine and the styles
# whose own module re-optimised and re-emitted their whole closure; the vector env calls it from
# one place (vector_run), the single-agent env's three steps each from one
@njit(cache=True, inline="always")
def play_compiled(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    seats: np.ndarray,
    params: np.ndarray,
    staged: bool | None,
    log: np.ndarray,
    row: int,
    count: int = -1,
    planning: bool | None = True,
    scripted: bool | None = True,
) -> int:
    """Let compiled policies move while the seat to move has one (``seats[s] >= 0``).

    Seat ``s`` plays policy code ``seats[s]`` with parameters ``params[s]`` through
    :func:`uno_env.styles.dispatch.choose_action`, which ``planning`` and ``scripted`` are passed on
    to: ``None`` when no seat plays a planning style (:func:`uno_env.styles.dispatch.planning_needed`),
    and when every seat plays a random one (:func:`uno_env.styles.dispatch.scripted_needed`), so the
    loop compiles without those styles; ``staged`` goes to the engine
    (:func:`uno_env.engine.engine.staged_argument`). Returns the seat that must decide now (a learner
    or external seat) or :data:`OVER`; ``mask`` then holds the legal actions. On entry
    ``count`` says what ``mask`` holds: the legal actions and their number (``>= 0``), the
    legal actions (``-1``: counted on first use), or nothing yet (:data:`MASK_STALE`).
    Random opponents mostly decide without a mask (:func:`uno_env.styles.baselines.quick_action`), so the mask
    is written only when a decision needs it, and once before returning. Each move goes into
    game ``row``'s public move log (:func:`log_move`).
    """
    while state[L.S_STATUS] == L.ST_RUNNING:
        seat = state[L.S_CURRENT]
        code = seats[seat]
        if code < 0:
            if count == MASK_STALE:
                engine.fill_mask(state, spec, mask, staged)
            return seat
        action = quick_action(state, spec, code, staged)
        if action < 0:
            if count == MASK_STALE:
                count = engine.fill_mask(state, spec, mask, staged)
            elif count < 0:
                count = 0
                for a in range(spec[L.SP_NUM_ACTIONS]):
                    count += mask[a]
            if code == POLICY_RANDOM_LEGAL:  # the common baseline skips the style dispatch, as the batch loop
                action = random_action(state, mask, count)
            else:
                action = choose_action(state, spec, mask, count, code, params[seat], planning, scripted)
        log_move(log, row, seat, action, state[L.S_PHASE])
        engine.apply_action(state, spec, action, staged)
        count = MASK_STALE
    if count == MASK_STALE:
        engine.fill_mask(state, spec, mask, staged)  # no legal action: all zeros
    return OVER


@njit(cache=True, internal=True)
def learner_seats(
    seats: np.ndarray,
    params: np.ndarray,
    template: np.ndarray,
    template_params: np.ndarray,
    num_players: int,
    learner: int,
) -> None:
    """Seat the table: the learner, and ``template[k-1]`` (with its parameters) k seats clockwise."""
    seats[learner] = LEARNER
    for k in range(1, num_players):
        seat = (learner + k) % num_players
        seats[seat] = template[k - 1]
        for j in range(params.shape[1]):
            params[seat, j] = template_params[k - 1, j]


@njit(cache=True)
def single_step(
    state: np.ndarray,
    spec: np.ndarray,
    action: int,
    mask: np.ndarray,
    seats: np.ndarray,
    params: np.ndarray,
    log: np.ndarray,
    staged: bool | None,
    planning: bool | None = True,
    scripted: bool | None = True,
) -> int:
    """Apply a caller's ``action`` then let compiled opponents move (``planning`` and
    ``scripted`` as :func:`play_compiled` takes them; every move into the public move log
    ``log`` of one game, :func:`log_move`).

    Returns :data:`ILLEGAL` (nothing changed), :data:`OVER`, or the seat that must decide.
    """
    state = borrow(state)
    spec = borrow(spec)
    mask = borrow(mask)
    seats = borrow(seats)
    params = borrow(params)
    log = borrow(log)
    if not engine.is_legal(spec, action, mask):
        return ILLEGAL
    log_move(log, 0, state[L.S_CURRENT], action, state[L.S_PHASE])
    engine.apply_action(state, spec, action, staged)
    return play_compiled(state, spec, mask, seats, params, staged, log, 0, MASK_STALE, planning, scripted)


@njit(cache=True)
def seat_for_seed(seed: int, num_players: int, seat_mode: int) -> int:
    """The learner's seat: ``seat_mode`` if >= 0, else ``seed % num_players`` (rotating)."""
    if seat_mode >= 0:
        return seat_mode
    return seed % num_players


@njit(cache=True)
def reset_game(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    seats: np.ndarray,
    params: np.ndarray,
    template: np.ndarray,
    template_params: np.ndarray,
    seat_mode: int,
    seed: int,
    num_players: int,
    deck: np.ndarray,
    log: np.ndarray,
    staged: bool | None,
    planning: bool | None = True,
    scripted: bool | None = True,
) -> int:
    """Deal the game of ``seed``, seat the learner and let compiled opponents move
    (``planning`` and ``scripted`` as :func:`play_compiled` takes them; the game's public
    move log, ``log`` of one game, restarts with each deal).

    Stops when a caller (the learner or an external opponent) must decide. A game that the
    compiled opponents finish before that is dealt again from :func:`next_seed`. Returns
    the seed actually dealt; ``state``, ``mask`` and ``seats`` hold the game.
    """
    while True:
        learner = seat_for_seed(seed, num_players, seat_mode)
        learner_seats(seats, params, template, template_params, num_players, learner)
        engine.new_game(state, spec, num_players, deck, seed, 0, staged)
        log_new_game(log, 0)
        seat = play_compiled(state, spec, mask, seats, params, staged, log, 0, MASK_STALE, planning, scripted)
        if seat >= 0:
            return seed
        seed = next_seed(seed)


@njit(cache=True)
def pick_table(seed: int, cumulative_weights: np.ndarray) -> int:
    """The opponent table of the game of ``seed``: a weighted pick, a function of the seed only.

    ``cumulative_weights`` holds the running sums of the tables' integer weights. With one
    table it is table 0 and the seed is not used.
    """
    count = cumulative_weights.shape[0]
    if count == 1:
        return 0
    lo = seed & 0xFFFFFFFF
    hi = (seed >> 32) & M31
    ticket = mix32(lo ^ mix32(hi ^ 0x3C6EF372)) % cumulative_weights[count - 1]
    for p in range(count):
        if ticket < cumulative_weights[p]:
            return p
    return count - 1


class VectorBatch(NamedTuple):
    """The games of a vector env as its compiled loops take them: one record, built once.

    :class:`~uno_env.envs.vector.VectorEnv` builds it from its buffers (one per observation
    buffer, again when the opponents change) and passes it whole to :func:`vector_run` and
    :func:`external_views`: a new per-game field is an entry here and its uses, not an edit
    to every signature and call site. Row ``i`` of each per-game array belongs to game ``i``.
    """

    states: np.ndarray  # (n, STATE_SIZE) int64: the games
    masks: np.ndarray  # (n, MAX_ACTIONS) int8: their legal actions (engine order)
    seats: np.ndarray  # (n, MAX_PLAYERS) int64: each seat's policy code (LEARNER, EXTERNAL - k, a style)
    params: np.ndarray  # (n, MAX_PLAYERS, NUM_POLICY_PARAMS) int64: each seat's style parameters
    learners: np.ndarray  # (n,) int64: the learner's seat
    seeds: np.ndarray  # (n,) int64: the seed each game was dealt from
    tables: np.ndarray  # (n,) int64: the opponent table each game was dealt at
    waiting: np.ndarray  # (n,) int64: -1 the learner decides, else the external opponent's seat (BROKEN)
    fresh: np.ndarray  # (n,) bool: dealt in this call
    obs: np.ndarray  # (n, size) float32: the learner's observation
    out_masks: np.ndarray  # (n, num_actions) int8: the learner's legal actions
    rewards: np.ndarray  # (n,) float64
    terminated: np.ndarray  # (n,) bool
    truncated: np.ndarray  # (n,) bool
    illegal: np.ndarray  # (n,) bool: the learner's action was illegal
    final_obs: np.ndarray  # (n, size) float32: the last observation of a game that ended
    final_lengths: np.ndarray  # (n, 2) int64: its decisions and turns
    log: np.ndarray  # (n or 0, LOG_HEAD + ring) int64: the games' public move logs (log_move); 0 rows: none
    spec: np.ndarray  # the compiled rules (shared by every game)
    deck: np.ndarray  # deck counts for the player count
    offsets: np.ndarray  # the observation layout
    templates: np.ndarray  # (tables, MAX_PLAYERS - 1) int64: each opponent table's policy codes
    template_params: np.ndarray  # (tables, MAX_PLAYERS - 1, NUM_POLICY_PARAMS) int64
    cumulative_weights: np.ndarray  # (tables,) int64: running sums of the tables' weights
    seat_mode: int  # the learner's seat, or -1: rotating with the seed
    num_players: int
    reward_mode: int  # a REWARDS code, with TRUNCATED_ZERO
    illegal_mode: int  # an ILLEGAL_ACTIONS code
    planning: bool | None  # None: no seat plays a planning style, compiled without them (play_compiled)
    scripted: bool | None  # None: every compiled seat plays a random style, compiled without the others
    staged: bool | None  # the engine's argument (engine.staged_argument): None, without the staged machinery


# inlined into the top-level loops (uno_env/engine/engine.py, "Inlining"): its own module
# also built a Python wrapper boxing the whole record
@njit(cache=True, inline="always")
def borrowed(g: VectorBatch) -> VectorBatch:
    """``g`` with borrowed views of its arrays (:func:`uno_env.compiler.borrow.borrow`).

    For the top-level loops only, which hold ``g`` itself for the whole call; the views go
    no further than the functions they call.
    """
    return VectorBatch(
        borrow(g.states), borrow(g.masks), borrow(g.seats), borrow(g.params), borrow(g.learners),
        borrow(g.seeds), borrow(g.tables), borrow(g.waiting), borrow(g.fresh), borrow(g.obs),
        borrow(g.out_masks), borrow(g.rewards), borrow(g.terminated), borrow(g.truncated),
        borrow(g.illegal), borrow(g.final_obs), borrow(g.final_lengths), borrow(g.log), borrow(g.spec),
        borrow(g.deck),
        borrow(g.offsets), borrow(g.templates), borrow(g.template_params), borrow(g.cumulative_weights),
        g.seat_mode, g.num_players, g.reward_mode, g.illegal_mode, g.planning, g.scripted, g.staged,
    )  # fmt: skip


RUN_RESET = 0  # vector_run: deal every game from its seed
RUN_STEP = 1  # vector_run: the learners' actions
RUN_EXTERNAL = 2  # vector_run: the external opponents' actions, in the games waiting on them


@njit(cache=True)
def vector_run(games: VectorBatch, actions: np.ndarray, illegal_reward: float, mode: int) -> int:
    """The vector env's compiled loop over its games: a reset, a step or the external
    opponents' moves, by ``mode``.

    One entry point for the three, for the cold start: numba optimises and emits every
    compiled function together with the code of everything it calls, so each entry point
    that reaches the engine compiles it again. Per game ``i``:

    - :data:`RUN_RESET`: deal the game from ``seeds[i]`` (``actions`` is not read);
    - :data:`RUN_STEP`: apply the learner's ``actions[i]``, or the illegal-action policy
      ``illegal_mode`` (paying ``illegal_reward`` under terminate);
    - :data:`RUN_EXTERNAL`: in a game waiting on an external opponent (``waiting[i] >= 0``),
      apply its ``actions[i]``; the other games are left as they are.

    Then the compiled opponents move and the game settles: the learner decides (its view in
    ``obs[i]`` and ``out_masks[i]``, ``waiting[i] = -1``) or an external opponent does
    (``waiting[i]`` = its seat). A game that ended (or that an illegal action under the
    terminate policy ends, reward already set) records the learner's reward and flags, its
    last observation in ``final_obs[i]`` and its decisions and turns in
    ``final_lengths[i]``, and the game of :func:`next_seed` is dealt in its place (same
    step). Each game is dealt at the table :func:`pick_table` picks from its seed
    (``tables[i]``) and the learner seated by ``seat_mode``; a game the compiled opponents
    finish before a caller decides is dealt again from :func:`next_seed`, as is, silently,
    a game dealt in this call (``fresh[i]``) that ends before its learner decides (external
    opponents finished it). A game the engine ended because its state was unusable is left
    as it is with ``waiting[i] =`` :data:`BROKEN`.

    Returns ``OUT_OF_BOUNDS - i`` when the learner's action of game ``i`` (the first such)
    is outside the action table (no game stepped); the first game whose action was illegal,
    when ``illegal_mode`` is raise (that game unchanged, the games before it stepped) or an
    external opponent's action is illegal (nothing applied from it on); else -1.
    """
    if mode == RUN_STEP:
        num_actions = games.spec[L.SP_NUM_ACTIONS]
        for i in range(actions.shape[0]):
            if actions[i] < 0 or actions[i] >= num_actions:
                return OUT_OF_BOUNDS - i
    scratch = np.zeros(L.MAX_PLAYERS, dtype=np.float64)
    g = borrowed(games)
    spec = g.spec
    for i in range(g.states.shape[0]):
        state = g.states[i]
        mask = g.masks[i]
        seats = g.seats[i]
        params = g.params[i]
        deal = False  # deal the game of seed
        seed = 0
        move = False  # the compiled opponents move
        end_now = False  # an illegal action under the terminate policy ends the game
        if mode == RUN_RESET:
            deal = True
            seed = g.seeds[i]
        elif mode == RUN_EXTERNAL:
            if g.waiting[i] < 0:
                continue
            if not engine.is_legal(spec, actions[i], mask):
                return i
            log_move(g.log, i, g.waiting[i], actions[i], state[L.S_PHASE])
            engine.apply_action(state, spec, actions[i], g.staged)
            move = True
        else:
            g.rewards[i] = 0.0
            g.terminated[i] = False
            g.truncated[i] = False
            g.illegal[i] = False
            g.fresh[i] = False
            action = actions[i]
            if engine.is_legal(spec, action, mask):
                log_move(g.log, i, g.learners[i], action, state[L.S_PHASE])
                engine.apply_action(state, spec, action, g.staged)
                move = True
            elif g.illegal_mode == ILLEGAL_RAISE:
                return i
            elif g.illegal_mode == ILLEGAL_DRAW_PENALTY:
                g.illegal[i] = True
                wrong_move(state, spec, mask, g.staged)  # the learner decides again (or the limit ended it)
            else:
                g.illegal[i] = True
                g.terminated[i] = True
                g.rewards[i] = illegal_reward
                end_now = True
        table = 0
        learner = 0
        while True:
            if deal:
                table = pick_table(seed, g.cumulative_weights)
                learner = seat_for_seed(seed, g.num_players, g.seat_mode)
                template = g.templates[table]
                learner_seats(seats, params, template, g.template_params[table], g.num_players, learner)
                engine.new_game(state, spec, g.num_players, g.deck, seed, 0, g.staged)
                log_new_game(g.log, i)
                move = True
            if move:
                move = False
                seat = play_compiled(
                    state, spec, mask, seats, params, g.staged, g.log, i, MASK_STALE,
                    g.planning, g.scripted,
                )  # fmt: skip
                if deal:
                    if seat == OVER:  # the compiled opponents ended it before a caller decided
                        seed = next_seed(seed)
                        continue
                    deal = False
                    g.seeds[i] = seed
                    g.tables[i] = table
                    g.learners[i] = learner
                    g.fresh[i] = True  # a game dealt in this call pays and records nothing
            if not end_now and state[L.S_STATUS] == L.ST_RUNNING:
                seat = state[L.S_CURRENT]
                if seat == g.learners[i]:
                    g.waiting[i] = -1
                    encode(state, spec, seat, g.offsets, g.obs[i])
                    export_mask(spec, mask, g.out_masks[i])
                else:
                    g.waiting[i] = seat
                break
            if not g.fresh[i]:
                if state[L.S_ENGINE_ERROR] != L.ERR_NONE:
                    # only a state written directly gets here; the caller raises EngineError on it
                    # (truncated set only so that the caller's check for ended games looks)
                    g.waiting[i] = BROKEN
                    g.truncated[i] = True
                    break
                if not end_now:
                    final_rewards(state, spec, g.reward_mode, scratch)
                    g.rewards[i] = scratch[g.learners[i]]
                    g.terminated[i] = state[L.S_STATUS] == L.ST_WON
                    g.truncated[i] = state[L.S_STATUS] == L.ST_TRUNCATED
                encode(state, spec, g.learners[i], g.offsets, g.final_obs[i])
                g.final_lengths[i, 0] = state[L.S_DECISIONS]
                g.final_lengths[i, 1] = state[L.S_TURNS]
            deal = True
            seed = next_seed(g.seeds[i])
            end_now = False
    return -1


@njit(cache=True)
def external_views(games: VectorBatch, obs: np.ndarray, out_masks: np.ndarray) -> None:
    """Encode the view and legal actions of the external opponent each waiting game waits for."""
    g = borrowed(games)
    for i in range(g.states.shape[0]):
        if g.waiting[i] >= 0:
            encode(g.states[i], g.spec, g.waiting[i], g.offsets, obs[i])
            export_mask(g.spec, g.masks[i], out_masks[i])


@njit(cache=True)
def learner_view(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    learner: int,
    offsets: np.ndarray,
    obs: np.ndarray,
    out_mask: np.ndarray,
) -> None:
    """Encode the learner's view; its mask is the legal set if it is to move, else zeros."""
    encode(state, spec, learner, offsets, obs)
    if state[L.S_STATUS] == L.ST_RUNNING and state[L.S_CURRENT] == learner:
        export_mask(spec, mask, out_mask)
    else:
        for a in range(out_mask.shape[0]):
            out_mask[a] = 0


@njit(cache=True)
def learner_step(
    state: np.ndarray,
    spec: np.ndarray,
    action: int,
    mask: np.ndarray,
    seats: np.ndarray,
    params: np.ndarray,
    learner: int,
    offsets: np.ndarray,
    obs: np.ndarray,
    out_mask: np.ndarray,
    log: np.ndarray,
    staged: bool | None,
    planning: bool | None = True,
    scripted: bool | None = True,
) -> int:
    """The single-agent step: the learner's ``action``, then the compiled opponents
    (``planning`` and ``scripted`` as :func:`play_compiled` takes them; every move into the
    public move log ``log`` of one game, :func:`log_move`).

    Returns :data:`ILLEGAL` (nothing changed), :data:`OVER` or the seat to decide. When
    that is the learner, or the game is over, the learner's view is in ``obs`` and
    ``out_mask``; when it is an external opponent, the caller asks it.
    """
    state = borrow(state)
    spec = borrow(spec)
    mask = borrow(mask)
    seats = borrow(seats)
    params = borrow(params)
    offsets = borrow(offsets)
    obs = borrow(obs)
    out_mask = borrow(out_mask)
    log = borrow(log)
    if not engine.is_legal(spec, action, mask):
        return ILLEGAL
    log_move(log, 0, learner, action, state[L.S_PHASE])
    engine.apply_action(state, spec, action, staged)
    seat = play_compiled(state, spec, mask, seats, params, staged, log, 0, MASK_STALE, planning, scripted)
    if seat == learner or seat == OVER:
        learner_view(state, spec, mask, learner, offsets, obs, out_mask)
    return seat

"""Search agents: determinised Monte-Carlo search over the compiled engine, and its oracle.

``search`` is perfect-information Monte Carlo (Long et al. 2010; the determinised search
that Cowling, Powley & Whitehouse 2012 compare with information-set MCTS) with a prior: at
each decision it samples *worlds*, full games consistent with what the player to move knows
(:func:`sample_world`), applies every legal action in each world and plays on for ``depth``
decisions with a compiled play style at every seat (:func:`rollout`, ``rollout=blocker`` by
default), then values the position by :func:`evaluate` (or the result, if the round ended).
Every candidate is rolled out in the same worlds with the same chance events (common random
numbers), so candidates are compared pairwise. The budget is ``sims`` simulations per
decision (one simulation: one rollout of one candidate); they are spread over the candidates
by successive halving (Karnin, Koren & Somekh 2013). The rollout style's own choice is the
default: another action is played only when its mean paired gain over the default exceeds
``confidence`` standard errors (a safe policy improvement step; noise alone does not move the
agent off a sound heuristic). A true UNO call is made at once, and a decision with one legal
action is not searched.

**What a sample may know** (the hidden cards are the other hands and the draw pile):

- the deck composition, the discard pile (every card played since the last reshuffle), its
  own hand and every hand size: the unseen cards are the rest (E-CONS-1);
- a hand it has looked at (H-ZEROSEE-1) or passed on in a swap or rotation (H-SEVEN-1,
  H-ZERO-1) that has gained no card unseen since (cards laid keep it known), dealt as it is;
- what plays *proved* (the engine's public ``VOID`` record, :mod:`uno_env.engine.layout`): where the
  rules forbid drawing with a playable card (``draw_when_playable = false``, U-DRAW-3), a
  draw proves the drawer held none of the cards then playable; a Wild Draw Four whose
  challenge failed (U-WD4-2), or played where bluffs are refused, proves its player held
  no card of the colour before. Under the official ``draw_when_playable = true`` a draw
  proves nothing: a player may draw while holding a playable card;
- what plays *suggest* (``HINT``), believed in a share ``trust`` of the samples: a draw by
  choice (``draw_when_playable = true``) suggests nothing was playable, an unchallenged Wild
  Draw Four that it was legal. Straight players (every scripted style but the bluffer, and
  most people) play that way; ``trust=0`` keeps to the proofs. A record covers the cards
  held then: the cards gained since are free (its slack);
- a pending Wild Draw Four is a bluff in a sample exactly when the sampled hand of its
  player made it one (U-WD4-1);
- with ``infer``, in that share of the samples, the last play of the player before: the
  card it laid and the colour it named for a wild are what the rollout style would have
  played with the sampled hand (:func:`sample_inferred_world`; U-MATCH-1, U-WILD-1).

Nothing else of the true state reaches a sample: the other hands, the order of the draw
pile, the chance generator and the engine's bluff flag are resampled or reseeded.

``oracle`` is the same search **with the true hidden cards: it cheats**. Its samples keep
every hand as it is (and the bluff flag); only the order of the draw pile stays a chance
event, shuffled in each sample (``pile=1`` keeps the true order too). Its strength above
``search`` measures what the hidden information is worth under a rule set. Tournaments and
studies refuse it unless asked to allow cheating agents.

**Randomness**: worlds, rollout chance events and the rollout styles' choices come from the
game's agent generator (``state[AGENT_RNG ...]``), never from the game's chance generator:
same seed, same game.

Rules used: U-DRAW-3 (what a draw shows), U-WD4-1, U-WD4-2 (bluffs and what a challenge
shows), U-MATCH-1, U-WILD-1 (what a card laid and a colour named show, with ``infer``),
U-UNO-1, MC-CALL-1, MM-CALL-1 (true calls first), H-ZEROSEE-1, H-SEVEN-1, H-ZERO-1 (known
hands), E-CONS-1 (every sample conserves the cards).
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.bits import lowest_bit
from ..engine.rng import chance_ppm, next_u32, rand_below, seed_rng
from .baselines import BASELINE_STYLES, POLICY_RANDOM_LEGAL
from .facts import colour_by_hand, hand_summary, own_bluff_known, true_call, unseen_counts
from .monte_carlo import resample_bluff
from .params import (
    AUTO,
    NO_NETWORK,
    NUM_POLICY_PARAMS,
    P_CONFIDENCE,
    P_DEFAULT,
    P_DEPTH,
    P_EXPLORE,
    P_INFER,
    P_NET,
    P_OWN,
    P_PILE,
    P_ROLLOUT,
    P_SIMS,
    P_TOP,
    P_TRUST,
    P_VALUE,
    Style,
    StyleParam,
    param,
)
from .rollout import ROLLOUT_LIMIT, rollout
from .scripted import (
    POLICY_BLOCKER,
    POLICY_BLUFFER,
    POLICY_CAUTIOUS,
    POLICY_CONTROLLER,
    POLICY_GREEDY,
    SCRIPTED_STYLES,
    best_card,
    card_score,
    scripted_action,
)

POLICY_SEARCH = 10
POLICY_ORACLE = 11  # the search with the true hidden cards: cheats
ROLLOUT_STYLES = (
    "random_legal", "greedy", "aggressor", "hoarder", "controller", "blocker", "bluffer", "cautious"
)  # fmt: skip
"""Styles a search may roll out with, by code (index = style code)."""

ROLLOUT_NET = len(ROLLOUT_STYLES)
"""``rollout=net``: the search's network plays every seat in its rollouts (stored rollout value)."""
SIMS_DEFAULT = 1000
SEARCH_DEPTH_DEFAULT = 20
TRUST_DEFAULT = 900_000
CONFIDENCE_DEFAULT = 100
ROLLOUT_DEFAULT = POLICY_BLOCKER
EXPLORE_DEFAULT = 0
PILE_DEFAULT = 0
INFER_DEFAULT = 0
INFER_TRIES = 32  # samples drawn at most for one world that must agree with the last move
VALUE_SIZES = 0  # ``value=sizes``: the hand-size model alone; "auto" at 2 players
VALUE_WILDS = 1  # ``value=wilds``: hand sizes and the wild cards held; "auto" from 3 players
VALUE_NET = 2  # ``value=net``: the network's critic (a network file with one; uno_env.sim.guided)
VALUE_MODELS = ("sizes", "wilds", "net")  # the names, indexed by the codes above
TOP_DEFAULT = 0
DEFAULT_MOVES = ("rollout", "net")  # the names, indexed by the stored codes
DEFAULT_NET = 1
OWN_PLAYERS = ("same", "net")  # the rollout policy, or the network
OWN_NET = 1

WIN = 1.0  # value of winning the round
TURN_BONUS = 1.105  # evaluation: the player to move weighs this much more (exp(0.1))


# ================================================================ samples of the hidden cards
@njit(cache=True)
def hand_known(state: np.ndarray, observer: int, seat: int) -> bool:
    """Whether ``observer`` knows ``seat``'s hand as it is: it looked at it (H-ZEROSEE-1) or
    passed it on (H-SEVEN-1, H-ZERO-1), and the hand has gained no card unseen since."""
    return state[L.SEEN + observer * L.MAX_PLAYERS + seat] == state[L.HAND_VERSION + seat] + 1


@njit(cache=True)
def _deal_hand(
    world: np.ndarray,
    pool: np.ndarray,
    used: np.ndarray,
    total: int,
    seat: int,
    size: int,
    void: int,
    void_slack: int,
    hint: int,
    hint_slack: int,
    avoid: int,
) -> None:
    """Deal ``size`` cards of the shuffled ``pool`` (those not yet ``used``) to ``seat``, at
    most ``void_slack`` of the faces in bitmask ``void`` and ``hint_slack`` of those in
    ``hint``, none of those in ``avoid``; when the pool cannot honour that, the first unused
    cards (a position built by hand, or an inference the cards left cannot meet)."""
    for face in range(L.MAX_FACES):
        world[L.HANDS + seat * L.MAX_FACES + face] = 0
    dealt = 0
    in_void = 0
    in_hint = 0
    for i in range(total):
        if dealt == size:
            break
        if used[i]:
            continue
        face = pool[i]
        a = (void >> face) & 1
        b = (hint >> face) & 1
        if (a and in_void >= void_slack) or (b and in_hint >= hint_slack) or (avoid >> face) & 1:
            continue
        in_void += a
        in_hint += b
        used[i] = 1
        world[L.HANDS + seat * L.MAX_FACES + face] += 1
        dealt += 1
    for i in range(total):
        if dealt == size:
            break
        if not used[i]:
            used[i] = 1
            world[L.HANDS + seat * L.MAX_FACES + pool[i]] += 1
            dealt += 1
    world[L.HAND_SIZE + seat] = dealt
    engine.recount_held(world, seat)


@njit(cache=True)
def _shuffle_pool(state: np.ndarray, pool: np.ndarray, total: int) -> None:
    """Fisher-Yates shuffle of ``pool[:total]`` with the agent generator of ``state``."""
    for i in range(total - 1, 0, -1):
        j = rand_below(state, L.AGENT_RNG, i + 1)
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp


@njit(cache=True)
def sample_world(
    state: np.ndarray,
    spec: np.ndarray,
    world: np.ndarray,
    pool: np.ndarray,
    used: np.ndarray,
    mode: int,
    trust_ppm: int,
    avoid_seat: int = -1,
    avoid: int = 0,
) -> None:
    """Write into ``world`` a full game consistent with what the mover of ``state`` knows.

    ``mode`` 0 (search): the cards the mover cannot see (:func:`uno_env.styles.facts.unseen_counts`
    minus the hands it has seen) are shuffled with the agent generator and dealt into the
    other unknown hands (same sizes; hands with a record first, at most ``slack`` cards of
    the faces their ``VOID`` record names, and of their ``HINT`` record with chance
    ``trust``) and the draw pile; the bluff flag of a pending Wild Draw Four follows the
    sampled hand; seat ``avoid_seat`` is dealt none of the faces ``avoid`` (what its last
    move suggests, :func:`sample_inferred_world`). ``mode`` 1 (oracle): the hands stay, the
    draw pile is shuffled; ``mode``
    2: nothing changes. The world's chance and agent generators are seeded afresh from the
    agent generator of ``state``, which advances.
    """
    seat = state[L.S_CURRENT]
    n = state[L.S_NPLAYERS]
    for i in range(L.STATE_SIZE):
        world[i] = state[i]
    if mode == 0:
        if not own_bluff_known(state):
            world[L.S_BLUFF] = 0  # hidden from the mover: resampled below in a challenge
        hints = chance_ppm(state, L.AGENT_RNG, trust_ppm)
        unseen = np.zeros(L.MAX_FACES, dtype=np.int64)
        unseen_counts(state, spec, seat, unseen)
        for other in range(n):
            if other != seat and hand_known(state, seat, other):
                for face in range(L.MAX_FACES):
                    unseen[face] = max(0, unseen[face] - state[L.HANDS + other * L.MAX_FACES + face])
        total = 0
        for face in range(L.MAX_FACES):
            for _ in range(unseen[face]):
                pool[total] = face
                total += 1
        _shuffle_pool(state, pool, total)
        for i in range(total):
            used[i] = 0
        for constrained in (True, False):  # hands with a record pick from the full pool first
            for other in range(n):
                if other == seat or hand_known(state, seat, other):
                    continue
                void = state[L.VOID_FACES + other]
                hint = state[L.HINT_FACES + other] if hints else 0
                shun = avoid if other == avoid_seat else 0
                if (void != 0 or hint != 0 or shun != 0) != constrained:
                    continue
                _deal_hand(
                    world, pool, used, total, other, state[L.HAND_SIZE + other],
                    void, state[L.VOID_SLACK + other], hint, state[L.HINT_SLACK + other], shun,
                )  # fmt: skip
        rest = 0
        for i in range(total):
            if not used[i]:
                world[L.DRAW_PILE + rest] = pool[i]
                rest += 1
        world[L.S_NDRAW] = rest
    elif mode == 1:
        ndraw = state[L.S_NDRAW]
        _shuffle_pool(state, world[L.DRAW_PILE : L.DRAW_PILE + ndraw], ndraw)
    seed_rng(world, L.RNG, next_u32(state, L.AGENT_RNG), next_u32(state, L.AGENT_RNG))
    seed_rng(world, L.AGENT_RNG, next_u32(state, L.AGENT_RNG), next_u32(state, L.AGENT_RNG))
    if mode == 0:
        resample_bluff(world, spec)


@njit(cache=True)
def position_before_last_move(world: np.ndarray, spec: np.ndarray, observer: int, before: np.ndarray) -> int:
    """Write into ``before`` the position in which the player who moved before ``observer``
    laid the card on top of the discard pile, with the hand ``world`` gives that player, and
    return the seat (-1 when the last move shows nothing this rebuilds).

    The move rebuilt is a card laid from the hand onto a coloured card (U-MATCH-1), or the
    colour named for a wild just laid (U-WILD-1): ``before`` is ``world`` with the card back in
    that hand, the card below it on top, its colour active and the player to lay. Anything
    else (a draw, a pass, a challenge, a colour named earlier, a hand ``observer`` has seen,
    rules whose plays take more than one card or a colour) returns -1."""
    actor = world[L.S_LAST_ACTOR]
    action = world[L.S_LAST_ACTION]
    if actor < 0 or actor == observer or hand_known(world, observer, actor) or spec[L.SP_PLAIN_PLAYS] != 1:
        return -1
    nf = spec[L.SP_NUM_FACES]
    ndiscard = world[L.S_NDISCARD]
    if ndiscard < 2:
        return -1
    laid = world[L.DISCARD_PILE + ndiscard - 1]
    wild = spec[L.F_ANYWHERE + laid] == 1
    if action < nf:
        if action != laid or wild:
            return -1
    elif not (nf + L.A_CHOOSE_OFFSET <= action < nf + L.A_CHOOSE_OFFSET + L.NUM_COLOURS and wild):
        return -1
    below = world[L.DISCARD_PILE + ndiscard - 2]
    colour = spec[L.F_COLOUR + below]
    if not 0 <= colour < L.NUM_COLOURS or spec[L.F_ANYWHERE + below] == 1:
        return -1  # the colour then was named earlier: not kept in the state
    for i in range(L.STATE_SIZE):
        before[i] = world[i]
    before[L.S_NDISCARD] = ndiscard - 1
    engine.add_to_hand(before, actor, laid)
    before[L.S_COLOUR] = colour
    before[L.S_PHASE] = L.PH_PLAY
    before[L.S_CURRENT] = actor
    before[L.S_PENDING] = 0
    before[L.S_PENDING_SKIP] = 0
    before[L.S_CHALLENGEABLE] = 0
    before[L.S_DRAWN] = -1
    if spec[L.F_EFFECT + laid] == L.EF_REVERSE:
        before[L.S_DIRECTION] = -world[L.S_DIRECTION]
    return actor


@njit(cache=True)
def inferable(policy: int) -> bool:
    """Whether the search can infer hands from moves with rollout style ``policy``: a
    scripted style (random players and the network show nothing it can replay)."""
    return policy != POLICY_RANDOM_LEGAL and policy < ROLLOUT_NET


@njit(cache=True)
def last_move_agrees(
    world: np.ndarray,
    spec: np.ndarray,
    observer: int,
    policy: int,
    params: np.ndarray,
    before: np.ndarray,
    mask: np.ndarray,
) -> bool:
    """Whether the last move of the player who moved before ``observer`` is what the scripted
    ``policy`` would have played with the hand ``world`` gives it
    (:func:`position_before_last_move`): it scores the laid card as high as its best legal
    card and, after a wild, names the same colour (U-WILD-1) from the hand it kept. Moves
    that show nothing, and a ``policy`` that is not :func:`inferable`, agree.

    This is the inference of a search that models the other players by its rollout style:
    Buro et al. (2009) weigh the worlds of a Skat search by how likely the opponents' moves
    are in them; under a deterministic style that likelihood is 1 or 0."""
    if not inferable(policy):
        return True
    actor = position_before_last_move(world, spec, observer, before)
    if actor < 0:
        return True
    nf = spec[L.SP_NUM_FACES]
    action = world[L.S_LAST_ACTION]
    if action >= nf and colour_by_hand(world, spec, actor) != action - nf - L.A_CHOOSE_OFFSET:
        return False
    laid = world[L.DISCARD_PILE + world[L.S_NDISCARD] - 1]
    engine.fill_mask(before, spec, mask, None)
    if mask[laid] == 0:
        return True  # not rebuilt faithfully (a start card, a rule's own turn): no evidence
    best, best_score = best_card(before, spec, mask, policy, params)
    h = hand_summary(before, spec, actor)
    return best < 0 or card_score(before, spec, laid, policy, params, h) >= best_score


@njit(cache=True)
def better_faces(
    world: np.ndarray, spec: np.ndarray, observer: int, policy: int, params: np.ndarray, before: np.ndarray
) -> int:
    """The faces the player who moved before ``observer`` would have laid rather than its last
    card under the scripted ``policy`` had it held them (a bitmask; 0 when the move shows
    nothing): the faces legal in :func:`position_before_last_move` that score higher than
    the laid card. ``world`` must be a sample (its hand of that player is not the true one:
    the bitmask uses nothing hidden); for styles whose scores do not depend on the rest of
    the hand (the blocker's) it is exact, otherwise :func:`last_move_agrees` still checks."""
    if (
        not inferable(policy)
        or policy == POLICY_GREEDY
        or policy == POLICY_CONTROLLER
        or policy == POLICY_BLUFFER
    ):
        return 0
    actor = position_before_last_move(world, spec, observer, before)
    if actor < 0:
        return 0
    laid = world[L.DISCARD_PILE + world[L.S_NDISCARD] - 1]
    h = hand_summary(before, spec, actor)
    own = card_score(before, spec, laid, policy, params, h)
    faces = 0
    for face in range(spec[L.SP_NUM_FACES]):
        if face == laid or not engine.playable(before, spec, actor, face):
            continue
        if spec[L.F_EFFECT + face] == L.EF_WILD_DRAW or (
            policy == POLICY_CAUTIOUS and spec[L.F_ANYWHERE + face]
        ):
            continue  # scored by the rest of the hand (U-WD4-1 legality, the wilds kept back)
        if card_score(before, spec, face, policy, params, h) > own:
            faces |= 1 << face
    return faces


@njit(cache=True)
def inferred_avoid(
    state: np.ndarray,
    spec: np.ndarray,
    world: np.ndarray,
    pool: np.ndarray,
    used: np.ndarray,
    mode: int,
    trust_ppm: int,
    infer_ppm: int,
    policy: int,
    params: np.ndarray,
    before: np.ndarray,
) -> int:
    """The ``avoid`` of :func:`sample_inferred_world` for the mover of ``state``: the
    :func:`better_faces` of one plain sample (0 when ``infer_ppm`` is 0 or the hands are
    true: nothing is drawn then)."""
    if mode != 0 or infer_ppm <= 0 or not inferable(policy):
        return 0
    sample_world(state, spec, world, pool, used, mode, trust_ppm)
    return better_faces(world, spec, state[L.S_CURRENT], policy, params, before)


@njit(cache=True)
def sample_inferred_world(
    state: np.ndarray,
    spec: np.ndarray,
    world: np.ndarray,
    pool: np.ndarray,
    used: np.ndarray,
    mode: int,
    trust_ppm: int,
    infer_ppm: int,
    policy: int,
    params: np.ndarray,
    before: np.ndarray,
    mask: np.ndarray,
    avoid: int,
) -> None:
    """:func:`sample_world`, and with chance ``infer_ppm`` (millionths) a world in which the
    last move agrees with the rollout style ``policy`` (:func:`last_move_agrees`): the player
    who moved last is dealt none of the faces ``avoid`` (:func:`better_faces`), and samples
    are drawn until one agrees, at most :data:`INFER_TRIES` (the last one stays when none
    does). ``before`` and ``mask`` are scratch space. Searches of the true hands (``mode``
    1, 2) and ``infer_ppm`` 0 draw one sample, as :func:`sample_world` alone."""
    if mode != 0 or infer_ppm <= 0 or not chance_ppm(state, L.AGENT_RNG, infer_ppm):
        sample_world(state, spec, world, pool, used, mode, trust_ppm)
        return
    observer = state[L.S_CURRENT]
    actor = state[L.S_LAST_ACTOR] if avoid != 0 else -1
    for _ in range(INFER_TRIES):
        sample_world(state, spec, world, pool, used, mode, trust_ppm, actor, avoid)
        if last_move_agrees(world, spec, observer, policy, params, before, mask):
            return


# ================================================================ rollouts and their value
# The hand-and-wilds model, fitted by maximum likelihood on round 0 of official-Uno games
# between blockers (20,000 games per player count, every decision with chance 1/8; the
# winner of the round as the outcome): per player count in play (index), the shift and the
# exponent of the hand size, the log weight of a wild card (any card playable on anything) and
# the log bonus of the player to move. 7 and 9 players are interpolated.
VALUE_SHIFT = (0.0, 0.0, 0.035, -0.030, -0.340, -0.812, -0.944, -1.192, -1.439, -1.564, -1.688)
VALUE_EXPONENT = (1.0, 1.0, 0.771, 0.954, 1.269, 1.678, 1.907, 2.217, 2.527, 2.745, 2.963)
VALUE_WILD = (0.0, 0.0, 0.640, 0.656, 0.642, 0.629, 0.610, 0.603, 0.597, 0.618, 0.639)
VALUE_MOVER = (0.0, 0.0, 0.106, 0.110, 0.144, 0.164, 0.177, 0.194, 0.211, 0.219, 0.228)


@njit(cache=True)
def wild_face_mask(spec: np.ndarray) -> int:
    """Bitmask of the faces playable on anything (``F_ANYWHERE``): the wild cards."""
    bits = 0
    for face in range(spec[L.SP_NUM_FACES]):
        if spec[L.F_ANYWHERE + face] == 1:
            bits |= 1 << face
    return bits


@njit(cache=True)
def evaluate(
    sim: np.ndarray, spec: np.ndarray, seat: int, model: int = VALUE_WILDS, wild_faces: int = -1
) -> float:
    """The chance that ``seat`` wins the round from an unfinished position: each player in
    play gets a weight and wins in proportion to it (a multinomial logit fitted by maximum
    likelihood on official-Uno games between blockers). It only has to order positions.

    ``model`` :data:`VALUE_WILDS`: with ``n`` players in play the weight is
    ``(cards - shift) ** (-exponent) * exp(wild * wilds)``, times ``exp(mover)`` for the
    player to move (``VALUE_*`` tables, per ``n``): a wild card held is worth about a factor
    1.9 (it always matches: a sure last card). Log loss at 4 players: 1.247 nats per
    position, against 1.285 for the hand sizes alone (refitting those gains 0.0004).

    :data:`VALUE_SIZES`: the earlier hand-size model, ``(cards - 1 + n/4) ** (-n/4)``
    times 1.105 for the mover, fitted on 2, 3, 4 and 6 players at once. ``wild_faces``: the
    bitmask of the wild faces (:func:`wild_face_mask`), computed here when negative."""
    n = 0
    for other in range(sim[L.S_NPLAYERS]):
        if sim[L.FINISHED + other] == 0:
            n += 1
    k = min(n, L.MAX_PLAYERS)
    if model == VALUE_SIZES:
        shift = 1.0 - n / 4.0
        exponent = n / 4.0
        wild = 0.0
        mover = TURN_BONUS
    else:
        shift = VALUE_SHIFT[k]
        exponent = VALUE_EXPONENT[k]
        wild = VALUE_WILD[k]
        mover = np.exp(VALUE_MOVER[k])
    if wild != 0.0 and wild_faces < 0:
        wild_faces = wild_face_mask(spec)
    total = 0.0
    mine = 0.0
    for other in range(sim[L.S_NPLAYERS]):
        if sim[L.FINISHED + other] != 0:
            continue
        weight = (max(sim[L.HAND_SIZE + other], 1) - shift) ** (-exponent)
        if wild != 0.0:
            wilds = 0
            bits = sim[L.HELD + other] & wild_faces
            while bits != 0:
                face = lowest_bit(bits)
                wilds += sim[L.HANDS + other * L.MAX_FACES + face]
                bits &= bits - 1
            weight *= np.exp(wild * wilds)
        if sim[L.S_CURRENT] == other:
            weight *= mover
        total += weight
        if other == seat:
            mine = weight
    return mine / total if total > 0.0 else 0.0


@njit(cache=True)
def rollout_value(
    sim: np.ndarray,
    spec: np.ndarray,
    seat: int,
    start_round: int,
    depth: int,
    mask: np.ndarray,
    policy: int,
    params: np.ndarray,
    explore_ppm: int,
    model: int = VALUE_WILDS,
    wild_faces: int = -1,
) -> float:
    """Play ``sim`` on (:func:`~uno_env.styles.rollout.rollout`) and value it for ``seat``:
    :data:`WIN` or 0 if round ``start_round`` ended, else :func:`evaluate`."""
    rollout(sim, spec, start_round, depth, mask, policy, params, explore_ppm)
    if sim[L.S_ROUND] != start_round:
        return WIN if sim[L.S_ROUND_WINNER] == seat else 0.0
    return WIN * evaluate(sim, spec, seat, model, wild_faces)


# ================================================================ the decision
@njit(cache=True)
def search_action(
    state: np.ndarray, spec: np.ndarray, mask: np.ndarray, count: int, params: np.ndarray, oracle: bool
) -> int:
    """The search's action for the mover of ``state`` (see the module docstring); -1 when
    nothing is legal. ``oracle``: search the true hidden cards (cheating)."""
    visits = np.zeros(L.MAX_ACTIONS, dtype=np.int64)
    values = np.zeros(L.MAX_ACTIONS, dtype=np.float64)
    return search_decision(state, spec, mask, count, params, oracle, visits, values)


@njit(cache=True, nogil=True)
def search_decision(
    state: np.ndarray,
    spec: np.ndarray,
    mask: np.ndarray,
    count: int,
    params: np.ndarray,
    oracle: bool,
    visits: np.ndarray,
    values: np.ndarray,
) -> int:
    """:func:`search_action` with what the search saw: for every action id, ``visits`` gets
    the rollouts spent on it and ``values`` their mean value for the mover (its chance of
    winning the round after that action, as the rollouts and :func:`evaluate` estimate it).
    Both stay 0 where nothing was searched (one legal action, a true call)."""
    if count <= 0:
        return -1
    nf = spec[L.SP_NUM_FACES]
    candidates = np.empty(L.MAX_ACTIONS, dtype=np.int64)
    num = engine.list_legal(spec, mask, candidates)
    if num == 1:
        return candidates[0]
    if true_call(state, spec, mask):
        return nf + L.A_CALL_OFFSET  # U-UNO-1: a true call never costs anything
    seat = state[L.S_CURRENT]
    sims = max(1, param(params, P_SIMS, SIMS_DEFAULT))
    depth = param(params, P_DEPTH, SEARCH_DEPTH_DEFAULT)
    trust = 0 if oracle else param(params, P_TRUST, TRUST_DEFAULT)
    infer = 0 if oracle else param(params, P_INFER, INFER_DEFAULT)
    confidence = param(params, P_CONFIDENCE, CONFIDENCE_DEFAULT) / 100.0
    policy = param(params, P_ROLLOUT, ROLLOUT_DEFAULT)
    explore = param(params, P_EXPLORE, EXPLORE_DEFAULT)
    model = param(params, P_VALUE, search_value_default(state[L.S_NPLAYERS]))
    wilds = wild_face_mask(spec)
    mode = 0
    if oracle:
        mode = 2 if param(params, P_PILE, PILE_DEFAULT) == 1 else 1
    style_params = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
    # the rollout style's own choice is the default; another move must beat it clearly
    default = 0
    if policy != POLICY_RANDOM_LEGAL:
        chosen = scripted_action(state, spec, mask, policy, style_params)
        for c in range(num):
            if candidates[c] == chosen:
                default = c
    world = np.empty(L.STATE_SIZE, dtype=np.int64)
    sim = np.empty(L.STATE_SIZE, dtype=np.int64)
    pool = np.empty(L.MAX_CARDS, dtype=np.int64)
    used = np.empty(L.MAX_CARDS, dtype=np.int8)
    scratch = np.empty(L.MAX_ACTIONS, dtype=np.int8)
    value = np.zeros(num, dtype=np.float64)
    value_sum = np.zeros(num, dtype=np.float64)
    gain = np.zeros(num, dtype=np.float64)  # sums of the paired differences to the default
    gain_sq = np.zeros(num, dtype=np.float64)
    samples = np.zeros(num, dtype=np.int64)
    alive = np.ones(num, dtype=np.bool_)
    # successive halving: rounds until one challenger is left, each round an equal share of
    # the budget over the candidates still in it, all in the same worlds
    left = num
    rounds = 1
    while (1 << rounds) < num:
        rounds += 1
    spent = 0
    avoid = inferred_avoid(state, spec, world, pool, used, mode, trust, infer, policy, style_params, sim)
    for r in range(rounds):
        worlds = max(1, (sims - spent) // (rounds - r) // left)
        for _ in range(worlds):
            sample_inferred_world(
                state, spec, world, pool, used, mode, trust, infer, policy, style_params, sim, scratch, avoid
            )
            for c in range(num):
                if not alive[c]:
                    continue
                for i in range(L.STATE_SIZE):
                    sim[i] = world[i]
                engine.apply_action(sim, spec, candidates[c], True)
                value[c] = rollout_value(
                    sim,
                    spec,
                    seat,
                    world[L.S_ROUND],
                    depth,
                    scratch,
                    policy,
                    style_params,
                    explore,
                    model,
                    wilds,
                )
                spent += 1
            for c in range(num):
                if alive[c]:
                    value_sum[c] += value[c]
                    diff = value[c] - value[default]
                    gain[c] += diff
                    gain_sq[c] += diff * diff
                    samples[c] += 1
        if r == rounds - 1:
            break
        keep = (left + 2) // 2  # the default stays in, with the better half of the others
        for _ in range(left - keep):
            worst = -1
            for c in range(num):
                if (
                    alive[c]
                    and c != default
                    and (worst < 0 or gain[c] * samples[worst] <= gain[worst] * samples[c])
                ):
                    worst = c
            alive[worst] = False
        left = keep
    for c in range(num):
        visits[candidates[c]] = samples[c]
        values[candidates[c]] = value_sum[c] / samples[c] if samples[c] > 0 else 0.0
    best = default
    best_score = 0.0
    for c in range(num):
        if not alive[c] or c == default:
            continue
        mean = gain[c] / samples[c]
        spread = max(0.0, gain_sq[c] / samples[c] - mean * mean)
        score = mean - confidence * np.sqrt(spread / samples[c])
        if score > best_score:
            best = c
            best_score = score
    return candidates[best]


# ================================================================ a spectator's estimate
@njit(cache=True, nogil=True)
def position_values(
    state: np.ndarray, spec: np.ndarray, sims: int, depth: int, policy: int, out: np.ndarray
) -> None:
    """Each seat's chance of winning the round from ``state`` as the search estimates it,
    for a spectator who sees every hand: ``sims`` rollouts with compiled ``policy`` at every
    seat from the true hands, the draw pile shuffled in each (its order is not known), each
    to the end of the round or ``depth`` decisions (0: no limit), then valued by
    :func:`evaluate`; a finished round counts :data:`WIN` for its winner. ``out[seat]`` gets
    the mean; the agent generator of ``state`` supplies the randomness and advances."""
    n = state[L.S_NPLAYERS]
    for seat in range(n):
        out[seat] = 0.0
    if state[L.S_STATUS] != L.ST_RUNNING:
        return
    world = np.empty(L.STATE_SIZE, dtype=np.int64)
    pool = np.empty(L.MAX_CARDS, dtype=np.int64)
    used = np.empty(L.MAX_CARDS, dtype=np.int8)
    mask = np.empty(L.MAX_ACTIONS, dtype=np.int8)
    params = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
    model = search_value_default(n)
    wilds = wild_face_mask(spec)
    start_round = state[L.S_ROUND]
    for _ in range(sims):
        sample_world(state, spec, world, pool, used, 1, 0)
        rollout(world, spec, start_round, depth, mask, policy, params, 0)
        if world[L.S_ROUND] != start_round or world[L.S_STATUS] != L.ST_RUNNING:
            winner = world[L.S_ROUND_WINNER]
            if 0 <= winner < n:
                out[winner] += WIN
        else:
            for seat in range(n):
                if world[L.FINISHED + seat] == 0:
                    out[seat] += WIN * evaluate(world, spec, seat, model, wilds)
    for seat in range(n):
        out[seat] /= max(sims, 1)


def win_chances(
    state: np.ndarray,
    spec: np.ndarray,
    sims: int = 200,
    depth: int = 0,
    seed: int = 0,
    rollout: str = "blocker",
) -> np.ndarray:
    """:func:`position_values` of a game's state (left unchanged): each seat's chance of
    winning the round, from ``sims`` rollouts of the ``rollout`` style seeded with ``seed``
    (the same arguments give the same estimate)."""
    styles = {s.name: s.code for s in (*BASELINE_STYLES, *SCRIPTED_STYLES)}  # the styles that do not plan
    if rollout not in styles:
        raise ValueError(
            f"rollout must be a style that does not plan: one of {', '.join(styles)}; got {rollout!r}"
        )
    if not 1 <= sims <= 1_000_000:
        raise ValueError(f"sims must be 1..1000000, got {sims}")
    work = state.copy()
    seed_rng(work, L.AGENT_RNG, seed, 0x5EA7)
    out = np.zeros(int(state[L.S_NPLAYERS]), dtype=np.float64)
    position_values(work, spec, sims, depth, styles[rollout], out)
    return out


@njit(cache=True)
def search_value_default(players: int) -> int:
    """The search's ``value=auto`` at ``players`` players: the hand-size model at 2 players
    (the model the 2-player figures were measured with), the model with the wild cards held
    from 3 players on (measured at 4 players against blockers, docs/agents.md)."""
    return VALUE_SIZES if players <= 2 else VALUE_WILDS


# ================================================================ the registry entries
def _search_params(oracle: bool) -> tuple[StyleParam, ...]:
    """The parameters of the search agents (``oracle``: no ``trust``, and ``pile``)."""
    sims = StyleParam(
        "sims", P_SIMS, SIMS_DEFAULT, 1, 1_000_000, False, "simulations (rollouts) per decision"
    )
    depth = StyleParam(
        "depth",
        P_DEPTH,
        SEARCH_DEPTH_DEFAULT,
        0,
        ROLLOUT_LIMIT,
        False,
        "decisions per rollout before the position is evaluated (0: to the end of the round)",
    )
    trust = StyleParam(
        "trust",
        P_TRUST,
        TRUST_DEFAULT,
        0.0,
        1.0,
        True,
        "share of the samples that believe what plays suggest (a draw by choice: nothing to play; "
        "a Wild Draw Four: no card of the colour); 0 keeps to what the rules prove",
    )
    infer = StyleParam(
        "infer",
        P_INFER,
        INFER_DEFAULT,
        0.0,
        1.0,
        True,
        "share of the samples in which the last move of the player before agrees with the rollout "
        "style played with the sampled hand (a card laid, the colour named for a wild)",
        quiet=True,
    )
    confidence = StyleParam(
        "confidence",
        P_CONFIDENCE,
        CONFIDENCE_DEFAULT,
        0,
        1000,
        False,
        "standard errors (in hundredths) by which a move must beat the rollout style's own choice",
    )
    rollout = StyleParam(
        "rollout",
        P_ROLLOUT,
        ROLLOUT_DEFAULT,
        0,
        ROLLOUT_NET,
        False,
        "the style every seat plays in the rollouts (net: the network, with `net=`)",
        (*ROLLOUT_STYLES, "net"),
    )
    explore = StyleParam(
        "explore", P_EXPLORE, EXPLORE_DEFAULT, 0.0, 1.0, True, "chance of a random decision in a rollout"
    )
    value = StyleParam(
        "value",
        P_VALUE,
        AUTO,
        0,
        len(VALUE_MODELS) - 1,
        False,
        "how an unfinished rollout is valued: by the hand sizes, by the hand sizes and the wild cards "
        "held, or by the critic of the network (`net=`, a file with one); auto: the critic when the "
        f"network has one, else {VALUE_MODELS[VALUE_SIZES]} at 2 players, "
        f"{VALUE_MODELS[VALUE_WILDS]} at more",
        VALUE_MODELS,
        auto=True,
    )
    net = StyleParam(
        "net",
        P_NET,
        NO_NETWORK,
        0,
        0,
        False,
        "an exported network that guides the search (its priors, rollouts and critic; uno_env.sim.guided)",
        network=True,
        guided=True,
    )
    top = StyleParam(
        "top",
        P_TOP,
        TOP_DEFAULT,
        0,
        1000,
        False,
        "candidates searched, the network's most likely first, and the kept move (0: every legal action)",
        guided=True,
    )
    default = StyleParam(
        "default",
        P_DEFAULT,
        DEFAULT_NET,
        0,
        len(DEFAULT_MOVES) - 1,
        False,
        "the move kept unless another beats it by `confidence`: the rollout style's or the network's",
        DEFAULT_MOVES,
        guided=True,
    )
    own = StyleParam(
        "own",
        P_OWN,
        0,
        0,
        len(OWN_PLAYERS) - 1,
        False,
        "who plays the searcher's own seat in its rollouts: the rollout policy (same) or the network",
        OWN_PLAYERS,
        guided=True,
    )
    guided = (net, top, default, own)
    if oracle:
        pile = StyleParam("pile", P_PILE, PILE_DEFAULT, 0, 1, False, "1: also see the order of the draw pile")
        return (sims, depth, confidence, rollout, explore, pile, value, *guided)
    return (sims, depth, trust, infer, confidence, rollout, explore, value, *guided)


SEARCH_STYLES = (
    Style(
        "search",
        POLICY_SEARCH,
        "determinised Monte-Carlo search: samples the hidden cards, rolls every option out",
        "Perfect-information Monte Carlo (uno_env.styles.search): samples the cards it cannot see "
        "from what it knows (hand sizes, the discard pile, hands it has seen, what draws and "
        "Wild Draw Fours proved a player lacks, and with chance `trust` what they suggest), "
        "applies every legal action in each sample, plays on `depth` decisions with `rollout` "
        "at every seat and values the position by the hand sizes; `sims` rollouts per "
        "decision, spread by successive halving, every candidate in the same samples. Plays "
        "the rollout style's own choice unless another action gains more than `confidence` "
        "standard errors. Calls UNO before laying its second-to-last card. Every phase.",
        _search_params(oracle=False),
    ),
    Style(
        "oracle",
        POLICY_ORACLE,
        "CHEATS: the search with the true hidden cards (an upper bound, not a player)",
        "The `search` agent given the other players' true hands (and with `pile=1` the order "
        "of the draw pile): it cheats. Its lead over `search` measures what the hidden "
        "information is worth under a rule set. Tournaments and studies refuse it unless "
        "cheating agents are allowed.",
        _search_params(oracle=True),
        cheats=True,
    ),
)
"""The search agents' registry entries (:mod:`uno_env.styles.registry`)."""

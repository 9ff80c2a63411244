"""The compiled rules: plain functions over a game's state buffer and a rule set's spec.

Every function here takes ``state`` (one game, layout in :mod:`uno_env.layout`) and ``spec``
(a compiled :class:`~uno_env.rules.RuleSet`) and is compiled by numba with ``cache=True``.
The same source runs uncompiled under ``NUMBA_DISABLE_JIT=1``. Three entry points serve
every caller (the :class:`~uno_env.game.Game` facade, the batch simulator and the envs):

- :func:`new_game` deals a game from ``(seed, stream)``;
- :func:`fill_mask` writes the legal actions of the player to move;
- :func:`apply_action` applies one legal decision, then resolves every chance event until
  the next decision; :func:`step_checked` checks legality, applies and refills the mask in
  one call (one compiled call per step).

The engine never decides for a player: each choice (colour, play or keep a drawn card,
challenge, call) is its own decision. Chance (shuffles, the catch of a missed UNO call)
comes from the game's own generator.

Rules implemented: U-DECK-1 (via the deck counts), U-SETUP-1, U-SETUP-2, U-START-1,
U-START-2, U-MATCH-1, U-DRAW-1, U-DRAW-2, U-DRAW-3, U-DRAW-4, U-SKIP-1, U-REV-1, U-D2-1,
U-WILD-1, U-WD4-1, U-WD4-2, U-UNO-1, U-END-1, U-SCORE-1, U-SCORE-2, U-SCORE-3, E-DIR-1,
E-CONS-1 (checked by :func:`check_invariants`), E-END-1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    A_ACCEPT_OFFSET,
    A_CALL_OFFSET,
    A_CHALLENGE_OFFSET,
    A_DRAW_OFFSET,
    A_PASS_OFFSET,
    AC_END_TURN,
    AC_SAME_PLAYER,
    AC_WILD_DRAW,
    AGENT_RNG,
    CALLED,
    DECK,
    DISCARD_PILE,
    DRAW_PILE,
    EF_DRAW,
    EF_NONE,
    EF_REVERSE,
    EF_SKIP,
    EF_WILD,
    EF_WILD_DRAW,
    F_AMOUNT,
    F_ANYWHERE,
    F_COLOUR,
    F_DEALER_VALUE,
    F_EFFECT,
    F_IS_NUMBER,
    F_POINTS,
    F_RANK,
    HAND_SIZE,
    HANDS,
    MAX_CARDS,
    MAX_FACES,
    MAX_PLAYERS,
    NUM_COLOURS,
    PH_CHALLENGE,
    PH_CHOOSE_COLOUR,
    PH_OVER,
    PH_PLAY,
    PH_PLAY_DRAWN,
    RNG,
    ROUND_POINTS,
    S_AFTER_CHOICE,
    S_BLUFF,
    S_COLOUR,
    S_COLOUR_BEFORE,
    S_CURRENT,
    S_DEALER,
    S_DECISIONS,
    S_DIRECTION,
    S_DRAWN,
    S_LAST_ACTION,
    S_LAST_ACTOR,
    S_NDISCARD,
    S_NDRAW,
    S_NPLAYERS,
    S_PENDING,
    S_PENDING_FROM,
    S_PHASE,
    S_ROUND,
    S_ROUND_WINNER,
    S_STATUS,
    S_WINNER,
    SCORE,
    SP_CHALLENGE_COLOUR_STANDS,
    SP_CHALLENGE_PENALTY,
    SP_DEALER_DRAW,
    SP_DRAW_UNTIL_PLAYABLE,
    SP_DRAW_WHEN_PLAYABLE,
    SP_DRAWN_MUST_PLAY,
    SP_HAND_SIZE,
    SP_LAST_CARD_DRAW,
    SP_MATCH,
    SP_MAX_DECISIONS,
    SP_NUM_ACTIONS,
    SP_NUM_FACES,
    SP_REVERSE_SKIPS_TWO,
    SP_START_NUMBER_ONLY,
    SP_TARGET,
    SP_UNO_CATCH_PPM,
    SP_UNO_PENALTY,
    SP_WD4_MODE,
    SP_WD4_NO_PLAYABLE,
    ST_RUNNING,
    ST_TRUNCATED,
    ST_WON,
    STATE_SIZE,
)
from .rng import chance_ppm, rand_below, seed_rng, shuffle

MATCH_SINGLE_ROUND = 0
MATCH_FIRST_TO_TARGET = 1
MATCH_LOWEST_TOTAL = 2
WD4_CHALLENGE = 0
WD4_UNPUNISHED = 1
WD4_REFUSED = 2


# ================================================================ small helpers (one place each)
@njit(cache=True)
def next_seat(state: np.ndarray, seat: int, steps: int) -> int:
    """The seat ``steps`` places from ``seat`` in the direction of play (E-DIR-1)."""
    return (seat + state[S_DIRECTION] * steps) % state[S_NPLAYERS]


@njit(cache=True)
def top_face(state: np.ndarray) -> int:
    """The face on top of the discard pile."""
    return state[DISCARD_PILE + state[S_NDISCARD] - 1]


@njit(cache=True)
def count_in_hand(state: np.ndarray, seat: int, face: int) -> int:
    """Copies of ``face`` that ``seat`` holds."""
    return state[HANDS + seat * MAX_FACES + face]


@njit(cache=True)
def add_to_hand(state: np.ndarray, seat: int, face: int) -> None:
    """Put one card of ``face`` into ``seat``'s hand."""
    state[HANDS + seat * MAX_FACES + face] += 1
    state[HAND_SIZE + seat] += 1


@njit(cache=True)
def remove_from_hand(state: np.ndarray, seat: int, face: int) -> None:
    """Take one card of ``face`` out of ``seat``'s hand."""
    state[HANDS + seat * MAX_FACES + face] -= 1
    state[HAND_SIZE + seat] -= 1


@njit(cache=True)
def push_discard(state: np.ndarray, face: int) -> None:
    """Lay a card on the discard pile."""
    state[DISCARD_PILE + state[S_NDISCARD]] = face
    state[S_NDISCARD] += 1


@njit(cache=True)
def reshuffle(state: np.ndarray) -> None:
    """U-DRAW-4: the discard pile except its top card becomes the shuffled draw pile."""
    n_under = state[S_NDISCARD] - 1
    if n_under <= 0:
        return
    top = top_face(state)
    base = state[S_NDRAW]
    for i in range(n_under):
        state[DRAW_PILE + base + i] = state[DISCARD_PILE + i]
    state[S_NDRAW] = base + n_under
    shuffle(state, DRAW_PILE, state[S_NDRAW], RNG)
    state[DISCARD_PILE] = top
    state[S_NDISCARD] = 1


@njit(cache=True)
def draw_one(state: np.ndarray, seat: int) -> int:
    """``seat`` draws the top card (reshuffling if needed); the face, or -1 if none is left."""
    if state[S_NDRAW] == 0:
        reshuffle(state)
        if state[S_NDRAW] == 0:
            return -1  # U-DRAW-4: nothing to draw
    state[S_NDRAW] -= 1
    face = state[DRAW_PILE + state[S_NDRAW]]
    add_to_hand(state, seat, face)
    state[CALLED + seat] = 0  # a call stands only while its player holds one card
    return face


@njit(cache=True)
def draw_cards(state: np.ndarray, seat: int, count: int) -> int:
    """``seat`` draws ``count`` cards, as many as exist (U-DRAW-4); returns how many."""
    drawn = 0
    for _ in range(count):
        if draw_one(state, seat) < 0:
            break
        drawn += 1
    return drawn


# ================================================================ matching (U-MATCH-1, U-WD4-1)
@njit(cache=True)
def matches(state: np.ndarray, spec: np.ndarray, face: int) -> bool:
    """U-MATCH-1: same colour as the active colour, same number/symbol as the top, or wild."""
    if spec[F_ANYWHERE + face] == 1:
        return True
    if spec[F_COLOUR + face] == state[S_COLOUR]:
        return True
    return spec[F_RANK + face] == spec[F_RANK + top_face(state)]


@njit(cache=True)
def wild_draw_legal(state: np.ndarray, spec: np.ndarray, seat: int) -> bool:
    """U-WD4-1: ``seat`` holds no card of the active colour (option: no other playable card)."""
    nf = spec[SP_NUM_FACES]
    for face in range(nf):
        if count_in_hand(state, seat, face) == 0 or spec[F_EFFECT + face] == EF_WILD_DRAW:
            continue
        if spec[SP_WD4_NO_PLAYABLE] == 1:
            if matches(state, spec, face):
                return False
        elif spec[F_COLOUR + face] == state[S_COLOUR]:
            return False
    return True


@njit(cache=True)
def playable(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> bool:
    """Whether ``seat`` may play ``face`` now (U-MATCH-1, U-WD4-1, U-WD4-2)."""
    if spec[F_EFFECT + face] == EF_WILD_DRAW and spec[SP_WD4_MODE] == WD4_REFUSED:
        return wild_draw_legal(state, spec, seat)
    return matches(state, spec, face)


# ================================================================ legal actions
@njit(cache=True)
def fill_mask(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """Write the legal actions of the player to move into ``mask``; return how many."""
    na = spec[SP_NUM_ACTIONS]
    for a in range(na):
        mask[a] = 0
    if state[S_STATUS] != ST_RUNNING:
        return 0
    nf = spec[SP_NUM_FACES]
    seat = state[S_CURRENT]
    phase = state[S_PHASE]
    count = 0
    if phase == PH_PLAY:
        any_playable = False
        for face in range(nf):
            if count_in_hand(state, seat, face) > 0 and playable(state, spec, seat, face):
                mask[face] = 1
                count += 1
                any_playable = True
        if spec[SP_DRAW_WHEN_PLAYABLE] == 1 or not any_playable:  # U-DRAW-3
            mask[nf + A_DRAW_OFFSET] = 1
            count += 1
        count += _mask_call(state, spec, seat, mask)
    elif phase == PH_PLAY_DRAWN:  # U-DRAW-1: play the drawn card or keep it
        mask[state[S_DRAWN]] = 1
        count += 1
        if spec[SP_DRAWN_MUST_PLAY] == 0:
            mask[nf + A_PASS_OFFSET] = 1
            count += 1
        count += _mask_call(state, spec, seat, mask)
    elif phase == PH_CHOOSE_COLOUR:  # U-WILD-1
        for colour in range(NUM_COLOURS):
            mask[nf + colour] = 1
        count += NUM_COLOURS
    elif phase == PH_CHALLENGE:  # U-WD4-2
        mask[nf + A_CHALLENGE_OFFSET] = 1
        mask[nf + A_ACCEPT_OFFSET] = 1
        count += 2
    return count


@njit(cache=True)
def _mask_call(state: np.ndarray, spec: np.ndarray, seat: int, mask: np.ndarray) -> int:
    """U-UNO-1: a player about to play their second-to-last card may call first."""
    if state[HAND_SIZE + seat] == 2 and state[CALLED + seat] == 0:
        mask[spec[SP_NUM_FACES] + A_CALL_OFFSET] = 1
        return 1
    return 0


# ================================================================ applying a decision
@njit(cache=True)
def end_turn(state: np.ndarray, seat: int) -> None:
    """Play passes to the next seat, which starts a normal turn."""
    state[S_CURRENT] = next_seat(state, seat, 1)
    state[S_PHASE] = PH_PLAY
    state[S_DRAWN] = -1


@njit(cache=True)
def _draw_and_lose_turn(state: np.ndarray, victim: int, count: int) -> None:
    """The victim of a draw card draws and is skipped (U-D2-1, U-WD4-1)."""
    draw_cards(state, victim, count)
    end_turn(state, victim)


@njit(cache=True)
def play_card(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> None:
    """``seat`` plays ``face``: it leaves the hand, lands on the pile and takes effect."""
    effect = spec[F_EFFECT + face]
    if effect == EF_WILD_DRAW:  # U-WD4-2: remember whether it was a bluff, and the colour
        state[S_BLUFF] = 0 if wild_draw_legal(state, spec, seat) else 1
        state[S_COLOUR_BEFORE] = state[S_COLOUR]
    remove_from_hand(state, seat, face)
    push_discard(state, face)
    state[S_DRAWN] = -1
    if state[HAND_SIZE + seat] == 1 and state[CALLED + seat] == 0:  # U-UNO-1
        if chance_ppm(state, RNG, spec[SP_UNO_CATCH_PPM]):
            draw_cards(state, seat, spec[SP_UNO_PENALTY])
    if state[HAND_SIZE + seat] == 0:
        if spec[SP_LAST_CARD_DRAW] == 1 and (effect == EF_DRAW or effect == EF_WILD_DRAW):
            draw_cards(state, next_seat(state, seat, 1), spec[F_AMOUNT + face])  # U-END-1
        end_round(state, spec, seat)
        return
    if spec[F_COLOUR + face] >= 0:
        state[S_COLOUR] = spec[F_COLOUR + face]
    if effect == EF_NONE:
        end_turn(state, seat)
    elif effect == EF_SKIP:  # U-SKIP-1
        end_turn(state, next_seat(state, seat, 1))
    elif effect == EF_REVERSE:  # U-REV-1
        if state[S_NPLAYERS] == 2 and spec[SP_REVERSE_SKIPS_TWO] == 1:
            end_turn(state, next_seat(state, seat, 1))
        else:
            state[S_DIRECTION] = -state[S_DIRECTION]
            end_turn(state, seat)
    elif effect == EF_DRAW:  # U-D2-1
        _draw_and_lose_turn(state, next_seat(state, seat, 1), spec[F_AMOUNT + face])
    elif effect == EF_WILD or effect == EF_WILD_DRAW:  # U-WILD-1, U-WD4-1
        state[S_PHASE] = PH_CHOOSE_COLOUR
        state[S_AFTER_CHOICE] = AC_WILD_DRAW if effect == EF_WILD_DRAW else AC_END_TURN


@njit(cache=True)
def choose_colour(state: np.ndarray, spec: np.ndarray, seat: int, colour: int) -> None:
    """Name the colour after a wild (U-WILD-1); a Wild Draw Four then hits the next player."""
    state[S_COLOUR] = colour
    after = state[S_AFTER_CHOICE]
    if after == AC_SAME_PLAYER:  # U-START-1: a starting wild, the first player plays now
        state[S_PHASE] = PH_PLAY
    elif after == AC_END_TURN:
        end_turn(state, seat)
    else:
        victim = next_seat(state, seat, 1)
        amount = spec[F_AMOUNT + top_face(state)]
        if spec[SP_WD4_MODE] == WD4_CHALLENGE:  # U-WD4-2: the victim decides
            state[S_PENDING] = amount
            state[S_PENDING_FROM] = seat
            state[S_CURRENT] = victim
            state[S_PHASE] = PH_CHALLENGE
        else:
            _draw_and_lose_turn(state, victim, amount)


@njit(cache=True)
def _clear_pending(state: np.ndarray) -> None:
    state[S_PENDING] = 0
    state[S_PENDING_FROM] = -1
    state[S_BLUFF] = 0
    state[S_COLOUR_BEFORE] = -1


@njit(cache=True)
def resolve_challenge(state: np.ndarray, spec: np.ndarray, challenger: int) -> None:
    """U-WD4-2: a caught bluffer draws the 4; a wrong challenger draws 4 + penalty."""
    amount = state[S_PENDING]
    if state[S_BLUFF] == 1:
        draw_cards(state, state[S_PENDING_FROM], amount)
        if spec[SP_CHALLENGE_COLOUR_STANDS] == 0:
            state[S_COLOUR] = state[S_COLOUR_BEFORE]
        _clear_pending(state)
        state[S_PHASE] = PH_PLAY  # the challenger takes a normal turn
    else:
        _clear_pending(state)
        _draw_and_lose_turn(state, challenger, amount + spec[SP_CHALLENGE_PENALTY])


@njit(cache=True)
def draw_for_turn(state: np.ndarray, spec: np.ndarray, seat: int) -> None:
    """U-DRAW-1 / U-DRAW-2: draw, then play the card if it is playable and the player wants."""
    while True:
        face = draw_one(state, seat)
        if face < 0:  # U-DRAW-4: nothing left to draw, the turn ends
            end_turn(state, seat)
            return
        if playable(state, spec, seat, face):
            state[S_DRAWN] = face
            state[S_PHASE] = PH_PLAY_DRAWN
            return
        if spec[SP_DRAW_UNTIL_PLAYABLE] == 0:
            end_turn(state, seat)
            return


@njit(cache=True)
def apply_action(state: np.ndarray, spec: np.ndarray, action: int) -> None:
    """Apply one decision of the player to move. The action must be legal (see fill_mask)."""
    seat = state[S_CURRENT]
    nf = spec[SP_NUM_FACES]
    phase = state[S_PHASE]
    state[S_LAST_ACTOR] = seat
    state[S_LAST_ACTION] = action
    state[S_DECISIONS] += 1
    if phase == PH_PLAY or phase == PH_PLAY_DRAWN:
        if action < nf:
            play_card(state, spec, seat, action)
        elif action == nf + A_DRAW_OFFSET:
            draw_for_turn(state, spec, seat)
        elif action == nf + A_PASS_OFFSET:
            end_turn(state, seat)  # U-DRAW-1: keep the drawn card
        elif action == nf + A_CALL_OFFSET:
            state[CALLED + seat] = 1  # U-UNO-1
    elif phase == PH_CHOOSE_COLOUR:
        choose_colour(state, spec, seat, action - nf)
    elif phase == PH_CHALLENGE:
        if action == nf + A_CHALLENGE_OFFSET:
            resolve_challenge(state, spec, seat)
        else:
            amount = state[S_PENDING]
            _clear_pending(state)
            _draw_and_lose_turn(state, seat, amount)
    if state[S_STATUS] == ST_RUNNING and state[S_DECISIONS] >= spec[SP_MAX_DECISIONS]:
        finish(state, ST_TRUNCATED, -1)  # E-END-1


@njit(cache=True)
def step_checked(state: np.ndarray, spec: np.ndarray, action: int, mask: np.ndarray) -> bool:
    """Check ``action`` against the legal set, apply it and refill ``mask``.

    Returns False (state and mask unchanged) when the action is illegal. ``mask`` must hold
    the legal actions of the current state on entry (as left by the previous call).
    """
    if action < 0 or action >= spec[SP_NUM_ACTIONS] or mask[action] == 0:
        return False
    apply_action(state, spec, action)
    fill_mask(state, spec, mask)
    return True


# ================================================================ rounds, scoring and the end
@njit(cache=True)
def hand_points(state: np.ndarray, spec: np.ndarray, seat: int) -> int:
    """U-SCORE-1: points of the cards ``seat`` holds."""
    total = 0
    for face in range(spec[SP_NUM_FACES]):
        total += count_in_hand(state, seat, face) * spec[F_POINTS + face]
    return total


@njit(cache=True)
def finish(state: np.ndarray, status: int, winner: int) -> None:
    """End the game: won by ``winner`` or truncated (E-END-1)."""
    state[S_STATUS] = status
    state[S_WINNER] = winner
    state[S_PHASE] = PH_OVER
    state[S_CURRENT] = -1


@njit(cache=True)
def end_round(state: np.ndarray, spec: np.ndarray, winner: int) -> None:
    """Score the round (U-SCORE-1/3); end the game or deal the next round of a match."""
    n = state[S_NPLAYERS]
    won = 0
    for seat in range(n):
        points = hand_points(state, spec, seat)
        state[ROUND_POINTS + seat] = points
        won += points
    state[S_ROUND] += 1
    state[S_ROUND_WINNER] = winner
    match = spec[SP_MATCH]
    if match == MATCH_LOWEST_TOTAL:  # U-SCORE-3: everyone keeps the points left in hand
        reached = False
        for seat in range(n):
            state[SCORE + seat] += state[ROUND_POINTS + seat]
            reached = reached or state[SCORE + seat] >= spec[SP_TARGET]
        if reached:
            best = 0
            for seat in range(1, n):
                if state[SCORE + seat] < state[SCORE + best]:
                    best = seat
            finish(state, ST_WON, best)
            return
    else:  # U-SCORE-1: the winner scores the others' cards
        state[SCORE + winner] += won
        if match == MATCH_SINGLE_ROUND or state[SCORE + winner] >= spec[SP_TARGET]:
            finish(state, ST_WON, winner)  # U-SCORE-2
            return
    state[S_DEALER] = (state[S_DEALER] + 1) % n  # the deal passes to the left
    deal_round(state, spec)


@njit(cache=True)
def compute_ranking(state: np.ndarray, spec: np.ndarray, out: np.ndarray) -> None:
    """Seats from best to worst into ``out[:n]`` (all -1 if the game did not end in a win).

    Single round: the winner, then fewest points left in hand. First-to-target match: most
    match points. Lowest-total match: fewest match points. Ties keep seat order clockwise
    from the winner.
    """
    n = state[S_NPLAYERS]
    for i in range(n):
        out[i] = -1
    if state[S_STATUS] != ST_WON:
        return
    winner = state[S_WINNER]
    keys = np.empty(n, dtype=np.int64)
    match = spec[SP_MATCH]
    for seat in range(n):
        if match == MATCH_SINGLE_ROUND:
            keys[seat] = state[ROUND_POINTS + seat]
        elif match == MATCH_FIRST_TO_TARGET:
            keys[seat] = -state[SCORE + seat]
        else:
            keys[seat] = state[SCORE + seat]
    out[0] = winner
    filled = 1
    used = np.zeros(n, dtype=np.bool_)
    used[winner] = True
    while filled < n:
        best = -1
        for k in range(1, n):
            seat = (winner + k) % n
            if not used[seat] and (best < 0 or keys[seat] < keys[best]):
                best = seat
        used[best] = True
        out[filled] = best
        filled += 1


# ================================================================ set-up
@njit(cache=True)
def _fill_draw_pile_with_deck(state: np.ndarray, spec: np.ndarray) -> None:
    """All cards of the game into the draw pile (hands and discard emptied), shuffled."""
    count = 0
    for face in range(spec[SP_NUM_FACES]):
        for _ in range(state[DECK + face]):
            state[DRAW_PILE + count] = face
            count += 1
    state[S_NDRAW] = count
    state[S_NDISCARD] = 0
    for i in range(MAX_PLAYERS * MAX_FACES):
        state[HANDS + i] = 0
    for seat in range(MAX_PLAYERS):
        state[HAND_SIZE + seat] = 0
        state[CALLED + seat] = 0
    shuffle(state, DRAW_PILE, count, RNG)


@njit(cache=True)
def draw_for_dealer(state: np.ndarray, spec: np.ndarray) -> int:
    """U-SETUP-2: each contender turns a card; the highest number deals; ties draw again."""
    n = state[S_NPLAYERS]
    _fill_draw_pile_with_deck(state, spec)
    contenders = np.ones(n, dtype=np.bool_)
    values = np.zeros(n, dtype=np.int64)
    while True:
        best = -1
        for seat in range(n):
            if contenders[seat]:
                if state[S_NDRAW] == 0:
                    _fill_draw_pile_with_deck(state, spec)
                state[S_NDRAW] -= 1
                values[seat] = spec[F_DEALER_VALUE + state[DRAW_PILE + state[S_NDRAW]]]
                best = max(best, values[seat])
        tied = 0
        dealer = -1
        for seat in range(n):
            if contenders[seat] and values[seat] == best:
                tied += 1
                dealer = seat
            else:
                contenders[seat] = False
        if tied == 1:
            return dealer


@njit(cache=True)
def deal_round(state: np.ndarray, spec: np.ndarray) -> None:
    """U-SETUP-1 deal and U-START-1/2 starting card; leaves the first decision pending."""
    n = state[S_NPLAYERS]
    _fill_draw_pile_with_deck(state, spec)
    state[S_DIRECTION] = 1
    state[S_DRAWN] = -1
    _clear_pending(state)
    dealer = state[S_DEALER]
    for _ in range(spec[SP_HAND_SIZE]):  # one card at a time, starting left of the dealer
        for k in range(1, n + 1):
            draw_one(state, (dealer + k) % n)
    face = -1
    attempts = 4 * MAX_CARDS  # a bound only a deck without allowed starting cards reaches
    for attempt in range(attempts):  # U-START-1 / U-START-2: turn until an allowed card
        state[S_NDRAW] -= 1
        face = state[DRAW_PILE + state[S_NDRAW]]
        refused = spec[F_EFFECT + face] == EF_WILD_DRAW or (
            spec[SP_START_NUMBER_ONLY] == 1 and spec[F_IS_NUMBER + face] == 0
        )
        if not refused or attempt == attempts - 1:
            break
        state[S_NDRAW] += 1  # back into the pile, which is reshuffled
        shuffle(state, DRAW_PILE, state[S_NDRAW], RNG)
    push_discard(state, face)
    state[S_COLOUR] = spec[F_COLOUR + face]
    first = next_seat(state, dealer, 1)
    state[S_PHASE] = PH_PLAY
    effect = spec[F_EFFECT + face]
    if effect == EF_SKIP:  # the first player is skipped
        state[S_CURRENT] = next_seat(state, first, 1)
    elif effect == EF_REVERSE:  # the dealer plays first, then the dealer's right
        state[S_DIRECTION] = -1
        state[S_CURRENT] = dealer
    elif effect == EF_DRAW:  # the first player draws and is skipped
        draw_cards(state, first, spec[F_AMOUNT + face])
        state[S_CURRENT] = next_seat(state, first, 1)
    elif effect == EF_WILD:  # the first player names the colour, then plays
        state[S_CURRENT] = first
        state[S_PHASE] = PH_CHOOSE_COLOUR
        state[S_AFTER_CHOICE] = AC_SAME_PLAYER
    else:
        state[S_CURRENT] = first


@njit(cache=True)
def new_game(
    state: np.ndarray,
    spec: np.ndarray,
    num_players: int,
    deck_counts: np.ndarray,
    seed: int,
    stream: int,
) -> None:
    """Reset ``state`` to a freshly dealt game from ``(seed, stream)``."""
    for i in range(STATE_SIZE):
        state[i] = 0
    state[S_NPLAYERS] = num_players
    state[S_DIRECTION] = 1
    state[S_WINNER] = -1
    state[S_ROUND_WINNER] = -1
    state[S_LAST_ACTOR] = -1
    state[S_LAST_ACTION] = -1
    seed_rng(state, RNG, seed, 2 * stream)
    seed_rng(state, AGENT_RNG, seed, 2 * stream + 1)
    for face in range(MAX_FACES):
        state[DECK + face] = deck_counts[face]
    if spec[SP_DEALER_DRAW] == 1:
        state[S_DEALER] = draw_for_dealer(state, spec)
    else:
        state[S_DEALER] = rand_below(state, RNG, num_players)
    deal_round(state, spec)


# ================================================================ invariants (E-CONS-1)
INV_OK = 0
INV_CONSERVATION = 1
INV_NEGATIVE = 2
INV_HAND_SIZE = 3
INV_NO_LEGAL_ACTION = 4
INV_BAD_SEAT = 5
INV_EMPTY_DISCARD = 6
INV_BAD_COLOUR = 7


@njit(cache=True)
def check_invariants(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """Return INV_OK or the code of the first broken invariant (see the INV_* names)."""
    n = state[S_NPLAYERS]
    nf = spec[SP_NUM_FACES]
    counts = np.zeros(MAX_FACES, dtype=np.int64)
    for i in range(state[S_NDRAW]):
        counts[state[DRAW_PILE + i]] += 1
    for i in range(state[S_NDISCARD]):
        counts[state[DISCARD_PILE + i]] += 1
    for seat in range(n):
        size = 0
        for face in range(nf):
            held = count_in_hand(state, seat, face)
            if held < 0:
                return INV_NEGATIVE
            counts[face] += held
            size += held
        if size != state[HAND_SIZE + seat]:
            return INV_HAND_SIZE
    for face in range(MAX_FACES):
        if counts[face] != state[DECK + face]:
            return INV_CONSERVATION
    if state[S_NDRAW] < 0 or state[S_NDISCARD] < 0:
        return INV_NEGATIVE
    if state[S_STATUS] == ST_RUNNING:
        if not 0 <= state[S_CURRENT] < n:
            return INV_BAD_SEAT
        if state[S_NDISCARD] < 1:
            return INV_EMPTY_DISCARD
        if state[S_PHASE] != PH_CHOOSE_COLOUR and not 0 <= state[S_COLOUR] < NUM_COLOURS:
            return INV_BAD_COLOUR
        if fill_mask(state, spec, mask) < 1:
            return INV_NO_LEGAL_ACTION
    return INV_OK


INVARIANT_MESSAGES = {
    INV_CONSERVATION: "E-CONS-1: a card was created or destroyed",
    INV_NEGATIVE: "a count is negative",
    INV_HAND_SIZE: "a hand size disagrees with the cards held",
    INV_NO_LEGAL_ACTION: "the player to move has no legal action",
    INV_BAD_SEAT: "the seat to move is not a player",
    INV_EMPTY_DISCARD: "the discard pile is empty during play",
    INV_BAD_COLOUR: "no active colour during play",
}

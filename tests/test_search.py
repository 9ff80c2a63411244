"""The search agents: parameters, what their samples may know, the oracle, refusals.

- ``search:400`` is the budget; parameters parse and print canonically; ``value=auto`` is
  the hand-size model at 2 players and the hand-and-wilds model from 3 on.
- The leaf value (:func:`uno_env.styles.search.evaluate`): shares that sum to one over the players in
  play; fewer cards and (``value=wilds``) more wild cards are worth more, the hand-size model
  ignores the wilds; the parameter reaches the batch simulator's games.
- The engine's public records of what plays show (``VOID``: proven by the rules; ``HINT``:
  implied by straight play) hold: in random games of every preset the proven record never
  contradicts the true hands (U-DRAW-3 false, U-WD4-2, H-SEVEN-1 swaps, H-ZERO-1 rotations).
- Samples (:func:`uno_env.styles.search.sample_world`) conserve the cards (E-CONS-1), keep the
  mover's hand and seen hands (H-ZEROSEE-1), honour the proven record always and the hint
  record with ``trust`` 1.
- The oracle sees the true hands: it challenges exactly the bluffs (U-WD4-2); the search,
  which cannot see them, decides the same either way (the hidden-information test of
  ``test_agents_batch`` covers every preset).
- Tournaments and studies refuse the oracle unless cheating agents are allowed.
"""

from __future__ import annotations

import numpy as np
import pytest

from uno_env import PRESETS, Game, simulate
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.cards import COLOUR_LETTERS
from uno_env.engine.rules import compile_spec, preset
from uno_env.styles.baselines import POLICY_RANDOM_LEGAL
from uno_env.styles.dispatch import choose_action
from uno_env.styles.params import AUTO, NUM_POLICY_PARAMS, P_ROLLOUT, P_SIMS, P_VALUE
from uno_env.styles.registry import STYLES, canonical_policy, parse_policy, policy_table
from uno_env.styles.scripted import POLICY_BLOCKER, POLICY_GREEDY
from uno_env.styles.search import (
    VALUE_SIZES,
    VALUE_WILDS,
    evaluate,
    inferred_avoid,
    last_move_agrees,
    sample_inferred_world,
    sample_world,
    search_value_default,
    wild_face_mask,
)
from uno_env.styles.view import PublicView


def test_the_budget_is_the_first_parameter() -> None:
    style, params = parse_policy("search:400")
    assert style.name == "search" and params[P_SIMS] == 400
    assert canonical_policy("search:400,rollout=greedy") == (
        "search:sims=400,depth=20,trust=0.9,confidence=100,rollout=greedy,explore=0,value=auto"
    )
    assert canonical_policy("oracle:50") == (
        "oracle:sims=50,depth=20,confidence=100,rollout=blocker,explore=0,pile=0,value=auto"
    )
    with pytest.raises(ValueError, match="must be one of random_legal, greedy"):
        parse_policy("search:rollout=monte_carlo")
    assert parse_policy("search:rollout=random")[1][P_ROLLOUT] == POLICY_RANDOM_LEGAL
    with pytest.raises(ValueError, match="'sims' of style 'search' must be an integer"):
        parse_policy("search:lots")
    with pytest.raises(ValueError, match="is not key=value"):
        parse_policy("search:100,200")
    assert STYLES["oracle"].cheats and not STYLES["search"].cheats
    # infer came later: written out only away from its default, so earlier names stay the same
    assert canonical_policy("search:infer=0.5") == (
        "search:sims=1000,depth=20,trust=0.9,infer=0.5,confidence=100,rollout=blocker,explore=0,value=auto"
    )
    assert canonical_policy("search:infer=0") == canonical_policy("search")
    with pytest.raises(ValueError, match="has no parameter 'infer'"):
        parse_policy("oracle:infer=1")  # the oracle sees the hands: nothing to infer


def test_the_value_model_parses_and_auto_depends_on_the_player_count() -> None:
    params = parse_policy("search")[1]
    assert params[P_VALUE] == AUTO  # stored as "auto", read per game
    assert parse_policy("search:value=wilds")[1][P_VALUE] == VALUE_WILDS
    assert parse_policy("oracle:value=sizes")[1][P_VALUE] == VALUE_SIZES
    assert canonical_policy("search:value=auto") == canonical_policy("search")
    assert "value=wilds" in canonical_policy("search:value=wilds")
    with pytest.raises(ValueError, match="'value' of style 'search' must be one of sizes, wilds"):
        parse_policy("search:value=cards")
    with pytest.raises(ValueError, match="'sims' of style 'search' must be an integer"):
        parse_policy("search:sims=auto")  # only the value model has an auto
    assert search_value_default(2) == VALUE_SIZES
    assert [search_value_default(n) for n in (3, 4, 6, 10)] == [VALUE_WILDS] * 4


# ================================================================ the leaf value
def _position(
    players: int, sizes: list[int], wilds: list[int], mover: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A state whose seats hold ``sizes`` cards, ``wilds`` of them wild cards (W), the rest
    red numbers; only what :func:`evaluate` reads is set."""
    game = Game("uno", players, seed=0)
    spec = compile_spec(game.rules)
    state = game.state.copy()
    wild = int(np.flatnonzero([(wild_face_mask(spec) >> f) & 1 for f in range(L.MAX_FACES)])[0])
    number = 1  # a red number
    assert spec[L.F_ANYWHERE + number] == 0
    for seat in range(players):
        state[L.HANDS + seat * L.MAX_FACES : L.HANDS + (seat + 1) * L.MAX_FACES] = 0
        state[L.HANDS + seat * L.MAX_FACES + wild] = wilds[seat]
        state[L.HANDS + seat * L.MAX_FACES + number] = sizes[seat] - wilds[seat]
        state[L.HAND_SIZE + seat] = sizes[seat]
        engine.recount_held(state, seat)
    state[L.S_CURRENT] = mover
    return state, spec


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_leaf_value_is_a_share_that_rewards_few_cards_and_wild_ones(players: int) -> None:
    sizes = [3, 3] + [6] * (players - 2)
    state, spec = _position(players, sizes, [1, 0] + [0] * (players - 2), mover=players - 1)
    for model in (VALUE_SIZES, VALUE_WILDS):
        shares = [evaluate(state, spec, seat, model) for seat in range(players)]
        assert sum(shares) == pytest.approx(1.0)
        assert min(shares[:2]) > max(shares[2:-1] or [0.0])  # 3 cards beat 6
    # seats 0 and 1 hold 3 cards each, seat 0 a wild: it counts only in the wilds model
    # (each is valued with the other to move, so the mover's bonus falls alike)
    other_moves = state.copy()
    other_moves[L.S_CURRENT] = 0
    state[L.S_CURRENT] = 1
    assert evaluate(state, spec, 0, VALUE_SIZES) == pytest.approx(evaluate(other_moves, spec, 1, VALUE_SIZES))
    assert evaluate(state, spec, 0, VALUE_WILDS) > 1.5 * evaluate(other_moves, spec, 1, VALUE_WILDS)
    assert evaluate(state, spec, 0, VALUE_WILDS, wild_face_mask(spec)) == evaluate(
        state, spec, 0, VALUE_WILDS
    )
    # a player who left (MC-END-1) shares nothing
    state[L.FINISHED + players - 1] = 1
    assert evaluate(state, spec, players - 1, VALUE_WILDS) == 0.0
    assert sum(evaluate(state, spec, s, VALUE_WILDS) for s in range(players)) == pytest.approx(1.0)


def test_the_value_parameter_reaches_the_batch_games() -> None:
    """Same seed: ``search`` plays as ``value=wilds`` at 4 players and as ``value=sizes`` at 2;
    the two models play different games."""
    fast = "search:sims=24,depth=8"

    def lengths(players: int, value: str) -> np.ndarray:
        style = fast + (f",value={value}" if value else "")
        return simulate("uno", players, 6, seed=5, policies=[style] + ["blocker"] * (players - 1)).length

    assert np.array_equal(lengths(4, ""), lengths(4, "wilds"))
    assert np.array_equal(lengths(2, ""), lengths(2, "sizes"))
    assert not np.array_equal(lengths(4, "wilds"), lengths(4, "sizes"))


# ================================================================ the public records
def _record_holds(state: np.ndarray, seat: int, record: int) -> bool:
    faces = int(state[record + seat])
    held = sum(int(state[L.HANDS + seat * L.MAX_FACES + f]) for f in range(L.MAX_FACES) if (faces >> f) & 1)
    return held <= state[record + L.RECORD_SLACK + seat]


@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("mau_mau_doubling", {}),  # U-DRAW-3 false: every draw is proof
        ("macao", {}),
        ("uno", {"draw_when_playable": False}),
        ("uno_house", {"draw_when_playable": False, "wd4_bluff": "refused"}),
        ("uno", {"seven_swap": True, "zero_rule": "rotate", "draw_when_playable": False}),
    ],
)
def test_the_proven_record_never_contradicts_the_hands(name: str, overrides: dict[str, object]) -> None:
    """Random play (which draws and bluffs at random): after every decision each seat holds at
    most ``VOID_SLACK`` cards of its ``VOID_FACES``; the record is made and used."""
    rng = np.random.default_rng(0)
    made = 0
    players = max(3, preset(name).min_players)
    for seed in range(30):
        game = Game(name, players, seed=seed, **overrides)
        while not game.is_over():
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
            for seat in range(game.num_players):
                assert _record_holds(game.state, seat, L.VOID_FACES), (seed, seat, game.position())
                made += game.state[L.VOID_FACES + seat] != 0
    assert made > 100


def test_a_legal_wild_draw_four_found_by_a_challenge_is_proof() -> None:
    """U-WD4-2: the challenge fails, so its player had no card of the colour before."""
    text = (
        "hands=R1 R2 Y5/B9 B8; discard=G5 WD4; draw=B1 B2 B3 B4 B5 B6 B7; colour=R; seat=0; dir=+; "
        "phase=challenge; pending=4; from=1; before=G"
    )
    game = Game.from_position("uno", text, seed=0)
    game.step("challenge")
    greens = compile_spec(game.rules)[L.COLOUR_FACES + COLOUR_LETTERS["uno"].index("G")]
    assert game.state[L.VOID_FACES + 1] == greens and game.state[L.VOID_SLACK + 1] == 0


def test_a_draw_by_choice_is_only_a_hint_under_the_official_rules() -> None:
    """U-DRAW-3 true: drawing while holding a playable card is legal, so it proves nothing."""
    text = "hands=R1 G2/Y3 Y4; discard=R5; draw=B1 B2 B3; colour=R; seat=0; dir=+; phase=play"
    game = Game.from_position("uno", text, seed=0)
    game.step("draw")
    assert game.state[L.VOID_FACES + 0] == 0
    assert game.state[L.HINT_FACES + 0] != 0 and game.state[L.HINT_SLACK + 0] == 1
    strict = Game.from_position("uno", text.replace("R1 G2", "G1 G2"), seed=0, draw_when_playable=False)
    strict.step("draw")
    assert strict.state[L.VOID_FACES + 0] != 0 and strict.state[L.VOID_SLACK + 0] == 1


# ================================================================ samples
def _hand(state: np.ndarray, seat: int) -> np.ndarray:
    return state[L.HANDS + seat * L.MAX_FACES : L.HANDS + (seat + 1) * L.MAX_FACES]


def _sample_buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The buffers ``sample_world`` fills: the sampled state, the card pool and its used flags."""
    return (
        np.zeros(L.STATE_SIZE, dtype=np.int64),
        np.zeros(L.MAX_CARDS, dtype=np.int64),
        np.zeros(L.MAX_CARDS, dtype=np.int8),
    )


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_samples_conserve_the_cards_and_keep_what_the_mover_knows(name: str) -> None:
    rules = preset(name)
    players = rules.min_players
    game = Game(name, players, seed=3)
    rng = np.random.default_rng(1)
    for _ in range(int(rng.integers(5, 25))):
        if game.is_over():
            break
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    if game.is_over():
        pytest.skip("the game ended early")
    spec = compile_spec(game.rules)
    state = game.state.copy()
    seat = int(state[L.S_CURRENT])
    world, pool, used = _sample_buffers()
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    differs = 0
    for _ in range(20):
        sample_world(state, spec, world, pool, used, 0, 1_000_000)
        assert engine.check_invariants(world, spec, mask, True) == engine.INV_OK  # E-CONS-1 and more
        assert np.array_equal(_hand(world, seat), _hand(state, seat))
        assert all(world[L.HAND_SIZE + s] == state[L.HAND_SIZE + s] for s in range(players))
        for other in range(players):
            assert _record_holds(world, other, L.VOID_FACES)
        differs += any(
            not np.array_equal(_hand(world, s), _hand(state, s)) for s in range(players) if s != seat
        )
    assert differs > 0
    sample_world(state, spec, world, pool, used, 1, 0)  # the oracle's: the hands stay
    for other in range(players):
        assert np.array_equal(_hand(world, other), _hand(state, other))


def test_samples_keep_the_hand_the_mover_passed_in_a_swap() -> None:
    """H-SEVEN-1: seat 2 gave seat 0 its hand (B1 B2 B3 B4) in seat 0's 7 swap, so it knows
    that hand: every sample keeps it; seat 1's unseen hand is dealt anew."""
    game = Game.from_position(
        "uno", "hands=R7 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4; discard=R5; draw=Y4 Y5 Y6 Y7 G5 G6; colour=R; seat=0; "
        "dir=-; phase=play", seed=0, seven_swap=True,
    )  # fmt: skip
    game.step("R7")
    game.step("target +2")
    assert game.current_player == 2 and [str(c) for c in game.hand(0)] == ["B1", "B2", "B3", "B4"]
    spec = compile_spec(game.rules)
    state = game.state.copy()
    world, pool, used = _sample_buffers()
    seat_1_differs = 0
    for _ in range(20):
        sample_world(state, spec, world, pool, used, 0, 1_000_000)
        assert np.array_equal(_hand(world, 0), _hand(state, 0))
        seat_1_differs += not np.array_equal(_hand(world, 1), _hand(state, 1))
    assert seat_1_differs > 0


def test_samples_believe_the_hints_when_they_trust() -> None:
    """Seat 1 drew on a red 5 (a hint: no red, no 5, no wild); with trust 1 no sample deals it one;
    with trust 0 most do."""
    text = (
        "hands=G1 G2 G3/B7 B8; discard=R5; draw=B1 R1 R2 R3 R4 R6 Y5 W B2 B3 Y1 Y2; colour=R; seat=1; "
        "dir=+; phase=play"
    )
    game = Game.from_position("uno", text, seed=0)
    game.step("draw")  # seat 1 draws by choice and keeps B1: play passes to seat 0
    assert game.current_player == 0
    spec = compile_spec(game.rules)
    state = game.state.copy()
    hint = int(state[L.HINT_FACES + 1])
    world, pool, used = _sample_buffers()

    def hinted_cards(trust: int) -> list[int]:
        out = []
        for _ in range(200):
            sample_world(state, spec, world, pool, used, 0, trust)
            out.append(sum(int(_hand(world, 1)[f]) for f in range(L.MAX_FACES) if (hint >> f) & 1))
        return out

    trusting = hinted_cards(1_000_000)
    assert max(trusting) <= 1  # at most the card drawn since
    doubting = hinted_cards(0)
    assert np.mean(doubting) > np.mean(trusting)


def _inferred_hands(state: np.ndarray, infer: int, policy: int = POLICY_BLOCKER) -> list[np.ndarray]:
    """Seat 1's hand in 200 samples of seat 0's search, ``infer`` of them checked against
    seat 1's last move under ``policy``."""
    spec = compile_spec(preset("uno"))
    world = np.zeros(L.STATE_SIZE, dtype=np.int64)
    before = np.zeros(L.STATE_SIZE, dtype=np.int64)
    pool = np.zeros(L.MAX_CARDS, dtype=np.int64)
    used = np.zeros(L.MAX_CARDS, dtype=np.int8)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    params = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
    work = state.copy()
    avoid = inferred_avoid(work, spec, world, pool, used, 0, 0, infer, policy, params, before)
    hands = []
    for _ in range(200):
        sample_inferred_world(work, spec, world, pool, used, 0, 0, infer, policy, params, before, mask, avoid)
        assert engine.check_invariants(world, spec, mask, True) == engine.INV_OK
        hands.append(_hand(world, 1).copy())
    return hands


def _faces(game: Game, *names: str) -> list[int]:
    deck = [game.describe_action(f) for f in range(game.num_actions)]
    return [deck.index(name) for name in names]


INFER_SPARE = "R1 R2 R3 R4 B1 B2 B3 B4 G4 G5 G6 G7 G8 G9 Y1 Y2 Y4 Y6 Y7 Y8 Y9 B5 R5 W WD4"


def test_the_inferred_samples_agree_with_the_card_the_blocker_laid() -> None:
    """U-MATCH-1: a blocker sheds its highest-scoring number first, so laying Y3 on Y5 shows
    it held no playable number worth more (no Y4-Y9, no other 5); a wild would have been
    kept. With ``infer`` 1 every sample agrees; without it most do not."""
    text = f"hands=G1 G2 G3 G4/Y3 B6 B7; discard=Y5; draw={INFER_SPARE}; colour=Y; seat=1; dir=+; phase=play"
    game = Game.from_position("uno", text, seed=0)
    game.step("Y3")
    assert game.current_player == 0
    state = game.state.copy()
    better = _faces(game, "Y4", "Y6", "Y7", "Y8", "Y9", "B5", "R5", "G5")
    for hand in _inferred_hands(state, 1_000_000):
        assert hand[better].sum() == 0
    spec = compile_spec(game.rules)
    params = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
    before = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    assert last_move_agrees(state, spec, 0, POLICY_BLOCKER, params, before, mask)  # the true hand
    unchecked = _inferred_hands(state, 0)
    assert sum(hand[better].sum() > 0 for hand in unchecked) > 100
    # a random player shows nothing: the check is off for it
    assert any(hand[better].sum() > 0 for hand in _inferred_hands(state, 1_000_000, POLICY_RANDOM_LEGAL))


def test_the_inferred_samples_agree_with_the_colour_named_for_a_wild() -> None:
    """U-WILD-1: a blocker lays a wild only with no other playable card, and names the colour
    it holds most of: after W and red on Y5 every inferred sample gives it no yellow card, no
    5 and no fewer reds than any other colour; the greedy style, which lays a wild first
    (most points), shows only the colour."""
    text = (
        f"hands=G1 G2 G3 G4/W R7 R8 B9; discard=Y5; draw={INFER_SPARE}; colour=Y; seat=1; dir=+; phase=play"
    )
    game = Game.from_position("uno", text, seed=0)
    game.step("W")
    game.step("colour R")
    assert game.current_player == 0
    state = game.state.copy()
    names = [game.describe_action(f) for f in range(game.num_actions)]
    colours = [
        [f for f, n in enumerate(names[: L.MAX_FACES]) if n.startswith(c) and not n.startswith("W")]
        for c in "RYGB"
    ]
    playable = [f for f, n in enumerate(names[: L.MAX_FACES]) if n.startswith("Y") or n[1:] == "5"]
    for hand in _inferred_hands(state, 1_000_000):
        assert hand[playable].sum() == 0
        assert hand[colours[0]].sum() >= max(hand[c].sum() for c in colours[1:])
    unchecked = _inferred_hands(state, 0)
    assert sum(hand[playable].sum() > 0 for hand in unchecked) > 100
    greedy = _inferred_hands(state, 1_000_000, POLICY_GREEDY)
    assert all(hand[colours[0]].sum() >= max(hand[c].sum() for c in colours[1:]) for hand in greedy)
    assert any(hand[playable].sum() > 0 for hand in greedy)


# ================================================================ the oracle
CHALLENGE = (
    "hands=R1 R2 Y5 Y6 B3/{sender}; discard=G5 WD4; draw={spare} G1 G2 G3 B1 B2 B4 Y1 Y2 Y3 Y4; "
    "colour=R; seat=0; dir=+; phase=challenge; pending=4; from=1; before=G; bluff={bluff}"
)


def _choice(text: str, style: str) -> str:
    game = Game.from_position("uno", text, seed=0)
    spec = compile_spec(game.rules)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    mask[: game.num_actions] = game.legal_mask()
    code, params = policy_table([style])
    action = choose_action(game.state.copy(), spec, mask, int(mask.sum()), code[0], params[0])
    return game.describe_action(int(action))


def test_the_oracle_challenges_exactly_the_bluffs() -> None:
    """U-WD4-2: the sender holds a green card (a bluff) or none (legal); only the oracle knows."""
    bluff = CHALLENGE.format(sender="G4 B9", spare="B8", bluff=1)
    legal = CHALLENGE.format(sender="B8 B9", spare="G4", bluff=0)  # the same unseen cards
    assert _choice(bluff, "oracle:200") == "challenge"
    assert _choice(legal, "oracle:200") == "accept"
    assert _choice(bluff, "search:200") == _choice(legal, "search:200")


def test_the_mover_knows_its_own_bluff_and_no_one_else_s() -> None:
    """U-WD4-2: naming the colour after its own Wild Draw Four the mover knows whether it
    bluffed (the redacted view keeps the flag, and a sample keeps it); in the challenge the
    flag is hidden: the redacted view clears it and samples deal it from the sampled hand."""
    game = Game.from_position(
        "uno", "hands=G4 WD4 B9/R1 R2; discard=G5; draw=B1 B2 B3 Y1 Y2; colour=G; seat=0; dir=+; phase=play",
        seed=0,
    )  # fmt: skip
    game.step("WD4")  # a bluff: seat 0 holds G4
    assert game.state[L.S_PHASE] == L.PH_CHOOSE_COLOUR and game.state[L.S_BLUFF] == 1
    assert PublicView.of(game).redacted()[L.S_BLUFF] == 1
    spec = compile_spec(game.rules)
    world, pool, used = _sample_buffers()
    sample_world(game.state.copy(), spec, world, pool, used, 0, 0)
    assert world[L.S_BLUFF] == 1
    game.step("colour R")
    assert game.state[L.S_PHASE] == L.PH_CHALLENGE and game.current_player == 1
    assert PublicView.of(game).redacted()[L.S_BLUFF] == 0


# ================================================================ refused unless allowed
def test_tournaments_and_studies_refuse_the_oracle_unless_allowed() -> None:
    from training.study import SpecError, parse_spec
    from training.tournament import check_agents

    rules = preset("uno")
    with pytest.raises(ValueError, match="cheats"):
        check_agents(["oracle", "blocker"], rules, 2)
    check_agents(["oracle:50", "search:50", "blocker"], rules, 2, allow_cheating=True)
    with pytest.raises(SpecError, match="allow_cheating"):
        parse_spec({"styles": ["oracle", "greedy"], "players": [2]})
    spec = parse_spec({"styles": ["oracle", "greedy"], "players": [2], "allow_cheating": True})
    assert spec.allow_cheating and spec.to_dict()["allow_cheating"] is True


def _searched(game: Game, text: str = "search:sims=300") -> tuple[int, int, np.ndarray, np.ndarray]:
    """The action of :func:`search_action` and of :func:`search_decision` from the same
    generator, with what the second saw."""
    from uno_env.styles.search import search_action, search_decision

    _, params = parse_policy(text)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    mask[game.legal_actions()] = 1
    count = len(game.legal_actions())
    plain = search_action(game.state.copy(), game.compiled.spec, mask, count, params, False)
    visits = np.zeros(L.MAX_ACTIONS, dtype=np.int64)
    values = np.zeros(L.MAX_ACTIONS, dtype=np.float64)
    chosen = search_decision(
        game.state.copy(), game.compiled.spec, mask, count, params, False, visits, values
    )
    return plain, chosen, visits, values


def test_the_search_reports_its_visits_and_values_and_plays_the_same() -> None:
    """What the search saw (rollouts per candidate and their mean value) comes with the same
    action :func:`search_action` plays; only legal actions are visited, every rollout is
    counted, and a decision with one legal action is not searched."""
    game = Game("uno", 4, seed=3)
    while len(game.legal_actions()) < 3:
        game.step(game.legal_actions()[0])
    plain, chosen, visits, values = _searched(game)
    assert plain == chosen
    visited = np.flatnonzero(visits).tolist()
    assert visited and set(visited) <= set(game.legal_actions())
    assert visits.sum() >= 300 * 0.9  # the budget, less the rounding of successive halving
    assert ((values >= 0.0) & (values <= 1.0)).all() and values[visited].max() > 0.0
    single = Game.from_position(
        "uno", "hands=R1 Y2 Y3/G3 G4; discard=B5 G5; draw=B2 G9 Y7; colour=G; seat=0; dir=+; phase=play"
    )
    assert len(single.legal_actions()) == 1  # only the draw
    _, _, visits, values = _searched(single)
    assert visits.sum() == 0 and values.sum() == 0.0


def test_win_chances_are_shares_that_follow_the_hands() -> None:
    """:func:`uno_env.styles.search.win_chances`: a share per seat summing to one, the same for the
    same seed, leaving the game untouched; a seat one card from winning, on the move with a
    playable card, is far ahead; planning styles cannot roll out."""
    from uno_env.styles.search import win_chances

    game = Game("uno", 4, seed=11)
    for _ in range(12):
        game.step(game.legal_actions()[0])
    before = game.state.copy()
    chances = win_chances(game.state, game.compiled.spec, sims=100, seed=5)
    assert np.array_equal(game.state, before)
    assert chances.shape == (4,) and chances.sum() == pytest.approx(1.0)
    assert np.array_equal(chances, win_chances(game.state, game.compiled.spec, sims=100, seed=5))
    near = Game.from_position(
        "uno",
        "hands=R1/G3 G4 B7 Y8 Y9/B1 B2 B3 G7 Y3/G1 G2 B8 Y4 Y6; discard=B5 R5; "
        "draw=B9 G9 Y7 R2 R3 R4 R6; colour=R; seat=0; dir=+; phase=play",
    )
    near_chances = win_chances(near.state, near.compiled.spec, sims=50, seed=1)
    assert near_chances[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="rollout must be a style that does not plan"):
        win_chances(game.state, game.compiled.spec, rollout="search")
    with pytest.raises(ValueError, match="sims must be"):
        win_chances(game.state, game.compiled.spec, sims=0)

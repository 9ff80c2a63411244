"""The observation encoding: its slice table, seat-relative content and hidden information.

Every env shares :func:`uno_env.game.encoding.encode`. These tests check the table (one
place, contiguous, deck-family sizes), that each field holds what its meaning says from the
observer's seat, and that nothing hidden leaks: opponents' cards, the draw pile's order,
an opponent's drawn card and a Wild Draw Four bluff flag (U-WD4-2) never change the vector.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import uno_env
from tests.scenarios import deal_hidden, redeal_jump_block
from uno_env import Game
from uno_env.engine import cards
from uno_env.engine import layout as L
from uno_env.engine.cards import format_cards, parse_cards
from uno_env.engine.rules import HOUSE_STACKING, MACAO_EFFECTS, MACAO_KINGS, RuleSet
from uno_env.envs import describe, layout_table, obs_layout
from uno_env.game.encoding import DRAW_PILE_SCALE, HAND_SIZE_SCALE, observe_state
from uno_env.game.position import PositionError
from uno_env.versions import OBS_VERSION


def obs_of(game: Game, seat: int) -> np.ndarray:
    """``seat``'s observation vector of ``game``."""
    return observe_state(game.state, game._spec, seat, game.deck)


def field(obs: np.ndarray, name: str, deck: str = "uno") -> np.ndarray:
    return obs[obs_layout(deck).slice(name)]  # type: ignore[arg-type]


def fields_of(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split(";"):
        if part.strip():
            key, _, value = part.partition("=")
            out[key.strip()] = value.strip()
    return out


def join_fields(fields: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in fields.items())


# ================================================================ the table
@pytest.mark.parametrize("deck", ["uno", "french"])
def test_slices_are_contiguous_and_cover_the_vector(deck: str) -> None:
    lay = obs_layout(deck)  # type: ignore[arg-type]
    start = 0
    for f in lay.fields:
        assert f.start == start and f.size > 0
        assert lay.offsets[lay.fields.index(f)] == f.start
        start = f.stop
    assert start == lay.size == lay.low.shape[0] == lay.high.shape[0]
    assert np.all(lay.low < lay.high)
    names = [f.name for f in lay.fields]
    assert len(set(names)) == len(names)


def test_layout_depends_only_on_the_deck_family() -> None:
    uno, french = obs_layout("uno"), obs_layout("french")
    assert [f.name for f in uno.fields] == [f.name for f in french.fields]
    # four fields have one slot per card face, "revealed" one per face and opponent: 56 vs 54
    # faces (the records' colour and rank fields are the same size in both)
    assert uno.size - french.size == (4 + 9) * (56 - 54)
    assert uno.field("hand").size == 56 and french.field("hand").size == 54
    assert uno.field("phase").size == L.PHASE_SLOTS
    assert uno.field("hand_sizes").size == L.MAX_PLAYERS - 1


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_every_preset_and_player_count_of_a_family_has_one_layout(name: str) -> None:
    rules = uno_env.preset(name)
    sizes = set()
    for n in range(rules.min_players, rules.max_players + 1):
        sizes.add(uno_env.env(name, n).observation_space("player_0")["observation"].shape)
    assert sizes == {(obs_layout(rules.deck_family).size,)}


def test_layout_table_lists_every_field_in_order() -> None:
    table = layout_table("uno")
    assert [row[0] for row in table][:3] == ["hand", "top_card", "colour"]
    assert table[-1][1] + table[-1][2] == obs_layout("uno").size
    assert all(meaning for *_, meaning in table)
    assert OBS_VERSION >= 1


def test_unknown_field_names_the_valid_ones() -> None:
    with pytest.raises(KeyError, match="fields: hand, top_card"):
        obs_layout("uno").field("hands")
    with pytest.raises(ValueError, match="expected 'uno' or 'french'"):
        obs_layout("tarot")  # type: ignore[arg-type]


# ================================================================ content, seat-relative
POSITION = (
    "hands=R7 R7 YS W/G3/BD2 B9 B1 G4; discard=B5 Y5 R5; draw=B2 G9 WD4 Y1; colour=R; seat=0; "
    "dir=-; phase=play; called=1; scores=10 20 30"
)


def test_fields_hold_the_observers_view() -> None:
    game = Game.from_position("uno", POSITION)
    obs = obs_of(game, 0)
    assert format_cards([f for f in range(56) for _ in range(int(field(obs, "hand")[f]))]) == "R7 R7 YS W"
    assert np.flatnonzero(field(obs, "top_card")).tolist() == parse_cards("R5")
    assert field(obs, "colour").tolist() == [1, 0, 0, 0]
    assert np.flatnonzero(field(obs, "phase")).tolist() == [L.PH_PLAY]
    assert field(obs, "direction").tolist() == [-1]
    assert np.flatnonzero(field(obs, "to_move")).tolist() == [0]
    assert field(obs, "seated").tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 0]
    assert (field(obs, "hand_sizes")[:3] * HAND_SIZE_SCALE).round().tolist() == [1, 4, 0]
    assert field(obs, "called")[:2].tolist() == [1, 0]
    assert field(obs, "own_called").tolist() == [0]
    discard = field(obs, "discard")
    assert {int(f): int(discard[f]) for f in np.flatnonzero(discard)} == {
        f: 1 for f in parse_cards("B5 Y5 R5")
    }
    assert round(float(field(obs, "draw_pile")[0]) * DRAW_PILE_SCALE) == 4
    assert field(obs, "scores")[:3].tolist() == pytest.approx([10 / 500, 20 / 500, 30 / 500])


def test_other_seats_are_relative_to_the_observer() -> None:
    game = Game.from_position("uno", POSITION)
    obs = obs_of(game, 1)
    # seat 1 sees seat 2 one place clockwise and seat 0 two places clockwise (E-DIR-1)
    assert (field(obs, "hand_sizes")[:2] * HAND_SIZE_SCALE).round().tolist() == [4, 4]
    assert field(obs, "called")[:2].tolist() == [0, 0]
    assert field(obs, "own_called").tolist() == [1]
    assert np.flatnonzero(field(obs, "to_move")).tolist() == [2]
    assert field(obs, "scores")[:3].tolist() == pytest.approx([20 / 500, 30 / 500, 10 / 500])
    assert format_cards([f for f in range(56) for _ in range(int(field(obs, "hand")[f]))]) == "G3"


def test_pending_penalty_names_its_sender_relative_to_the_victim() -> None:
    """U-WD4-2: the victim sees 4 cards pending from the seat before it and the old colour."""
    game = Game.from_position(
        "uno",
        "hands=R1 R2/G3 G4/B9 B1; discard=B5 WD4; draw=B2 G9 Y1 Y2 Y3 Y4; colour=G; seat=1; dir=+; "
        "phase=challenge; pending=4; from=0; before=B",
    )
    obs = obs_of(game, 1)
    assert np.flatnonzero(field(obs, "phase")).tolist() == [L.PH_CHALLENGE]
    assert field(obs, "pending")[0] * 10 == pytest.approx(4)
    assert np.flatnonzero(field(obs, "pending_from")).tolist() == [2]  # seat 0 is +2 from seat 1
    assert field(obs, "colour_before").tolist() == [0, 0, 0, 1]


def test_the_drawn_card_is_seen_by_its_drawer_only() -> None:
    """U-DRAW-1: the card just drawn is private until played."""
    game = Game.from_position(
        "uno",
        "hands=R1 R2 R3/G3 G4/B9 B1; discard=R5; draw=B2 G9; colour=R; seat=0; dir=+; phase=drawn; drawn=R3",
    )
    assert np.flatnonzero(field(obs_of(game, 0), "drawn_card")).tolist() == parse_cards("R3")
    assert not field(obs_of(game, 1), "drawn_card").any()
    assert not field(obs_of(game, 2), "drawn_card").any()


def test_seats_beyond_the_table_read_as_absent() -> None:
    game = Game("uno", 2, seed=3)
    obs = obs_of(game, 0)
    assert field(obs, "seated").tolist() == [1] + [0] * 8
    assert not field(obs, "hand_sizes")[1:].any() and not field(obs, "scores")[2:].any()


def test_a_seen_hand_is_revealed_to_its_observer_until_it_changes() -> None:
    """H-ZEROSEE-1: the observer sees the hand it looked at, as long as the hand is unchanged."""
    game = Game.from_position(
        "uno",
        "hands=R1 R2/G3 G4/B9 B1; discard=R5; draw=B2 G9; colour=R; seat=1; dir=+; phase=play; seen=0>2",
    )
    revealed = field(obs_of(game, 0), "revealed").reshape(9, 56)
    assert [format_cards(np.repeat(np.arange(56), row.astype(int)).tolist()) for row in revealed[:2]] == [
        "-",
        "B1 B9",
    ]  # seat 2 is two places clockwise from seat 0
    assert not field(obs_of(game, 1), "revealed").any() and not field(obs_of(game, 2), "revealed").any()
    assert "+2: B1 B9" in describe(obs_of(game, 0))
    game = Game.from_position(
        "uno",
        "hands=R1 R2/G3 G4/B9 B1; discard=R5; draw=B2 G9; colour=R; seat=2; dir=+; phase=play; seen=0>2",
    )
    game.step("draw")  # seat 2's hand changed: the look is out of date
    assert not field(obs_of(game, 0), "revealed").any()


def test_a_seven_swap_reveals_to_each_player_the_hand_it_passed() -> None:
    """H-SEVEN-1 (with the record of H-ZEROSEE-1): after seat 0 swaps hands with seat 2, seat 0
    sees its old hand at seat 2 and seat 2 its old hand at seat 0 (two places clockwise both
    ways at 4 players); seats 1 and 3 see no hand. Redealing what each observer cannot see
    leaves its observation unchanged (seats 1 and 3 keep only their sizes)."""
    position = (
        "hands=R7 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6; discard=R5; draw=Y4 Y5 Y6 Y7 B5 B6; colour=R; "
        "seat=0; dir=+; phase=play"
    )
    game = Game.from_position("uno", position, seven_swap=True)
    game.step("R7")
    game.step("target +2")

    def shown(seat: int) -> list[str]:
        rows = field(obs_of(game, seat), "revealed").reshape(9, 56)[:3]
        return [format_cards(np.repeat(np.arange(56), row.astype(int)).tolist()) for row in rows]

    assert shown(0) == ["-", "G1 G2", "-"]
    assert shown(2) == ["-", "B1 B2 B3 B4", "-"]
    assert not field(obs_of(game, 1), "revealed").any() and not field(obs_of(game, 3), "revealed").any()
    rng = random.Random(0)
    for observer in range(4):
        text = hidden_variant(game.position(), observer, rng, game.rules)
        variant = Game.from_position(game.rules, text)
        np.testing.assert_array_equal(obs_of(variant, observer), obs_of(game, observer))


def test_sit_out_turns_and_players_who_left() -> None:
    """MC-FOUR-1 turns to sit out and MC-END-1 players who left, per relative seat."""
    game = Game.from_position(
        "macao", "hands=7H 8H/9C/; discard=5H; draw=2C 3C; colour=H; seat=0; dir=+; phase=play; "
        "sitout=0 2 0; finished=0 0 1",
    )  # fmt: skip
    obs = obs_of(game, 1)
    assert (field(obs, "sit_out", "french")[:3] * 10).round().tolist() == [2, 0, 0]
    assert field(obs, "finished", "french")[:3].tolist() == [0, 1, 0]


def test_a_pending_sit_out_penalty() -> None:
    """MC-FOUR-1: the target sees one turn to sit out pending, sent from two seats on."""
    game = Game.from_position(
        "macao", "hands=7H 8H/9C 4C/2D; discard=5H 4H; draw=2C 3C; colour=H; seat=1; dir=+; phase=answer; "
        "skip=1; from=0; class=4",
    )  # fmt: skip
    obs = obs_of(game, 1)
    assert field(obs, "pending_turns", "french")[0] * 10 == pytest.approx(1)
    assert field(obs, "pending", "french")[0] == 0
    assert np.flatnonzero(field(obs, "pending_from", "french")).tolist() == [2]
    assert np.flatnonzero(field(obs, "phase", "french")).tolist() == [L.PH_ANSWER]


# ================================================================ no hidden information
def hidden_variant(text: str, observer: int, rng: random.Random, rules: RuleSet | str = "uno") -> str:
    """The same position with the observer's hidden cards redealt: opponents keep their hand
    sizes, the draw pile its size, but which cards sit where (and the draw order) changes.
    What the position shows of an opponent's hand stays in it: its drawn card (the position
    names it, in whatever phase follows the draw), the copies of the top card of a player
    asked to jump in (H-JUMP-1 asks only holders) and a 0 of a player asked to block the
    look (H-ZEROSEE-1); hands the observer has seen and that did not change since
    (H-ZEROSEE-1) are not hidden, so they stay.

    Whether a pending Wild Draw Four was a bluff (U-WD4-2) is hidden too: it is dropped, and
    in phase ``challenge``, where the position must agree with the redealt hand of its player
    (the validation of ``rules``), the flag is whichever that hand admits (either, at random,
    where both fit)."""
    fields = fields_of(text)
    hands = [h.split() for h in fields["hands"].split("/")]
    draw = fields["draw"].split() if fields["draw"] not in ("", "-") else []
    kept: dict[int, list[str]] = {}
    mover, phase = int(fields["seat"]), fields.get("phase")
    if "drawn" in fields:
        # the drawn card is named by the position, in every phase it lasts into (a cube roll or
        # a choice after the draw, say): it stays with its drawer, the mover or the actor
        drawers = [mover] + ([int(fields["actor"])] if "actor" in fields else [])
        drawers += [seat for seat, hand in enumerate(hands) if fields["drawn"] in hand]
        drawer = next(seat for seat in drawers if fields["drawn"] in hands[seat])
        if drawer != observer:
            kept[drawer] = [fields["drawn"]]
    if mover != observer:
        if phase == "jump":
            top = fields["discard"].split()[-1]
            kept[mover] = [card for card in hands[mover] if card == top]
        elif phase == "block":
            kept[mover] = [next(card for card in hands[mover] if card[1:] == "0")]
    seen = {
        int(pair.split(">")[1]) for pair in fields.get("seen", "").split() if pair.startswith(f"{observer}>")
    }
    fixed = {observer} | seen  # the observer's hand and hands it has seen (H-ZEROSEE-1) stay
    hidden: dict[int, list[str]] = {}
    for seat, hand in enumerate(hands):
        if seat not in fixed:
            hidden[seat] = list(hand)
            for card in kept.get(seat, []):
                hidden[seat].remove(card)
    kept = {seat: cards for seat, cards in kept.items() if seat not in fixed}
    dealt, pool = deal_hidden(hidden, draw, fields, rng.shuffle, kept)  # proven records are public
    for seat, new in dealt.items():
        hands[seat] = new + kept.get(seat, [])
    fields["hands"] = "/".join(" ".join(h) for h in hands)
    fields["draw"] = " ".join(pool) or "-"
    redeal_jump_block(fields, hands, fixed)
    sender = int(fields.get("from", fields["seat"]))
    if sender in fixed:  # the player of the Wild Draw Four, or one who saw its hand, knows
        return join_fields(fields)
    fields.pop("bluff", None)
    if fields.get("phase") != "challenge":
        return join_fields(fields)
    candidates = [join_fields(fields), join_fields({**fields, "bluff": "1"})]
    rng.shuffle(candidates)
    for candidate in candidates:
        try:
            Game.from_position(rules, candidate)
        except PositionError:
            continue
        return candidate
    raise AssertionError(f"no bluff flag fits the redealt position {candidates[0]}")


LEAK_CASES = [
    ("uno", {}, 2),
    ("uno", {}, 3),
    ("uno", {}, 5),
    ("uno_house", {"zero_reveals": True}, 4),  # H-ZEROSEE-1: seen hands stay, the rest is redealt
    ("uno_mario", {}, 3),
    ("mau_mau", {}, 4),
    ("mau_mau_doubling", {}, 3),
    ("macao", {}, 5),
]


@pytest.mark.parametrize(("preset", "overrides", "n"), LEAK_CASES)
def test_hidden_cards_and_draw_order_do_not_change_the_observation(
    preset: str, overrides: dict[str, object], n: int
) -> None:
    """Redealing everything the observer cannot see leaves every observation identical."""
    if preset not in uno_env.PRESETS:
        pytest.skip(f"no preset {preset}")
    rng = random.Random(n)
    rules = uno_env.load_rules(preset, **overrides)
    game = Game(rules, n, seed=n)
    checked = 0
    for step in range(600):
        if game.is_over():
            break
        if step % 17 == 0:
            position = game.position()
            for observer in range(n):
                variant = Game.from_position(rules, hidden_variant(position, observer, rng, rules))
                assert variant.hand(observer) == game.hand(observer)
                np.testing.assert_array_equal(obs_of(variant, observer), obs_of(game, observer))
                checked += 1
        actions = game.legal_actions()
        game.step(actions[rng.randrange(len(actions))])
    assert checked >= 2 * n


ALL_HOUSE_RULES: dict[str, object] = {
    "seven_swap": True,
    "zero_rule": "swap_optional",
    "zero_reveals": True,
    "two_gives": True,
    "jump_in": True,
    "eight_again": True,
    "multi_play": "same_rank",
    "runs": True,
    "stacking": HOUSE_STACKING,
    "reverse_reflects": True,
    "cube": True,
    "react_nine": True,
    "react_seven": True,
}
KINGS_AND_JOKERS = {"jokers": True, "card_effects": (*MACAO_EFFECTS, *MACAO_KINGS)}  # MC-OPT-1
# (rules, overrides, players, phases each case must reach): the switches that move cards
# between hands, reveal them or ask decisions out of turn, alone and together
SWITCH_LEAK_CASES = [
    pytest.param("uno", {"seven_swap": True}, 3, {"target"}, id="H-SEVEN-1"),
    pytest.param("uno", {"zero_rule": "rotate"}, 4, set(), id="H-ZERO-1-rotate"),
    pytest.param("uno", {"zero_rule": "swap"}, 2, {"target"}, id="H-ZERO-1-swap"),
    pytest.param("uno", {"zero_rule": "swap_optional"}, 5, {"target"}, id="H-ZERO-1-swap-optional"),
    pytest.param("uno", {"zero_rule": "discard_colour"}, 3, set(), id="H-ZERO-1-discard-colour"),
    pytest.param("uno", {"zero_rule": "rotate", "zero_rule_rank": 1}, 6, set(), id="H-ZERO-1-rule-of-1"),
    pytest.param("uno", {"zero_reveals": True, "zero_rule": "rotate"}, 5, {"block"}, id="H-ZEROSEE-1-rotate"),
    pytest.param("uno", {"zero_reveals": True, "seven_swap": True}, 3, {"block"}, id="H-ZEROSEE-1-seven"),
    pytest.param("uno", {"two_gives": True}, 3, {"give"}, id="H-TWO-1"),
    pytest.param(
        "uno", {"two_gives": True, "seven_swap": True, "zero_reveals": True}, 6, {"give"}, id="H-TWO-1-see"
    ),
    pytest.param("uno", {"jump_in": True}, 4, {"jump"}, id="H-JUMP-1"),
    pytest.param(
        "uno",
        {"stacking": HOUSE_STACKING, "reverse_reflects": True},
        3,
        {"answer"},
        id="H-STACK-1-H-REFLECT-1",
    ),
    pytest.param("uno", {"multi_play": "identical", "jump_in": True}, 4, {"jump"}, id="H-MULTI-1-jump"),
    pytest.param("uno", {"multi_play": "same_rank", "runs": True}, 5, {"continue"}, id="H-MULTI-2-H-SEQ-1"),
    pytest.param("uno", {"eight_again": True, "jump_in": True}, 3, {"jump"}, id="H-EIGHT-1-jump"),
    pytest.param("uno", {"cube": True}, 4, {"target"}, id="H-CUBE-1"),
    pytest.param("uno", {"react_nine": True, "react_seven": True}, 5, set(), id="H-REACT-1"),
    pytest.param("uno", {"stacking": HOUSE_STACKING}, 2, {"challenge"}, id="U-WD4-2-stack"),
    pytest.param("uno_mario", {"stacking": HOUSE_STACKING}, 4, {"answer"}, id="M-STAR-1"),
    pytest.param("mau_mau", {"false_accusation": 0.5}, 4, set(), id="MM-CALL-1"),
    pytest.param("macao", KINGS_AND_JOKERS, 3, set(), id="MC-OPT-1-MC-CALL-1"),
    pytest.param("macao", KINGS_AND_JOKERS, 6, {"answer"}, id="MC-FOUR-1-6p"),
    pytest.param("uno", ALL_HOUSE_RULES, 4, {"target", "give", "jump", "continue"}, id="house-4p"),
    pytest.param("uno", ALL_HOUSE_RULES, 6, {"target", "jump"}, id="house-6p"),
]


@pytest.mark.parametrize(("preset", "overrides", "n", "phases"), SWITCH_LEAK_CASES)
def test_no_hidden_information_under_the_switches_that_move_or_reveal_cards(
    preset: str, overrides: dict[str, object], n: int, phases: set[str]
) -> None:
    """At every decision of random games and for every observer, the observation is the same
    after a redeal of what the observer cannot see (:func:`hidden_variant`), and the same as
    that of the game rebuilt from its position: the observation reads nothing the position
    does not carry (a value a past play left behind in the state, say)."""
    rules = uno_env.load_rules(preset, **overrides)
    rng = random.Random(n)
    reached: set[str] = set()
    checked = 0
    for seed in range(4):
        game = Game(rules, n, seed=seed)
        for _ in range(400):
            if game.is_over():
                break
            position = game.position()
            reached.add(fields_of(position)["phase"])
            rebuilt = Game.from_position(rules, position)
            for observer in range(n):
                seen = obs_of(game, observer)
                np.testing.assert_array_equal(obs_of(rebuilt, observer), seen, err_msg=position)
                variant = Game.from_position(rules, hidden_variant(position, observer, rng, rules))
                assert variant.hand(observer) == game.hand(observer)
                np.testing.assert_array_equal(
                    obs_of(variant, observer), seen, err_msg=f"observer {observer} at {position}"
                )
                checked += 1
            actions = game.legal_actions()
            game.step(actions[rng.randrange(len(actions))])
        if phases <= reached and seed >= 1:
            break
    assert phases <= reached, f"never reached phase {sorted(phases - reached)}"
    assert checked >= 50 * n


def test_a_card_given_face_down_leaves_the_givers_records_as_they_were() -> None:
    """H-TWO-1: the cards a player gives pass face down, so only the giver and the receiver
    know them. Seat 0's Wild Draw Four implied it held no blue card (its hint, one card gained
    since): whether it gives its B1 or its G5, seat 2 sees the same observation (the hint's
    slack stays 1; it dropped to 0 for the blue card, telling seat 2 which card went)."""
    blue = " ".join(f"B{x}" for x in [*range(10), "S", "R", "D2"])
    position = (
        "hands=R2 B1 G5 G6 G7/Y1 Y2 Y3/Y4 Y5 Y6; discard=R5; draw=B2 G9 Y7 Y8; colour=R; seat=0; dir=+; "
        f"phase=play; hint={blue}:1/-/-"
    )
    after = {}
    for card in ("B1", "G5"):
        game = Game.from_position("uno", position, two_gives=True)
        for move in ("R2", "target +1", card, "G6"):
            game.step(move)
        assert fields_of(game.position())["hint"] == f"{blue}:1/-/-"
        after[card] = game
    np.testing.assert_array_equal(obs_of(after["B1"], 2), obs_of(after["G5"], 2))
    assert field(obs_of(after["B1"], 2), "hint_slack")[0] == pytest.approx(0.1)  # seat 0 is +1 of seat 2


def test_an_opponents_drawn_card_and_a_bluff_flag_do_not_leak() -> None:
    drawn = (
        "hands=R1 R2/G3 G4 R3/B9 B1; discard=R5; draw=B2 G9 Y5; colour=R; seat=1; dir=+; phase=drawn; "
        "drawn=R3"
    )
    other = (
        drawn.replace("G4 R3", "G4 Y5")
        .replace("draw=B2 G9 Y5", "draw=B2 G9 R3")
        .replace("drawn=R3", "drawn=Y5")
    )
    for observer in (0, 2):
        np.testing.assert_array_equal(
            obs_of(Game.from_position("uno", drawn), observer),
            obs_of(Game.from_position("uno", other), observer),
        )
    # seat 0 gained one card since its Wild Draw Four on blue (the hint's count): its B2 came
    # before it (a bluff) or after it (legal), which only seat 0 knows
    bluff = (
        "hands=R1 B2/G3 G4/B9 B1; discard=B5 WD4; draw=B2 G9 Y1 Y2; colour=G; seat=1; dir=+; "
        "phase=challenge; pending=4; from=0; before=B; hint=B0 B1 B2 B3 B4 B5 B6 B7 B8 B9 BS BR BD2:1/-/-"
    )
    for observer in range(3):
        np.testing.assert_array_equal(
            obs_of(Game.from_position("uno", bluff), observer),
            obs_of(Game.from_position("uno", bluff + "; bluff=1"), observer),
        )


def test_the_probe_sees_a_change_in_public_information() -> None:
    """The leak test can fail: a visible change (a hand size) does change the vector."""
    game = Game.from_position("uno", POSITION)
    bigger = Game.from_position("uno", POSITION.replace("B1 G4;", "B1 G4 G5;"))
    assert not np.array_equal(obs_of(game, 0), obs_of(bigger, 0))


# ================================================================ for people
def test_describe_names_every_field_and_decodes_it() -> None:
    game = Game.from_position("uno", POSITION)
    text = describe(obs_of(game, 0))
    assert [line.split()[0] for line in text.splitlines()] == [f.name for f in obs_layout("uno").fields]
    assert "R7x2 YS W" in text and "+1:1 +2:4" in text and "counter-clockwise" in text
    assert describe({"observation": obs_of(game, 0), "action_mask": np.zeros(74, np.int8)}) == text


def test_describe_refuses_a_vector_of_no_known_size() -> None:
    with pytest.raises(ValueError, match="fits no deck family"):
        describe(np.zeros(7, dtype=np.float32))


def test_docs_observation_table_is_the_layout() -> None:
    """The docs' observation table is generated from the layout (``python -m uno_env.game.encoding``)."""
    from pathlib import Path

    from uno_env.game.encoding import layout_markdown

    page = Path(__file__).resolve().parent.parent / "docs" / "environments" / "index.md"
    readme = page.read_text(encoding="utf-8")
    start = readme.index("<!-- obs-table:start -->\n") + len("<!-- obs-table:start -->\n")
    end = readme.index("\n<!-- obs-table:end -->")
    assert readme[start:end] == layout_markdown(), "regenerate with: python -m uno_env.game.encoding"
    uno, french = obs_layout("uno").size, obs_layout("french").size
    assert f"Uno: 56 card faces, {uno} values; French: 54 faces, {french} values" in readme


# ================================================================ what plays showed (obs-v3)
DRAW_POSITION = "hands=R1 R2/G5 Y7; discard=B3; draw=R9 Y1 G2; colour=B; seat=1; dir=+; phase=play"
ON_B3 = "R3 Y3 G3 B0 B1 B2 B3 B4 B5 B6 B7 B8 B9 BS BR BD2 W WD4 SS WC"  # what goes on B3 (U-MATCH-1)


def record_of(obs: np.ndarray, name: str, relative_seat: int) -> tuple[str, float]:
    """The ``name`` record (``void`` or ``hint``) an Uno observation holds about a relative
    seat, decoded: every face of its whole colours and whole ranks; and its slack."""
    from uno_env.engine.rules import compile_spec

    spec = compile_spec(uno_env.preset("uno"))
    k = relative_seat - 1
    colours = field(obs, f"{name}_colours").reshape(L.MAX_PLAYERS - 1, L.NUM_COLOURS)[k]
    ranks = field(obs, f"{name}_ranks").reshape(L.MAX_PLAYERS - 1, L.NUM_RANKS)[k]
    faces = set()
    for face in range(56):
        colour, rank = int(spec[L.F_COLOUR + face]), int(spec[L.F_RANK + face])
        if (colour >= 0 and colours[colour]) or ranks[rank]:
            faces.add(face)
    slack = round(float(field(obs, f"{name}_slack")[k]) * HAND_SIZE_SCALE, 3)
    return format_cards(sorted(faces), "uno"), slack


def test_a_draw_by_choice_hints_the_drawer_had_nothing_to_play() -> None:
    """U-DRAW-3 (official: drawing is allowed with a playable card): the draw implies, without
    proving, that seat 1 held nothing that goes on B3; the card drawn since is its slack."""
    game = Game.from_position("uno", DRAW_POSITION)
    game.step("draw")  # draws R9, which does not go on B3: the turn passes
    obs = obs_of(game, 0)
    assert record_of(obs, "hint", 1) == (ON_B3, 1.0)
    assert record_of(obs, "void", 1) == ("-", 0.0)
    # written compactly: blue whole, the ranks 3, W, WD4 and SS whole
    assert np.flatnonzero(field(obs, "hint_colours")).tolist() == [3]  # B (U-DECK-1 colour order: R Y G B)
    ranks = np.flatnonzero(field(obs, "hint_ranks")).tolist()
    assert [cards.RANK_TOKENS["uno"][r] for r in ranks] == ["3", "W", "WD4", "SS"]
    assert not field(obs_of(game, 1), "hint_ranks").any()  # a player's own record is not encoded
    assert "hint=-/" + ON_B3 + ":1" in game.position()


def test_a_forced_draw_proves_the_drawer_had_nothing_to_play() -> None:
    """U-DRAW-3 off (a player draws only with nothing to play): the draw is proof (void)."""
    game = Game.from_position("uno", DRAW_POSITION, draw_when_playable=False)
    game.step("draw")
    obs = obs_of(game, 0)
    assert record_of(obs, "void", 1) == (ON_B3, 1.0)
    assert record_of(obs, "hint", 1) == ("-", 0.0)


def test_laying_a_face_of_a_record_lowers_its_slack_below_zero_on_a_bluff() -> None:
    """A hint is only implied: seat 1 'lacked' B1 yet lays it, so the slack drops from 0 to -1
    (the bluff is now public); the faces stay recorded."""
    text = DRAW_POSITION + "; hint=-/" + " ".join(f"B{x}" for x in [*range(10), "S", "R", "D2"]) + ":0"
    text = text.replace("G5 Y7", "B1 G5 Y7")  # three cards: no UNO call is due after the play
    game = Game.from_position("uno", text)
    blue = "B0 B1 B2 B3 B4 B5 B6 B7 B8 B9 BS BR BD2"
    assert record_of(obs_of(game, 0), "hint", 1) == (blue, 0.0)
    game.step("B1")
    assert record_of(obs_of(game, 0), "hint", 1) == (blue, -1.0)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("void=-/B0 B1:0", "seat 1 holds 1 card"),  # it holds B1: a proof cannot be false
        ("void=-/B0 B1:-1", "outside 0.."),
        ("void=B0:0", "needs 2 seats separated by '/'"),
        ("hint=-/B0 B0:1", "lists a face twice"),
        ("hint=-/B0", "allowed: '-' or the faces"),
        ("hint=-/Q9:1", "position"),
    ],
)
def test_position_records_are_validated(record: str, message: str) -> None:
    from uno_env.game.position import PositionError

    with pytest.raises(PositionError, match=message):
        Game.from_position("uno", DRAW_POSITION.replace("G5 Y7", "B1 Y7") + "; " + record)


HEARTS_9 = "hands=6C 10C/9C JC/9C QD/5C 6D; discard=9H; draw=JS 3C; colour=H; seat=0; dir=+; phase=play"
ON_9H = "9C JC 9D JD AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 9S JS"  # MM-MATCH-1, MM-JACK-1
TWO_SEATS = ("/9C QD/5C 6D", "")


@pytest.mark.parametrize(
    ("rules", "position", "record"),
    [
        # no jokers in mau_mau (MM-DECK-1): no red joker goes on a heart
        ("mau_mau", HEARTS_9, f"{ON_9H}:1/-/-/-"),
        (uno_env.load_rules("mau_mau", min_players=2), HEARTS_9.replace(*TWO_SEATS), f"{ON_9H}:1/-"),
        # with jokers (MC-OPT-1) the red joker goes on a red card: the draw implies seat 0 had none
        (
            uno_env.load_rules("mau_mau", min_players=2, jokers=True),
            HEARTS_9.replace(*TWO_SEATS),
            f"{ON_9H} JKR:1/-",
        ),
    ],
)
def test_position_records_name_only_cards_of_the_french_deck(
    rules: object, position: str, record: str
) -> None:
    """A draw by choice (MM-DRAW-1, U-DRAW-3) records what goes on the top card: in a deck
    without jokers that is no joker (it was ``... JS JKR:1``), in the record and in the
    position, which reads back."""
    game = Game.from_position(rules, position)  # type: ignore[arg-type]
    game.step("draw")
    printed = game.position()
    assert fields_of(printed)["hint"] == record
    assert Game.from_position(rules, printed).position() == printed  # type: ignore[arg-type]
    observed = field(obs_of(game, 1), "hint_ranks", "french").reshape(L.MAX_PLAYERS - 1, L.NUM_RANKS)
    jokers = observed[game.num_players - 2, 13:15].tolist()  # seat 0, n - 1 places clockwise of seat 1
    assert jokers == ([0.0, 1.0] if "JKR" in record else [0.0, 0.0])


@pytest.mark.parametrize("name", ["mau_mau", "mau_mau_doubling", "macao"])
def test_a_position_record_naming_a_joker_of_a_jokerless_deck_is_refused(name: str) -> None:
    """MM-DECK-1, MD-DECK-1, MC-DECK-1: no jokers unless MC-OPT-1 adds them, so a record
    naming one describes no game of the preset."""
    from uno_env.game.position import PositionError

    n = uno_env.preset(name).min_players
    hands = "/".join(["6C 10C", "9C JC", "9D QD", "5C 6D"][:n])
    text = f"hands={hands}; discard=9H; draw=JS 3C; colour=H; seat=0; dir=+; phase=play"
    Game.from_position(name, text + "; void=" + "/".join(["-"] * (n - 1) + ["AH:0"]))
    record = "/".join(["-"] * (n - 1) + ["AH JKR:0"])
    with pytest.raises(PositionError) as caught:
        Game.from_position(name, f"{text}; void={record}")
    assert str(caught.value) == (
        f"position field void: seat {n - 1} lists JKR, not in this rule set's deck; allowed: faces the "
        "deck holds (this deck has no JKB JKR: they come with jokers=true, MC-OPT-1)"
    )


def test_older_observation_versions_are_prefixes() -> None:
    """obs-v3 appended fields: an obs-v2 vector is today's first 884 values, field for field."""
    from uno_env.game.encoding import FIELDS_OF_VERSION, spec_version

    assert max(FIELDS_OF_VERSION) == OBS_VERSION
    for deck in ("uno", "french"):
        old, new = obs_layout(deck, 2), obs_layout(deck)  # type: ignore[arg-type]
        assert old.fields == new.fields[: len(old.fields)]
        faces = old.num_faces
        assert old.size == {"uno": 884, "french": 858}[deck]
        assert new.size == old.size + 2 * (L.MAX_PLAYERS - 1) * (L.NUM_COLOURS + L.NUM_RANKS + 1)
        assert faces == {"uno": 56, "french": 54}[deck]
    assert spec_version("obs-v2") == 2 and spec_version("obs-v3") == 3
    assert spec_version("obs-v1") is None and spec_version("obs-v") is None and spec_version(3) is None
    with pytest.raises(ValueError, match="unknown observation version 1; known: 2, 3"):
        obs_layout("uno", 1)


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_every_record_the_presets_make_is_whole_colours_and_ranks(name: str) -> None:
    """The observation writes a record as the colours and ranks it covers whole; in every
    preset each record of random games is exactly such a union (so nothing is left out)."""
    from uno_env.engine.rules import compile_spec

    rules = uno_env.preset(name)
    spec = compile_spec(rules)
    colours = [int(spec[L.COLOUR_FACES + c]) for c in range(L.NUM_COLOURS)]
    ranks = [int(spec[L.RANK_FACES + r]) for r in range(L.NUM_RANKS)]
    rng = random.Random(7)
    seen = 0
    for seed in range(6):
        game = Game(name, max(rules.min_players, 3), seed=seed)
        for _ in range(300):
            if game.is_over():
                break
            for record in (L.VOID_FACES, L.HINT_FACES):
                for seat in range(game.num_players):
                    bits = int(game.state[record + seat])
                    whole = 0
                    for faces in colours + ranks:
                        if faces and bits & faces == faces:
                            whole |= faces
                    assert whole == bits, f"seat {seat}'s record at {game.position()}"
                    seen += bits != 0
            game.step(rng.choice(game.legal_actions()))
    assert seen > 0


def test_a_let_go_answer_is_left_out_of_the_decision_count() -> None:
    """H-JUMP-1: a window asks only the seats holding the identical card, so that a seat let
    one go tells that it held the card. The observation's decision count leaves let-go answers
    out: seat 1 sees the same observation whether seat 2 held the other R5 and let it go or
    held no R5 (and was not asked). The position keeps the count (``letgo=``), so the game it
    rebuilds observes the same."""

    def after_the_window(seat_2: str) -> Game:
        game = Game.from_position(
            "uno",
            f"hands=R5 G1 G2/Y1 Y2 Y3/{seat_2}/R4 G4 G5 G6; discard=R4; draw=Y4 Y5 Y6 Y7 B5 B6; colour=R; "
            "seat=0; dir=+; phase=play",
            jump_in=True,
        )
        game.step("R5")
        if game.current_player == 2:  # asked: it holds the other R5
            game.step("pass")
        assert game.current_player == 1
        return game

    let_go, not_asked = after_the_window("R5 B1 B2"), after_the_window("G9 B1 B2")
    counted, not_counted = fields_of(let_go.position()), fields_of(not_asked.position())
    assert (counted["decisions"], counted["letgo"]) == ("2", "1")
    assert not_counted["decisions"] == "1" and "letgo" not in not_counted
    np.testing.assert_array_equal(obs_of(let_go, 1), obs_of(not_asked, 1))
    assert field(obs_of(let_go, 1), "decisions")[0] == pytest.approx(1 / let_go.rules.max_decisions)
    rebuilt = Game.from_position("uno", let_go.position(), jump_in=True)
    for seat in range(4):
        np.testing.assert_array_equal(obs_of(rebuilt, seat), obs_of(let_go, seat))

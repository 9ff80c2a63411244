"""The agent interface: registry, parameters, the Python agents at a Game, seeding.

Every agent plays thousands of decisions at a :class:`~uno_env.Game` of every preset at its
smallest, a middle and its largest player count; :meth:`Game.step` raises on any illegal
choice, and every scripted choice is checked against the compiled kernel run on the full
(unredacted) state with the same generator: the redacted view changes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import uno_env.sim.learned
from agents import Agent, PublicView, RandomAgent, ScriptedAgent, make
from uno_env import PRESETS, Game
from uno_env.engine import layout as L
from uno_env.engine.rules import compile_spec, load_rules, preset
from uno_env.sim import batch
from uno_env.styles.dispatch import choose_action
from uno_env.styles.params import P_BLUFF, P_CHALLENGE
from uno_env.styles.registry import POLICIES, POLICY_DOCS, canonical_policy
from uno_env.styles.registry import STYLES as REGISTRY

STYLES = list(REGISTRY)
FAST = {
    "monte_carlo": "monte_carlo:samples=4",
    "search": "search:sims=12,depth=8",
    "oracle": "oracle:sims=12,depth=8",
}
"""Small budgets for the sampling styles in the tests that play many games."""


def player_counts(name: str) -> list[int]:
    """Smallest, a middle (4 where allowed) and largest player count of a preset."""
    rules = preset(name)
    middle = min(max(4, rules.min_players), rules.max_players)
    return sorted({rules.min_players, middle, rules.max_players})


CASES = [(name, n) for name in PRESETS for n in player_counts(name)]


# ================================================================ registry and parameters
def test_available_lists_at_least_eight_styles_with_descriptions() -> None:
    names = agents.available()
    assert len(names) >= 9
    shipped = set(uno_env.sim.learned.shipped_policies())  # the pretrained policies are agents too
    assert shipped and set(names) == set(POLICIES) | shipped
    assert set(POLICIES) == set(POLICY_DOCS)
    assert all(isinstance(doc, str) and doc and "\n" not in doc for doc in names.values())


@pytest.mark.parametrize("name", STYLES)
def test_make_builds_every_style(name: str) -> None:
    agent = make(name, seed=1)
    assert isinstance(agent, Agent)
    assert isinstance(agent, RandomAgent if name == "random_legal" else ScriptedAgent)


def test_make_reads_parameters_and_writes_the_canonical_name() -> None:
    agent = make("bluffer:bluff=0.3, challenge=0.8", seed=0)
    assert isinstance(agent, ScriptedAgent)
    assert agent.name == "bluffer:bluff=0.3,challenge=0.8"
    assert agent.params[P_BLUFF] == 300_000
    assert agent.params[P_CHALLENGE] == 800_000
    assert make("bluffer", seed=0).name == "bluffer:bluff=0.5,challenge=0.5"
    assert canonical_policy("hoarder:threat=3") == "hoarder:doubt=0.5,threat=3,limit=10"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nobody", "unknown play style 'nobody'; available: random_legal, random_playable, greedy"),
        ("greedy:bluff=0.3", "style 'greedy' has no parameter 'bluff'; its parameters: doubt"),
        ("random:x=1", "style 'random' has no parameter 'x'; its parameters: none"),
        ("bluffer:bluff=2", "parameter 'bluff' of style 'bluffer' must be between 0 and 1, got 2"),
        ("bluffer:bluff=often", "parameter 'bluff' of style 'bluffer' must be a number, got 'often'"),
        ("hoarder:threat=1.5", "parameter 'threat' of style 'hoarder' must be an integer, got '1.5'"),
        ("bluffer:bluff", "style parameter 'bluff' of 'bluffer' is not key=value"),
        ("bluffer:bluff=0.1,bluff=0.2", "style parameter 'bluff' of 'bluffer' is given twice"),
    ],
)
def test_bad_policy_text_is_refused_with_the_valid_choices(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        make(text)
    assert message in str(info.value)


def test_simulate_accepts_parameters_and_refuses_unknown_styles() -> None:
    result = batch.simulate("uno", 2, 5, seed=3, policies=["bluffer:bluff=1", "greedy"])
    assert result.num_games == 5
    with pytest.raises(ValueError, match="unknown play style 'nobody'"):
        batch.simulate("uno", 2, 1, policies="nobody")


def test_describe_is_a_markdown_table_of_every_style() -> None:
    table = agents.describe().splitlines()
    assert table[0] == "| style | idea | parameters |"
    assert len(table) == 2 + len(STYLES)
    assert any("`bluff` = 0.5 (0..1)" in line for line in table)


# ================================================================ views and masks
def test_scripted_agents_need_a_view() -> None:
    game = Game("uno", 2, seed=1)
    with pytest.raises(ValueError, match="play style 'greedy' reads the public game state"):
        ScriptedAgent("greedy").act(None, game.legal_mask())


def test_the_mask_may_come_from_a_pettingzoo_observation() -> None:
    game = Game("uno", 2, seed=1)
    obs = {"observation": np.zeros(3), "action_mask": game.legal_mask()}
    assert RandomAgent(0).act(obs) in game.legal_actions()
    assert ScriptedAgent("greedy").act(obs, None, game) in game.legal_actions()
    with pytest.raises(ValueError, match="no action mask"):
        RandomAgent(0).act(np.zeros(3))
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent(0).act(None, np.zeros(5, dtype=np.int8))


def test_redacted_view_wipes_hidden_information_only() -> None:
    game = Game("uno", 4, seed=5)
    view = PublicView.of(game)
    seat = view.seat
    red = view.redacted()
    for other in range(L.MAX_PLAYERS):
        start = L.HANDS + other * L.MAX_FACES
        expected = game.state[start : start + L.MAX_FACES] if other == seat else 0
        assert np.array_equal(red[start : start + L.MAX_FACES], np.broadcast_to(expected, L.MAX_FACES))
        assert red[L.HELD + other] == (game.state[L.HELD + seat] if other == seat else 0)
    assert not red[L.DRAW_PILE : L.DRAW_PILE + L.MAX_CARDS].any()
    assert not red[L.RNG : L.RNG + L.RNG_WORDS].any()
    public = np.ones(L.STATE_SIZE, dtype=bool)
    public[L.HANDS : L.HANDS + L.MAX_PLAYERS * L.MAX_FACES] = False
    public[L.HELD : L.HELD + L.MAX_PLAYERS] = False
    public[L.DRAW_PILE : L.DRAW_PILE + L.MAX_CARDS] = False
    public[L.RNG : L.RNG + L.RNG_WORDS] = False
    public[L.S_BLUFF] = False
    assert np.array_equal(red[public], game.state[public])
    assert view.state is game.state  # the view never copies or writes the game


GIVE_POSITION = (
    "hands=R2 G5 G6 B7/Y1 Y2/B3 B4/Y7 Y8; discard=R5; draw=G1 G2 G3 G4; colour=R; seat=0; dir=+; phase=play"
)


def test_the_public_state_does_not_name_a_card_given_between_two_other_seats() -> None:
    """H-TWO-1: seat 0 lays R2 and gives G5 and B7 to seat 2; seat 1, to move next, may not know
    which cards went (its history hides them), so the state it is handed does not name the last."""
    game = Game.from_position("uno", GIVE_POSITION, two_gives=True)
    for move in ("R2", "target +2", "G5", "B7"):
        game.step(move)
    assert game.current_player == 1 and game.state[L.S_LAST_ACTION] == game.parse_action("B7")
    view = PublicView.of(game)
    assert view.public_history()[-1] == (0, -1)
    public = view.public().state
    assert (public[L.S_LAST_ACTOR], public[L.S_LAST_ACTION]) == (0, -1)
    assert view.redacted()[L.S_LAST_ACTION] == -1


def test_the_public_state_does_not_name_another_seats_let_go_answer() -> None:
    """H-JUMP-1: after seat 0's R5 the window asks seat 2 only because it holds an R5; its
    let-go answer is hidden from seat 1, so seat 1's state names seat 0's R5 as the last move."""
    game = Game.from_position(
        "uno_house",
        "hands=R5 G6 B7/Y1 Y2/B3 R5; discard=R4; draw=G1 G2 G3 G4; colour=R; seat=0; dir=+; phase=play",
    )
    game.step("R5")
    assert game.current_player == 2  # the window asks the holder
    game.step("pass")
    assert game.current_player == 1 and game.state[L.S_LAST_ACTOR] == 2
    public = PublicView.of(game).public().state
    assert (public[L.S_LAST_ACTOR], public[L.S_LAST_ACTION]) == (0, game.parse_action("R5"))


def test_the_public_state_hides_the_copies_another_seats_penalty_drew() -> None:
    """H-JUMP-1: seat 1 drew a copy of the top card as its penalty (``jumpblock=1:1``); how many
    is as hidden as its hand, so seat 2 is handed no count."""
    text = (
        "hands=G6 B7/Y1 RD2 Y2 Y3/B3 B4; discard=R4 RD2; draw=G1 G2 G3 G4; colour=R; seat=2; dir=+; "
        "phase=play; jumpblock=1:1"
    )
    game = Game.from_position("uno_house", text)
    assert game.state[L.S_JUMP_BLOCK_COUNT] == 1
    assert PublicView.of(game).public().state[L.S_JUMP_BLOCK_COUNT] == 0


# ================================================================ legal play at a Game
def _play_checked(name: str, num_players: int, style: str, min_decisions: int) -> int:
    """Play games with ``style`` at even seats and random at odd seats until ``style`` took
    ``min_decisions`` decisions; check each scripted choice against the compiled kernel."""
    decisions = 0
    seed = 0
    while decisions < min_decisions:
        game = Game(name, num_players, seed=1000 + seed)
        spec = compile_spec(game.rules)
        players: list[Agent] = [
            make(style, seed=seed * 10 + s) if s % 2 == 0 else RandomAgent(seed * 10 + s)
            for s in range(num_players)
        ]
        while not game.is_over():
            seat = game.current_player
            agent = players[seat]
            if isinstance(agent, ScriptedAgent):
                full = game.state.copy()
                full[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = agent._generator
                mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
                mask[: game.num_actions] = game.legal_mask()
                expected = choose_action(full, spec, mask, int(mask.sum()), agent.style.code, agent.params)
                action = agent.act(None, game.legal_mask(), game)
                assert action == expected, f"{style} seat {seat}: {game.position()}"
                decisions += 1
            else:
                action = agent.act(None, game.legal_mask())
            game.step(action)  # raises IllegalActionError on an illegal choice
        seed += 1
    return decisions


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("name", "num_players"), CASES)
def test_python_agents_only_pick_legal_actions(name: str, num_players: int, style: str) -> None:
    """Thousands of decisions per style; the random agent plays through the same loop."""
    if style == "random_legal":
        game_decisions = seed = 0
        while game_decisions < 2000:
            game = Game(name, num_players, seed=seed)
            agents.play(game, [RandomAgent(seed * 10 + s) for s in range(num_players)])
            game_decisions += game.decisions
            seed += 1
        return
    wanted = 300 if style in FAST else 2000
    assert _play_checked(name, num_players, FAST.get(style, style), wanted) >= wanted


@pytest.mark.parametrize("style", ["search:sims=100", "monte_carlo:samples=8"])
def test_a_hand_the_mover_has_looked_at_is_in_its_view_and_the_samplers_use_it(style: str) -> None:
    """H-ZEROSEE-1: a 0 shows its player the other hands. The view keeps a hand seen
    while it has not changed, and the sampling styles deal it as known: at every decision
    where the mover has seen a hand, a style at a Python table decides as the compiled kernel
    on the whole state (the view used to wipe the seen hand, and the search then dealt that
    player no cards)."""
    rules = load_rules("uno", zero_reveals=True)
    spec = compile_spec(rules)
    checked = 0
    for seed in range(40):
        game = Game(rules, 3, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over():
            view = PublicView.of(game).public()
            seen = view.seen_hands()
            for seat, hand in seen.items():
                start = L.HANDS + seat * L.MAX_FACES
                assert sorted(c.face for c in hand) == [
                    f for f in range(L.MAX_FACES) for _ in range(int(game.state[start + f]))
                ]
            if seen and len(game.legal_actions()) > 1:
                agent = ScriptedAgent(style, seed=seed)
                full = game.state.copy()
                full[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = agent._generator
                mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
                mask[: game.num_actions] = game.legal_mask()
                expected = choose_action(full, spec, mask, int(mask.sum()), agent.style.code, agent.params)
                assert agent.act(None, game.legal_mask(), game) == expected, game.position()
                checked += 1
            game.step(int(rng.choice(game.legal_actions())))
    assert checked > 100


# ================================================================ seeding
@pytest.mark.parametrize("style", STYLES)
def test_same_seed_same_choices(style: str) -> None:
    def history(seed: int) -> list[tuple[int, int]]:
        game = Game("uno", 3, seed=42)
        agents.play(game, [make(FAST.get(style, style), seed=seed + s) for s in range(3)])
        return game.history

    assert history(7) == history(7)


@pytest.mark.parametrize("style", ["random", "bluffer:bluff=0.5,challenge=0.5", "monte_carlo:samples=2"])
def test_random_styles_differ_with_the_seed(style: str) -> None:
    def history(seed: int) -> list[tuple[int, int]]:
        game = Game("uno", 2, seed=11)
        agents.play(game, [make(style, seed=seed), make("random", seed=1)])
        return game.history

    assert any(history(1) != history(s) for s in (2, 3, 4))


def test_reset_reseeds_a_scripted_agent() -> None:
    agent = ScriptedAgent("bluffer", seed=5)
    first = agent._generator.copy()
    game = Game("uno", 2, seed=2)
    agents.play(game, [agent, make("bluffer", seed=6)])
    agent.reset(5)
    assert np.array_equal(agent._generator, first)
    with pytest.raises(ValueError, match="seed must be an integer"):
        agent.reset(-1)


def test_play_checks_the_table_size() -> None:
    with pytest.raises(ValueError, match="2 agents for a game of 3 players"):
        agents.play(Game("uno", 3, seed=0), [RandomAgent(0), RandomAgent(1)])

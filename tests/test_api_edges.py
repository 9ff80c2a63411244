"""Misuse at the API's edges raises the documented error, the same way in every entry point.

Anything that is not an action id (a float, a bool, None, a list, an integer outside the
action table, one too large for int64) is an :class:`~uno_env.IllegalActionError` in
:class:`~uno_env.Game` and an :class:`~uno_env.envs.ActionOutOfBoundsError` in the
environments (the vector env included: an id outside the table is not an illegal move that
costs a reward). Seeds are the integers ``0..2**63-1`` everywhere, so that game ``i`` of
:func:`uno_env.simulate` is ``Game(rules, n, seed + i)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import uno_env
from training.cli import main
from uno_env import Game, IllegalActionError
from uno_env.envs import ActionOutOfBoundsError
from uno_env.envs.single import SingleAgentEnv
from uno_env.envs.vector import VectorEnv
from uno_env.sim.learned import PolicyGameMismatchError

NOT_ACTIONS: list[Any] = [1.9, 1.0, 10**30, 2**63, -(2**70), -1, 74, None, [0], (0,), True, False, b"R1"]


@pytest.mark.parametrize("action", NOT_ACTIONS, ids=repr)
def test_game_step_refuses_what_is_not_an_action(action: Any) -> None:
    """``Game.step(1.9)`` played action 1; ``10**30``, None and ``[a]`` raised OverflowError or
    TypeError. All are IllegalActionError now, and the game is unchanged."""
    game = Game("uno", 4, seed=3)
    before = game.position()
    with pytest.raises(IllegalActionError) as exc:
        game.step(action)
    assert exc.value.legal == game.legal_actions()
    assert game.position() == before and game.history == []


def test_game_step_takes_numpy_integers_and_notation() -> None:
    game = Game("uno", 4, seed=3)
    first = game.legal_actions()[0]
    game.step(np.int64(first))
    game.step(game.describe_action(game.legal_actions()[0]))
    assert len(game.history) == 2


@pytest.mark.parametrize("seat", [-1, 4, 10, 1.0, True, None])
def test_hand_of_a_seat_that_is_not_at_the_table(seat: Any) -> None:
    """``Game.hand(-1)`` returned ``[]`` by reading the slots before the hands."""
    game = Game("uno", 4, seed=3)
    with pytest.raises(ValueError, match=r"seat must be a seat 0\.\.3"):
        game.hand(seat)
    assert len(game.hand(3)) == 7


@pytest.mark.parametrize("seed", [True, False, -1, 2**63, 1.0, "7"])
def test_simulate_and_game_refuse_the_same_seeds(seed: Any) -> None:
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*63-1"):
        Game("uno", 4, seed=seed)
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*63-1"):
        uno_env.simulate("uno", 4, 1, seed=seed)
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*63-1"):
        Game.from_position(
            "uno", "hands=R1/G2; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=play", seed=seed
        )


def test_simulate_games_are_games_of_the_following_seeds() -> None:
    """Game i of simulate is Game(seed + i): the last game may use seed 2**63-1, not beyond."""
    top = 2**63 - 1
    result = uno_env.simulate("uno", 2, 2, seed=top - 1)
    for i in range(2):
        game = Game("uno", 2, seed=top - 1 + i)
        assert game.seed == top - 1 + i
    assert result.num_games == 2
    with pytest.raises(ValueError, match=r"seed \+ num_games must stay within 2\*\*63"):
        uno_env.simulate("uno", 2, 2, seed=top)
    with pytest.raises(ValueError, match="num_games must be an integer >= 1"):
        uno_env.simulate("uno", 2, True)
    with pytest.raises(ValueError, match=r"num_games=1000000000000000: the per-game results alone need"):
        uno_env.simulate("uno", 2, 10**15, seed=0)  # a MemoryError naming no argument before
    drawn = uno_env.simulate("uno", 2, 1, seed=None)  # as Game(seed=None): drawn and kept
    assert drawn.winner[0] == uno_env.simulate("uno", 2, 1, seed=drawn.seed).winner[0]


@pytest.mark.parametrize("action", [2**70, -(2**70), -1, 74, 1.5, None, [2**70]], ids=repr)
def test_aec_and_single_agent_envs_raise_out_of_bounds(action: Any) -> None:
    """AEC ``step(2**70)`` raised OverflowError from the compiled call."""
    aec = uno_env.env("uno", num_players=2)
    aec.reset(seed=1)
    with pytest.raises(ActionOutOfBoundsError):
        aec.step(action)
    single = SingleAgentEnv("uno", 2)
    single.reset(seed=1)
    with pytest.raises(ActionOutOfBoundsError):
        single.step(action)


@pytest.mark.parametrize("bad", [-1, 74, 2**62, -(2**63)])
def test_vector_env_raises_out_of_bounds_before_any_game_moves(bad: int) -> None:
    """The vector env gave reward -1 (an illegal move) for ids outside the action space."""
    venv = VectorEnv(3, "uno", 3)
    venv.reset(seed=0)
    actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
    actions[2] = bad
    before = [venv.position(i) for i in range(3)]
    with pytest.raises(ActionOutOfBoundsError, match=f"game 2: action {bad} is not in the action space"):
        venv.step(actions)
    assert [venv.position(i) for i in range(3)] == before
    actions[2] = int(np.flatnonzero(venv.action_masks()[2])[0])
    venv.step(actions)  # the env still works


@pytest.mark.parametrize("games", ["0", "-5"])
def test_simulate_cli_without_games_is_a_one_line_error(
    games: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``uno-env simulate --games 0`` gave an IndexError traceback."""
    assert main(["simulate", "--games", games]) == 2
    err = capsys.readouterr().err
    assert err == f"uno-env: error: --games must be at least 1, got {games}\n"


def test_simulate_cli_with_a_bad_seed_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3", "--seed", "-1"]) == 2
    assert capsys.readouterr().err.startswith("uno-env: error: seed must be an integer in 0..2**63-1")


@pytest.mark.parametrize("face", [-1, 56, 999, 1.5, True, None])
def test_notation_of_a_face_that_is_not_one(face: Any) -> None:
    """``format_face(-1)`` named a wrong card (indexing from the end); 999 was a KeyError."""
    with pytest.raises(uno_env.CardNotationError, match="is not a face id of the uno deck"):
        uno_env.format_face(face)


def test_action_notation_refuses_what_is_not_text_or_an_id() -> None:
    """``parse_action(None)`` was an AttributeError, an unknown deck a KeyError."""
    with pytest.raises(TypeError, match="action notation is a string"):
        uno_env.parse_action(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown deck family 'klingon'"):
        uno_env.parse_action("R7", "klingon")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"an action id is an integer, got 1\.5"):
        uno_env.format_action(1.5)  # type: ignore[arg-type]
    assert uno_env.format_action(np.int64(7)) == "R7"


@pytest.mark.parametrize("seat", [1.0, True, "1"])
def test_seats_that_are_not_integers_are_refused(seat: Any) -> None:
    """``SingleAgentEnv(seat=1.0)`` and ``env(render_seat=True)`` were taken (seat 1.0, seat 1)."""
    with pytest.raises(ValueError, match=r"seat must be None \(rotating\) or a seat 0\.\.2"):
        SingleAgentEnv("uno", 3, seat=seat)
    with pytest.raises(ValueError, match=r"seat must be None \(rotating\) or a seat 0\.\.2"):
        VectorEnv(2, "uno", 3, seat=seat)
    with pytest.raises(ValueError, match=r"render_seat must be None or a seat 0\.\.2"):
        uno_env.env("uno", 3, render_seat=seat)


@pytest.mark.parametrize("reward", ["x", float("nan"), float("inf"), None, True])
def test_an_illegal_reward_that_is_not_a_finite_number_is_refused(reward: Any) -> None:
    """``illegal_reward="x"`` said only 'could not convert string to float', and nan was taken."""
    for make in (uno_env.env, SingleAgentEnv, lambda *a, **k: VectorEnv(2, *a, **k)):
        with pytest.raises(ValueError, match=r"illegal_reward must be a finite number, got"):
            make("uno", 3, illegal_reward=reward)
    assert SingleAgentEnv("uno", 3, illegal_reward=np.float32(-2)).illegal_reward == -2.0


@pytest.mark.parametrize("opponents", [3, None, 2.5])
def test_opponents_of_no_kind_name_the_kinds(opponents: Any) -> None:
    """``opponents=3`` or ``None`` was ``TypeError: 'int' object is not iterable``."""
    with pytest.raises(TypeError, match="neither a compiled policy name"):
        SingleAgentEnv("uno", 3, opponents=opponents)
    with pytest.raises(TypeError, match="neither a compiled policy name"):
        VectorEnv(2, "uno", 3, opponents=opponents)


def test_the_vector_env_says_it_does_not_render() -> None:
    """``gymnasium.make_vec(id, render_mode="ansi")`` said 'unknown rule key(s) render_mode'."""
    import gymnasium

    with pytest.raises(ValueError, match="the vector env does not render: render_mode must be None"):
        gymnasium.make_vec("uno_env/Uno-v1", num_envs=2, num_players=3, render_mode="ansi")
    assert VectorEnv(2, "uno", 3, render_mode=None).render_mode is None


@pytest.mark.parametrize("games", [0, -1, 2.0, "3", None])
def test_simulate_refuses_a_game_count_that_is_not_positive(games: Any) -> None:
    """``simulate(..., 0)`` returned a result of no games whose win rates were NaN and whose
    ``summary()`` raised ZeroDivisionError."""
    with pytest.raises(ValueError, match=rf"num_games must be an integer >= 1, got {games!r}"):
        uno_env.simulate("uno", 2, games)
    assert uno_env.simulate("uno", 2, np.int64(2), seed=np.uint32(5)).num_games == 2


@pytest.mark.parametrize(
    ("policies", "where"),
    [(3, "policies must be"), (None, "policies must be"), ({"greedy": 1, "random": 2}, "policies must be"),
     (b"greedy", "policies must be"), ([object(), "random"], r"policies\[0\] must be a text"),
     (["greedy", 7], r"policies\[1\] must be a text")],
    ids=["int", "None", "dict", "bytes", "object", "int seat"],
)  # fmt: skip
def test_simulate_refuses_policies_that_are_not_texts(policies: Any, where: str) -> None:
    """An int or None raised "'int' object is not iterable", an agent object "'object' has no
    attribute 'strip'", and a dict played its keys as the seats' styles."""
    with pytest.raises(
        TypeError, match=rf"{where}.*style names such as 'greedy'.*agent objects play at a Game"
    ):
        uno_env.simulate("uno", 2, 1, policies=policies)


def test_simulate_refuses_an_agent_object_naming_where_it_plays() -> None:
    import agents

    with pytest.raises(TypeError, match=r"policies\[0\] must be a text.*got ScriptedAgent"):
        uno_env.simulate("uno", 2, 1, policies=[agents.make("greedy"), "random"])


def test_simulate_takes_a_tuple_an_array_or_a_path_of_policies() -> None:
    from pathlib import Path

    expected = uno_env.simulate("uno", 2, 3, policies=["greedy", "random"]).winner
    for policies in (("greedy", "random"), np.array(["greedy", "random"])):
        assert list(uno_env.simulate("uno", 2, 3, policies=policies).winner) == list(expected)
    assert uno_env.simulate("uno", 2, 1, policies=Path("greedy")).num_games == 1
    with pytest.raises(ValueError, match="policies lists 3 names for 2 players"):
        uno_env.simulate("uno", 2, 1, policies=["greedy"] * 3)


@pytest.mark.parametrize("switch", ["check_invariants", "full_engine", "allow_rules_mismatch"])
def test_simulate_switches_are_booleans(switch: str) -> None:
    """``check_invariants="no"`` checked the invariants (a true string)."""
    with pytest.raises(TypeError, match=rf"{switch} must be True or False, got 'no'"):
        uno_env.simulate("uno", 2, 1, **{switch: "no"})


@pytest.mark.parametrize(
    ("rules", "players", "policy", "difference"),
    [
        ("uno", 4, "ppo_uno_2p", "trained for 2 players, the game has 4"),
        ("uno_house", 2, "ppo_uno_2p", r"trained on other rules \(stacking="),
        ("uno", 2, "distilled_uno_4p", "trained for 4 players, the game has 2"),
        ("uno", 4, "search:sims=2,net=ppo_uno_2p",
         r"seat 0 'search:sims=2,net=ppo_uno_2p', the search's network: .*trained for 2 players"),
    ],
)  # fmt: skip
def test_simulate_refuses_a_network_trained_for_another_game(
    rules: str, players: int, policy: str, difference: str
) -> None:
    """``simulate("uno", 4, ..., policies=["ppo_uno_2p", ...])`` seated the 2-player network at
    a 4-player table without a word (the CLI refused it); now the same check, with its opt-in."""
    seats = [policy] + ["random"] * (players - 1)
    with pytest.raises(PolicyGameMismatchError, match=difference) as exc:
        uno_env.simulate(rules, players, 1, policies=seats)
    assert "pass allow_rules_mismatch=True" in str(exc.value)
    assert uno_env.simulate(rules, players, 1, policies=seats, allow_rules_mismatch=True).num_games == 1


def test_simulate_refuses_a_network_for_rule_overrides_it_was_not_trained_for() -> None:
    with pytest.raises(PolicyGameMismatchError, match=r"hand_size=5 \(trained: 7\)"):
        uno_env.simulate("uno", 2, 1, policies=["ppo_uno_2p", "random"], hand_size=5)
    assert uno_env.simulate("uno", 2, 1, policies=["ppo_uno_2p", "random"]).num_games == 1


def _two_player_network() -> Any:
    import agents

    return agents.make("ppo_uno_2p")


@pytest.mark.parametrize(
    "make_env",
    [
        lambda rules, players, opponents, **kw: SingleAgentEnv(rules, players, opponents=opponents, **kw),
        lambda rules, players, opponents, **kw: VectorEnv(2, rules, players, opponents=opponents, **kw),
    ],
    ids=["single", "vector"],
)
def test_env_opponents_trained_for_another_game_are_refused(make_env: Any) -> None:
    """``SingleAgentEnv("uno", 4, opponents=[agents.make("ppo_uno_2p"), ...])`` seated the 2-player
    network at a 4-player table without a word; a guided search's network likewise."""
    import agents

    net = _two_player_network()
    with pytest.raises(
        PolicyGameMismatchError, match=r"opponents\[0\]: .*trained for 2 players, the game has 4"
    ):
        make_env("uno", 4, [net, "random", "random"])
    guided = agents.make("search:sims=2,net=ppo_uno_2p", seed=1)
    with pytest.raises(
        PolicyGameMismatchError, match=r"opponents\[2\]: .*trained for 2 players.*allow_rules_mismatch"
    ):
        make_env("uno", 4, ["random", "random", guided])
    with pytest.raises(PolicyGameMismatchError, match=r"hand_size=5 \(trained: 7\)"):
        make_env("uno", 2, net, hand_size=5)
    make_env("uno", 2, net)
    make_env("uno", 4, [net, "random", guided], allow_rules_mismatch=True)


def test_vector_env_set_opponents_holds_new_opponents_to_the_rules() -> None:
    env = VectorEnv(2, "uno", 4, opponents="random")
    with pytest.raises(PolicyGameMismatchError, match=r"opponent table 1, entry 0: .*trained for 2 players"):
        env.set_opponents(
            uno_env.envs.vector.OpponentPool(["random", [_two_player_network(), "random", "random"]])
        )
    with pytest.raises(TypeError, match="allow_rules_mismatch must be True or False, got 'yes'"):
        VectorEnv(2, "uno", 4, allow_rules_mismatch="yes")


def test_agents_play_refuses_a_network_trained_for_another_game() -> None:
    """``agents.play(Game("uno", 4), [agents.make("ppo_uno_2p"), ...])`` played the 2-player
    network at 4 players; a name in place of an agent raised "'str' object has no attribute 'act'"."""
    import agents

    net = _two_player_network()
    others = [agents.make("random", seed=s) for s in range(3)]
    with pytest.raises(
        PolicyGameMismatchError, match=r"agents\[0\]: .*trained for 2 players, the game has 4"
    ):
        agents.play(Game("uno", 4, seed=1), [net, *others])
    assert agents.play(Game("uno", 4, seed=1), [net, *others], allow_rules_mismatch=True) is not None
    assert agents.play(Game("uno", 2, seed=1), [net, others[0]]) is not None
    with pytest.raises(TypeError, match=r"agents\[0\] is a str, not an agent .*agents.make\('greedy'\)"):
        agents.play(Game("uno", 2, seed=1), ["greedy", others[0]])


def test_a_tournament_holds_agent_objects_to_the_rules() -> None:
    """An ExportedAgent object in an agent list was not checked (only names were)."""
    from agents.spec import as_spec, check_seated_networks

    with pytest.raises(PolicyGameMismatchError, match=r"trained for 2 players, the game has 4"):
        check_seated_networks([as_spec(_two_player_network())], uno_env.preset("uno"), 4)
    check_seated_networks(
        [as_spec(_two_player_network())], uno_env.preset("uno"), 4, allow_rules_mismatch=True
    )


def test_run_tournament_checks_agent_objects_against_the_rules() -> None:
    """``run_tournament("uno", 4, [agents.make("ppo_uno_2p"), ...])`` checked networks named by
    text only: the object's 2-player network played 4-player tables without a word."""
    from training.tournament import check_agents

    rules = uno_env.preset("uno")
    seats = [_two_player_network(), "greedy", "blocker", "random"]
    with pytest.raises(PolicyGameMismatchError, match=r"trained for 2 players.*allow_rules_mismatch=True"):
        check_agents(seats, rules, 4)
    check_agents(seats, rules, 4, allow_rules_mismatch=True)
    check_agents([_two_player_network(), "greedy"], rules, 2)


@pytest.mark.parametrize("spec", [3, None, ["greedy"], b"greedy"], ids=repr)
def test_agents_make_refuses_what_is_not_an_agent_name(spec: Any) -> None:
    """``agents.make(3)`` and ``agents.make(None)`` raised "'int' object has no attribute 'strip'"."""
    import agents

    with pytest.raises(TypeError, match=r"agents.make takes an agent name: a style \('greedy'"):
        agents.make(spec)
    with pytest.raises(TypeError, match=r"ExportedAgent takes a shipped policy name"):
        agents.ExportedAgent(spec)


@pytest.mark.parametrize("name", ["random", "greedy", "ppo_uno_2p"])
@pytest.mark.parametrize("seed", [1.5, -1, 2**63, "3", True])
def test_agents_make_refuses_the_seeds_game_refuses(name: str, seed: Any) -> None:
    """``make("random", seed=1.5)`` raised NumPy's "SeedSequence expects int" TypeError and
    ``make("ppo_uno_2p", seed=1.5)`` took it without a word; every kind now refuses as Game does."""
    import agents

    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*63-1"):
        agents.make(name, seed=seed)
    agents.make(name, seed=np.int64(3))


def test_agents_make_takes_a_path_of_an_exported_policy() -> None:
    from pathlib import Path

    import agents
    from uno_env.sim.learned import shipped_policies

    assert agents.make(Path(shipped_policies()["ppo_uno_2p"])).name == "ppo_uno_2p"


@pytest.mark.parametrize(
    "env", [SingleAgentEnv, lambda *a, **k: VectorEnv(2, *a, **k)], ids=["single", "vector"]
)
def test_an_env_opponent_named_as_an_exported_policy_is_told_how_to_seat_it(env: Any) -> None:
    """``opponents="ppo_uno_2p"`` said "unknown play style 'ppo_uno_2p'", though it is a name
    every other entry point takes."""
    with pytest.raises(ValueError, match=r"'ppo_uno_2p' is an exported policy.*agents.make\('ppo_uno_2p'\)"):
        env("uno", 2, opponents="ppo_uno_2p")
    with pytest.raises(ValueError, match="unknown play style 'gredy'"):
        env("uno", 2, opponents="gredy")

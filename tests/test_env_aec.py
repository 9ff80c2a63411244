"""The PettingZoo AEC env: conformance, registration, seeds, turns, rewards, illegal actions.

PettingZoo's own ``api_test`` and ``seed_test`` run for every preset at its minimum, a
middle and its maximum player count. They warn about exactly two things for any
third-party env with a ``{"observation", "action_mask"}`` Dict observation (their lists of
Dict envs name only PettingZoo's own games): those two are allowed, every other warning
fails the test. The rest are scenario tests from one-line positions.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test, state_test
from pettingzoo.utils import wrappers

import uno_env
from uno_env import Game, IllegalActionError
from uno_env.engine import layout as L
from uno_env.envs import ActionOutOfBoundsError, UnoEnv, aec, raw_env
from uno_env.envs.core import next_seed
from uno_env.envs.registration import pettingzoo_id
from uno_env.game.encoding import obs_layout

DICT_OBS_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
)
"""What api_test says to every env whose observation is a Dict (its allow-lists name only
PettingZoo's own games); the only warnings the conformance tests tolerate."""


def player_counts(name: str) -> list[int]:
    rules = uno_env.preset(name)
    return sorted({rules.min_players, (rules.min_players + rules.max_players) // 2, rules.max_players})


CASES = [(name, n) for name in sorted(uno_env.PRESETS) for n in player_counts(name)]


def run_without_unexpected_warnings(check: Callable[[], None]) -> list[str]:
    """Run ``check``; fail on any warning but the Dict-observation ones; return those seen."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check()
    messages = [str(w.message) for w in caught]
    unexpected = sorted({m for m in messages if m not in DICT_OBS_WARNINGS})
    assert not unexpected, f"unexpected warnings: {unexpected}"
    return messages


def pos(text: str, n: int | None = None, **kwargs: Any) -> UnoEnv:
    """An env reset to a position."""
    players = n or len(text.split(";")[0].split("/"))
    env = uno_env.env("uno", players, **kwargs)
    env.reset(seed=0, options={"position": text})
    return env


def play_out(env: Any) -> None:
    """Step every remaining (finished) agent out with None."""
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        assert term or trunc, agent
        env.step(None)


# ================================================================ conformance
@pytest.mark.parametrize(("name", "n"), CASES)
def test_api_test_passes_for_every_preset(name: str, n: int) -> None:
    seen = run_without_unexpected_warnings(lambda: api_test(uno_env.env(name, n), num_cycles=300))
    assert set(seen) <= set(DICT_OBS_WARNINGS)


@pytest.mark.parametrize(("name", "n"), CASES)
def test_api_test_passes_through_game_ends(name: str, n: int) -> None:
    """A low decision limit makes api_test see whole games end (truncation) many times."""

    def check() -> None:
        api_test(pettingzoo.make("aec", pettingzoo_id(name), num_players=n, max_decisions=40), num_cycles=200)

    run_without_unexpected_warnings(check)


@pytest.mark.parametrize(("name", "n"), CASES)
def test_seed_test_passes_for_every_preset(name: str, n: int) -> None:
    run_without_unexpected_warnings(lambda: seed_test(lambda: uno_env.env(name, n), num_cycles=100))


def test_the_warning_filter_can_fail() -> None:
    with pytest.raises(AssertionError, match="unexpected warnings"):
        run_without_unexpected_warnings(lambda: warnings.warn("something else", stacklevel=1))


def test_raw_env_inside_pettingzoos_standard_wrappers() -> None:
    """The classic stack (order enforcing, out-of-bounds, terminate-illegal) wraps raw_env."""

    def wrapped() -> Any:
        env: Any = raw_env("uno", 3)
        env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
        env = wrappers.AssertOutOfBoundsWrapper(env)
        return wrappers.OrderEnforcingWrapper(env)

    run_without_unexpected_warnings(lambda: api_test(wrapped(), num_cycles=200))
    env = wrapped()
    env.reset(seed=1)
    mask = env.last()[0]["action_mask"]
    offender = env.agent_selection
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.rewards[offender] == -1 and all(env.terminations.values())
    play_out(env)
    assert env.agents == []


# ================================================================ registration
@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_every_preset_is_registered_with_pettingzoo(name: str) -> None:
    env = pettingzoo.make("aec", f"uno_env/{name}-v1", num_players=uno_env.preset(name).min_players)
    assert isinstance(env, UnoEnv) and env.rules == uno_env.preset(name)
    assert re.fullmatch(r"uno_env_v\d+", env.metadata["name"])
    assert aec.__doc__ is not None and "Version history" in aec.__doc__


def test_registration_happens_when_pettingzoo_is_imported_after_uno_env() -> None:
    import subprocess
    import sys

    code = (
        "import sys, uno_env\n"
        "assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules\n"
        "import pettingzoo, gymnasium\n"
        "print(pettingzoo.make('aec', 'uno_env/uno-v1', num_players=3).num_players)\n"
        "print(type(gymnasium.make('uno_env/Uno-v1').unwrapped).__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "SingleAgentEnv"]


def test_registration_survives_a_find_spec_probe_before_the_import() -> None:
    """Libraries probe for Gymnasium before importing it (TorchRL's ``importlib.util.find_spec
    ("gymnasium")``, at its import): the probe used up the one-shot import hook without loading
    the module, so after ``import uno_env, torchrl`` no id was registered
    (``NamespaceNotFound: Namespace uno_env not found``)."""
    import subprocess
    import sys

    code = (
        "import importlib.util, sys, uno_env\n"
        "assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules\n"
        "assert importlib.util.find_spec('gymnasium') and importlib.util.find_spec('pettingzoo')\n"
        "import pettingzoo, gymnasium\n"
        "print('uno_env/uno-v1' in pettingzoo.aec_registry, 'uno_env/Uno-v1' in gymnasium.registry)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]


# ================================================================ agents, spaces, seeds
def test_agents_spaces_and_masks() -> None:
    env = uno_env.env("uno", 5)
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    space = env.observation_space("player_2")
    assert space is env.observation_space("player_2") and env.action_space("player_2") is env.action_space(
        "player_2"
    )
    assert list(space.spaces) == ["observation", "action_mask"]
    assert env.action_space("player_0").n == uno_env.preset("uno").num_actions
    env.reset(seed=11)
    current = env.agent_selection
    for agent in env.agents:
        obs = env.observe(agent)
        assert space.contains(obs)
        assert obs["action_mask"].any() == (agent == current)


def test_reset_deals_exactly_like_the_game_facade() -> None:
    env = uno_env.env("uno", 4)
    env.reset(seed=1234)
    game = Game("uno", 4, seed=1234)
    assert env.position() == game.position()
    assert env.agent_selection == f"player_{game.current_player}"
    rng = np.random.default_rng(0)
    for _ in range(300):
        mask = env.last()[0]["action_mask"]
        assert np.flatnonzero(mask).tolist() == game.legal_actions()
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        game.step(action)
        assert env.position() == game.position()
    env.reset()
    assert env.game_seed == next_seed(1234)
    assert env.position() == Game("uno", 4, seed=next_seed(1234)).position()


def test_same_seed_same_observations_different_seed_different_deal() -> None:
    a, b = uno_env.env("uno", 3), uno_env.env("uno", 3)
    a.reset(seed=5)
    b.reset(seed=5)
    np.testing.assert_array_equal(a.last()[0]["observation"], b.last()[0]["observation"])
    b.reset(seed=6)
    assert a.position() != b.position()


def test_bad_seed_and_options_are_refused() -> None:
    env = uno_env.env("uno", 3)
    with pytest.raises(ValueError, match="seed must be an integer"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="this env seats 3 players"):
        env.reset(
            options={"position": "hands=R1/R2; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=play"}
        )
    with pytest.raises(ValueError, match="reward must be one of 'win', 'rank', 'score'"):
        uno_env.env("uno", 3, reward="points")
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        uno_env.env("uno", 3, illegal_action="ignore")
    with pytest.raises(uno_env.RuleError, match="num_players=1"):
        uno_env.env("uno", 1)


# ================================================================ turns: who decides
def test_a_wild_keeps_the_turn_for_the_colour_choice() -> None:
    """U-WILD-1: after a Wild the same player names the colour, then play passes on."""
    env = pos("hands=W R1 R2/G3 G4/B9 B1; discard=R5; draw=B2 G9 Y1; colour=R; seat=0; dir=+; phase=play")
    env.step(uno_env.parse_action("W"))
    assert env.agent_selection == "player_0"
    mask = env.last()[0]["action_mask"]
    assert [uno_env.format_action(int(a)) for a in np.flatnonzero(mask)] == [
        "colour R", "colour Y", "colour G", "colour B",
    ]  # fmt: skip
    env.step(uno_env.parse_action("colour G"))
    assert env.agent_selection == "player_1"


def test_the_victim_of_a_wild_draw_four_decides_the_challenge() -> None:
    """U-WD4-2: the next player is asked, out of the normal flow, to challenge or accept."""
    env = pos(
        "hands=WD4 R1 R2/G3 G4/B9 B1; discard=Y5; draw=B2 G9 Y1 Y2 Y3 Y4 Y6; colour=Y; seat=0; dir=+; "
        "phase=play"
    )
    env.step(uno_env.parse_action("WD4"))
    env.step(uno_env.parse_action("colour B"))
    assert env.agent_selection == "player_1"
    mask = env.last()[0]["action_mask"]
    assert [uno_env.format_action(int(a)) for a in np.flatnonzero(mask)] == ["challenge", "accept"]
    for agent in ("player_0", "player_2"):
        assert not env.observe(agent)["action_mask"].any()


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_agent_selection_is_always_whoever_must_decide(name: str) -> None:
    """Every phase (out-of-turn jump-in and block windows, penalty answers, targets, gifts,
    colour choices) asks the seat in the state, and only that agent's mask is non-zero."""
    rules = uno_env.preset(name)
    n = max(rules.min_players, 4)
    env = uno_env.env(name, n, max_decisions=1500)
    phases_seen: set[int] = set()
    out_of_turn = 0
    rng = np.random.default_rng(1)
    for game_seed in range(3):
        env.reset(seed=game_seed)
        previous = None
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state = env.unwrapped._state
            assert agent == f"player_{int(state[L.S_CURRENT])}"
            phase = int(state[L.S_PHASE])
            phases_seen.add(phase)
            if phase in (L.PH_JUMP_IN, L.PH_BLOCK, L.PH_ANSWER, L.PH_CHALLENGE) and agent != previous:
                out_of_turn += 1
            masks = {a: env.observe(a)["action_mask"].any() for a in env.agents}
            assert [a for a, any_legal in masks.items() if any_legal] == [agent]
            previous = agent
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert L.PH_PLAY in phases_seen and out_of_turn > 0
    if rules.jump_in:
        assert L.PH_JUMP_IN in phases_seen


# ================================================================ rewards and the end
END = "hands=R5/G1 G2/B9 WD4; discard=R3; draw=Y1 Y2 Y3; colour=R; seat=0; dir=+; phase=play"


@pytest.mark.parametrize(
    ("reward", "expected"),
    [
        ("win", [1.0, -0.5, -0.5]),
        ("rank", [1.0, 0.0, -1.0]),  # seat 1 holds 3 points, seat 2 holds 59
        ("score", [62.0, -3.0, -59.0]),  # U-SCORE-1: 1 + 2 and 9 + 50
    ],
)
def test_rewards_at_the_end_of_a_won_game(reward: str, expected: list[float]) -> None:
    env = pos(END, reward=reward)
    env.step(uno_env.parse_action("R5"))
    assert [env.rewards[a] for a in env.possible_agents] == expected
    assert sum(expected) == 0
    assert all(env.terminations.values()) and not any(env.truncations.values())
    last = {}
    for agent in env.agent_iter():
        obs, reward_seen, term, trunc, _ = env.last()
        last[agent] = reward_seen
        assert term and not trunc and not obs["action_mask"].any()
        env.step(None)
    assert [last[a] for a in env.possible_agents] == expected
    assert env.agents == []


def test_score_reward_of_a_match_is_points_against_the_table_mean() -> None:
    """U-SCORE-2: a first-to-target match pays match points minus the mean."""
    env = pos(END + "; scores=100 0 20", reward="score", match="first_to_target", target=150)
    env.step(uno_env.parse_action("R5"))
    mean = (162 + 0 + 20) / 3  # seat 0 scored 62 on top of its 100
    assert [env.rewards[a] for a in env.possible_agents] == pytest.approx([162 - mean, 0 - mean, 20 - mean])


@pytest.mark.parametrize(
    ("reward", "expected"),
    [
        ("win", [1.0, -1 / 3, -1 / 3, -1 / 3]),
        ("rank", [1.0, -1.0, 1 / 3, -1 / 3]),  # then fewest points: seat 2 (2), seat 3 (10), seat 1 (17)
        ("score", [7.25, -9.75, 5.25, -2.75]),  # MM-SCORE-1: the mean (29 / 4) minus own points
    ],
)
def test_mau_mau_rewards_count_the_points_each_player_keeps(reward: str, expected: list[float]) -> None:
    if "mau_mau" not in uno_env.PRESETS:
        pytest.skip("no mau_mau preset")
    env = uno_env.env("mau_mau", 4, reward=reward)
    position = "hands=8H/8C 9C/2D/KS; discard=5H; draw=2C 3C 4C; colour=H; seat=0; dir=+; phase=play"
    env.reset(options={"position": position})
    env.step(uno_env.parse_action("8H", "french"))
    assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(expected)


def test_the_decision_limit_truncates_and_pays_the_standing() -> None:
    """E-END-1: the limit ends the game as truncated, never won; it pays by the standing
    (the player with fewer points in hand leads), or 0 with ``truncation_reward="zero"``."""
    env = pos(END.replace("R5/", "R5 G7/") + "; decisions=9", max_decisions=10)
    env.step(uno_env.parse_action("draw"))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(info["decision_limit"] for info in env.infos.values())
    assert sorted(env.rewards.values()) != [0.0] * len(env.rewards) and sum(env.rewards.values()) == 0
    play_out(env)
    env = pos(END.replace("R5/", "R5 G7/") + "; decisions=9", max_decisions=10, truncation_reward="zero")
    env.step(uno_env.parse_action("draw"))
    assert set(env.rewards.values()) == {0.0}


def test_step_after_the_end_only_warns(caplog: pytest.LogCaptureFixture) -> None:
    env = pos(END)
    env.step(uno_env.parse_action("R5"))
    play_out(env)
    with caplog.at_level(logging.WARNING):
        env.step(None)
    assert "step() called after all agents are terminated or truncated" in caplog.text


# ================================================================ illegal actions
def test_terminate_ends_the_game_with_the_penalty(caplog: pytest.LogCaptureFixture) -> None:
    env = pos(END.replace("R5/", "R5 G7/"))
    with caplog.at_level(logging.WARNING):
        env.step(uno_env.parse_action("G7"))  # not matching
    assert "Illegal move" in caplog.text
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert all(env.terminations.values())
    play_out(env)


def test_raise_names_the_legal_actions_and_keeps_the_game() -> None:
    env = pos(END.replace("R5/", "R5 G7/"), illegal_action="raise")
    before = env.position()
    with pytest.raises(
        IllegalActionError, match=r"legal actions: 5=R5, 69=draw, 71=call; position: hands=R5 G7"
    ) as info:
        env.step(uno_env.parse_action("G7"))
    assert info.value.legal == [5, 69, 71] and info.value.action == uno_env.parse_action("G7")
    assert env.position() == before and env.agent_selection == "player_0"


def test_draw_penalty_takes_the_card_back_and_draws_two() -> None:
    """U-WRONG-1: the wrong card goes back, its player draws 2 and decides again."""
    env = pos(END.replace("R5/", "R5 G7/"), illegal_action="draw_penalty")
    env.step(uno_env.parse_action("G7"))
    assert env.agent_selection == "player_0"
    assert env.position().startswith("hands=R5 Y1 Y2 G7/")
    assert "decisions=1" in env.position()
    obs = env.last()[0]
    assert (obs["observation"][:56].sum(), obs["action_mask"].sum()) == (4, 2)  # R5 G7 Y1 Y2; R5, draw
    assert not any(env.terminations.values())


def test_draw_penalty_counts_as_a_decision_so_the_limit_still_ends_the_game() -> None:
    env = pos(END.replace("R5/", "R5 G7/"), illegal_action="draw_penalty", max_decisions=12)
    for _ in range(12):
        if not env.agents or env.truncations[env.agent_selection]:
            break
        env.step(uno_env.parse_action("G7"))
    assert all(env.truncations.values())


@pytest.mark.parametrize("bad", [999, -1, 74, 1.5, "R7", True, np.array([1, 2])])
def test_out_of_bounds_actions_raise(bad: Any) -> None:
    env = uno_env.env("uno", 3)
    env.reset(seed=0)
    with pytest.raises(ActionOutOfBoundsError, match="not in the action space"):
        env.step(bad)
    assert issubclass(ActionOutOfBoundsError, AssertionError)


def test_none_for_an_agent_still_playing_says_what_none_is_for() -> None:
    env = uno_env.env("uno", 3)
    env.reset(seed=0)
    with pytest.raises(ActionOutOfBoundsError, match=r"None is only for an agent that is done.*0\.\.73"):
        env.step(None)


def test_an_integer_scalar_of_another_array_library_is_an_action() -> None:
    torch = pytest.importorskip("torch")
    env = uno_env.env("uno", 3)
    env.reset(seed=0)
    action = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    with pytest.raises(ActionOutOfBoundsError, match="not in the action space"):
        env.step(torch.tensor(float(action)))  # a float is not an id, from any library
    env.step(torch.tensor(action))
    assert env.unwrapped.position() == _after(action)


def test_numpy_integer_actions_are_accepted() -> None:
    env = uno_env.env("uno", 3)
    env.reset(seed=0)
    action = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(np.int32(action))
    assert env.unwrapped.position() == _after(action)


def _after(action: int) -> str:
    game = Game("uno", 3, seed=0)
    game.step(action)
    return game.position()


# ================================================================ order enforcing (env())
def test_order_is_enforced_before_reset() -> None:
    env = uno_env.env("uno", 3)
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        _ = env.agents
    with pytest.raises(AttributeError, match="num_agents cannot be accessed before reset"):
        _ = env.num_agents  # was "'UnoEnv' object has no attribute 'num_agents'"
    assert env.max_num_agents == 3
    with pytest.raises(AssertionError, match="before step"):
        env.step(0)
    with pytest.raises(AssertionError, match="before observe"):
        env.observe("player_0")
    with pytest.raises(AssertionError, match="before agent_iter"):
        env.agent_iter()
    with pytest.raises(AssertionError, match="before render"):
        uno_env.env("uno", 3, render_mode="ansi").render()


def test_agent_iter_needs_a_step_between_agents() -> None:
    env = uno_env.env("uno", 3)
    env.reset(seed=0)
    agents = iter(env.agent_iter())
    next(agents)
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)


def test_last_once_every_agent_left_and_unknown_agents_name_what_is_allowed() -> None:
    """``last()`` after the game (every agent stepped out) was a bare ``KeyError: 'player_1'``,
    as were ``observation_space`` and ``action_space`` of a name that is no agent."""
    env = uno_env.env("uno", 3)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))  # illegal: the game ends
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in env.agent_iter():
            env.step(None)
    with pytest.raises(KeyError, match=r"every agent has left the finished game; call reset\(\)"):
        env.last()
    for space in (env.observation_space, env.action_space):
        with pytest.raises(KeyError, match="unknown agent 'player_3'; agents: player_0, player_1, player_2"):
            space("player_3")


# ================================================================ rendering
def test_render_test_passes_for_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(
        lambda render_mode=None: uno_env.env("uno", 3, render_mode=render_mode),
        custom_tests={"ansi": lambda text: isinstance(text, str) and "top " in text and "seat" in text},
    )
    assert "direction" in capsys.readouterr().out


def test_ansi_shows_the_table_and_the_chosen_hand() -> None:
    env = pos(
        "hands=R5 R6 R7/G1/B9 WD4; discard=R3; draw=Y1 Y2 Y3; colour=R; seat=0; dir=+; phase=play; called=1",
        render_mode="ansi",
        render_seat=0,
    )
    env.step(uno_env.parse_action("R5"))
    text = env.render()
    assert isinstance(text, str)
    lines = text.splitlines()
    assert "seat 1 to play" in lines[0] and "3 players" in lines[0]
    assert (
        "top R5" in lines[1]
        and "colour R" in lines[1]
        and "clockwise" in lines[1]
        and "draw pile 3" in lines[1]
    )
    rows = {line[1:].split()[0]: line for line in lines if re.match(r"^[ >]\d", line)}
    assert rows["0"].split()[-2:] == ["R6", "R7"]
    assert "UNO" in rows["1"] and rows["1"].rstrip().endswith("?") and rows["2"].rstrip().endswith("?")
    assert next(line for line in lines if line.startswith(">")).startswith(">1")


def test_ansi_shows_the_hands_a_zero_showed_the_chosen_seat() -> None:
    """H-ZEROSEE-1: a 0 shows its player the other hands; the chosen seat's table shows them
    face up while they are unchanged."""
    env = pos(
        "hands=R0 G5 G6/Y1 Y2/B3 B4; discard=R5; draw=G1 G2 G3; colour=R; seat=0; dir=+; phase=play",
        render_mode="ansi",
        render_seat=0,
        zero_reveals=True,
    )
    env.step(uno_env.parse_action("R0"))
    rows = {line[1:].split()[0]: line for line in env.render().splitlines() if re.match(r"^[ >]\d", line)}
    assert rows["1"].split()[-2:] == ["Y1", "Y2"] and rows["2"].split()[-2:] == ["B3", "B4"]
    env.step(uno_env.parse_action("draw"))  # seat 1's hand changed: face down again
    rows = {line[1:].split()[0]: line for line in env.render().splitlines() if re.match(r"^[ >]\d", line)}
    assert rows["1"].rstrip().endswith("?") and rows["2"].split()[-2:] == ["B3", "B4"]


def test_a_seats_table_does_not_name_a_card_given_between_two_other_seats() -> None:
    """H-TWO-1: seat 0 gives G5 and B7 to seat 2. Seat 1's table (text and picture) says only that
    seat 0 gave; the receiver's table names the card; the table of every hand names it too."""
    text = (
        "hands=R2 G5 G6 B7/Y1 Y2/B3 B4/Y7 Y8; discard=R5; draw=G1 G2 G3 G4; colour=R; seat=0; dir=+; "
        "phase=play"
    )

    def last_of_seat_0(render_seat: int | None) -> str:
        env = pos(text, render_mode="ansi", render_seat=render_seat, two_gives=True)
        for move in ("R2", "target +2", "G5", "B7"):
            env.step(uno_env.parse_action(move))
        row = next(line for line in env.render().splitlines() if re.match(r"^[ >]0 ", line))
        return row[1:].split()[2]  # seat, cards, last (no call stands)

    assert [last_of_seat_0(seat) for seat in (1, 3, 2, 0, None)] == ["gave", "gave", "B7", "B7", "B7"]
    # the picture: seat 1 sees the same table whichever card went last; the receiver does not
    pictures = {}
    for seat in (1, 2):
        for last in ("B7", "G6"):
            env = pos(text, render_mode="rgb_array", render_seat=seat, two_gives=True)
            for move in ("R2", "target +2", "G5", last):
                env.step(uno_env.parse_action(move))
            pictures[seat, last] = env.render()
    assert np.array_equal(pictures[1, "B7"], pictures[1, "G6"])
    assert not np.array_equal(pictures[2, "B7"], pictures[2, "G6"])


def test_human_mode_prints_and_returns_none(capsys: pytest.CaptureFixture[str]) -> None:
    env = uno_env.env("uno", 3, render_mode="human")
    env.reset(seed=2)
    assert env.render() is None
    assert "seat" in capsys.readouterr().out


def test_every_observation_stays_in_its_space_over_whole_games() -> None:
    for n in (2, 7):
        env = uno_env.env("uno", n, reward="rank")
        env.reset(seed=n)
        space = env.observation_space("player_0")
        steps = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            assert space.contains(obs), agent
            if term or trunc:
                env.step(None)
                continue
            env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
            steps += 1
        assert steps > 10 and env.agents == []


def test_reset_options_that_are_not_a_dict_are_refused() -> None:
    """``reset(options="position")`` was ``AttributeError: 'str' object has no attribute 'get'``.
    (Unknown keys stay ignored: PettingZoo's api_test resets with ``options={"options": 1}``.)"""
    env = uno_env.env("uno", 3)
    with pytest.raises(ValueError, match=r"reset options are None or a dict \(the key 'position'"):
        env.reset(seed=0, options="position")  # type: ignore[arg-type]
    env.reset(seed=0, options={"options": 1})


# ================================================================ out-of-turn windows stay hidden
# Seat 0 lays R5 (or a 0); in world A seat 2 holds an identical card (or a 0) and is asked out of
# turn; in world B that card sits in the draw pile instead, and nobody is asked.
WINDOW_TURN = "; colour=R; seat=0; dir=+; phase=play"
WINDOW_WORLDS = {
    "jump_in": (
        {"jump_in": True},
        "R5",
        "hands=R5 G1 G2/B1 B2 B3/R5 Y1 Y2; discard=R9; draw=Y3 Y4 Y5 Y6 Y7" + WINDOW_TURN,
        "hands=R5 G1 G2/B1 B2 B3/Y7 Y1 Y2; discard=R9; draw=Y3 Y4 Y5 Y6 R5" + WINDOW_TURN,
    ),
    "block": (
        {"zero_reveals": True},
        "R0",
        "hands=R0 G1 G2/B1 B2 B3/G0 Y1 Y2; discard=R9; draw=Y3 Y4 Y5 Y6 Y7" + WINDOW_TURN,
        "hands=R0 G1 G2/B1 B2 B3/Y7 Y1 Y2; discard=R9; draw=Y3 Y4 Y5 Y6 G0" + WINDOW_TURN,
    ),
}


@pytest.mark.parametrize("label", sorted(WINDOW_WORLDS))
def test_an_open_window_shows_the_seats_not_asked_the_game_as_if_nobody_held_the_card(label: str) -> None:
    """H-JUMP-1, H-ZEROSEE-1: a window asks only the seats holding a card to lay, so while it is
    open the other seats' observations (AEC ``observe``, and so every agent of the Parallel env)
    are those of the same game in which nobody held one: they do not tell who was asked."""
    rules, card, asked, nobody = WINDOW_WORLDS[label]
    world_a = uno_env.env("uno", 3, **rules)
    world_a.reset(seed=0, options={"position": asked})
    world_b = uno_env.env("uno", 3, **rules)
    world_b.reset(seed=0, options={"position": nobody})
    for world in (world_a, world_b):
        world.step(uno_env.parse_action(card))
    assert world_a.agent_selection == "player_2"  # asked out of turn: the window is open
    assert world_a.position() != world_b.position()
    revealed = obs_layout("uno").slice("revealed")
    for agent in ("player_0", "player_1"):
        seen_a, seen_b = world_a.observe(agent)["observation"], world_b.observe(agent)["observation"]
        if label == "block" and agent == "player_0":
            # the player of the 0 waits for its look: the hands show once nobody blocked
            assert not seen_a[revealed].any() and seen_b[revealed].any()
            seen_a, seen_b = np.delete(seen_a, revealed), np.delete(seen_b, revealed)
        np.testing.assert_array_equal(seen_a, seen_b, err_msg=agent)
        assert not world_a.observe(agent)["action_mask"].any()
    # the seat asked sees its own decision
    assert world_a.observe("player_2")["action_mask"].any()


# ================================================================ the global state (PettingZoo's state())
@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_pettingzoos_state_test_passes_for_every_preset(name: str) -> None:
    """PettingZoo's ``state_test`` over the AEC and the Parallel env of each preset, at its
    fewest and most players; every warning it gives fails the test."""
    rules = uno_env.preset(name)
    for n in (rules.min_players, rules.max_players):
        aec_env = pettingzoo.make("aec", pettingzoo_id(name), num_players=n)
        parallel = pettingzoo.make("parallel", pettingzoo_id(name), num_players=n)
        run_without_unexpected_warnings(lambda: state_test(aec_env, parallel, num_cycles=50))  # noqa: B023


@pytest.mark.parametrize("name", ["uno_house", "macao"])
def test_state_is_every_seats_observation_seat_0_first(name: str) -> None:
    """``state()`` is each seat's observation vector end to end, in ``state_space``; outside an
    out-of-turn window each part is what ``observe`` gives that seat."""
    env = uno_env.env(name, 3, max_decisions=60)
    size = obs_layout(env.unwrapped.deck).size
    assert env.state_space.shape == (3 * size,) and env.state_space.dtype == np.float32
    rng = np.random.default_rng(0)
    env.reset(seed=3)
    for agent in env.agent_iter():
        state = env.state()
        assert state.dtype == np.float32 and env.state_space.contains(state)
        if not env.terminations[agent] and not env.truncations[agent]:
            if env.unwrapped._state[L.S_PHASE] not in (L.PH_JUMP_IN, L.PH_BLOCK):
                for seat, other in enumerate(env.possible_agents):
                    part = state[seat * size : (seat + 1) * size]
                    np.testing.assert_array_equal(part, env.observe(other)["observation"], err_msg=other)
            mask = env.observe(agent)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        else:
            env.step(None)
    assert env.state().shape == (3 * size,)  # the final position, after every agent left


def test_state_shows_an_open_window_to_every_seat() -> None:
    """H-JUMP-1: where ``observe`` shows the seats not asked the game as if nobody held the card,
    the global state shows the window in every seat's part: seat 2 is asked out of turn."""
    rules, card, asked, _ = WINDOW_WORLDS["jump_in"]
    env = uno_env.env("uno", 3, **rules)
    env.reset(seed=0, options={"position": asked})
    env.step(uno_env.parse_action(card))
    assert env.agent_selection == "player_2"
    size = obs_layout("uno").size
    to_move = obs_layout("uno").slice("to_move")
    state = env.state()
    for seat in range(3):
        part = state[seat * size : (seat + 1) * size]
        assert part[to_move][(2 - seat) % 3] == 1.0  # relative seat of seat 2
    assert env.observe("player_0")["observation"][to_move][2] == 0.0  # observe hides the window


def test_state_before_reset_raises() -> None:
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before state"):
        uno_env.env("uno", 2).state()

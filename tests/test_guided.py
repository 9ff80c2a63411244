"""The search guided by a network (:mod:`uno_env.sim.guided`) and exported critics.

- Without a network the guided search is the plain search, move for move (the labelled games
  are the simulator's games).
- ``search:net=NAME`` parses, prints and seats the network; its parameters without a network,
  or a caller that cannot seat networks, are refused with a message.
- A critic round-trips through the exported format; its compiled value is the numpy one;
  malformed critics are refused.
- The guided search plays legal, deterministic games in the simulator and at a ``Game``.
- :func:`uno_env.sim.guided.label_games` records what the search found (legal actions, the move
  played among the searched ones) and the critic's privileged rows; the games do not depend
  on how many critic rows are kept.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import agents
import uno_env
from uno_env.engine import layout as L
from uno_env.engine.rules import compile_spec, load_rules
from uno_env.game.encoding import obs_layout, observe_state
from uno_env.sim import guided
from uno_env.sim.learned import PolicyFileError, is_learned_policy, load_exported, load_policy, save_exported
from uno_env.styles.params import P_NET
from uno_env.styles.registry import canonical_policy, parse_policy, policy_table

SHIPPED = "ppo_uno_2p"


@pytest.fixture(scope="module")
def with_critic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ppo_uno_2p's actor with a small random critic (one hidden layer of 8)."""
    policy = load_policy(SHIPPED)
    rng = np.random.default_rng(0)
    weights = [rng.normal(0, 0.1, (8, policy.inputs)), rng.normal(0, 0.3, (1, 8))]
    biases = [rng.normal(0, 0.1, 8), np.zeros(1)]
    critic = ([w.astype(np.float32) for w in weights], [b.astype(np.float32) for b in biases])
    meta = {k: v for k, v in policy.meta.items() if k not in ("format", "architecture", "weights_sha256")}
    path = tmp_path_factory.mktemp("critic") / "with_critic.npz"
    return save_exported(path, list(policy.weights), list(policy.biases), "tanh", meta, critic=critic)


def _label(
    names: list[str], games: int, seed: int, labelled: list[bool], critic_ppm: int
) -> dict[str, np.ndarray]:
    rules = load_rules("uno")
    n = len(names)
    seating = guided.network_seating(names, rules, allow_rules_mismatch=False)
    rows, crows = games * 200, games * 400
    buffers: dict[str, np.ndarray] = {
        "obs_ptr": np.zeros(rows + 1, np.int64), "obs_idx": np.zeros(rows * 96, np.int16),
        "obs_val": np.zeros(rows * 96, np.float32), "masks": np.zeros((rows, rules.num_actions), np.int8),
        "cand_ptr": np.zeros(rows + 1, np.int64), "cand_action": np.zeros(rows * 8, np.int16),
        "cand_value": np.zeros(rows * 8, np.float32), "cand_samples": np.zeros(rows * 8, np.int32),
        "kept": np.zeros(rows, np.int16), "played": np.zeros(rows, np.int16),
        "row_game": np.zeros(rows, np.int32), "row_seat": np.zeros(rows, np.int8),
        "crit_ptr": np.zeros(crows + 1, np.int64),
        "crit_idx": np.zeros(crows * 128, np.int16), "crit_val": np.zeros(crows * 128, np.float32),
        "crit_game": np.zeros(crows, np.int32), "crit_seat": np.zeros(crows, np.int8),
        "winners": np.zeros(games, np.int64),
    }  # fmt: skip
    used, cused = guided.label_games(
        compile_spec(rules), n, rules.deck_counts(n), seed, games, seating.codes, seating.params,
        np.array(labelled), seating.seat_nets, seating.bank, seating.table, seating.offsets, seating.obs_size,
        critic_ppm, *buffers.values(),
    )  # fmt: skip
    assert used >= 0 and cused >= 0
    buffers["rows"] = np.array([used, cused])
    return buffers


def test_without_a_network_the_guided_search_is_the_search() -> None:
    """label_games seats row ``(s - g) mod N`` at seat ``s``: the even games put the search at
    seat 0, as ``simulate`` does; their winners are the simulator's (the same moves)."""
    names = ["search:sims=40", "blocker"]
    labelled = _label(names, 16, 11, [True, False], 0)
    played = uno_env.simulate("uno", 2, 16, seed=11, policies=names)
    assert np.array_equal(labelled["winners"][::2], played.winner[::2])
    state = uno_env.Game("uno", 2, seed=4)
    spec = state.compiled.spec
    for _ in range(30):  # decisions of every kind in one game: the same action from the same generator
        mask = np.zeros(L.MAX_ACTIONS, np.int8)
        mask[: state.num_actions] = state.legal_mask()
        codes, params = policy_table(["search:sims=30"])
        a, b = state.state.copy(), state.state.copy()
        plain = uno_env.styles.dispatch.choose_action(
            a, spec, mask, int(mask.sum()), int(codes[0]), params[0]
        )
        stats = np.zeros((L.MAX_ACTIONS, guided.STAT_COLUMNS))
        bank, table = uno_env.sim.learned.pack_layers([])
        lay = obs_layout("uno")
        mine = guided.guided_search(
            b, spec, mask, int(mask.sum()), params[0], False, bank, table, lay.offsets, lay.size, stats
        )
        assert plain == mine and np.array_equal(a, b)
        state.step(int(plain))
        if state.is_over():
            break


def test_network_parameters_parse_print_and_need_a_network() -> None:
    style, params = parse_policy(f"search:sims=200,net={SHIPPED},top=3,own=net")
    assert style.name == "search" and params[P_NET] >= 0
    text = canonical_policy(f"search:net={SHIPPED}")
    assert f"net={SHIPPED}" in text and "top=0" in text and "default=net" in text
    assert "net=" not in canonical_policy("search")  # the plain search's text is unchanged
    assert guided.network_of(f"search:net={SHIPPED}") == SHIPPED and guided.network_of("search") is None
    for text, message in (
        ("search:top=3", "top of 'search' needs a network"),
        ("search:top=3,rollout=net", "top, rollout=net of 'search' need a network"),
        ("search:rollout=net", "rollout=net"),
        ("search:value=net", "value=net"),
        ("search:net=no_such_policy", "must name an exported network"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_policy(text)
    with pytest.raises(ValueError, match="a search guided by a network plays in simulate"):
        policy_table([f"search:net={SHIPPED}"])
    assert not is_learned_policy("search:net=runs/x.npz") and is_learned_policy("runs/x.npz")
    with pytest.raises(ValueError, match="value=net needs a network file with a critic"):
        uno_env.simulate("uno", 2, 1, seed=0, policies=[f"search:net={SHIPPED},value=net", "blocker"])


def test_a_critic_round_trips_and_the_compiled_value_is_numpy_s(with_critic: Path) -> None:
    policy = load_exported(with_critic)
    assert policy.has_critic and policy.meta["architecture"]["critic"]["hidden"] == [8]
    assert not load_policy(SHIPPED).has_critic
    game = uno_env.Game("uno", 2, seed=8)
    for _ in range(5):
        game.step(game.legal_actions()[0])
    lay = obs_layout("uno")
    spec = game.compiled.spec
    x = np.zeros(lay.size, np.float32)
    guided.encode_privileged(game.state, spec, 0, lay.offsets, x)
    assert np.array_equal(
        x[: lay.size][lay.slice("hand")], observe_state(game.state, spec, 0, "uno")[lay.slice("hand")]
    )
    revealed = x[lay.slice("revealed")][: lay.num_faces]
    assert revealed.sum() == game.state[L.HAND_SIZE + 1]  # the other hand, in full
    bank, table = uno_env.sim.learned.pack_layers(
        [("c", policy.critic_weights, policy.critic_biases, "tanh")]
    )
    width = uno_env.sim.learned.widest_layer(table)
    scratch = (
        np.zeros((1, lay.size), np.float32),
        np.zeros((1, width), np.float32),
        np.zeros((1, width), np.float32),
    )
    compiled = guided.critic_value(
        game.state, spec, 0, lay.offsets, bank, table, 0, *scratch, np.zeros(1, np.int64)
    )
    assert compiled == pytest.approx(float(policy.critic_value(x)), abs=1e-5)


def test_malformed_critics_are_refused(with_critic: Path, tmp_path: Path) -> None:
    import json
    import shutil

    target = tmp_path / "bad.npz"
    shutil.copy(with_critic, target)
    meta = json.loads(with_critic.with_suffix(".json").read_text())
    meta["architecture"]["critic"]["hidden"] = [9]
    target.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(PolicyFileError, match=r"critic\.hidden\.0\.weight"):
        load_exported(target)
    meta["architecture"]["critic"] = {"inputs": 884, "hidden": [8], "encoding": "public"}
    target.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(PolicyFileError, match=r"critic\.encoding is 'public'; allowed: 'privileged'"):
        load_exported(target)
    policy = load_policy(SHIPPED)
    with pytest.raises(ValueError, match="ending in one output"):
        bad = ([np.zeros((2, 884), np.float32)], [np.zeros(2, np.float32)])
        save_exported(
            tmp_path / "x.npz",
            list(policy.weights),
            list(policy.biases),
            "tanh",
            dict(policy.meta),
            critic=bad,
        )


def test_the_guided_search_plays_legal_deterministic_games(with_critic: Path) -> None:
    names = [f"search:sims=40,net={with_critic},top=3,own=net", "blocker"]
    first = uno_env.simulate("uno", 2, 6, seed=5, policies=names, check_invariants=True)
    again = uno_env.simulate("uno", 2, 6, seed=5, policies=names)
    assert np.array_equal(first.winner, again.winner) and np.array_equal(first.length, again.length)
    outcomes = []
    for _ in range(2):
        bot = agents.make(f"search:sims=30,net={SHIPPED},rollout=net,depth=4", seed=3)
        game = uno_env.Game("uno", 2, seed=9)
        outcomes.append(agents.play(game, [bot, agents.make("blocker", seed=1)]))
    assert outcomes[0] == outcomes[1]


def test_labelled_games_record_the_search(with_critic: Path) -> None:
    names = [f"search:sims=40,net={with_critic}", "blocker"]
    data = _label(names, 6, 21, [True, False], 500_000)
    rows, crows = data["rows"]
    assert rows > 20 and crows > 20
    for r in range(rows):
        mask = data["masks"][r]
        searched = data["cand_action"][data["cand_ptr"][r] : data["cand_ptr"][r + 1]]
        assert mask[data["played"][r]] and all(mask[a] for a in searched)
        assert data["played"][r] in searched and data["kept"][r] in searched
        assert mask.sum() >= 2
    assert set(data["row_seat"][:rows]) == {0, 1}  # the searcher's seat rotates with the game
    # a true UNO call is made without searching, and is a row too (a network that never saw one
    # forgets to call, and pays the penalty): its one candidate is the call, with no rollouts
    call = 56 + L.A_CALL_OFFSET
    unsearched = [r for r in range(rows) if data["cand_samples"][data["cand_ptr"][r]] == 0]
    assert unsearched
    for r in unsearched:
        lo, hi = data["cand_ptr"][r], data["cand_ptr"][r + 1]
        assert list(data["cand_action"][lo:hi]) == [call] and data["played"][r] == data["kept"][r] == call
    assert np.array_equal(data["winners"], _label(names, 6, 21, [True, False], 0)["winners"])
    lay = obs_layout("uno")
    revealed = lay.slice("revealed")
    values = data["crit_idx"][: data["crit_ptr"][crows]]
    assert ((values >= revealed.start) & (values < revealed.stop)).any()  # the other hand is in view


def test_a_guide_for_another_game_is_refused_where_an_exported_policy_would_be() -> None:
    """A search's network is held to the rule of an exported policy in the seat: trained for 4
    players, it is refused at 2 by the tournament, evaluate, benchmark, a study spec and a
    training opponent table, unless the rules mismatch is allowed; at 4 players it plays."""
    from agents.benchmark import benchmark
    from training import study
    from training.evaluate import evaluate
    from training.pool import vector_opponent
    from training.tournament import check_agents

    four = "search:sims=20,net=expert_ppo_uno_4p"
    rules = load_rules("uno")
    unfit = (
        r"agent 'search:sims=20,net=expert_ppo_uno_4p', the search's network: policy expert_ppo_uno_4p "
        r"does not fit this game: trained for 4 players, the game has 2"
    )
    with pytest.raises(ValueError, match=unfit + r" \(pass allow_rules_mismatch=True to play it on other"):
        check_agents([four, "greedy"], rules, 2)
    check_agents([four, "greedy"], rules, 2, allow_rules_mismatch=True)
    check_agents([four, "greedy", "blocker", "hoarder"], rules, 4)
    with pytest.raises(PolicyFileError, match=unfit):
        evaluate("greedy", rules, 2, [four], games=2, log=lambda _: None)
    with pytest.raises(PolicyFileError, match=unfit):
        evaluate(four, rules, 2, ["greedy"], games=2, log=lambda _: None)
    assert evaluate(four, rules, 2, ["greedy"], games=2, allow_rules_mismatch=True, log=lambda _: None)
    with pytest.raises(PolicyFileError, match=unfit):
        benchmark("greedy", four, rules, 2, deals=1)
    assert benchmark("greedy", four, rules, 2, deals=1, allow_rules_mismatch=True)["games"] == 2
    with pytest.raises(PolicyFileError, match=unfit):
        vector_opponent(four, rules, 2)
    assert isinstance(vector_opponent(four, rules, 2, allow_rules_mismatch=True), agents.ScriptedAgent)
    # the vector env's games (a checkpoint's, a trained policy's) take the same allowance
    from training.evaluate import play_policy

    def first_legal(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.argmax(masks, axis=1)

    with pytest.raises(PolicyFileError, match=unfit):
        play_policy(first_legal, rules, 2, [four], games=2, seed=0)
    assert play_policy(
        first_legal, rules, 2, [four], games=2, seed=0, allow_rules_mismatch=True
    ).won.shape == (2,)
    # an exported opponent checked for one game is checked again for another
    vector_opponent("distilled_uno_2p", rules, 2)
    with pytest.raises(PolicyFileError, match="trained on other rules"):
        vector_opponent("distilled_uno_2p", load_rules("uno_house"), 2)
    spec = {"name": "guided", "bases": ["uno"], "players": [2], "styles": ["greedy", four], "games": 10}
    with pytest.raises(study.SpecError, match="allow_rules_mismatch = true allows other rules"):
        study.parse_spec(spec)
    assert study.parse_spec({**spec, "allow_rules_mismatch": True}).styles == ("greedy", four)
    # a guide from another deck family does not fit even as a transfer
    with pytest.raises(ValueError, match=r"74 actions, these rules have 72$"):
        check_agents(["search:net=ppo_uno_2p", "greedy"], load_rules("macao"), 2, allow_rules_mismatch=True)


def test_a_guide_file_travels_with_its_search(tmp_path: Path) -> None:
    """A search guided by a network file lists the file and its sidecar among the files a
    runner sends to other machines, and reads the copy the file resolver gives there."""
    from agents.spec import parse_agent, set_file_resolver

    agent = parse_agent("search:sims=100,net=./nets/mine.npz,top=3")
    assert agent.networks == ("./nets/mine.npz",)
    assert agent.files() == ("./nets/mine.npz", str(Path("nets/mine.json")))
    assert agent.policy == agent.text  # where the spec was parsed: the path as written
    set_file_resolver(lambda path: tmp_path / Path(path).name)
    try:
        assert agent.policy == f"search:sims=100,net={tmp_path / 'mine.npz'},top=3"
        assert agent.text == "search:sims=100,net=./nets/mine.npz,top=3"  # its name does not change
        assert parse_agent(f"search:net={SHIPPED}").policy == f"search:net={SHIPPED}"  # shipped: no file
    finally:
        set_file_resolver(None)
    assert parse_agent(f"search:net={SHIPPED}").files() == () and parse_agent("search").networks == ()

"""Tournaments: the duplicate format (every deal under every seating), the statistics and
ratings, resume, the command line, bad input, and a learned policy through the Python path.

Budget: about 20 s of CPU (most of it loading torch for the tiny learned policy).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import uno_env
from tests.policy_files import write_policy
from training import tournament
from uno_env.stats import grouped_ratio, plackett_luce

pd = pytest.importorskip("pandas")
pytest.importorskip("openskill")

AGENTS = ["greedy", "aggressor", "hoarder", "bluffer:bluff=0.3,challenge=0.8"]


@pytest.fixture(scope="module")
def three_player(tmp_path_factory: pytest.TempPathFactory) -> tournament.TournamentResult:
    out = tmp_path_factory.mktemp("tournament") / "t"
    return tournament.run_tournament("uno", 3, AGENTS, 6, seed=11, out=out, executor="process", workers=2,
                                     batch_games=4, progress=False)  # fmt: skip


def test_agents_split_on_commas_but_keep_style_parameters() -> None:
    text = "greedy,bluffer:bluff=0.3,challenge=0.8,random, hoarder:threat=3"
    assert tournament.split_agents(text) == [
        "greedy",
        "bluffer:bluff=0.3,challenge=0.8",
        "random",
        "hoarder:threat=3",
    ]
    # a parameter whose value holds a ':' (a URL) stays with its agent too
    llm = "llm:model=m,base_url=http://127.0.0.1:8000/v1"
    assert tournament.split_agents(f"{llm},greedy") == [llm, "greedy"]


@pytest.mark.parametrize("text", ["greedy,,blocker", "greedy,blocker,", ",greedy,blocker", "search:sims=5,"])
def test_an_empty_agents_entry_is_refused(text: str) -> None:
    """An empty ``--agents`` entry was skipped: a trailing comma after a style's parameters, or
    an agent lost between two commas, went unnoticed."""
    with pytest.raises(
        ValueError, match=f"^--agents '{text}' has an empty entry; allowed: agent specs separated"
    ):
        tournament.split_agents(text)


def test_every_deal_is_played_at_every_table_in_every_seating(
    three_player: tournament.TournamentResult,
) -> None:
    games = three_player.games
    tables = list(itertools.combinations(AGENTS, 3))
    assert len(games) == 6 * len(tables) * 6  # deals x tables x 3! seatings
    for t, table in enumerate(tables):
        part = games[games["table"] == t]
        assert set(part["seating"]) == {"|".join(p) for p in itertools.permutations(table)}
        for seating, rows in part.groupby("seating"):
            assert rows["deal"].tolist() == list(range(6))
            assert rows["seed"].tolist() == list(range(11, 17))
            # the same deals as the batch engine plays them, seat by seat
            expected = uno_env.simulate("uno", 3, 6, seed=11, policies=seating.split("|"))
            assert rows["winner_seat"].tolist() == expected.winner.tolist()
            assert rows["length"].tolist() == expected.length.tolist()
            assert rows["turns"].tolist() == expected.turns.tolist()
    assert games["deal"].is_monotonic_increasing  # ordered deal by deal (the rating order)


def test_standings_count_every_game_and_carry_ratings(three_player: tournament.TournamentResult) -> None:
    table = three_player.standings
    games = three_player.games
    assert sorted(table["agent"]) == sorted(AGENTS)
    assert (table["games"] == 6 * 3 * 6).all()  # 3 tables hold each agent, 6 seatings, 6 deals
    assert table["wins"].sum() == (games["winner"] != "").sum()
    for _, row in table.iterrows():
        assert row["wins"] == (games["winner"] == row["agent"]).sum()
        assert row["win_lo"] <= row["win_rate"] <= row["win_hi"]
        assert row["strength_lo"] < row["strength"] < row["strength_hi"]
        assert row["rating_sigma"] > 0 and np.isfinite(row["rating_ordinal"])
        assert 1 <= row["mean_rank"] <= 3
    assert table["strength"].is_monotonic_decreasing
    assert table["rating_mu"].nunique() == len(AGENTS)  # the games moved the ratings apart
    assert table["strength"].sum() == pytest.approx(0.0, abs=1e-9)  # centred
    for name in ("standings.csv", "standings.parquet", "standings.png", "games.csv", "tournament.json"):
        assert (three_player.out / name).stat().st_size > 0


def test_intervals_take_the_deal_as_the_unit(three_player: tournament.TournamentResult) -> None:
    """An agent's games of one deal are summed first; the interval rests on the 6 deals."""
    games = three_player.games
    for _, row in three_player.standings.iterrows():
        seated = games[games["seating"].str.split("|").apply(lambda s, a=row["agent"]: a in s)]
        per_deal = seated.groupby("deal").agg(
            wins=("winner", lambda w, a=row["agent"]: int((w == a).sum())), games=("winner", "size")
        )
        est = grouped_ratio(per_deal["wins"].to_numpy(), per_deal["games"].to_numpy())
        assert est.groups == 6 and row["deals"] == 6
        assert (row["win_lo"], row["win_hi"]) == pytest.approx(est.proportion_interval())
    # the strengths: finishing orders of the games that ended, scores summed within each deal
    index = {a: i for i, a in enumerate(AGENTS)}
    ended = games[games["ranking"] != ""]
    orders = np.array([[index[a] for a in r.split("|")] for r in ended["ranking"]])
    fit = plackett_luce(orders, ended["deal"].to_numpy(), len(AGENTS))
    assert fit.groups == 6
    by_agent = three_player.standings.set_index("agent")
    for agent, i in index.items():
        est = fit.estimate(i)
        assert by_agent.loc[agent, "strength"] == pytest.approx(est.value)
        assert (by_agent.loc[agent, "strength_lo"], by_agent.loc[agent, "strength_hi"]) == pytest.approx(
            est.interval()
        )
    length = tournament.game_length(games)
    per_deal = games.groupby("deal")["turns"].agg(["sum", "size"])
    expected = grouped_ratio(per_deal["sum"].to_numpy(), per_deal["size"].to_numpy())
    assert length["turns"] == pytest.approx(expected.value)
    assert (length["turns_lo"], length["turns_hi"]) == pytest.approx(expected.interval())
    assert length["turns"] < length["decisions"]


def test_five_players_rotate_instead_of_all_seatings(tmp_path: Path) -> None:
    agents = ["greedy", "aggressor", "hoarder", "controller", "blocker"]
    result = tournament.run_tournament("uno", 5, agents, 2, out=tmp_path, executor="serial", progress=False)
    seatings = sorted(set(result.games["seating"]))
    assert seatings == sorted("|".join(agents[(r + j) % 5] for j in range(5)) for r in range(5))
    assert (result.standings["games"] == 2 * 5).all()


def test_a_tournament_resumes_without_replaying_finished_batches(
    three_player: tournament.TournamentResult,
) -> None:
    out = three_player.out
    before = {p.name: p.stat().st_mtime_ns for p in (out / "batches").glob("*.npz")}
    victim = sorted(before)[3]
    (out / "batches" / victim).unlink()
    again = tournament.run_tournament("uno", 3, AGENTS, 6, seed=11, out=out, executor="serial", batch_games=4,
                                      resume=True, progress=False)  # fmt: skip
    after = {p.name: p.stat().st_mtime_ns for p in (out / "batches").glob("*.npz")}
    assert set(after) == set(before)
    assert [n for n in after if after[n] != before[n]] == [victim]
    pd.testing.assert_frame_equal(again.standings, three_player.standings)
    with pytest.raises(ValueError, match="already holds a tournament"):
        tournament.run_tournament("uno", 3, AGENTS, 6, seed=11, out=out, progress=False)


def test_the_cli_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.cli import main

    argv = ["tournament", "--players", "2", "--agents", "greedy,cautious,random", "--games", "20",
            "--seed", "3", "--out", str(tmp_path / "t"), "--quiet", "--workers", "1"]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "strength [95%]" in text and "rating mu" in text and "cautious" in text and "greedy" in text
    assert "random_legal" in text  # the random player named
    # the summary line says what --games came to: deals x tables x seatings
    assert "uno, 2 players: 20 deals x 3 tables x 2 seatings = 120 games (--games counts deals" in text
    frame = pd.read_csv(tmp_path / "t" / "standings.csv")
    assert (frame["games"] == 80).all()  # 2 tables x 2 seatings x 20 deals


def test_searching_agents_play_in_small_batches_that_never_change_the_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A searching agent (compiled, but milliseconds a decision) gets batches of 200 deals by
    default, so a long gauntlet shows progress and keeps finished work; --batch-games sets the
    size, tournament.json records it (a resume keeps it, and refuses it given again), and the
    games are the same whatever the batches."""
    from training.cli import main

    assert tournament.searches("search:sims=8") and tournament.searches("oracle:sims=4")
    assert tournament.searches("monte_carlo") and not tournament.searches("blocker")
    assert tournament.default_batch_games(["search:sims=8", "blocker"]) == 200
    assert tournament.default_batch_games(["greedy", "blocker", "ppo_uno_2p"]) == 50_000
    agents = ["search:sims=6,depth=3", "greedy"]
    whole = tournament.run_tournament("uno", 2, agents, 5, seed=4, out=tmp_path / "a", executor="serial",
                                      progress=False, field="blocker")  # fmt: skip
    assert json.loads((tmp_path / "a" / "tournament.json").read_text())["batch_games"] == 200
    argv = ["tournament", "--players", "2", "--agents", ",".join(agents), "--field", "blocker",
            "--games", "5", "--seed", "4", "--batch-games", "2", "--out", str(tmp_path / "b"),
            "--quiet", "--workers", "1"]  # fmt: skip
    assert main(argv) == 0
    assert json.loads((tmp_path / "b" / "tournament.json").read_text())["batch_games"] == 2
    assert len(list((tmp_path / "b" / "batches").glob("*.npz"))) == 2 * 2 * 3  # agents x seats x 3
    batched = pd.read_csv(tmp_path / "b" / "games.csv")
    pd.testing.assert_frame_equal(batched, whole.games.reset_index(drop=True))
    capsys.readouterr()
    assert main(["tournament", "--resume", str(tmp_path / "b"), "--batch-games", "3", "--quiet"]) != 0
    assert "do not give --batch-games" in capsys.readouterr().err
    # --out with --resume: the tournament stays in its folder, so another one is refused, not ignored
    assert main(["tournament", "--resume", str(tmp_path / "b"), "--out", str(tmp_path / "c"), "--quiet"]) != 0
    assert "do not give --out" in capsys.readouterr().err and not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    ("agents", "players", "message"),
    [
        (["greedy", "sneaky"], 2, "unknown play style 'sneaky'"),
        (["greedy"], 2, "need at least 2 agents"),
        (["greedy", "greedy"], 2, "listed twice"),
        (["greedy", "random_legal", "random"], 2, "agents 'random_legal' and 'random' play alike"),
        (
            ["bluffer", "bluffer:challenge=0.5,bluff=0.5"],
            2,
            "'bluffer' and 'bluffer:challenge=0.5,bluff=0.5' play",
        ),
        (["greedy", "nowhere/model.zip"], 2, "does not exist"),
    ],
)
def test_bad_agents_are_refused(agents: list[str], players: int, message: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=message):
        tournament.run_tournament("uno", players, agents, 2, out=tmp_path, progress=False)


def test_a_learned_policy_plays_through_the_python_path(tmp_path: Path) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents import save_policy_metadata
    from uno_env.envs.single import SingleAgentEnv

    rules = uno_env.load_rules("uno", max_decisions=200)
    path = tmp_path / "model.zip"
    env = SingleAgentEnv(rules, 2, "greedy")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu")
    model.save(path)
    save_policy_metadata(path, rules, num_players=2)
    result = tournament.run_tournament(rules, 2, [str(path), "greedy"], 2, seed=4, out=tmp_path / "t",
                                       executor="serial", progress=False)  # fmt: skip
    games = result.games
    assert sorted(games["seating"]) == sorted([f"{path}|greedy", f"greedy|{path}"] * 2)
    assert games["seed"].tolist() == [4, 4, 5, 5]
    assert (result.standings["games"] == 4).all()
    assert set(result.standings["agent"]) == {str(path), "greedy"}
    # a checkpoint recorded for other rules is refused before any game
    with pytest.raises(ValueError, match="rules"):
        tournament.run_tournament("uno", 2, [str(path), "greedy"], 1, out=tmp_path / "u", executor="serial",
                                  progress=False)  # fmt: skip


# ---------------------------------------------------------------- hostile conditions
def small(out: Path, **options: object) -> tournament.TournamentResult:
    return tournament.run_tournament("uno", 2, ["greedy", "hoarder"], 6, seed=2, out=out, executor="serial",
                                     batch_games=2, progress=False, **options)  # type: ignore[arg-type]  # fmt: skip


def test_a_truncated_batch_is_played_again_and_other_seeds_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    first = small(out)
    batch = sorted((out / "batches").glob("*.npz"))[1]
    with np.load(batch) as data:
        assert int(data["seed"]) == 2 and len(str(data["key"])) == 64  # each file names its seed
    batch.write_bytes(batch.read_bytes()[:60])
    again = small(out, resume=True)
    assert f"batch file {batch}: the file is not a zip archive" in capsys.readouterr().err
    pd.testing.assert_frame_equal(again.games, first.games)
    meta = json.loads((out / "tournament.json").read_text())
    (out / "tournament.json").write_text(json.dumps({**meta, "seed": 3}))  # edited to another seed
    with pytest.raises(ValueError, match="played for another tournament"):
        tournament.run_tournament("uno", 2, ["greedy", "hoarder"], 6, seed=3, out=out, executor="serial",
                                  batch_games=2, resume=True, progress=False)  # fmt: skip


def test_a_tournament_folder_in_use_is_locked(tmp_path: Path) -> None:
    from training.runner import RunFolderError, lock_folder

    out = tmp_path / "t"
    out.mkdir()
    with lock_folder(out, "tournament"), pytest.raises(RunFolderError, match="in use by another"):
        small(out)


@pytest.mark.parametrize(
    ("games", "seed", "message"),
    [
        (10**15, 0, r"this tournament would need [\d,]+ batches; at most 100,000"),
        (10, 2**63 - 5, "the seed must be at most 9,223,372,036,854,775,798"),
    ],
)
def test_impossible_tournament_sizes_are_refused_up_front(games: int, seed: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tournament.run_tournament("uno", 2, ["greedy", "hoarder"], games, seed=seed, out=Path("/nonexistent"))


def test_a_gauntlet_plays_each_agent_against_copies_of_the_field(tmp_path: Path) -> None:
    """``--field blocker``: each agent with three blockers, in every seat, on the same deals."""
    result = tournament.run_tournament("uno", 4, ["greedy", "search:sims=8,depth=4"], 3, seed=2, out=tmp_path,
                                       executor="serial", progress=False, field="blocker")  # fmt: skip
    games = result.games
    for agent in ("greedy", "search:sims=8,depth=4"):
        seatings = {s for s in games["seating"] if agent in s.split("|")}
        assert seatings == {"|".join([agent if k == r else "blocker" for k in range(4)]) for r in range(4)}
    assert len(games) == 2 * 4 * 3
    stand = result.standings.set_index("agent")
    assert stand.loc["greedy", "games"] == 12 and stand.loc["blocker", "games"] == 2 * 4 * 3 * 3
    wins = sum((games["winner"] == a).sum() for a in ("greedy", "search:sims=8,depth=4", "blocker"))
    assert wins == len(games) - (games["winner"] == "").sum()
    assert stand.loc["blocker", "rating_mu"] == pytest.approx(25.0)  # the fixed reference
    assert (stand["strength"].abs() > 1e-3).all()  # every copy of the field is an entrant of the fit
    ranks = stand["mean_rank"].dropna()
    assert ((ranks >= 1) & (ranks <= 4)).all()
    with pytest.raises(ValueError, match="also listed"):
        tournament.run_tournament(
            "uno", 2, ["blocker"], 1, out=tmp_path / "x", progress=False, field="blocker"
        )


def test_a_gauntlet_compares_every_pair_of_agents_deal_by_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gauntlet's agents play the same deals in the same seatings against the same field, so
    each pair's difference of win rates is paired by deal: the mean of the per-deal differences
    with a Student-t interval over the deals, and Benjamini-Hochberg adjusted p-values over the
    pairs. A tournament without a field has no such pairs."""
    from training.cli import main
    from uno_env.stats import benjamini_hochberg, mean_interval

    agents = ["greedy", "aggressor", "controller", "random"]
    argv = ["tournament", "--players", "2", "--agents", ",".join(agents), "--field", "blocker",
            "--games", "400", "--seed", "11", "--out", str(tmp_path / "g"), "--quiet", "--workers", "1",
            "--executor", "serial"]  # fmt: skip
    assert main(argv) == 0
    shown = capsys.readouterr().out
    assert "agents against the field, paired by deal (6 pairs; detected: Benjamini-Hochberg at 5%" in shown
    assert "greedy - random_legal" in shown  # the screen names random as what it is
    pairs = pd.read_csv(tmp_path / "g" / "pairs.csv")
    games = pd.read_csv(tmp_path / "g" / "games.csv")
    assert len(pairs) == 6 and set(zip(pairs["agent"], pairs["other"], strict=True)) <= set(
        itertools.permutations(agents, 2)
    )
    wins = {}
    for agent in agents:  # each agent's own table: its wins per deal
        table = games[games["seating"].str.contains(agent)]
        wins[agent] = (table["winner"] == agent).groupby(table["deal"]).sum()
    for _, row in pairs.iterrows():
        per_deal = (wins[row["agent"]] - wins[row["other"]]).to_numpy() / 2  # two seatings a deal
        mean, lo, hi = mean_interval(per_deal)
        assert row["deals"] == 400
        assert row["difference"] == pytest.approx(mean, abs=1e-6)
        assert (row["diff_lo"], row["diff_hi"]) == (pytest.approx(lo, abs=1e-6), pytest.approx(hi, abs=1e-6))
        assert f"{row['difference']:+6.1%} [{row['diff_lo']:+6.1%}, {row['diff_hi']:+6.1%}]" in shown
    adjusted = benjamini_hochberg(pairs["p_value"].to_numpy())
    np.testing.assert_allclose(pairs["p_adjusted"], adjusted, atol=1e-6)
    assert (pairs["p_adjusted"] > pairs["p_value"] + 1e-4).any()  # the adjustment changes something here
    assert not pairs["detected"].all()  # aggressor and controller play alike against blocker
    assert (pairs["detected"] == (pairs["p_adjusted"] <= 0.05)).all()
    against_random = pairs[(pairs["other"] == "random") | (pairs["agent"] == "random")]
    assert against_random["detected"].all() and (against_random["difference"].abs() > 0.3).all()
    # the standings' order: the stronger agent of each pair first
    order = list(pd.read_csv(tmp_path / "g" / "standings.csv")["agent"])
    assert all(order.index(a) < order.index(b) for a, b in zip(pairs["agent"], pairs["other"], strict=True))

    plain = tournament.run_tournament("uno", 2, ["greedy", "aggressor"], 20, out=tmp_path / "p",
                                      executor="serial", progress=False)  # fmt: skip
    assert plain.pairs is None and not (tmp_path / "p" / "pairs.csv").exists()


def test_the_oracle_plays_only_when_cheating_is_allowed(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"cheats .*: pass allow_cheating=True to rank it"):
        tournament.run_tournament("uno", 2, ["oracle:8", "greedy"], 1, out=tmp_path / "a", progress=False)
    result = tournament.run_tournament("uno", 2, ["oracle:sims=8,depth=4", "greedy"], 2, out=tmp_path / "b",
                                       executor="serial", progress=False, allow_cheating=True)  # fmt: skip
    assert (result.standings["games"] == 4).all()


def test_reports_name_a_guided_search_by_its_style_and_its_network_file() -> None:
    from training.tournament import agent_label

    assert agent_label("search:net=runs/x/net.npz,top=3") == "search:net=net.npz,top=3"
    assert agent_label("runs/x/net.npz") == "net.npz"
    assert agent_label("random:x=1") == "random_legal:x=1"
    assert agent_label("search:net=ppo_uno_2p,sims=1500") == "search:net=ppo_uno_2p,sims=1500"
    # a program and a language model keep their prefix; a URL is not cut to its last segment
    assert agent_label("cmd:./proto.sh") == "cmd:proto.sh"
    assert agent_label("cmd:python3 /tmp/own/agent.py --model runs/m") == "cmd:python3 agent.py --model m"
    url = "llm:model=a,base_url=http://127.0.0.1:8000/v1"
    assert agent_label(url) == url


def test_agents_playing_a_transfer_are_flagged_in_the_standings(tmp_path: Path) -> None:
    """With --allow-rules-mismatch an exported policy, and a search guided by a network, trained
    for other rules (official Uno, here the house rules) play and are marked as transfers."""
    agents = ["distilled_uno_2p", "search:sims=10,net=expert_uno_2p", "greedy"]
    with pytest.raises(ValueError, match="trained on other rules"):
        tournament.run_tournament("uno_house", 2, agents, 2, out=tmp_path / "refused", field="blocker",
                                  executor="serial", progress=False)  # fmt: skip
    result = tournament.run_tournament(
        "uno_house", 2, agents, 2, out=tmp_path / "t", field="blocker", executor="serial", progress=False,
        allow_rules_mismatch=True,
    )  # fmt: skip
    flags = dict(zip(result.standings["agent"], result.standings["transfer"], strict=True))
    assert flags == {**dict.fromkeys(agents[:2], True), "greedy": False, "blocker": False}
    text = tournament.format_standings(result.standings)
    assert "distilled_uno_2p (transfer)" in text and "net=expert_uno_2p (transfer)" in text
    assert "greedy (transfer)" not in text
    import pandas as pd

    written = pd.read_csv(tmp_path / "t" / "standings.csv")
    assert list(written["transfer"]) == list(result.standings["transfer"])


def test_an_agent_file_replaced_since_the_start_is_refused_on_resume(tmp_path: Path) -> None:
    """A resume whose exported policy (or FILE.py agent) was replaced would play the missing
    batches with another agent under the same name and mix both in one table: refused, naming
    the file; the same files resume as before."""
    shipped = Path(uno_env.__file__).parent / "pretrained"
    policy = tmp_path / "p.npz"
    for suffix in (".npz", ".json"):
        (tmp_path / f"p{suffix}").write_bytes((shipped / f"distilled_uno_2p{suffix}").read_bytes())
    out = tmp_path / "t"
    agents = [str(policy), "greedy"]

    def run(resume: bool) -> tournament.TournamentResult:
        return tournament.run_tournament("uno", 2, agents, 4, seed=3, out=out, executor="serial",
                                         batch_games=2, resume=resume, progress=False)  # fmt: skip

    first = run(False)
    recorded = json.loads((out / "agent_files.json").read_text())
    assert recorded.keys() == {str(policy), str(policy.with_suffix(".json"))}
    victim = sorted((out / "batches").glob("*.npz"))[-1]
    victim.unlink()
    pd.testing.assert_frame_equal(run(True).games, first.games)  # unchanged files: resumed as before
    victim.unlink()
    for suffix in (".npz", ".json"):  # another network, same name
        (tmp_path / f"p{suffix}").write_bytes((shipped / f"expert_ppo_uno_2p{suffix}").read_bytes())
    changed = rf"agent file\(s\) {policy.with_suffix('.json')}, {policy} changed since the tournament started"
    with pytest.raises(ValueError, match=changed):
        run(True)
    assert not victim.exists()  # nothing was played with the new network


def test_the_standings_print_every_mean_with_its_interval() -> None:
    """The screen's mean rank and points per game carry the 95% intervals (grouped by deal) that
    standings.csv holds; the table printed them bare."""
    frame = pd.DataFrame([{
        "agent": "greedy", "games": 1200, "win_rate": 0.542, "win_lo": 0.514, "win_hi": 0.569,
        "mean_rank": 1.46, "rank_lo": 1.43, "rank_hi": 1.49, "points_per_game": 26.5, "points_lo": 24.25,
        "points_hi": 28.75, "strength": 0.11, "strength_lo": 0.04, "strength_hi": 0.19, "rating_mu": 25.96,
    }])  # fmt: skip
    text = tournament.format_standings(frame)
    assert "mean rank [95%]" in text and "points/game [95%]" in text
    assert "1.46 [1.43, 1.49]" in text and "26.5 [24.2, 28.8]" in text


def test_game_length_intervals_stay_in_the_possible_range() -> None:
    """A game lasts at least one turn and one decision. Two deals, one ending at the first turn
    and one long: the t interval grouped by deal reaches below 0 and is cut at 1. One deal: the
    deals' spread is unknown and the interval is the whole range [1, inf] (it was NaN)."""
    games = pd.DataFrame({"deal": [0, 0, 1, 1], "turns": [1, 1, 60, 60], "length": [1, 1, 80, 80]})
    length = tournament.game_length(games)
    turns = grouped_ratio(np.array([2.0, 120.0]), np.array([2, 2]))
    assert turns.interval()[0] < 0
    assert (length["turns"], length["turns_lo"]) == (30.5, 1.0)
    assert length["turns_hi"] == pytest.approx(turns.interval()[1])
    assert length["decisions_lo"] == 1.0 and length["decisions_hi"] > 40.5
    one_deal = tournament.game_length(games[games["deal"] == 1])
    assert (one_deal["turns"], one_deal["turns_lo"], one_deal["turns_hi"]) == (60.0, 1.0, np.inf)
    assert (one_deal["decisions_lo"], one_deal["decisions_hi"]) == (1.0, np.inf)


def test_a_refusal_names_the_allowance_as_each_entry_point_takes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run_tournament from Python named the command-line option --allow-rules-mismatch (and
    --allow-cheating) in its refusals; it names its keyword argument now, and uno-env tournament
    its option."""
    from training.cli import main

    mismatch = ["distilled_uno_2p", "greedy"]
    with pytest.raises(
        ValueError, match=r"trained on other rules.*\(pass allow_rules_mismatch=True to play"
    ) as err:
        tournament.run_tournament("uno_house", 2, mismatch, 2, out=tmp_path / "a", progress=False)
    assert "--allow" not in str(err.value)
    with pytest.raises(ValueError, match=r"pass allow_cheating=True to rank it") as err:
        tournament.run_tournament("uno", 2, ["oracle:8", "greedy"], 1, out=tmp_path / "b", progress=False)
    assert "--allow" not in str(err.value)
    base = ["tournament", "--games", "2", "--quiet", "--workers", "1"]
    assert (
        main([*base, "--rules", "uno_house", "--agents", ",".join(mismatch), "--out", str(tmp_path / "c")])
        == 2
    )
    err_text = capsys.readouterr().err
    assert (
        "(--allow-rules-mismatch plays it on other rules)" in err_text
        and "allow_rules_mismatch=" not in err_text
    )
    assert main([*base, "--agents", "oracle:8,greedy", "--out", str(tmp_path / "d")]) == 2
    err_text = capsys.readouterr().err
    assert "pass --allow-cheating to rank it" in err_text and "allow_cheating=" not in err_text


def test_a_network_of_another_deck_family_is_not_told_to_allow_a_transfer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Macao network (French deck: other observation size and action table) at an Uno table was
    refused with "--allow-rules-mismatch plays it on other rules", an option that refuses it too;
    the refusal names the sizes and suggests nothing the tool would not do."""
    from training.cli import main

    macao = write_policy(tmp_path, "macao_net", rules="macao")
    base = ["tournament", "--rules", "uno", "--players", "3", "--games", "1", "--quiet", "--workers", "1"]
    assert main([*base, "--agents", f"{macao},blocker,greedy", "--out", str(tmp_path / "a")]) == 2
    err_text = capsys.readouterr().err
    assert "observations of 1236 values, these rules give 1262; 72 actions, these rules have 74" in err_text
    assert "trained for 2 players, the game has 3" in err_text
    assert "--allow-rules-mismatch" not in err_text
    with pytest.raises(ValueError, match="72 actions, these rules have 74") as err:
        tournament.run_tournament(
            "uno", 3, [str(macao), "blocker", "greedy"], 1, out=tmp_path / "b", progress=False
        )
    assert "allow_rules_mismatch" not in str(err.value)


def test_games_stopped_at_the_decision_limit_are_counted_on_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A policy that never ends its games (an untrained network that always draws) read as merely
    losing: the games truncated at the decision limit (E-END-1) were in games.csv only. The
    command now prints how many there were."""
    from training.cli import main

    args = ["tournament", "--rules", "uno", "--set", "max_decisions=30", "--agents", "greedy,blocker"]
    assert main([*args, "--games", "6", "--quiet", "--workers", "1", "--out", str(tmp_path / "t")]) == 0
    import pandas as pd

    games = pd.read_csv(tmp_path / "t" / "games.csv")
    truncated = int((games["winner_seat"] < 0).sum())
    assert 0 < truncated < len(games) == 12
    assert f"truncated games: {truncated} of 12 stopped at the decision limit with no winner" in (
        capsys.readouterr().out
    )

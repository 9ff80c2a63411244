"""``uno-env play`` driven through its standard input: whole games with wrong answers mixed in.

The scripted person answers every decision with ``1`` (the first legal action, as the menu
lists the legal actions in id order) after a run of wrong answers: non-numbers, numbers out
of range, a card that is not in the game. The recorded game must then show exactly the
first legal action at each of the person's decisions, and replay to the same outcome.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import uno_env
from training import play
from uno_env.envs.render import render_table
from uno_env.game import records

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def person_input(bad_card: str, decisions: int = 1500) -> io.StringIO:
    """Answers for ``decisions`` decisions: each preceded by one of a cycle of wrong answers."""
    wrong = itertools.cycle(["xyz", "99", "0", bad_card, "", "?", "target +9"])
    lines = []
    for _ in range(decisions):
        lines += [next(wrong), "1"]
    return io.StringIO("\n".join(lines) + "\n")


def run_play(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], stdin: io.StringIO
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", stdin)
    code = play.main(argv)
    return code, capsys.readouterr().out


def check_first_legal_answers(record: records.GameRecord, seat: int) -> int:
    """Replay ``record``; every action of ``seat`` must be the first legal one. Returns their number."""
    game = record.new_game()
    mine = 0
    for action in record.actions:
        if game.current_player == seat:
            assert action == game.legal_actions()[0]
            mine += 1
        game.step(action)
    records.check_replay(record, game)
    return mine


@pytest.mark.parametrize(
    ("preset", "players", "seat", "vs", "bad_card"),
    [
        ("uno", 4, 1, "greedy,random,bluffer:bluff=0.3,challenge=0.8", "WC"),  # no customizable wilds
        ("macao", 3, 0, "greedy/random", "JKR"),  # Macao is played without jokers
    ],
)
def test_a_whole_game_through_stdin_with_wrong_answers(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    preset: str,
    players: int,
    seat: int,
    vs: str,
    bad_card: str,
) -> None:
    rules = uno_env.load_rules(preset)
    assert rules.deck_counts(players)[uno_env.parse_face(bad_card, rules.deck_family)] == 0
    path = tmp_path / "games.jsonl"
    argv = ["--rules", preset, "--players", str(players), "--seat", str(seat), "--vs", vs, "--seed", "3"]
    code, out = run_play(monkeypatch, capsys, [*argv, "--record", str(path)], person_input(bad_card))
    assert code == 0, out[-2000:]
    assert "\x1b[" not in out  # not a terminal: no colour
    assert "Game over" in out and "ranking: 1. " in out and "points left in hand:" in out
    assert "there is no choice 99: pick 1.." in out and "there is no choice 0: pick 1.." in out
    assert "not understood: 'xyz' is not an action" in out
    assert f"{bad_card} is not legal now" in out and "target +9 is not legal now" in out
    assert "; legal choices:" in out
    (record,) = records.load_records(path)
    assert record.source == "play" and record.agents is not None and record.agents[seat] == play.HUMAN
    assert record.outcome is not None and not record.outcome.truncated
    mine = check_first_legal_answers(record, seat)
    assert mine > 0 and out.count("choice [1-") == 2 * mine  # one wrong answer, then "1"
    winner = record.outcome.winner
    assert ("You win!" in out) == (winner == seat)


def test_the_same_seed_and_answers_play_the_same_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--rules", "uno", "--players", "3", "--vs", "bluffer", "--seed", "12"]
    first = run_play(monkeypatch, capsys, argv, person_input("WC", 400))
    second = run_play(monkeypatch, capsys, argv, person_input("WC", 400))
    assert first == second and first[0] == 0


@pytest.mark.parametrize("preset", list(uno_env.PRESETS))
def test_every_preset_plays_to_an_outcome(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], preset: str
) -> None:
    players = max(4, uno_env.PRESETS[preset].min_players)
    argv = ["--rules", preset, "--players", str(players), "--seat", "2", "--vs", "greedy", "--seed", "5"]
    code, out = run_play(monkeypatch, capsys, argv, io.StringIO("1\n" * 3000))
    assert code == 0
    assert "Game over" in out or "decision limit" in out


def test_end_of_input_leaves_cleanly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_play(monkeypatch, capsys, ["--seed", "1"], io.StringIO("1\n"))
    assert code == 0
    assert out.rstrip().endswith("end of input: leaving the game.")
    assert "Traceback" not in out and "Game over" not in out


def test_quit_and_ctrl_c(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_play(monkeypatch, capsys, ["--seed", "1"], io.StringIO("q\n"))
    assert code == 0 and out.rstrip().endswith("leaving the game.")

    class Interrupted(io.StringIO):
        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            raise KeyboardInterrupt

    code, out = run_play(monkeypatch, capsys, ["--seed", "1"], Interrupted())
    assert code == 130 and out.rstrip().endswith("interrupted: leaving the game.")


def test_colour_on_request_and_off_with_no_color(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    code, out = run_play(monkeypatch, capsys, ["--seed", "4", "--color"], io.StringIO("1\n" * 3))
    assert code == 0 and "\x1b[1;9" in out
    monkeypatch.setenv("NO_COLOR", "1")
    code, plain = run_play(monkeypatch, capsys, ["--seed", "4", "--color"], io.StringIO("1\n" * 3))
    assert "\x1b[" not in plain
    assert ANSI.sub("", out) == plain  # the same game, only uncoloured


def test_answers_by_notation_and_seat(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seven-O: seat 0 plays R7 by notation, then picks "seat 2" to swap hands with
    position = (
        "hands=R7 R1 G5/B2 B3/Y4 Y5 Y6; discard=R3; draw=G1 G2 G3 G4; colour=R; seat=0; dir=+; phase=play"
    )
    game = uno_env.Game.from_position(uno_env.load_rules("uno", seven_swap=True), position)
    opponents = play.build_opponents("greedy", game.rules, 3, 0, 1)
    out = io.StringIO()
    session = play.Session(game, 0, opponents, io.StringIO("r7\nseat 0\nseat 2\n"), out)
    assert session.ask() == game.parse_action("R7")
    game.step("R7")
    assert game.phase == uno_env.Phase.CHOOSE_TARGET
    assert "Pick the seat to swap hands with." in session.question()
    assert session.ask() == game.parse_action("target +2")
    text = out.getvalue()
    assert "seat 0 is not a seat you can pick" in text
    assert "target +2 = seat 2 (3 cards)" in text


def test_opponent_lists() -> None:
    assert play.split_opponents("bluffer:bluff=0.3,challenge=0.8,greedy") == [
        "bluffer:bluff=0.3,challenge=0.8",
        "greedy",
    ]
    assert play.split_opponents("greedy/random") == ["greedy", "random"]
    assert play.split_opponents("runs/a/model.zip,greedy") == ["runs/a/model.zip", "greedy"]
    assert play.split_opponents("runs/a/model.zip") == ["runs/a/model.zip"]
    rules = uno_env.load_rules("uno")
    agents = play.build_opponents("greedy,random", rules, 3, 1, 9)
    assert sorted(agents) == [0, 2] and agents[0].name.startswith("greedy")
    assert agents[2].name == "random_legal"
    with pytest.raises(ValueError, match=r"--vs lists 2 agents; .* give one for all or 3 \(seats 0, 2, 3"):
        play.build_opponents("greedy,random", rules, 4, 1, 9)
    with pytest.raises(ValueError, match="--vs entry 'nobody'"):
        play.build_opponents("nobody", rules, 3, 0, 9)


def test_bad_options_are_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert play.main(["--players", "3", "--seat", "3"]) == 2
    assert "--seat must be a seat 0..2, got 3" in capsys.readouterr().err
    assert play.main(["--rules", "mau_mau", "--players", "2"]) == 2
    assert "--players 2: mau_mau is played by 4..8 players" in capsys.readouterr().err


def test_macao_scores_and_calls_are_shown_by_the_rules() -> None:
    """MC-END-1 + U-SCORE-1: seat 2 leaves first and seat 1 is left with 34 points, which the
    winner scores; the call column says "Macao" (MC-CALL-1), Mau-Mau's says "Mau-Mau"."""
    position = "hands=5H 6H/9C 8C 7C/5S; discard=5D; draw=KC QC; colour=D; seat=2; dir=+; phase=play"
    game = uno_env.Game.from_position("macao", position)
    game.step("5S")
    game.step("call")
    table = render_table(game.state, game.deck, game.rules.num_faces, None, call_word=game.rules.call_name)
    row = next(line for line in table.splitlines() if line.startswith(">0"))
    assert row.split()[1:3] == ["2", "Macao"] and "UNO" not in table
    for action in ("5H", "draw", "6H"):
        game.step(action)
    out = io.StringIO()
    session = play.Session(game, 0, play.build_opponents("greedy", game.rules, 3, 0, 1), io.StringIO(), out)
    session.show_outcome()
    text = out.getvalue()
    assert "Game over (win): seat 2 (greedy:doubt=0.5) wins." in text
    assert "points left in hand: seat 0=0 seat 1=34 seat 2=0" in text
    assert (
        "scores (U-SCORE-1, the winner takes the points left in the other hands): "
        "seat 0=0 seat 1=0 seat 2=34" in text
    )
    assert "scores: 0 0 34" in text  # the final table
    mau = uno_env.Game.from_position(
        "mau_mau",
        "hands=5H 6H/9C 8C/5S 7S/2D 3D; discard=5D; draw=KC QC; colour=D; seat=0; dir=+; phase=play",
    )
    mau.step("call")
    assert uno_env.load_rules("mau_mau").call_name == "Mau-Mau"
    table = render_table(mau.state, mau.deck, mau.rules.num_faces, None, call_word=mau.rules.call_name)
    assert "Mau-Mau" in next(line for line in table.splitlines() if line.startswith(">0"))
    assert [uno_env.load_rules(p).call_name for p in ("uno", "uno_mario", "mau_mau_doubling")] == [
        "UNO",
        "UNO",
        "",
    ]


def test_play_and_replay_are_cli_subcommands() -> None:
    from training import cli

    assert "training.play" in cli.SUBCOMMAND_MODULES and "training.replay" in cli.SUBCOMMAND_MODULES


# ---------------------------------------------------------------- hostile input
def test_a_bad_record_path_is_refused_before_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for target, message in (
        (tmp_path, "is a folder; give a file such as"),
        (blocker / "games.jsonl", f"{blocker} is a file, not a folder"),
        (tmp_path / "missing" / "games.jsonl", "does not exist"),
    ):
        monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 50))
        code = play.main(["--players", "2", "--seed", "1", "--record", str(target)])
        captured = capsys.readouterr()
        assert code == 2 and message in captured.err
        assert "choice" not in captured.out  # refused before the first question
    # a game left without a record leaves no empty file behind
    code, _ = run_play(monkeypatch, capsys, ["--players", "2", "--record", str(tmp_path / "g.jsonl")],
                       io.StringIO("q\n"))  # fmt: skip
    assert code == 0 and not (tmp_path / "g.jsonl").exists()


def test_an_ascii_terminal_gets_an_ascii_table() -> None:
    env = dict(os.environ, PYTHONIOENCODING="ascii", PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.run(
        [sys.executable, "-m", "training.play", "--players", "2", "--seed", "1"],
        input="1\né\nq\n", capture_output=True, text=True, encoding="utf-8", env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "uno | you are seat 0 | 2 players" in proc.stdout and "leaving the game" in proc.stdout
    assert proc.stdout.isascii()


def test_a_huge_answer_is_not_echoed_back(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "9" * 10_000_000
    code, out = run_play(
        monkeypatch, capsys, ["--players", "2", "--seed", "1"], io.StringIO(f"{huge}\nx{huge}\nq\n")
    )
    assert code == 0 and len(out) < 10_000
    assert out.count("that answer is 10,000,000 characters long") == 1
    assert "that answer is 10,000,001 characters long" in out


def test_the_header_says_what_the_player_to_move_is_asked() -> None:
    """After drawing a playable card the header asks to play or keep it (not "seat 0 to drawn")."""
    position = "hands=R1 Y9/B2 B3; discard=R3; draw=R5 G4 G6; colour=R; seat=0; dir=+; phase=play"
    game = uno_env.Game.from_position(uno_env.load_rules("uno"), position)
    header = render_table(game.state, "uno", game.rules.num_faces, [0]).splitlines()[0]
    assert header.endswith("seat 0 to play or draw")
    game.step("draw")
    assert game.phase == uno_env.Phase.PLAY_DRAWN
    header = render_table(game.state, "uno", game.rules.num_faces, [0]).splitlines()[0]
    assert header.endswith("seat 0 to play or keep the drawn card")
    assert "to drawn" not in header
    macao = uno_env.Game("macao", 2, seed=3)
    while macao.phase != uno_env.Phase.CHOOSE_COLOUR and not macao.is_over():
        macao.step(macao.legal_actions()[0])
    if not macao.is_over():
        header = render_table(macao.state, "french", macao.rules.num_faces, None).splitlines()[0]
        assert header.endswith("to name the suit")


def test_a_random_legal_opponent_is_named_and_explained(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_play(
        monkeypatch, capsys, ["--players", "2", "--vs", "random", "--seed", "4"], io.StringIO("q\n")
    )
    assert code == 0
    first, second = out.splitlines()[:2]
    assert first.endswith("you are seat 0; seat 1: random_legal")
    assert second.startswith(
        "random_legal picks uniformly among the legal actions and draws even when it could"
    )
    assert "--vs random_playable is the literature's random player" in second
    _, out = run_play(
        monkeypatch, capsys, ["--players", "2", "--vs", "random_playable", "--seed", "4"], io.StringIO("q\n")
    )
    assert "random_legal picks" not in out


def test_a_bot_of_another_game_is_refused_or_named_before_the_first_deal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An exported policy (or a search's guide) of another deck family is refused before the
    game, not at the bot's first turn; one trained for another player count plays, said so."""
    code = play.main(["--rules", "macao", "--players", "2", "--vs", "expert_ppo_uno_2p", "--seed", "1"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-env: error: policy expert_ppo_uno_2p does not fit this game: observations of")
    assert "74 actions, these rules have 72" in err
    code = play.main(["--rules", "macao", "--players", "2", "--vs", "search:sims=10,net=expert_uno_2p"])
    assert code == 2
    assert "agent 'search:sims=10,net=expert_uno_2p', the search's network: policy expert_uno_2p" in (
        capsys.readouterr().err
    )
    code, out = run_play(
        monkeypatch,
        capsys,
        ["--players", "2", "--vs", "expert_ppo_uno_4p", "--seed", "4"],
        io.StringIO("q\n"),
    )
    assert code == 0
    assert out.splitlines()[1] == (
        "expert_ppo_uno_4p was trained for other rules or another player count: it plays here as a transfer."
    )


def test_the_person_sees_the_hands_a_zero_showed_them() -> None:
    """H-ZEROSEE-1: a 0 shows its player the other hands; the table shows the person those
    hands while they are unchanged (the env observation and the web table do too), and the
    game names them (``Game.hands_seen``)."""
    rules = uno_env.load_rules("uno", zero_reveals=True)
    position = "hands=R0 G5 G6/Y1 Y2/B3 B4; discard=R5; draw=G1 G2 G3; colour=R; seat=0; dir=+; phase=play"
    game = uno_env.Game.from_position(rules, position)
    assert game.hands_seen(0) == []
    game.step("R0")
    assert game.current_player == 1 and game.hands_seen(0) == [1, 2] and game.hands_seen(1) == []
    out = io.StringIO()
    session = play.Session(game, 0, play.build_opponents("greedy", game.rules, 3, 0, 1), io.StringIO(), out)
    session.show_table()
    rows = {line[1:].split()[0]: line for line in out.getvalue().splitlines() if re.match(r"^[ >]\d", line)}
    assert rows["1"].split()[-2:] == ["Y1", "Y2"] and rows["2"].split()[-2:] == ["B3", "B4"]
    game.step("draw")  # seat 1 draws: its hand changed, no longer known
    assert game.hands_seen(0) == [2]
    with pytest.raises(ValueError, match=r"observer must be a seat 0\.\.2"):
        game.hands_seen(3)

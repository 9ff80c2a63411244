"""Game records: written from Game, simulate and the CLI; replayed exactly; malformed files refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import uno_env
from agents import make
from training import replay as replay_cli
from uno_env import Game
from uno_env.game import records
from uno_env.game.records import GameRecord, RecordError, ReplayMismatchError
from uno_env.sim import records as sim_records
from uno_env.styles.view import PublicView
from uno_env.versions import ENV_VERSION


def played_game(preset: str, players: int, seed: int) -> tuple[Game, list[str]]:
    """A game played by scripted agents, and its position after every decision."""
    game = Game(preset, players, seed=seed)
    agents = [
        make(style, seed=seed + s) for s, style in enumerate(["greedy", "bluffer", "random", "cautious"])
    ]
    positions = [game.position()]
    while not game.is_over():
        seat = game.current_player
        game.step(agents[seat % 4].act(None, game.legal_mask(), PublicView.of(game)))
        positions.append(game.position())
    return game, positions


@pytest.mark.parametrize(("preset", "players"), [("uno", 4), ("uno_house", 3), ("macao", 5), ("mau_mau", 4)])
def test_a_game_record_replays_every_position_and_the_outcome(
    tmp_path: Path, preset: str, players: int
) -> None:
    game, positions = played_game(preset, players, seed=21)
    record = records.record_game(game, agents=[f"agent{s}" for s in range(players)], source="test")
    path = tmp_path / "g.jsonl"
    assert records.save_records(path, [record]) == 1
    (loaded,) = records.load_records(path)
    assert loaded == record
    assert loaded.rules == str(game.rules) and loaded.env_version == ENV_VERSION
    assert loaded.preset == preset and loaded.seed == 21 and len(loaded.actions) == game.decisions
    replayed = [g.position() for g, _ in records.replay(loaded)]
    assert replayed == positions
    final = records.replay_game(loaded)
    assert final.outcome() == game.outcome() == loaded.outcome


def test_simulated_games_are_recorded_exactly() -> None:
    policies = ["greedy", "bluffer:bluff=0.3", "random"]
    for preset in ("uno", "macao", "uno_mario"):
        result = uno_env.simulate(preset, 3, 6, seed=40, policies=policies)
        recs = sim_records.record_simulated(preset, 3, 40, policies, range(6))
        for i, record in enumerate(recs):
            outcome = record.outcome
            assert outcome is not None and record.seed == 40 + i and record.source == "simulate"
            assert outcome.decisions == result.length[i] == len(record.actions)
            assert outcome.winner == (None if result.winner[i] < 0 else result.winner[i])
            assert list(outcome.ranking) == result.ranking[i].tolist()
            assert list(outcome.scores) == result.scores[i].tolist()
            assert records.replay_game(record).position() == record.final_position


def test_cli_simulate_record_then_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.cli import main

    path = tmp_path / "sim.jsonl"
    argv = ["simulate", "--rules", "uno_house", "--players", "3", "--games", "50", "--seed", "7"]
    assert (
        main([*argv, "--policy", "greedy/random/bluffer", "--record", str(path), "--record-games", "4"]) == 0
    )
    assert "recorded games 0..3 (seeds 7..10)" in capsys.readouterr().out
    recs = records.load_records(path)
    result = uno_env.simulate("uno_house", 3, 4, seed=7, policies=["greedy", "random", "bluffer"])
    assert [r.outcome.decisions for r in recs if r.outcome] == result.length.tolist()
    assert replay_cli.main([str(path), "--game", "-1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "verified: outcome, final position, preset and digest match" in out
    assert f"seed {recs[-1].seed}" in out


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--record", "{tmp}/no/such/folder/g.jsonl"], "the folder {tmp}/no/such/folder does not exist"),
        (["--record", "{tmp}"], "--record {tmp} is a folder"),
        (["--record", "{tmp}/g.jsonl", "--record-games", "0"], "--record-games must be at least 1, got 0"),
        (["--record", "{tmp}/g.jsonl", "--seed", "-1"], "seed must be an integer in 0..2**63-1, got -1"),
    ],
)
def test_cli_simulate_refuses_a_bad_record_option_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], message: str
) -> None:
    from training.cli import main

    argv = [part.format(tmp=tmp_path) for part in option]
    assert main(["simulate", "--games", "20", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("uno-env: error: ")
    assert message.format(tmp=tmp_path) in captured.err
    assert "rules:" not in captured.out, "nothing is played (or announced) before the options are checked"
    assert not (tmp_path / "g.jsonl").exists(), "a refused run leaves no empty record file"


def test_cli_simulate_record_replaces_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """simulate --record writes a new file: an existing one (a rule file given by mistake, the
    records of another run) is refused and left as it was, not overwritten."""
    from training.cli import main

    for name, content in (("rules.toml", b"hand_size = 5\n"), ("games.jsonl", b'{"format": 1}\n')):
        path = tmp_path / name
        path.write_bytes(content)
        assert main(["simulate", "--games", "2", "--record", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"uno-env: error: --record {path} already exists") and err.count("\n") == 1
        assert path.read_bytes() == content
    assert main(["simulate", "--games", "2", "--record", str(tmp_path / "empty.jsonl")]) == 0


def test_record_target_appends_only_to_a_record_file(tmp_path: Path) -> None:
    """play and serve append games to --record / --records: a file that is not a record file,
    or whose last line was cut short, is refused before the game (the appended game would
    join a line that load_records refuses, and the file could no longer be read)."""
    from training.common import check_record_file, record_target

    game = records.record_game(Game("uno", 2, seed=1))
    good = tmp_path / "good.jsonl"
    records.append_records(good, game)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(good.read_bytes()[:-1])
    rules = tmp_path / "rules.toml"
    rules.write_text("hand_size = 5\n")
    binary = tmp_path / "weights.npz"
    binary.write_bytes(b"PK\x03\x04\xff\xfe" + bytes(range(256)))
    for path, message in (
        (rules, "line 1: not JSON"),
        (binary, "not UTF-8"),
        (cut, "its last line does not end"),
    ):
        before = path.read_bytes()
        refused = pytest.raises(ValueError, match=f"--record {path} is not a record file to append to")
        with refused as info, record_target(str(path)):
            pytest.fail("the block ran")
        assert message in str(info.value) and "\n" not in str(info.value)
        assert path.read_bytes() == before
    with record_target(str(good)):
        pass
    check_record_file(tmp_path / "new.jsonl", "--records", append=True)
    assert not (tmp_path / "new.jsonl").exists()


def test_replay_prints_every_table_and_steps_on_enter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game, _ = played_game("uno", 2, seed=3)
    path = tmp_path / "g.jsonl"
    records.append_records(path, records.record_game(game))
    records.append_records(path, [records.record_game(played_game("macao", 3, seed=4)[0])])
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 5))  # Enter five times, then end of input
    assert replay_cli.main([str(path), "--step", "--seat", "0"]) == 0
    out = capsys.readouterr().out
    n = game.decisions
    assert out.count("[Enter: next action]") == 6  # five answered; end of input plays the rest
    assert out.count("\naction ") == n and f"action {n}/{n}: " in out
    assert out.count(" ?") >= n  # only seat 0's hand shown
    assert replay_cli.main([str(path), "--game", "1", "--quiet"]) == 0
    assert "replay: macao, 3 players, seed 4" in capsys.readouterr().out
    assert replay_cli.main([str(path), "--game", "2"]) == 2
    assert "--game 2: " in capsys.readouterr().err


def test_replay_writes_a_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    game, _ = played_game("mau_mau_doubling", 2, seed=8)
    path = tmp_path / "g.jsonl"
    records.save_records(path, [records.record_game(game)])
    gif = tmp_path / "g.gif"
    assert replay_cli.main([str(path), "--quiet", "--video", str(gif), "--fps", "5"]) == 0
    with Image.open(gif) as image:
        assert image.size == (800, 600) and image.n_frames == game.decisions + 1
        assert image.info["duration"] == 200
    assert replay_cli.main([str(path), "--quiet", "--video", str(tmp_path / "g.avi")]) == 2
    assert "unknown video type '.avi'" in capsys.readouterr().err


@pytest.mark.parametrize("fps", ["nan", "inf", "0", "-2"])
def test_replay_refuses_a_frame_rate_that_is_not_a_positive_finite_number(
    fps: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--fps nan`` passed the ``<= 0`` check and failed after the replay with "cannot convert
    float NaN to integer"; ``--fps inf`` wrote a GIF of 0 ms frames."""
    game, _ = played_game("uno", 2, seed=3)
    path = tmp_path / "g.jsonl"
    records.save_records(path, [records.record_game(game)])
    gif = tmp_path / "g.gif"
    assert replay_cli.main([str(path), "--quiet", "--video", str(gif), "--fps", fps]) == 2
    err = capsys.readouterr().err
    assert f"--fps must be a finite number of frames per second > 0, got {float(fps)}" in err
    assert not gif.exists()


def test_a_video_or_benchmark_output_that_cannot_be_written_is_refused_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """replay --video, benchmark --out and --trace: a folder, a path below a file or a missing
    folder is one line before the game is replayed or the deals played (an IsADirectoryError
    or FileNotFoundError traceback after the work); a --trace that is not a record file is
    refused as play's --record is (the trace was appended to it, and the file no longer loaded)."""
    from training.benchmark import main as benchmark_main

    game, _ = played_game("uno", 2, seed=8)
    path = tmp_path / "g.jsonl"
    records.save_records(path, [records.record_game(game)])
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    for video, message in (
        (tmp_path, f"--video {tmp_path} is a folder; give a file such as {tmp_path / 'game.gif'}"),
        (tmp_path / "no" / "g.gif", f"the folder {tmp_path / 'no'} does not exist"),
        (blocker / "g.gif", f"{blocker} is a file, not a folder"),
    ):
        assert replay_cli.main([str(path), "--video", str(video)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1
    argv = ["greedy", "--deals", "1", "--players", "2"]
    for option, target, message in (
        ("--out", tmp_path, "is a folder; give a file such as"),
        ("--out", blocker / "r.json", f"{blocker} is a file, not a folder"),
        ("--trace", tmp_path, "is a folder; give a file such as"),
        ("--trace", blocker, "is not a record file to append to"),
    ):
        assert benchmark_main([*argv, option, str(target)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1
    assert blocker.read_text() == "mine\n"


def test_mp4_needs_imageio_ffmpeg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    frames = [np.zeros((600, 800, 3), dtype=np.uint8)] * 3
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "imageio_ffmpeg" else real(name, *a)
    )
    with pytest.raises(RuntimeError, match=r"needs imageio-ffmpeg .*or write a \.gif"):
        replay_cli.write_video(frames, tmp_path / "g.mp4", 2)
    monkeypatch.undo()
    pytest.importorskip("imageio_ffmpeg")
    replay_cli.write_video(frames, tmp_path / "g.mp4", 2)
    assert (tmp_path / "g.mp4").stat().st_size > 0


def test_the_cli_reports_a_missing_video_encoder_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    from training.cli import main as cli_main

    game, _ = played_game("uno", 2, seed=3)
    path = tmp_path / "games.jsonl"
    records.save_records(path, [records.record_game(game)])
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "imageio_ffmpeg" else real(name, *a)
    )
    assert cli_main(["replay", str(path), "--quiet", "--video", str(tmp_path / "g.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-env: error: uno-env replay needs imageio-ffmpeg (the video extra)")
    assert "or write a .gif" in err and "Nothing was run" in err and "Traceback" not in err
    assert not (tmp_path / "g.mp4").exists()


def test_a_changed_record_fails_loudly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game, _ = played_game("uno", 3, seed=5)
    record = records.record_game(game)
    assert record.outcome is not None and record.outcome.winner is not None
    other = (record.outcome.winner + 1) % 3
    wrong = dataclasses.replace(record, outcome=dataclasses.replace(record.outcome, winner=other))
    with pytest.raises(ReplayMismatchError, match="ends differently from the record"):
        records.replay_game(wrong)
    path = tmp_path / "bad.jsonl"
    records.save_records(path, [wrong])
    assert replay_cli.main([str(path), "--quiet"]) == 1
    assert "does not replay as recorded" in capsys.readouterr().err
    moved = dataclasses.replace(record, final_position=record.final_position + " ")  # type: ignore[operator]
    with pytest.raises(ReplayMismatchError, match="final position differs"):
        records.replay_game(moved)
    cut = dataclasses.replace(record, actions=record.actions[:5] + record.actions[6:])
    with pytest.raises(
        ReplayMismatchError, match=r"action \d+ of the record does not replay|ends differently"
    ):
        records.replay_game(cut)
    longer = dataclasses.replace(record, actions=(*record.actions, record.actions[-1]))
    with pytest.raises(ReplayMismatchError, match="goes on after the game ended"):
        records.replay_game(longer)


def test_a_game_from_a_position_cannot_be_recorded() -> None:
    game = Game.from_position(
        "uno", "hands=R5/G1; discard=R3; draw=Y1 Y2; colour=R; seat=0; dir=+; phase=play"
    )
    game.step("R5")
    with pytest.raises(RecordError, match="only games dealt from a seed"):
        records.record_game(game)


def good_line() -> dict[str, object]:
    game, _ = played_game("uno", 2, seed=1)
    return records.record_game(game, agents=["a", "b"]).to_dict()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "{not json", r"line 2: not JSON \(Expecting property name"),
        (lambda d: json.dumps([1, 2]), "line 2: expected a JSON object, got list"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "seed"}), "line 2: missing field.s. seed"),
        (lambda d: json.dumps({**d, "colour": 1}), r"line 2: unknown field\(s\) colour"),
        (
            lambda d: json.dumps({**d, "format": "other/9"}),
            "line 2: format 'other/9' is not 'uno-env-record/1'",
        ),
        (lambda d: json.dumps({**d, "env_version": ENV_VERSION + 1}), "line 2: recorded with env version"),
        (lambda d: json.dumps({**d, "rules": "deck=uno hand_size=lots"}), "line 2: unknown rules: "),
        (lambda d: json.dumps({**d, "rules": "deck=uno colours=5"}), "line 2: unknown rules: "),
        (lambda d: json.dumps({**d, "num_players": 11}), "line 2: unknown rules: num_players=11"),
        (lambda d: json.dumps({**d, "seed": -1}), r"line 2: seed must be in 0..2\*\*63-1"),
        (lambda d: json.dumps({**d, "seed": "7"}), "line 2: seed must be an integer"),
        (
            lambda d: json.dumps({**d, "actions": [0, 500]}),
            "line 2: action id 500 is outside the uno action table",
        ),
        (
            lambda d: json.dumps({**d, "actions": "R7"}),
            "line 2: actions must be a list of integer action ids",
        ),
        (lambda d: json.dumps({**d, "agents": ["a"]}), "line 2: agents must list 2 names"),
        (
            lambda d: json.dumps({**d, "outcome": {"winner": 0}}),
            "line 2: outcome must be an object with exactly",
        ),
        # uno-env results reads outcomes without replaying them: this one counted as a game
        # every seat lost
        (
            lambda d: json.dumps({**d, "outcome": {**d["outcome"], "winner": 7}}),
            r"line 2: outcome winner 7 is not a seat of the 2 players; allowed: 0\.\.1 or null",
        ),
    ],
)
def test_malformed_lines_are_named(tmp_path: Path, change: object, message: str) -> None:
    data = good_line()
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(data) + "\n" + change(data) + "\n", encoding="utf-8")  # type: ignore[operator]
    with pytest.raises(RecordError, match=message) as info:
        records.load_records(path)
    assert str(path) in str(info.value)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"empty\.jsonl: no records in it"):
        records.load_records(path)
    with pytest.raises(FileNotFoundError):
        records.load_records(tmp_path / "missing.jsonl")


def test_records_are_compact_json_lines(tmp_path: Path) -> None:
    game, _ = played_game("uno", 4, seed=2)
    line = records.record_game(game).to_json()
    assert "\n" not in line and " " not in line.split('"rules"')[0]
    data = json.loads(line)
    assert data["actions"] == [a for _, a in game.history]
    assert GameRecord.from_dict(data) == records.record_game(game)
    assert np.all(np.asarray(data["actions"]) < game.num_actions)


def cli_replay(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    from training.cli import main as cli_main

    code = cli_main(["replay", str(path), "--quiet", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_record_without_its_result_is_not_called_verified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, _ = played_game("uno", 2, seed=4)
    data = records.record_game(game).to_dict()
    bare = {k: v for k, v in data.items() if k not in ("outcome", "final_position", "digest")}
    path = tmp_path / "bare.jsonl"
    path.write_text(json.dumps(bare) + "\n")
    code, out, err = cli_replay(path, capsys)  # an unverified replay is not a success
    assert code == 3 and "NOT VERIFIED" in err and f"{path}, line 1" in err
    assert "only that its" in err and "actions are legal from its seed" in err
    code, out, _ = cli_replay(path, capsys, "--allow-unverified")
    assert code == 0 and "NOT VERIFIED: the record has no outcome, final_position, digest" in out
    (record,) = records.load_records(path)
    with pytest.raises(records.IncompleteRecordError, match="cannot be verified"):
        records.replay_game(record)
    assert records.replay_game(record, partial=True).is_over()
    # a changed seed or action without a result to compare: never exit 0 without the flag
    for change in ({"seed": bare["seed"] + 1}, {"actions": bare["actions"][:-3]}):
        path.write_text(json.dumps({**bare, **change}) + "\n")
        assert cli_replay(path, capsys)[0] in (1, 3)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("preset=uno", "preset=uno max_decisions=20000"), "preset 'uno', but its rules are not that preset: "
         "its rules differ in max_decisions=20000 \\(preset: 10000\\)"),
        (("preset=uno", "preset=uno uno_penalty=4"), "uno_penalty=4 \\(preset: 2\\)"),
    ],
)  # fmt: skip
def test_a_rule_edit_that_does_not_change_the_game_is_a_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], message: str
) -> None:
    game, _ = played_game("uno", 2, seed=1)  # scripted players who always call Uno in time
    data = records.record_game(game).to_dict()
    edited = {**data, "rules": data["rules"].replace(*edit)}
    assert edited["rules"] != data["rules"]
    record = GameRecord.from_dict(edited)
    game = records.replay_game(record, check=False)
    assert game.outcome() == record.outcome and game.position() == record.final_position  # same game
    with pytest.raises(ReplayMismatchError, match=message):
        records.check_replay(record, game)
    unnamed = GameRecord.from_dict({k: v for k, v in edited.items() if k != "preset"})
    with pytest.raises(ReplayMismatchError, match="changed after it was written: its digest"):
        records.replay_game(unnamed)
    path = tmp_path / "edited.jsonl"
    path.write_text(json.dumps(edited) + "\n")
    code, _, err = cli_replay(path, capsys)
    assert code == 1 and f"{path}, line 1: the game does not replay as recorded" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[" * 100_000 + b"\n", "line 2: not a record \\(JSON nested too deeply to read\\)"),
        (b'{"seed": \xff\xfe}\n', "line 2: not UTF-8 text \\(byte 10 of the line\\)"),
        (b'{"seed": ' + b"9" * 5000 + b"}\n", "line 2: not JSON \\(Exceeds the limit"),
        (b'{"format": "uno-env-record/1", "seed": ' + b"9" * 4000 + b"}\n", "line 2: missing field"),
        (b"SEED", "line 2: seed must be in 0..2\\*\\*63-1, got 99999"),
        (b"PLAYERS", "line 2: unknown rules: num_players=99999"),
        (b"ACTIONS", "line 2: actions must be a list of integer action ids"),
        (b"RULES", "line 2: unknown rules: "),
    ],
)
def test_every_malformed_line_is_one_error_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    data = good_line()
    changes = {
        b"SEED": {"seed": 10**4000 - 1},
        b"PLAYERS": {"num_players": 10**4000 - 1},
        b"ACTIONS": {"actions": [[[[]]]]},
        b"RULES": {"rules": "x" * 1_000_000},
    }
    if content in changes:
        content = json.dumps({**data, **changes[content]}).encode() + b"\n"
    path = tmp_path / "r.jsonl"
    path.write_bytes(json.dumps(data).encode() + b"\n" + content)
    with pytest.raises(RecordError, match=message) as info:
        records.load_records(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value) and len(str(info.value)) <= 400
    code, _, err = cli_replay(path, capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"uno-env: error: {path}, line 2: ")


def test_a_folder_is_not_a_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli_replay(tmp_path, capsys)
    assert code == 2 and err.count("\n") == 1 and "the file is a directory; allowed: a regular file" in err

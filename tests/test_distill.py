"""``uno-env distill --resume``: one session per run folder, a kill or a damaged chunk file.

Tiny runs (a few greedy games in chunks of two, one epoch of a network of 8 units, a few
evaluation deals): a second session of a run that is running is refused before it writes
anything; a run killed (SIGKILL) while it wrote a chunk resumes to the run an uninterrupted
one gives; a chunk file damaged on disk is collected again on resume, with a line naming it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

from training.distill import DistillConfig, load_data, main

TINY = ["--teacher", "greedy", "--opponents", "blocker", "--games", "10", "--chunk-games", "2",
        "--epochs", "1", "--net-arch", "8", "--eval-games", "4", "--quiet"]  # fmt: skip


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_second_session_of_a_distill_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two ``uno-env distill --resume`` of one run at once collected, trained and exported over
    each other: the folder is held (``OUT/.lock``) by its session, and a second one stops in
    one line naming the holder, before it writes anything."""
    from training.runner import lock_folder

    out = tmp_path / "run"
    assert main([*TINY, "--out", str(out)]) == 0
    (out / "chunks" / "chunk_00004.npz").unlink()  # an interrupted run: one chunk to collect
    before = contents(out)
    capsys.readouterr()
    with lock_folder(out, "distillation"):  # another session holds the folder
        assert main(["--resume", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "in use by another distillation run" in err
        assert f"pid {os.getpid()}" in err and len(err.strip().splitlines()) == 1
        assert main([*TINY, "--out", str(out)]) == 2  # nor a new run in the same folder
    assert {k: v for k, v in contents(out).items() if k != ".lock"} == {
        k: v for k, v in before.items() if k != ".lock"
    }  # nothing written by the refused sessions
    assert main(["--resume", str(out), "--quiet"]) == 0  # free again
    assert (out / "chunks" / "chunk_00004.npz").is_file()


KILLED = textwrap.dedent(
    """
    import os, signal, sys
    import numpy as np
    import training.distill as distill

    real = np.savez_compressed
    count = [0]

    def dying(file, **arrays):  # the third chunk: half its bytes, then SIGKILL
        count[0] += 1
        real(file, **arrays)
        if count[0] == 3:
            if hasattr(file, "flush"):  # a handle
                file.flush()
                file.truncate(file.tell() // 2)
                file.flush()
            else:
                os.truncate(file, os.path.getsize(file) // 2)
            os.kill(os.getpid(), signal.SIGKILL)

    np.savez_compressed = dying
    sys.exit(distill.main(sys.argv[1:]))
    """
)


def test_a_run_killed_while_writing_a_chunk_resumes_to_the_uninterrupted_run(tmp_path: Path) -> None:
    """SIGKILL in the middle of a chunk's write: the chunks written before stay, the one cut
    short is not taken for data, and the resumed run exports the network an uninterrupted run
    exports (no temporary file left)."""
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", KILLED, *TINY, "--out", str(killed)], env=env, capture_output=True, timeout=300
    )
    assert done.returncode == -9, done.stderr.decode()
    assert sorted(p.name for p in (killed / "chunks").glob("chunk_*.npz")) == [
        "chunk_00000.npz",
        "chunk_00001.npz",
    ]
    assert not (killed / "policy.npz").exists()
    assert main(["--resume", str(killed), "--quiet"]) == 0
    assert main([*TINY, "--out", str(whole)]) == 0
    assert (killed / "policy.npz").read_bytes() == (whole / "policy.npz").read_bytes()
    assert [p.name for p in (killed / "chunks").iterdir()] == [p.name for p in (whole / "chunks").iterdir()]
    assert not [p for p in killed.rglob("*") if p.name.endswith(".tmp") or ".tmp." in p.name]


def test_a_damaged_chunk_is_collected_again_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A chunk file cut short on disk (a crash before the data reached it, a full disk): the
    resume used to stop at it for good (``not a zip archive``) with no way on but deleting it
    by hand. It now names the file on one line and collects that chunk again."""
    out = tmp_path / "run"
    assert main([*TINY, "--out", str(out)]) == 0
    policy = (out / "policy.npz").read_bytes()
    chunk = out / "chunks" / "chunk_00001.npz"
    whole = chunk.read_bytes()
    chunk.write_bytes(whole[: len(whole) // 2])
    (out / "chunks" / "chunk_00003.npz").write_bytes(b"")
    capsys.readouterr()
    assert main(["--resume", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"decision chunk {chunk}" in err and "collecting it again" in err
    assert "chunk_00003.npz" in err
    assert chunk.read_bytes() == whole
    assert (out / "policy.npz").read_bytes() == policy


def test_resume_refuses_a_rule_file_edited_since_the_run_started(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--rules FILE``: a resume read the rule file again, so a file edited between sessions
    mixed two rule sets in one run's data. The run keeps its rules in ``OUT/rules.txt`` (as
    ``uno-env train`` does) and a resume whose rules differ stops in one line naming the run's
    and the given rules, before it collects anything."""
    rule_file = tmp_path / "house.toml"
    rule_file.write_text('preset = "uno"\nhand_size = 7\n')
    out = tmp_path / "run"
    assert main([*TINY, "--rules", str(rule_file), "--out", str(out)]) == 0
    assert (out / "rules.txt").read_text().strip() == "preset=uno"
    (out / "chunks" / "chunk_00004.npz").unlink()  # an interrupted run: one chunk to collect
    rule_file.write_text('preset = "uno"\nhand_size = 5\n')  # edited between sessions
    before = contents(out)
    capsys.readouterr()
    assert main(["--resume", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "preset=uno (" in err and "preset=uno hand_size=5" in err and "hand_size=" in err, err
    assert str(rule_file) in err and str(out / "rules.txt") in err, err
    assert {k: v for k, v in contents(out).items() if k != ".lock"} == {
        k: v for k, v in before.items() if k != ".lock"
    }  # nothing collected with the other rules
    rule_file.write_text('preset = "uno"\nhand_size = 7\n')  # restored: the run goes on
    assert main(["--resume", str(out), "--quiet"]) == 0
    assert (out / "chunks" / "chunk_00004.npz").is_file()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        # torch refused NaN only when the network trained, after the teacher's games were played
        (["--learning-rate", "nan"], r"--learning-rate must be a finite number > 0, got nan"),
        # a width of 0 or below reached torch's layers the same way
        (["--net-arch", "8", "0"], r"--net-arch must list positive layer widths \(integers\), got \[8, 0\]"),
        (["--batch-size", "0"], r"--batch-size must be positive"),
        # the exported policy file refused these only after the games and the training (a width
        # of 10**8 stopped in a traceback from torch's allocator)
        (
            ["--net-arch", "4097"],
            r"--net-arch 4097: an exported network has 1 to 7 hidden layers of 1 to 4,096",
        ),
        (["--net-arch", *["4"] * 8], r"--net-arch 4 4 4 4 4 4 4 4: an exported network has 1 to 7 hidden"),
        (["--net-arch", "4096", "4096"], r"--net-arch: the network has 2\d,\d{3},\d{3} weights and biases"),
        (
            ["--name", "n" * 201],
            r"--name: the name has 201 characters; an exported network's name has at most 200",
        ),
        # NumPy refused a negative seed naming no option; the compiled collector wrapped past 2**63
        (
            ["--seed", "-1"],
            r"--seed must be an integer in 0\.\.9,223,372,036,854,775,798 \(the teacher's game i",
        ),
        (
            ["--seed", str(2**63 - 5)],
            r"--seed must be an integer in 0\.\.9,223,372,036,854,775,798 .*got 922",
        ),
        # the evaluation refused 0 deals naming num_games, after the games and the training
        (["--eval-games", "0"], r"--eval-games and --threads must be at least 1, got 0 and 1"),
    ],
)
def test_bad_training_options_are_refused_before_any_game(
    option: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main([*TINY, *option, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"games": "10"}, r"--games must be an integer, got '10'"),  # a TypeError traceback
        ({"teacher": 5}, r"--teacher must be a string, got 5"),  # an AttributeError traceback
        (
            {"opponents": "blocker"},
            r"--opponents must be a list of strings, got 'blocker'",
        ),  # read as b, l, o...
        ({"holdout": 2}, r"holdout must be a share in \[0, 1\), got 2"),  # every chunk held out
    ],
)
def test_resume_refuses_an_edited_config_naming_the_file_and_the_field(
    change: dict[str, object], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``config.json`` edited before ``--resume`` went into the run unchecked: a field of
    another type stopped in a traceback or was read as something else. It is refused in one
    line naming the file and the field, before anything is written."""
    import dataclasses

    from training.distill import DistillConfig

    out = tmp_path / "run"
    out.mkdir()
    cfg = DistillConfig(teacher="greedy", opponents=["blocker"], games=10, chunk_games=2)
    (out / "config.json").write_text(json.dumps({**dataclasses.asdict(cfg), **change}))
    assert main(["--resume", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert re.search(f"distill config {re.escape(str(out / 'config.json'))}: {message}", err), err
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]


def test_resume_refuses_options_that_differ_from_the_run_naming_both_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``uno-env distill --resume OUT --seed 9 --games 800 --rules macao`` went on with the run's
    own config and dropped every one of them without a word (and ``--out`` too): options that
    differ from the recorded config, a default value given explicitly included, are refused
    naming both values, before anything is written."""
    import dataclasses

    from training.distill import DistillConfig

    out = tmp_path / "run"
    out.mkdir()
    cfg = DistillConfig(teacher="greedy", opponents=["blocker"], games=10, chunk_games=2, seed=5)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(cfg)))
    args = ["--resume", str(out), "--quiet"]
    assert main([*args, "--seed", "0", "--games", "800", "--rules", "macao"]) == 2
    err = capsys.readouterr().err
    assert "--seed 0 (the run's: 5)" in err and "--games 800 (the run's: 10)" in err
    assert "--rules 'macao' (the run's: 'uno')" in err
    assert main([*args, "--out", str(tmp_path / "other")]) == 2
    assert f"--out {tmp_path / 'other'}" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]


def test_a_run_of_one_chunk_says_that_none_was_held_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run whose games fill one chunk holds no chunk out (every decision trains the network),
    and its summary printed "held-out agreement with the teacher nan%". It says that none was
    held out and why; the record keeps no number for it (null), and a run of two chunks still
    prints its agreement."""
    single = tmp_path / "single"
    assert main([*TINY, "--games", "2", "--out", str(single)]) == 0
    captured = capsys.readouterr()
    assert "nan" not in captured.out and "nan" not in captured.err
    assert (
        "no held-out agreement with the teacher: the run's one data chunk was all used for training "
        "(--games above --chunk-games holds the last chunks out) -> " in captured.out
    )
    assert "none held out" in captured.err  # the epoch line
    record = json.loads((single / "record.json").read_text())
    assert (record["holdout_decisions"], record["holdout_agreement"]) == (0, None)
    two = tmp_path / "two"
    assert main([*TINY, "--games", "4", "--out", str(two)]) == 0
    assert re.search(r"held-out agreement with the teacher \d+\.\d% -> ", capsys.readouterr().out)
    # a share of 0 holds no chunk out (it held one out all the same)
    cfg = DistillConfig(**json.loads((two / "config.json").read_text()))
    train, held = load_data(dataclasses.replace(cfg, holdout=0.0), two)
    assert len(held["actions"]) == 0 and len(train["actions"]) > 0
    train_default, held_default = load_data(cfg, two)
    assert len(held_default["actions"]) > 0
    assert len(train_default["actions"]) + len(held_default["actions"]) == len(train["actions"])

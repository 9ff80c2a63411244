"""Files from elsewhere never crash, hang, exhaust memory or run code (one test per reported case).

Every file is crafted here. The cases, as an outside tester found them:

1. ``uno-env export`` of an unsigned checkpoint whose pickle writes a file: refused like every
   other entry point (``--trust-checkpoint`` to override), the file is never written.
2. An exported policy whose sidecar says ``actions=1`` (or 10), arrays and digest consistent:
   refused by ``load_exported``, ``agents.make``, ``simulate``, the tournament and the study
   before compiled code reads its weights; the compiled loop refuses such a network too.
3. Sidecar values: ``1e400``, nesting 100,000 deep, ``num_players: "two"``, an integer of
   5,000 digits: one line naming the field.
4. Memory: an ``.npy`` header declaring 10^6 x 10^6 floats, a zip bomb, a member that
   inflates past its declared size: refused from headers, memory bounded.
5. Special files: a FIFO or a link to ``/dev/zero`` as rule file, study spec base, study or
   atlas spec, policy, sidecar, checkpoint, record: refused at once, never read.
6. One line instead of a traceback: ``evaluate --games 10**12``, ``train --resume`` with a
   pickled snapshot file, a rule value of 5,000 digits (``tests/test_full_disk.py``: training
   on a full disk).
7. ``agents.make(path)`` checks the env and observation versions as ``simulate`` does.
8. ``tournament --resume DIR`` reads its design from the folder.

The compiled-engine cache under concurrency (case 9) is ``tests/test_cache_concurrency.py``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import agents
import uno_env
from tests.policy_files import (
    game_sizes,
    npy_header,
    npz_member,
    policy_arrays,
    redigest,
    set_declared_size,
    set_sidecar,
    write_policy,
    write_sidecar,
    write_zip,
)
from uno_env import files
from uno_env.engine.rules import RuleError
from uno_env.sim.learned import ExportedPolicy, PolicyFileError, load_exported, pack_layers

ROOT = Path(__file__).resolve().parent.parent


@dataclasses.dataclass(frozen=True)
class CliRun:
    """What one ``uno-env`` command left: its exit code and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


RunCli = Callable[..., CliRun]


def exit_code(stop: SystemExit) -> int:
    """The exit code the interpreter makes of ``stop`` (a message makes 1, printed to stderr)."""
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> RunCli:
    """``uno-env args`` in this process: the console script's ``training.cli.main(args)``, its
    output captured, run in ``cwd`` when given."""
    from training import cli

    def run(*args: str, cwd: Path | None = None) -> CliRun:
        capsys.readouterr()  # only this command's output
        with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
            try:
                code = cli.main(list(args))
            except SystemExit as stop:
                code = exit_code(stop)
        out, err = capsys.readouterr()
        return CliRun(code, out, err)

    return run


def one_line_error(done: CliRun, *needles: str) -> str:
    """The command failed with exit code 2 and one ``uno-env: error:`` line holding ``needles``."""
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("uno-env: error: ")]
    assert len(errors) == 1 and errors[0] == lines[-1], done.stderr[-3000:]
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _link_to_zero(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


# ================================================================ 1. export and trust
def test_1_export_refuses_an_unsigned_checkpoint_and_runs_none_of_it(tmp_path: Path, run_cli: RunCli) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")

    from agents import UntrustedCheckpointError, save_policy_metadata
    from tests.hostile import poison
    from training.export import export_checkpoint
    from uno_env.envs.single import SingleAgentEnv

    source = tmp_path / "real" / "model.zip"
    source.parent.mkdir()
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", SingleAgentEnv("uno", 2, "greedy"), n_steps=16, batch_size=16, seed=0, device="cpu",
        policy_kwargs={"net_arch": [8]},
    )  # fmt: skip
    model.save(source)
    save_policy_metadata(source, "uno", num_players=2)
    marker = tmp_path / "code-ran"
    evil = poison(source, tmp_path / "evil.zip", marker)
    with pytest.raises(UntrustedCheckpointError, match="--trust-checkpoint"):
        export_checkpoint(evil, tmp_path / "x.npz")
    done = run_cli("export", str(evil), "--out", str(tmp_path / "x.npz"))
    one_line_error(done, "is not trusted", "--trust-checkpoint")
    assert not marker.exists() and not (tmp_path / "x.npz").exists()
    # the genuine, signed checkpoint exports without the flag; the flag is accepted
    exported = export_checkpoint(source, tmp_path / "ok.npz")
    assert exported.num_actions == game_sizes()[1]
    done = run_cli("export", str(source), "--out", str(tmp_path / "ok2.npz"), "--trust-checkpoint")
    assert done.returncode == 0, done.stderr


# ================================================================ 2. the game's action table
@pytest.mark.parametrize("actions", [1, 10])
def test_2_a_policy_for_another_action_table_never_reaches_compiled_code(
    tmp_path: Path, actions: int, run_cli: RunCli
) -> None:
    path = write_policy(tmp_path, actions=actions)
    why = rf"architecture\.actions is {actions}; allowed: {game_sizes()[1]} \(the action table of its rules\)"
    with pytest.raises(PolicyFileError, match=why):
        load_exported(path)
    with pytest.raises(PolicyFileError, match=why):
        agents.make(str(path))
    with pytest.raises(PolicyFileError, match=why):
        uno_env.simulate("uno", 2, 4, seed=0, policies=[str(path), "greedy"])
    from training.tournament import run_tournament

    with pytest.raises(PolicyFileError, match=why):
        run_tournament(
            "uno", 2, [str(path), "greedy"], 2, out=tmp_path / "t", executor="serial", progress=False
        )
    simulate = run_cli(
        "simulate", "--players", "2", "--games", "4", "--policy", "policy.npz | greedy", cwd=tmp_path
    )
    one_line_error(simulate, "architecture.actions")
    spec = tmp_path / "study.toml"
    spec.write_text(f'players = [2]\nstyles = ["{path}", "greedy"]\ngames = 4\n')
    one_line_error(
        run_cli("study", str(spec), "--out", str(tmp_path / "s"), "--quiet"), "architecture.actions"
    )


def test_2_a_network_built_in_python_is_checked_before_compiled_code() -> None:
    """Policies built in Python (no file): the game check the compiled seating runs refuses one
    action, the weight bank a network without a hidden layer, the policy layers that do not chain."""
    inputs, actions = game_sizes()
    arrays = policy_arrays(inputs, (4,), 1)
    policy = ExportedPolicy(
        "one", (arrays["hidden.0.weight"], arrays["action.weight"]),
        (arrays["hidden.0.bias"], arrays["action.bias"]), "tanh", {},
    )  # fmt: skip
    with pytest.raises(PolicyFileError, match=f"1 actions, these rules have {actions}"):
        policy.check_game("uno")
    linear = policy_arrays(inputs, (), actions)
    with pytest.raises(PolicyFileError, match="network linear has no hidden layer"):
        pack_layers([("linear", (linear["action.weight"],), (linear["action.bias"],), "tanh")])
    with pytest.raises(PolicyFileError, match="layer 1"):  # layers that do not chain
        ExportedPolicy("bad", (arrays["hidden.0.weight"], arrays["hidden.0.weight"]),
                       (arrays["hidden.0.bias"], arrays["hidden.0.bias"]), "tanh", {})  # fmt: skip


def test_2_a_policy_for_another_observation_size_is_refused(tmp_path: Path) -> None:
    path = write_policy(tmp_path, inputs=12)
    with pytest.raises(
        PolicyFileError, match=r"architecture\.inputs is 12; allowed: \d+ \(the observation size"
    ):
        load_exported(path)


# ================================================================ 3. sidecar values
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('"inputs": 1e400', "architecture.inputs is inf; allowed: 1262"),
        ('"inputs": ' + "7" * 5000, "architecture.inputs is an integer of 5,000 digits"),
        ('"inputs": "884"', "architecture.inputs is '884'; allowed: 1262"),
        ('"inputs": 884.0', "architecture.inputs is 884.0"),
        ('"inputs": true', "architecture.inputs is True"),
        ('"inputs": NaN', "architecture.inputs is nan; allowed: 1262"),
    ],
)
def test_3_sidecar_numbers_are_refused_by_field(tmp_path: Path, text: str, needle: str) -> None:
    path = write_policy(tmp_path)
    sidecar = path.with_suffix(".json")
    raw = sidecar.read_text().replace(f'"inputs": {game_sizes()[0]}', text)
    assert text in raw
    sidecar.write_text(raw)
    with pytest.raises(PolicyFileError) as caught:
        load_exported(path)
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_3_deep_huge_and_ill_typed_sidecars_give_one_line(tmp_path: Path) -> None:
    path = write_policy(tmp_path)
    sidecar = path.with_suffix(".json")
    meta = json.loads(sidecar.read_text())
    sidecar.write_text(
        json.dumps({**meta, "training": "X"})[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    with pytest.raises(PolicyFileError, match="nests arrays and objects 100,001 deep; allowed: at most 64"):
        load_exported(path)
    write_sidecar(path, meta)
    set_sidecar(path, num_players="two")
    with pytest.raises(PolicyFileError, match=r"num_players is 'two'; allowed: null or an integer 2\.\.10"):
        load_exported(path)
    set_sidecar(path, num_players=2, training="x" * (2 * files.MiB))
    with pytest.raises(PolicyFileError, match=r"the file holds [\d,]+ bytes; allowed: at most 1,048,576"):
        load_exported(path)
    set_sidecar(path, training={}, architecture={"hidden": [4096] * 7})
    with pytest.raises(
        PolicyFileError, match=r"architecture has [\d,]+ weights and biases; allowed: at most"
    ):
        load_exported(path)
    set_sidecar(path, architecture={"hidden": [8]}, rules="deck=uno hand_size=seven")
    with pytest.raises(PolicyFileError, match="rules do not parse"):
        load_exported(path)


def test_3_the_tournament_reports_an_ill_typed_player_count_in_one_line(
    tmp_path: Path, run_cli: RunCli
) -> None:
    path = write_policy(tmp_path)
    set_sidecar(path, num_players="two")
    done = run_cli("tournament", "--agents", f"{path},greedy", "--games", "2", "--out", str(tmp_path / "t"))
    one_line_error(done, "num_players is 'two'")


# ================================================================ 4. memory
def _peak_bytes(call: object) -> int:
    tracemalloc.start()
    with contextlib.suppress(ValueError):
        call()  # type: ignore[operator]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_4_a_huge_declared_shape_is_refused_from_the_header(tmp_path: Path) -> None:
    path = write_policy(tmp_path)
    arrays = {
        f"{k}.npy": npz_member(v) for k, v in policy_arrays(*game_sizes()[:1], (8,), game_sizes()[1]).items()
    }
    arrays["hidden.0.weight.npy"] = npy_header("<f4", (10**6, 10**6)) + b"\0" * 64
    write_zip(path, arrays)
    redigest(path)
    start = time.perf_counter()
    assert _peak_bytes(lambda: load_exported(path)) < 4 * files.MiB
    with pytest.raises(
        PolicyFileError, match=r"'hidden\.0\.weight' has shape \(1000000, 1000000\); allowed: shape"
    ):
        load_exported(path)
    assert time.perf_counter() - start < 5


def test_4_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    path = write_policy(tmp_path)
    inputs, actions = game_sizes()
    members = {f"{k}.npy": npz_member(v) for k, v in policy_arrays(inputs, (8,), actions).items()}
    members["hidden.0.weight.npy"] = npy_header("<f4", (8, inputs)) + bytes(200 * files.MiB)
    write_zip(path, members, zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 1 * files.MiB
    redigest(path)
    assert _peak_bytes(lambda: load_exported(path)) < 4 * files.MiB
    with pytest.raises(PolicyFileError, match=r"inflates to [\d,]+ bytes; allowed: at most [\d,]+ bytes"):
        load_exported(path)
    # the same bomb declaring the size the array should have: reading stops there, then the
    # archive's checksum refuses it
    set_declared_size(path, "hidden.0.weight.npy", len(npy_header("<f4", (8, inputs))) + 8 * inputs * 4)
    redigest(path)
    assert _peak_bytes(lambda: load_exported(path)) < 4 * files.MiB
    with pytest.raises(PolicyFileError, match=r"array 'hidden\.0\.weight' .*Bad CRC-32"):
        load_exported(path)


def test_4_objects_and_other_dtypes_are_refused_from_the_header(tmp_path: Path) -> None:
    path = write_policy(tmp_path)
    inputs, actions = game_sizes()
    members = {f"{k}.npy": npz_member(v) for k, v in policy_arrays(inputs, (8,), actions).items()}
    members["action.bias.npy"] = npy_header("|O", (actions,)) + b"\x80\x04N."
    write_zip(path, members)
    redigest(path)
    with pytest.raises(
        PolicyFileError, match=r"'action\.bias' holds 'object'; allowed: float32 \(no objects"
    ):
        load_exported(path)
    members["action.bias.npy"] = npz_member(np.zeros(actions, dtype=np.float64))
    write_zip(path, members)
    redigest(path)
    with pytest.raises(PolicyFileError, match=r"'action\.bias' holds 'float64'"):
        load_exported(path)


# ================================================================ 5. special files
def test_5_special_files_are_refused_at_once_by_every_reader(tmp_path: Path, fifo: Path) -> None:
    zero = _link_to_zero(tmp_path / "zero.toml")
    pipe_toml = tmp_path / "pipe.toml"
    os.mkfifo(pipe_toml)
    for rules in (zero, pipe_toml, str(zero)):
        with pytest.raises(RuleError, match=r"is a (character device|FIFO)"):
            uno_env.load_rules(rules)
    from training.study.load import load_spec
    from training.study.spec import SpecError

    spec = tmp_path / "study.toml"
    spec.write_text(f'bases = ["{zero}"]\nplayers = [2]\n')
    with pytest.raises(SpecError, match="character device; allowed: a regular file"):
        load_spec(spec)
    with pytest.raises(SpecError, match="FIFO"):
        load_spec(fifo)
    policy = write_policy(tmp_path)
    policy.with_suffix(".json").unlink()
    os.mkfifo(policy.with_suffix(".json"))
    with pytest.raises(PolicyFileError, match=r"policy sidecar .* is a FIFO"):
        load_exported(policy)
    real = write_policy(tmp_path, "real")
    other = _link_to_zero(tmp_path / "other.npz")
    other.with_suffix(".json").write_bytes(real.with_suffix(".json").read_bytes())
    with pytest.raises(PolicyFileError, match=r"exported policy .*other.npz: the file is a character device"):
        load_exported(other)
    from uno_env.game.records import RecordError, load_records

    with pytest.raises(RecordError, match="FIFO"):
        load_records(fifo)
    with pytest.raises(RecordError, match="character device"):
        load_records(zero)
    from agents.trust import check_checkpoint_file

    with pytest.raises(files.FileError, match=r"checkpoint .* is a FIFO"):
        check_checkpoint_file(fifo)
    with pytest.raises(files.FileError, match=r"checkpoint .* is a directory"):
        check_checkpoint_file(tmp_path)


RUN_EACH_COMMAND = """
import contextlib
import io
import json
import sys

from tests.child_exit import exit_code
from training.cli import main

for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:  # the exit code the interpreter would make of it
            code = exit_code(stop)
    print(json.dumps([code, out.getvalue(), err.getvalue()]), flush=True)
"""


def run_cli_in_a_child(commands: list[list[str]], timeout: float) -> list[CliRun]:
    """Each of ``commands`` (``uno-env`` argument lists) in turn in one child process: a command
    that hangs on a special file fails the test at ``timeout`` instead of hanging the test run."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUN_EACH_COMMAND, json.dumps(commands)],
            capture_output=True, text=True, timeout=timeout, env=env, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as hung:
        output = hung.stdout.decode() if isinstance(hung.stdout, bytes) else hung.stdout or ""
        finished = output.count("\n")  # one line per finished command
        hung_command = " ".join(commands[finished]) if finished < len(commands) else "(after its commands)"
        pytest.fail(f"uno-env {hung_command} hung: not done after {timeout} s")
    assert done.returncode == 0, done.stderr[-3000:]
    return [CliRun(*json.loads(line)) for line in done.stdout.splitlines()]


def test_5_the_command_line_refuses_special_files_without_hanging(tmp_path: Path, fifo: Path) -> None:
    zero = _link_to_zero(tmp_path / "zero.toml")
    pipe_toml = tmp_path / "pipe.toml"
    os.mkfifo(pipe_toml)
    # a child process: reading a FIFO blocks, and a hang must fail this test, not stop the run
    runs = run_cli_in_a_child(
        [
            ["simulate", "--rules", str(zero), "--games", "1"],
            ["simulate", "--rules", str(pipe_toml), "--games", "1"],
            ["replay", str(fifo)],
            ["study", str(pipe_toml), "--out", str(tmp_path / "s")],
            ["atlas", str(pipe_toml), "--out", str(tmp_path / "a")],
        ],
        timeout=120,
    )
    for done, needle in zip(runs, ["character device", "FIFO", "FIFO", "FIFO", "FIFO"], strict=True):
        one_line_error(done, needle)


# ================================================================ 6. one line, not a traceback
def test_6_evaluate_refuses_an_impossible_game_count_in_one_line(run_cli: RunCli) -> None:
    done = run_cli("evaluate", "greedy", "--players", "2", "--games", "1000000000000")
    one_line_error(done, "--games 1000000000000: allowed 1..10,000,000")


def test_6_evaluate_refuses_seeds_past_2_to_the_63_in_one_line(run_cli: RunCli) -> None:
    """``--seed 2**64`` ended in an OverflowError traceback from the seat rotation; from Python,
    a seed near 2**63 wrapped the NumPy sum. Game j is dealt from seed + j: all must be seeds."""
    done = run_cli("evaluate", "greedy", "--players", "2", "--games", "2", "--seed", str(2**64))
    one_line_error(done, f"seed must be an integer in 0..2**63-1, got {2**64}")
    from training.evaluate import evaluate

    with pytest.raises(
        ValueError, match=r"seed \+ games must stay within 2\*\*63 .*got seed 9223372036854775807"
    ):
        evaluate("greedy", uno_env.load_rules("uno"), 2, ["random"], 2, 2**63 - 1, log=lambda _: None)


def test_6_rule_values_of_thousands_of_digits_are_rule_errors(tmp_path: Path, run_cli: RunCli) -> None:
    rule_file = tmp_path / "long.toml"
    rule_file.write_text("hand_size = " + "7" * 5000 + "\n")
    with pytest.raises(RuleError, match=r"line 1 \('hand_size'\) holds an integer of 5,000 digits"):
        uno_env.load_rules(rule_file)
    rule_file.write_text("hand_size = " + "7" * 500 + "\n")
    with pytest.raises(RuleError, match="hand_size is an integer of 500 digits"):
        uno_env.load_rules(rule_file)
    with pytest.raises(RuleError, match="at most 100 characters, got one of 5,000"):
        uno_env.RuleSet.parse("hand_size=" + "7" * 5000)
    from training.common import resolve_rules

    with pytest.raises(RuleError, match="at most 100 characters"):
        resolve_rules("uno", ["hand_size=" + "7" * 5000])
    one_line_error(
        run_cli("simulate", "--set", "hand_size=" + "7" * 5000, "--games", "1"), "at most 100 characters"
    )


# ================================================================ 7. versions at every entry point
@pytest.mark.parametrize(("key", "value"), [("env_version", "v0"), ("observation_spec", "obs-v1")])
def test_7_agents_make_checks_the_versions_as_simulate_does(tmp_path: Path, key: str, value: str) -> None:
    path = write_policy(tmp_path)
    set_sidecar(path, **{key: value})
    for load in (
        lambda: agents.make(str(path)),
        lambda: uno_env.simulate("uno", 2, 1, policies=[str(path), "greedy"]),
    ):
        with pytest.raises(PolicyFileError, match=f"{key} is '{value}'; allowed: "):
            load()


# ================================================================ 8. tournament --resume DIR
def test_8_tournament_resume_reads_its_design_from_the_folder(tmp_path: Path, run_cli: RunCli) -> None:
    out = tmp_path / "t"
    args = ["--rules", "uno_house", "--players", "3", "--agents", "greedy,blocker,aggressor", "--games", "3"]
    first = run_cli("tournament", *args, "--seed", "5", "--out", str(out), "--executor", "serial", "--quiet")
    assert first.returncode == 0, first.stderr
    standings = (out / "standings.csv").read_text()
    batches = sorted((out / "batches").glob("*.npz"))
    batches[0].unlink()  # a batch lost to a kill
    again = run_cli("tournament", "--resume", str(out), "--executor", "serial", "--quiet")
    assert again.returncode == 0, again.stderr
    assert (out / "standings.csv").read_text() == standings
    one_line_error(
        run_cli("tournament", "--resume", str(out), "--games", "4"),
        "--resume DIR continues the tournament recorded in DIR/tournament.json; do not give --games",
    )
    (out / "tournament.json").write_text(json.dumps({"format": "uno-env-tournament/1", "rules": 7}))
    one_line_error(run_cli("tournament", "--resume", str(out)), "tournament.json: rules is 7")
    one_line_error(run_cli("tournament", "--resume", str(tmp_path)), "holds no tournament to resume")


def test_8_a_damaged_batch_file_is_played_again(tmp_path: Path) -> None:
    from training.tournament import run_tournament

    out = tmp_path / "t"
    first = run_tournament("uno", 2, ["greedy", "blocker"], 3, out=out, executor="serial", progress=False)
    batch = sorted((out / "batches").glob("*.npz"))[0]
    with np.load(batch) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["winner"] = np.full_like(arrays["winner"], 9)  # no such seat
    np.savez(batch, **arrays)  # type: ignore[arg-type]
    again = run_tournament(
        "uno", 2, ["greedy", "blocker"], 3, out=out, executor="serial", progress=False, resume=True
    )
    assert again.standings.equals(first.standings)


def test_6_train_resume_refuses_a_pickled_snapshot_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A snapshot pool that is a pickle of Python objects (here one that would write a file):
    torch's weights-only reader refuses it, and resume says so in one line; a FIFO in its
    place is refused before it is read."""
    torch = pytest.importorskip("torch")
    from tests.hostile import _TouchOnLoad
    from tests.test_full_disk import TINY
    from training import cli

    runs = tmp_path / "runs"
    assert cli.main(["train", *TINY, "--steps", "64", "--runs-dir", str(runs)]) == 0
    (run,) = runs.iterdir()
    snapshots = run / "checkpoints" / "step_0000000064.snapshots.pt"
    marker = tmp_path / "code-ran"
    torch.save({"steps": [0], "payload": _TouchOnLoad(marker)}, snapshots)
    capsys.readouterr()
    assert cli.main(["train", "--resume", str(run), "--steps", "128"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert f"uno-env: error: snapshot file {snapshots}: the file holds more than tensors and numbers" in err
    assert not marker.exists()
    snapshots.unlink()
    os.mkfifo(snapshots)
    assert cli.main(["train", "--resume", str(run), "--steps", "128"]) == 2
    assert "the file is a FIFO (named pipe); allowed: a regular file" in capsys.readouterr().err


def test_5_agent_specs_refuse_special_files_in_one_line(tmp_path: Path, fifo: Path) -> None:
    """Any agent spec naming a file: a FIFO or a device is refused before it is read, whether
    the file is sniffed (a checkpoint without a suffix) or run (a Python file agent)."""
    from agents.spec import AgentSpecError, parse_agent

    with pytest.raises(AgentSpecError, match=r"agent file .*pipe: the file is a FIFO"):
        parse_agent(str(fifo))
    zero = _link_to_zero(tmp_path / "model")
    with pytest.raises(AgentSpecError, match="the file is a character device"):
        parse_agent(str(zero))
    code = tmp_path / "mine.py"
    os.mkfifo(code)
    with pytest.raises(AgentSpecError, match=r"Python file .*mine\.py: the file is a FIFO"):
        parse_agent(f"{code}:Agent").make("uno", 2, seed=0)

"""Checkpoints are pickles: only those this installation signed load without --trust-checkpoint.

A poisoned ``model.zip`` (its payload creates a marker file when unpickled) next to a sidecar
copied from a real checkpoint must not run on ``evaluate``, ``play --vs``, ``tournament
--agents`` or a study spec's ``styles``; with ``--trust-checkpoint`` it
does run, which shows the payload is real. Genuine checkpoints keep loading.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agents import PolicyAgent, UntrustedCheckpointError
from agents.trust import KEY_ENV, check_trusted, key_path
from tests.hostile import poison
from training import cli

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real (untrained) 2-player official-Uno checkpoint, saved and signed as uno-env does."""
    from agents import save_policy_metadata
    from uno_env.envs.single import SingleAgentEnv

    path = tmp_path_factory.mktemp("genuine") / "model.zip"
    env = SingleAgentEnv("uno", 2, "greedy")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu", policy_kwargs={"net_arch": [16]}
    )
    model.save(path)
    save_policy_metadata(path, "uno", num_players=2)
    return path


@pytest.fixture
def poisoned(genuine: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A poisoned copy of the genuine checkpoint (sidecar and signature copied) and its marker."""
    marker = tmp_path / "code-ran"
    return poison(genuine, tmp_path / "model.zip", marker), marker


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(args)
    return code, capsys.readouterr().err


def test_a_signed_checkpoint_loads_and_its_signature_covers_zip_and_sidecar(genuine: Path) -> None:
    side = json.loads(genuine.with_name("model.meta.json").read_text())
    assert side["signature"].startswith("hmac-sha256:")
    PolicyAgent(genuine, "uno", num_players=2)  # no flag needed
    assert key_path().stat().st_mode & 0o077 == 0  # the key is private to the user


def test_an_edited_sidecar_or_another_key_is_untrusted(
    genuine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "model.zip"
    copy.write_bytes(genuine.read_bytes())
    side = json.loads(genuine.with_name("model.meta.json").read_text())
    side["extra"] = {"run": "elsewhere"}
    copy.with_name("model.meta.json").write_text(json.dumps(side))
    with pytest.raises(UntrustedCheckpointError, match="does not verify"):
        check_trusted(copy, copy.with_name("model.meta.json"))
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "other.key"))  # another user or machine
    with pytest.raises(UntrustedCheckpointError, match="no signing key"):
        check_trusted(genuine, genuine.with_name("model.meta.json"))


def test_evaluate_refuses_a_poisoned_checkpoint(
    poisoned: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, marker = poisoned
    args = ["evaluate", str(path), "--players", "2", "--vs", "random", "--games", "2"]
    code, err = run_cli(args, capsys)
    assert code == 2 and "is not trusted" in err and "--trust-checkpoint" in err
    assert not marker.exists()
    with pytest.raises(Exception):  # noqa: B017 - the payload breaks the model; it ran first
        cli.main([*args, "--trust-checkpoint"])
    assert marker.exists()


def test_play_vs_refuses_a_poisoned_checkpoint(
    poisoned: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, marker = poisoned
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, err = run_cli(["play", "--players", "2", "--vs", str(path), "--seed", "1"], capsys)
    assert code == 2 and "is not trusted" in err
    assert not marker.exists()


def test_tournament_refuses_a_poisoned_checkpoint(
    poisoned: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, marker = poisoned
    args = ["tournament", "--players", "2", "--agents", f"{path},greedy", "--games", "2"]
    code, err = run_cli([*args, "--out", str(tmp_path / "t"), "--executor", "serial", "--quiet"], capsys)
    assert code == 2 and "is not trusted" in err
    assert not marker.exists() and not (tmp_path / "t").exists()


def test_a_study_refuses_a_poisoned_checkpoint(
    poisoned: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, marker = poisoned
    spec = tmp_path / "spec.toml"
    spec.write_text(f'name = "p"\nplayers = [2]\ngames = 4\nstyles = ["{path}", "greedy"]\n')
    args = ["study", str(spec), "--out", str(tmp_path / "s"), "--executor", "serial", "--quiet"]
    code, err = run_cli(args, capsys)
    assert code == 2 and "is not trusted" in err
    assert not marker.exists() and not (tmp_path / "s").exists()


def test_the_suite_signs_with_a_throwaway_key() -> None:
    """CI must not write the user's ``~/.config/uno-env``: the root conftest points the key
    into a temporary folder (inherited by subprocesses and notebook kernels)."""
    path = key_path()
    assert path.parent.name.startswith("uno-env-key-")
    assert (Path.home() / ".config") not in path.parents

"""Smoke runs of the examples (SB3 action-mask pattern; TorchRL, Tianshou, RLlib clients) on tiny budgets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT = REPO_ROOT / "examples" / "sb3_action_mask.py"


def test_sb3_action_mask_example_trains_saves_and_evaluates(tmp_path: Path) -> None:
    args = [
        sys.executable, str(SCRIPT), "--players", "3", "--steps", "256", "--envs", "2", "--n-steps", "64",
        "--batch-size", "64", "--eval-games", "2", "--max-decisions", "200", "--out", str(tmp_path),
    ]  # fmt: skip
    done = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    saved = list(tmp_path.glob("uno_env_v*.zip"))
    assert len(saved) == 1
    assert "Training on uno_env/uno-v1" in done.stdout
    assert "Win rate" in done.stdout and "total_timesteps" in done.stdout


def test_torchrl_masked_ppo_example_trains_and_evaluates() -> None:
    """The TorchRL client example: a tiny masked PPO run on make_vec, then the evaluation line."""
    pytest.importorskip("torchrl")
    script = REPO_ROOT / "examples" / "torchrl_masked_ppo.py"
    args = [
        sys.executable, str(script), "--frames", "512", "--num-envs", "4", "--batch-frames", "256",
        "--minibatch", "128", "--width", "16",
        "--eval-games", "8",
    ]  # fmt: skip
    done = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "trained 512 frames" in done.stdout and "Win rate vs random_playable" in done.stdout


def test_tianshou_masked_ppo_example_trains_and_evaluates() -> None:
    """The Tianshou client example: a tiny masked PPO run on the dict-observation env, then its evaluation."""
    pytest.importorskip("tianshou")
    script = REPO_ROOT / "examples" / "tianshou_masked_ppo.py"
    args = [
        sys.executable, str(script), "--steps", "512", "--epoch-steps", "256", "--num-envs", "2",
        "--batch-steps", "128", "--minibatch", "64", "--width", "16",
        "--eval-games", "8",
    ]  # fmt: skip
    done = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "games ended, mean game return" in done.stdout
    assert "trained " in done.stdout and "Win rate vs random_playable" in done.stdout


@pytest.mark.parametrize("example", ["sb3_action_mask", "torchrl_masked_ppo", "tianshou_masked_ppo"])
def test_an_examples_imports_keep_the_engines_code_target(example: str) -> None:
    """Importing an example leaves numba's code target where ``import uno_env`` alone sets it,
    so the example loads the code ``uno-env compile`` made. Tianshou compiles numba code at
    import: imported before uno_env, it fixed the target, and the example compiled the whole
    engine again for the host CPU (about a minute) in a new cache directory."""
    pytest.importorskip(
        {"torchrl_masked_ppo": "torchrl", "tianshou_masked_ppo": "tianshou"}.get(example, "torch")
    )
    report = "import numba; print(numba.config.CPU_NAME)"
    alone = subprocess.run(
        [sys.executable, "-c", f"import uno_env; {report}"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    imported = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, 'examples'); import {example}; {report}"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    assert imported.stdout.split()[-1] == alone.stdout.split()[-1]


def test_rllib_masked_ppo_example_trains_and_evaluates() -> None:
    """The RLlib client example where RLlib is installed (in its own environment: see its docstring)."""
    pytest.importorskip("ray.rllib")
    script = REPO_ROOT / "examples" / "rllib_masked_ppo.py"
    args = [
        sys.executable, str(script), "--steps", "512", "--batch-steps", "256", "--minibatch", "128",
        "--num-envs", "2", "--width", "16",
        "--eval-games", "8",
    ]  # fmt: skip
    done = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "trained " in done.stdout and "Win rate vs random_playable" in done.stdout

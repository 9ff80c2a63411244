"""Smoke run of ``examples/sb3_action_mask.py`` (the SB3 action-mask tutorial pattern) on a tiny budget."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT = REPO_ROOT / "examples" / "sb3_action_mask.py"


def test_sb3_action_mask_example_trains_saves_and_evaluates(tmp_path: Path) -> None:
    args = [
        sys.executable, str(SCRIPT), "--players", "3", "--steps", "256", "--n-steps", "128",
        "--batch-size", "64", "--eval-games", "2", "--max-decisions", "200", "--out", str(tmp_path),
    ]  # fmt: skip
    done = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    saved = list(tmp_path.glob("uno_env_v*.zip"))
    assert len(saved) == 1
    assert "Training on uno_env/uno-v1" in done.stdout
    assert "Win rate" in done.stdout and "total_timesteps" in done.stdout

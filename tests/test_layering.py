"""Layering: the engine modules import nothing of the RL stack (STYLE principle 1).

``training -> agents -> uno_env (env) -> uno_env (encoding) -> uno_env (engine)``: importing
the engine, the facade, the batch simulator and the rule sets in a fresh interpreter must not
load PettingZoo, Gymnasium, Torch or Stable-Baselines3.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
ENGINE_MODULES = (
    "uno_env.engine",
    "uno_env.game",
    "uno_env.batch",
    "uno_env.rules",
    "uno_env.position",
    "uno_env.cards",
    "uno_env.actions",
    "uno_env.layout",
    "uno_env.rng",
)
FORBIDDEN = ("pettingzoo", "gymnasium", "gym", "torch", "stable_baselines3", "sb3_contrib", "tensorboard")


def _loaded_after_import(modules: tuple[str, ...]) -> list[str]:
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(modules)!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    loaded: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return loaded


def test_engine_modules_do_not_import_the_rl_stack() -> None:
    loaded = _loaded_after_import(ENGINE_MODULES)
    assert "uno_env.engine" in loaded and "uno_env.game" in loaded
    offending = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert not offending, f"importing the engine layer loaded {offending}"


def test_the_probe_sees_what_it_looks_for() -> None:
    """The same probe does notice an RL library when one is imported (the test can fail)."""
    loaded = _loaded_after_import(("uno_env.engine", "gymnasium"))
    assert "gymnasium" in loaded

"""Test-wide set-up for the suite (``tests/``) and the notebooks (``pytest --nbmake notebooks``).

Checkpoints are signed with a throw-away key, never the user's own: ``UNO_ENV_KEY_FILE``
(:mod:`agents.trust`) points into a temporary folder removed when the run ends, so neither
``make test`` nor CI writes ``~/.config/uno-env``. Subprocesses and notebook kernels inherit
the variable, so a checkpoint a test trains through the command line verifies in the same
test's later commands. Stable-Baselines3 models trained without a logger of their own log to
``SB3_LOGDIR``, in the same temporary folder, instead of leaving a ``/tmp/SB3-<time>`` folder
per model.
"""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

_KEY_DIR = tempfile.mkdtemp(prefix="uno-env-key-")
atexit.register(shutil.rmtree, _KEY_DIR, ignore_errors=True)
os.environ["UNO_ENV_KEY_FILE"] = str(Path(_KEY_DIR) / "checkpoint.key")
os.environ["SB3_LOGDIR"] = str(Path(_KEY_DIR) / "sb3-logs")

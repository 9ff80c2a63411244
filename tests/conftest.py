"""Test-wide set-up: checkpoints are signed with a throw-away key, never the user's own.

Subprocesses inherit the variable, so a checkpoint a test trains through the command line
verifies in the same test's later commands (:mod:`agents.trust`).
"""

import os
import tempfile
from pathlib import Path

os.environ["UNO_ENV_KEY_FILE"] = str(Path(tempfile.mkdtemp(prefix="uno-env-key-")) / "checkpoint.key")

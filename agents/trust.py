"""Which checkpoints may be unpickled: those this user's installation wrote, or the user vouches for.

An SB3 checkpoint (``model.zip``) holds pickled Python objects, so loading one can run any
code its author put in it; its metadata sidecar (``model.meta.json``) is plain JSON that anyone
can copy from a real run. The rule:

- :func:`agents.save_policy_metadata` (called by ``uno-env train`` and ``uno-env selfplay``
  for every checkpoint they write, and by your own scripts) *signs* the checkpoint: the
  sidecar gets ``"signature": "hmac-sha256:<hex>"``, an HMAC-SHA256 under a secret key of this
  user (:func:`key_path`: ``$UNO_ENV_KEY_FILE``, else ``$XDG_CONFIG_HOME/uno-env/checkpoint.key``,
  else ``~/.config/uno-env/checkpoint.key``; 32 random bytes created on first use, mode 0600)
  over the zip's SHA-256 and every other field of the sidecar.
- A checkpoint is *trusted* when that signature verifies under the key: it was written by
  this tool for this user and neither file changed since. Everything else (downloaded run
  folders, checkpoints written on another machine or account, an edited sidecar, a replaced
  zip, a checkpoint from before signing) is loaded only when the user says so:
  ``--trust-checkpoint`` on the command line, ``trust=True`` in Python. Otherwise
  :func:`check_trusted` raises :class:`UntrustedCheckpointError` before the zip is opened.

The key never leaves this machine and is not needed to read the sidecar; deleting it makes
every earlier checkpoint untrusted (a new key is made on the next save). The signature is a
provenance check, not a sandbox: ``--trust-checkpoint`` runs whatever the file contains.

Before the signature, trusted or not, :func:`check_checkpoint_file` checks the zip as every
user file is checked (:mod:`uno_env.files`): a regular file (not a FIFO or device, also
through a link) of at most :data:`CHECKPOINT_LIMIT` bytes whose zip directory is within
:data:`CHECKPOINT_ZIP` (members, inflated sizes, compression ratios), nothing inflated yet.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from uno_env import files

KEY_ENV = "UNO_ENV_KEY_FILE"
"""Environment variable naming the key file (tests and shared machines set it)."""
KEY_BYTES = 32
SIGNATURE_PREFIX = "hmac-sha256:"
TRUST_FLAG = "--trust-checkpoint"
"""The command-line flag that loads a checkpoint without a valid signature."""
CHECKPOINT_LIMIT = 1 * files.GiB
"""Largest checkpoint zip read."""
CHECKPOINT_ZIP = files.ZipLimits(members=32, member_bytes=1 * files.GiB, total_bytes=2 * files.GiB)
"""What a checkpoint zip may hold (an SB3 zip has six members: the pickled ``data``, the
policy's and optimizer's tensors, ...; tensors barely compress, so the ratio limit is far
from any real member)."""


class UntrustedCheckpointError(ValueError):
    """A checkpoint this installation did not sign (or that changed since), loaded without trust."""


def key_path() -> Path:
    """Where this user's signing key lives (see the module docstring)."""
    explicit = os.environ.get(KEY_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "uno-env" / "checkpoint.key"


def _read_key(path: Path) -> bytes | None:
    try:  # a regular file of a few bytes (a FIFO or a device named by the setting is no key)
        key = files.read_bytes(path, 4 * KEY_BYTES, "signing key")
    except (OSError, ValueError):
        return None
    return key if len(key) == KEY_BYTES else None


def signing_key(*, create: bool) -> bytes | None:
    """This user's key; with ``create``, made (32 random bytes, mode 0600) when missing.

    ``None`` when there is no usable key (and it cannot or may not be created).
    """
    path = key_path()
    key = _read_key(path)
    if key is not None or not create:
        return key
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it meanwhile (or it is unreadable)
        return _read_key(path)
    except OSError as exc:
        print(f"warning: cannot create the checkpoint signing key {path}: {exc}", file=sys.stderr)
        return None
    try:
        os.write(fd, os.urandom(KEY_BYTES))
    finally:
        os.close(fd)
    return _read_key(path)


def _file_sha256(path: Path) -> str:
    return files.file_sha256(path, CHECKPOINT_LIMIT, "checkpoint")


def check_checkpoint_file(zip_path: str | Path) -> None:
    """Refuse (one :class:`uno_env.files.FileError` line) a checkpoint that is not a regular file
    of at most :data:`CHECKPOINT_LIMIT` bytes holding a zip archive within
    :data:`CHECKPOINT_ZIP`; nothing is inflated or unpickled."""
    files.check_zip_file(zip_path, "checkpoint", CHECKPOINT_LIMIT, CHECKPOINT_ZIP)


def signature(key: bytes, zip_path: Path, sidecar: Mapping[str, Any]) -> str:
    """The signature of a checkpoint: HMAC-SHA256 over the zip's digest and the sidecar's fields."""
    fields = {k: v for k, v in sidecar.items() if k != "signature"}
    message = "uno-env-checkpoint/1\n" + _file_sha256(zip_path) + "\n" + json.dumps(fields, sort_keys=True)
    return SIGNATURE_PREFIX + hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


def sign(zip_path: Path, sidecar: Mapping[str, Any]) -> str | None:
    """The signature to store in a new sidecar, or ``None`` (no zip yet, or no key)."""
    if not zip_path.is_file():
        return None
    key = signing_key(create=True)
    return None if key is None else signature(key, zip_path, sidecar)


def check_trusted(zip_path: str | Path, sidecar_path: str | Path, *, trust: bool = False) -> None:
    """Raise :class:`UntrustedCheckpointError` unless the checkpoint is trusted or ``trust`` is set.

    Call it after the metadata check and before the zip is unpickled. Either way the zip
    must pass :func:`check_checkpoint_file` first (a :class:`uno_env.files.FileError`).
    """
    check_checkpoint_file(zip_path)
    if trust:
        return
    zip_path, sidecar_path = Path(zip_path), Path(sidecar_path)
    try:
        sidecar = files.read_json(sidecar_path, "checkpoint sidecar")
    except files.MissingFileError:
        sidecar = None
    recorded = sidecar.get("signature") if isinstance(sidecar, dict) else None
    key = signing_key(create=False)
    if not isinstance(recorded, str):
        why = "its sidecar carries no signature of this installation"
    elif key is None:
        why = f"there is no signing key ({key_path()}) to check its signature with"
    elif not hmac.compare_digest(recorded, signature(key, zip_path, sidecar)):
        why = (
            "its signature does not verify: it was written under another key (another user or "
            "machine), or the zip or its sidecar changed since"
        )
    else:
        return
    raise UntrustedCheckpointError(
        f"checkpoint {zip_path} is not trusted: {why}. SB3 checkpoints are pickles, and loading one "
        f"runs any code it contains; only checkpoints this installation wrote (uno-env train, "
        f"uno-env selfplay, agents.save_policy_metadata) are loaded without asking. If you trust "
        f"its source, pass {TRUST_FLAG} (in Python: trust=True)"
    )

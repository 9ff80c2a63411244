"""Crafted exported-policy files for the hostile-input tests and the policy-file fuzzer.

:func:`write_policy` writes a well-formed policy (``.npz`` + sidecar, correct digest) of any
architecture, so a test can make one that is internally consistent but wrong for the game
(``actions=1``); :func:`set_sidecar` edits the sidecar afterwards (the digest covers the
weights only); :func:`npz_member` and :func:`write_zip` build archives by hand, down to the
``.npy`` header bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import uno_env
from uno_env.game.encoding import obs_layout
from uno_env.sim.learned import FORMAT
from uno_env.versions import ENV_VERSION, OBS_VERSION


def game_sizes(rules: str = "uno") -> tuple[int, int]:
    """The observation size and action count of a preset."""
    ruleset = uno_env.load_rules(rules)
    return obs_layout(ruleset.deck_family).size, ruleset.num_actions


def policy_arrays(inputs: int, hidden: Sequence[int], actions: int, seed: int = 0) -> dict[str, np.ndarray]:
    """The float32 arrays of an MLP, named as exported policies name them."""
    rng = np.random.default_rng(seed)
    widths = [inputs, *hidden, actions]
    arrays: dict[str, np.ndarray] = {}
    for k in range(len(widths) - 1):
        prefix = "action" if k == len(widths) - 2 else f"hidden.{k}"
        arrays[f"{prefix}.weight"] = (rng.standard_normal((widths[k + 1], widths[k])) * 0.3).astype(
            np.float32
        )
        arrays[f"{prefix}.bias"] = (rng.standard_normal(widths[k + 1]) * 0.1).astype(np.float32)
    return arrays


def sidecar(
    path: Path, inputs: int, hidden: Sequence[int], actions: int, rules: str = "uno", players: int | None = 2
) -> dict[str, Any]:
    """A sidecar that describes these arrays truthfully, digest included."""
    return {
        "format": FORMAT,
        "name": path.stem,
        "rules": str(uno_env.load_rules(rules)),
        "observation_spec": f"obs-v{OBS_VERSION}",
        "env_version": f"v{ENV_VERSION}",
        "num_players": players,
        "architecture": {
            "kind": "mlp",
            "inputs": inputs,
            "hidden": list(hidden),
            "activation": "tanh",
            "actions": actions,
        },
        "weights_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "training": {"command": "crafted by a test"},
    }


def write_policy(
    folder: Path,
    name: str = "policy",
    *,
    rules: str = "uno",
    hidden: Sequence[int] = (8,),
    inputs: int | None = None,
    actions: int | None = None,
    seed: int = 0,
) -> Path:
    """Write ``folder/name.npz`` and its sidecar, consistent with each other (the digest is
    right, the arrays are what the sidecar says); ``inputs`` and ``actions`` default to the
    game's. Returns the ``.npz`` path."""
    size, count = game_sizes(rules)
    inputs = size if inputs is None else inputs
    actions = count if actions is None else actions
    path = folder / f"{name}.npz"
    with path.open("wb") as handle:
        np.savez(handle, **policy_arrays(inputs, hidden, actions, seed))  # type: ignore[arg-type]
    write_sidecar(path, sidecar(path, inputs, hidden, actions, rules))
    return path


def write_sidecar(path: Path, meta: Any) -> None:
    """Write the sidecar of ``path`` (``.json`` beside it) as JSON."""
    path.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")


def read_sidecar(path: Path) -> dict[str, Any]:
    """The sidecar of ``path`` as a dict."""
    meta: dict[str, Any] = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    return meta


def set_sidecar(path: Path, **changes: Any) -> None:
    """Change top-level fields of the sidecar of ``path`` (``architecture`` is merged)."""
    meta = read_sidecar(path)
    for key, value in changes.items():
        if key == "architecture" and isinstance(value, dict):
            meta["architecture"].update(value)
        else:
            meta[key] = value
    write_sidecar(path, meta)


def redigest(path: Path) -> None:
    """Set the sidecar's digest to the weights file's current SHA-256."""
    set_sidecar(path, weights_sha256=hashlib.sha256(path.read_bytes()).hexdigest())


def npy_header(
    descr: str, shape: Sequence[int], fortran: bool = False, version: tuple[int, int] = (1, 0)
) -> bytes:
    """The bytes of an ``.npy`` header (magic, version, length, dictionary, padding)."""
    text = f"{{'descr': {descr!r}, 'fortran_order': {fortran}, 'shape': {tuple(shape)!r}, }}"
    length_size = 2 if version == (1, 0) else 4
    pad = (-(10 + length_size - 2 + len(text) + 1)) % 64
    body = (text + " " * pad + "\n").encode("latin1")
    length = struct.pack("<H" if length_size == 2 else "<I", len(body))
    return b"\x93NUMPY" + bytes(version) + length + body


def npz_member(array: np.ndarray) -> bytes:
    """An ``.npy`` member holding ``array`` as ``np.save`` writes it."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def write_zip(path: Path, members: Mapping[str, bytes], compression: int = zipfile.ZIP_STORED) -> None:
    """A zip archive of ``members`` (name -> bytes)."""
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def set_declared_size(path: Path, member: str, size: int) -> None:
    """Rewrite the inflated size a zip's local header and central directory declare for
    ``member`` (the data stay as they are: a member that inflates to more, or less, than its
    header says)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
        local = info.header_offset
    struct.pack_into("<I", data, local + 22, size)
    offset = data.find(b"PK\x01\x02")
    while offset >= 0:
        name_length = struct.unpack_from("<H", data, offset + 28)[0]
        name = bytes(data[offset + 46 : offset + 46 + name_length]).decode("utf-8")
        if name == member:
            struct.pack_into("<I", data, offset + 24, size)
            break
        extra = struct.unpack_from("<H", data, offset + 30)[0]
        comment = struct.unpack_from("<H", data, offset + 32)[0]
        offset = data.find(b"PK\x01\x02", offset + 46 + name_length + extra + comment)
    path.write_bytes(bytes(data))

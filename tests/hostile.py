"""Helpers of the hostile-input tests: checkpoints that run code when unpickled."""

from __future__ import annotations

import base64
import json
import pathlib
import pickle
import zipfile
from pathlib import Path


class _TouchOnLoad:
    """Unpickling this object creates the file ``marker`` (a stand-in for any code)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def poison(source: Path, target: Path, marker: Path) -> Path:
    """Copy SB3 checkpoint ``source`` to ``target`` with a payload that creates ``marker`` on load.

    The payload replaces the pickled policy class in the zip's ``data`` record, which
    ``MaskablePPO.load`` unpickles before anything else. The sidecar is copied unchanged
    (its metadata, and even its signature, are those of the real checkpoint).
    """
    payload = base64.b64encode(pickle.dumps(_TouchOnLoad(marker))).decode("ascii")
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as dst:
        for item in src.infolist():
            content = src.read(item.filename)
            if item.filename == "data":
                data = json.loads(content)
                data["policy_class"][":serialized:"] = payload
                content = json.dumps(data).encode("utf-8")
            dst.writestr(item, content)
    sidecar = source.with_name(source.stem + ".meta.json")
    target.with_name(target.stem + ".meta.json").write_bytes(sidecar.read_bytes())
    return target

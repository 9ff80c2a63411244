"""Training on a full disk: one line, no partial checkpoint left, and ``--resume`` continues.

Two ways to fill the disk:

- a real one: a small tmpfs mounted in a user and mount namespace (``unshare -r -m``, no root
  privileges needed; skipped where the kernel does not allow it), filled up after the run's
  first checkpoint so that the next one does not fit;
- the write layer: the next checkpoint's zip write fails with ``ENOSPC`` half-way through
  (in-process, through ``uno-env train``'s own command line).

Either way the run stops with exit code 2 and one ``uno-env: error:`` line saying which
checkpoint it continues from, the failed checkpoint leaves no file behind (``latest.json``
still names the one before), and ``uno-env train --resume`` finishes the run.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

pytest.importorskip("sb3_contrib")

from training import cli
from training import train as train_module

TINY = [
    "--num-envs", "4", "--n-steps", "16", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "8",
    "--eval-every", "64", "--eval-games", "2", "--eval-opponents", "greedy", "--no-progress",
    "--no-tensorboard", "--exp", "disk", "--seed", "1",
]  # fmt: skip


def _checkpoint_files(run: Path) -> list[str]:
    return sorted(p.name for p in (run / "checkpoints").iterdir())


def _latest(run: Path) -> int:
    return int(json.loads((run / "checkpoints" / "latest.json").read_text())["step"])


def _one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr[-3000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("uno-env: error: "), stderr[-3000:]
    assert sum(line.startswith("uno-env: error: ") for line in lines) == 1
    return lines[-1]


def test_a_failed_checkpoint_write_leaves_nothing_and_resume_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    assert cli.main(["train", *TINY, "--steps", "64", "--runs-dir", str(runs)]) == 0
    (run,) = runs.iterdir()
    assert _latest(run) == 64
    before = _checkpoint_files(run)
    real = train_module.write_file_atomic

    def full_disk(path: Path, write: Any) -> None:
        if path.name.startswith("step_0000000128"):

            def half_then_full(handle: IO[bytes]) -> None:
                handle.write(b"PK\x03\x04" + bytes(4096))  # some of it reaches the disk
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            real(path, half_then_full)
        real(path, write)

    monkeypatch.setattr(train_module, "write_file_atomic", full_disk)
    capsys.readouterr()
    assert cli.main(["train", "--resume", str(run), "--steps", "192"]) == 2
    error = _one_error_line(capsys.readouterr().err)
    assert "training stopped: cannot write the run folder" in error and "No space left on device" in error
    assert "the last complete checkpoint is step 64" in error and f"uno-env train --resume {run}" in error
    assert _checkpoint_files(run) == before  # nothing of step 128, no temporary file
    assert _latest(run) == 64
    monkeypatch.setattr(train_module, "write_file_atomic", real)
    assert cli.main(["train", "--resume", str(run), "--steps", "192"]) == 0
    assert _latest(run) == 192
    assert "step_0000000128.zip" in _checkpoint_files(run)


UNSHARE = shutil.which("unshare")


def _can_mount_tmpfs(tmp_path: Path) -> bool:
    if UNSHARE is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    done = subprocess.run(
        [UNSHARE, "-r", "-m", "sh", "-c", f"mount -t tmpfs -o size=1m tmpfs {probe}"],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


SCRIPT = r"""
set -u
mount -t tmpfs -o size=4m tmpfs "$RUNS"
"$PY" -m training.train $TINY --steps 64 --runs-dir "$RUNS" > "$OUT/first.out" 2> "$OUT/first.err"
echo $? > "$OUT/first.rc"
RUN=$(ls -d "$RUNS"/*/)
# fill the disk: what is left holds the logs and the plot, not another checkpoint
ZIP=$(stat -c %s "$RUN"checkpoints/step_0000000064.zip)
PNG=$(stat -c %s "$RUN"eval_curve.png)
FREE=$(( $(stat -f -c %a "$RUNS") * $(stat -f -c %S "$RUNS") ))
KEEP=$(( PNG + 49152 ))
echo "$ZIP $PNG $KEEP" > "$OUT/sizes"
dd if=/dev/zero of="$RUNS/filler" bs=4096 count=$(( (FREE - KEEP) / 4096 )) 2> /dev/null
"$PY" -m training.train --resume "$RUN" --steps 192 > "$OUT/full.out" 2> "$OUT/full.err"
echo $? > "$OUT/full.rc"
ls "$RUN"checkpoints > "$OUT/after_full"
cp "$RUN"checkpoints/latest.json "$OUT/latest_after_full.json"
rm "$RUNS/filler"
"$PY" -m training.train --resume "$RUN" --steps 192 > "$OUT/resumed.out" 2> "$OUT/resumed.err"
echo $? > "$OUT/resumed.rc"
ls "$RUN"checkpoints > "$OUT/after_resume"
cp "$RUN"checkpoints/latest.json "$OUT/latest_after_resume.json"
"""


@pytest.mark.slow
def test_training_on_a_full_tmpfs_stops_in_one_line_and_resumes(tmp_path: Path) -> None:
    if not _can_mount_tmpfs(tmp_path):
        pytest.skip("no user and mount namespaces here (unshare -r -m): the write-layer test covers it")
    runs, out = tmp_path / "runs", tmp_path / "out"
    runs.mkdir()
    out.mkdir()
    root = Path(__file__).resolve().parent.parent
    env = dict(
        os.environ, RUNS=str(runs), OUT=str(out), PY=sys.executable, TINY=" ".join(TINY), PYTHONPATH=str(root)
    )
    assert UNSHARE is not None
    done = subprocess.run(
        [UNSHARE, "-r", "-m", "bash", "-c", SCRIPT],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "first.rc").read_text().strip() == "0", (out / "first.err").read_text()[-3000:]
    zip_size, _, keep = map(int, (out / "sizes").read_text().split())
    assert keep < zip_size, "the disk left room for a whole checkpoint: the test would not fill it"
    assert (out / "full.rc").read_text().strip() == "2", (out / "full.err").read_text()[-3000:]
    error = _one_error_line((out / "full.err").read_text())
    assert "No space left on device" in error and "uno-env train --resume" in error
    assert "the last complete checkpoint is step 64" in error
    left = (out / "after_full").read_text().split()
    assert not [name for name in left if "0000000128" in name or name.startswith(".")]  # nothing partial
    assert json.loads((out / "latest_after_full.json").read_text())["step"] == 64
    assert (out / "resumed.rc").read_text().strip() == "0", (out / "resumed.err").read_text()[-3000:]
    assert json.loads((out / "latest_after_resume.json").read_text())["step"] == 192
    assert "step_0000000192.zip" in (out / "after_resume").read_text().split()

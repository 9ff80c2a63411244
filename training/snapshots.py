"""Frozen snapshots of the learner for fictitious self-play.

:class:`SnapshotPool` keeps the ``capacity`` most recent frozen copies of the learner's
policy network (taken every ``--snapshot-every`` steps). Each snapshot is a batch policy
(:class:`training.common.BatchActor`, a callable ``(observations, masks) -> actions``) that
the native vector env seats as one opponent table (:mod:`training.pool`) and asks for all
games waiting on it at once. A snapshot samples its actions from its masked distribution
with its own seeded generator (``sample``, the default: a stochastic, harder to exploit
opponent) or plays the arg-max.

Saving: :meth:`SnapshotPool.state` gives plain tensors and numbers that ``torch.save``
stores and ``torch.load(..., weights_only=True)`` reads back without unpickling code.
Loading checks the file as every user file is checked (:mod:`uno_env.files`): a regular
file of at most :data:`SNAPSHOT_LIMIT` bytes, a zip directory within :data:`SNAPSHOT_ZIP`,
then torch's weights-only reader, then the structure of the pool; any failure (a pickle of
Python objects, other shapes, a damaged file) is one :class:`SnapshotFileError` line.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from uno_env import files

from .common import BatchActor

SNAPSHOT_LIMIT = 4 * files.GiB
"""Largest snapshot file read (a pool of ``capacity`` copies of the policy)."""
SNAPSHOT_ZIP = files.ZipLimits(members=100_000, member_bytes=1 * files.GiB, total_bytes=4 * files.GiB)
"""What a snapshot file's zip (``torch.save``'s format: one member per tensor) may hold."""


class SnapshotFileError(files.FileError):
    """A snapshot file that cannot be loaded (one line naming the file and the problem)."""


class SnapshotPool:
    """The most recent ``capacity`` frozen copies of a policy, with a seeded sampler."""

    def __init__(self, capacity: int, seed: int, *, sample: bool = True) -> None:
        if capacity < 1:
            raise ValueError(f"snapshot pool capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self.steps: list[int] = []
        self.actors: list[BatchActor] = []
        self._seed = seed

    def __len__(self) -> int:
        return len(self.actors)

    def __iter__(self) -> Iterator[BatchActor]:
        return iter(self.actors)

    def add(self, policy: Any, step: int) -> None:
        """Freeze a copy of ``policy`` (an SB3 policy module) taken at training step ``step``."""
        frozen = copy.deepcopy(policy)
        frozen.set_training_mode(False)
        for p in frozen.parameters():
            p.requires_grad_(False)
        seed = int(self.rng.integers(0, 2**62))
        self.actors.append(BatchActor(frozen, deterministic=not self.sample, seed=seed))
        self.steps.append(int(step))
        if len(self.actors) > self.capacity:
            self.actors.pop(0)
            self.steps.pop(0)

    # ------------------------------------------------------------ persistence
    def state(self) -> dict[str, Any]:
        """Weights (tensors), steps and generator states: ``torch.save``-able, weights-only loadable."""
        return {
            "capacity": self.capacity,
            "steps": list(self.steps),
            "weights": [a.policy.state_dict() for a in self.actors],
            "rng": _rng_state(self.rng),
            "actor_rngs": [_rng_state(a.rng) for a in self.actors],
        }

    def restore(self, state: dict[str, Any], make_policy: Callable[[], Any]) -> None:
        """Load :meth:`state` back; ``make_policy()`` builds an empty policy of the right shape."""
        self.actors.clear()
        self.steps = [int(s) for s in state["steps"]]
        for weights, rng_state in zip(state["weights"], state["actor_rngs"], strict=True):
            policy = make_policy()
            policy.load_state_dict(weights)
            policy.set_training_mode(False)
            actor = BatchActor(policy, deterministic=not self.sample)
            actor.rng.bit_generator.state = _rng_from_saved(rng_state)
            self.actors.append(actor)
        self.rng.bit_generator.state = _rng_from_saved(state["rng"])

    def save(self, path: str | Path) -> None:
        """Write :meth:`state` with ``torch.save``."""
        import torch

        torch.save(self.state(), str(path))

    def write(self, handle: IO[bytes]) -> None:
        """Write :meth:`state` with ``torch.save`` to an open binary file."""
        import torch

        torch.save(self.state(), handle)

    def load(self, path: str | Path, make_policy: Callable[[], Any]) -> None:
        """Read a file of :meth:`save` (``weights_only``: no code is unpickled).

        Raises :class:`SnapshotFileError` (one line) for a file that is not a regular file
        within :data:`SNAPSHOT_LIMIT` and :data:`SNAPSHOT_ZIP`, holds anything but tensors and
        numbers, or is not a pool of policies shaped like ``make_policy()``'s.
        """

        import torch

        source = f"snapshot file {path}"
        files.check_zip_file(path, "snapshot file", SNAPSHOT_LIMIT, SNAPSHOT_ZIP, error=SnapshotFileError)
        try:
            state = torch.load(str(path), weights_only=True)
        except pickle.UnpicklingError as exc:
            found = f"holds more than tensors and numbers ({_first_line(exc)})"
            raise files.refuse(
                source, "the file", found, "plain tensors and numbers", SnapshotFileError
            ) from None
        except (RuntimeError, ValueError, OSError, EOFError, KeyError) as exc:
            found = f"cannot be read by torch ({_first_line(exc)})"
            raise files.refuse(
                source, "the file", found, "a file of SnapshotPool.save", SnapshotFileError
            ) from None
        try:
            self.restore(state, make_policy)
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError, OverflowError) as exc:
            found = f"is not a snapshot pool of this policy ({type(exc).__name__}: {_first_line(exc)})"
            raise files.refuse(
                source, "the file", found, "a file of SnapshotPool.save", SnapshotFileError
            ) from None


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return files.describe(lines[0] if lines else type(exc).__name__, 160).strip("'\"")


def _rng_state(rng: np.random.Generator) -> dict[str, Any]:
    state = rng.bit_generator.state
    inner = state["state"]
    return {
        "bit_generator": state["bit_generator"],
        "state": str(inner["state"]),
        "inc": str(inner["inc"]),
        "has_uint32": int(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }


def _rng_from_saved(saved: dict[str, Any]) -> dict[str, Any]:
    return {
        "bit_generator": saved["bit_generator"],
        "state": {"state": int(saved["state"]), "inc": int(saved["inc"])},
        "has_uint32": int(saved["has_uint32"]),
        "uinteger": int(saved["uinteger"]),
    }

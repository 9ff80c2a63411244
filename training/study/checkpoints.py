"""The learned policies of a running study: trust, and digests checked on resume.

:func:`check_trust` refuses a checkpoint this installation did not sign (unless the run
trusts it); :func:`check_checkpoints` records each policy's SHA-256 in
``checkpoints.json`` and, on resume, refuses a policy replaced since the study started, so
one results file never mixes two policies.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from training.runner import hold_digests
from uno_env import files
from uno_env.sim.learned import load_policy

if TYPE_CHECKING:
    pass
from agents.policy_agent import checkpoint_path, metadata_path
from agents.spec import parse_agent
from agents.trust import CHECKPOINT_LIMIT, check_trusted

from .spec import LEARNED, SpecError, StudySpec


def checkpoint_digests(spec: StudySpec) -> dict[str, str]:
    """SHA-256 of each learned policy's checkpoint and sidecar, by path as the spec gives it."""

    out = {}
    for path in spec.models():
        digest = hashlib.sha256()
        for part in (checkpoint_path(path), metadata_path(path)):
            with files.open_regular(part, CHECKPOINT_LIMIT, "checkpoint", error=SpecError) as handle:
                files.sha256_update(digest, handle)
        out[path] = digest.hexdigest()
    for name in spec.exported():
        policy = load_policy(name)
        out[name] = str(policy.meta["weights_sha256"])
    return {**agent_file_digests(spec, set(out)), **out}


def agent_file_digests(spec: StudySpec, skip: set[str]) -> dict[str, str]:
    """SHA-256 of the other files the named styles (and the reference) read, by path: a
    ``FILE.py`` agent's file, the network of a search it guides (``search:net=p.npz``) and its
    sidecar (:meth:`agents.spec.AgentSpec.files`); the styles in ``skip`` are hashed apart."""
    objects = {agent.text for agent in spec.agents}
    named = [s for s in dict.fromkeys((*spec.styles, spec.reference)) if s and s != LEARNED]
    paths = {path for s in named if s not in objects and s not in skip for path in parse_agent(s).files()}
    return {
        path: files.file_sha256(path, CHECKPOINT_LIMIT, "agent file", error=SpecError)
        for path in sorted(paths - skip)
    }


def check_trust(spec: StudySpec, trust: bool) -> None:
    """Raise :class:`agents.trust.UntrustedCheckpointError` for a learned policy this installation
    did not sign, unless ``trust`` (``--trust-checkpoint``; :mod:`agents.trust`)."""
    if not spec.models():
        return

    for path in spec.models():  # the file checks run with trust too
        check_trusted(checkpoint_path(path), metadata_path(path), trust=trust)


def check_checkpoints(spec: StudySpec, out: Path) -> None:
    """Record the learned policies' digests in ``out/checkpoints.json``, or check them on resume.

    A checkpoint replaced since the study started would mix two policies in one results
    file: resuming then raises SpecError naming the checkpoint.
    """
    digests = checkpoint_digests(spec)
    if not digests:
        return
    target = out / "checkpoints.json"
    # a file recorded by none (a study from before agent files were recorded) starts now
    changed = hold_digests(target, digests, "checkpoint digests", error=SpecError)
    if changed:
        raise SpecError(
            f"{out}: checkpoint(s) or agent file(s) {', '.join(changed)} changed since the study "
            f"started (SHA-256 recorded in {target}); start a new study for the new policy"
        )

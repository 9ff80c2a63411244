"""Learned policies: MaskablePPO checkpoints with a metadata sidecar that is checked on load.

A checkpoint is the ``.zip`` that sb3-contrib's ``MaskablePPO.save`` writes, plus a sidecar
``<name>.meta.json`` beside it (:func:`metadata_path`)::

    {
      "format": "uno-env-policy/1",
      "algorithm": "MaskablePPO",
      "rules": "<str(RuleSet): the canonical one-line rules>",
      "observation_spec": "<observation layout identifier>",
      "env_version": "<environment version>",
      "num_players": 4,            # or null: trained for any player count
      "extra": {...},              # free-form (training run, seed, ...)
      "signature": "hmac-sha256:..."   # this installation's signature (agents.trust)
    }

:func:`save_policy_metadata` writes it; :class:`PolicyAgent` reads it *before* loading the
model and refuses a checkpoint whose rules, observation spec or env version differ from the
game's, with a :class:`PolicyMismatchError` naming every difference.

**Security:** SB3 checkpoints contain pickled Python objects; loading one can run arbitrary
code. The metadata check is a consistency check, not a safety check; the signature is the
safety check: :class:`PolicyAgent` loads only checkpoints this installation signed
(:mod:`agents.trust`) unless called with ``trust=True`` (``--trust-checkpoint``).

The observation spec and env version default to the current environment's
(:mod:`uno_env.versions`: ``OBS_VERSION`` and ``ENV_VERSION``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import files
from uno_env.engine.rules import MAX_PLAYERS, RuleError, RuleSet, load_rules
from uno_env.game.encoding import spec_version
from uno_env.sim.learned import PolicyGameMismatchError
from uno_env.versions import ENV_VERSION, OBS_VERSION

from .base import View, resolve_mask
from .trust import check_trusted, sign

METADATA_FORMAT = "uno-env-policy/1"
ALGORITHM = "MaskablePPO"
SIDECAR_LIMIT = files.TEXT_LIMIT
"""Largest checkpoint sidecar (``.meta.json``) read."""


class PolicyMismatchError(ValueError):
    """A checkpoint recorded for other rules, another observation spec or env version."""


@dataclass(frozen=True)
class PolicyMetadata:
    """What a checkpoint was trained for (the sidecar's content)."""

    rules: str
    observation_spec: str
    env_version: str
    algorithm: str = ALGORITHM
    num_players: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    format: str = METADATA_FORMAT
    signature: str | None = None
    """This installation's signature of the checkpoint (:mod:`agents.trust`); ``None``: unsigned."""


def current_observation_spec() -> str:
    """The observation-layout identifier of the installed environment (``obs-v<N>``)."""
    return f"obs-v{OBS_VERSION}"


def current_env_version() -> str:
    """The version of the installed environment (``v<N>``)."""
    return f"v{ENV_VERSION}"


def checkpoint_path(path: str | Path) -> Path:
    """The ``.zip`` file of a checkpoint path (SB3 adds ``.zip`` when it is missing)."""
    path = Path(path)
    return path if path.suffix == ".zip" else path.with_name(path.name + ".zip")


def metadata_path(path: str | Path) -> Path:
    """The sidecar of a checkpoint: ``model.zip`` -> ``model.meta.json``."""
    zip_path = checkpoint_path(path)
    return zip_path.with_name(zip_path.stem + ".meta.json")


def _rules_text(rules: RuleSet | str | Path) -> str:
    if isinstance(rules, str) and "=" in rules:  # already a canonical rules string
        return str(RuleSet.parse(rules))
    return str(load_rules(rules))


def save_policy_metadata(
    path: str | Path,
    rules: RuleSet | str | Path,
    *,
    observation_spec: str | None = None,
    env_version: str | None = None,
    num_players: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write the sidecar of checkpoint ``path``; return the sidecar's path.

    ``rules`` is a RuleSet, preset name, TOML path or canonical rules string; the observation
    spec and env version default to the current environment's. When the zip exists (save the
    model first), the sidecar is signed with this user's key, so the checkpoint loads without
    ``trust=True`` (:mod:`agents.trust`).
    """
    meta = PolicyMetadata(
        rules=_rules_text(rules),
        observation_spec=observation_spec if observation_spec is not None else current_observation_spec(),
        env_version=env_version if env_version is not None else current_env_version(),
        num_players=num_players,
        extra=dict(extra or {}),
    )
    data = dataclasses.asdict(meta)
    data["signature"] = sign(checkpoint_path(path), data)
    target = metadata_path(path)
    _write_atomic(target, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return target


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (a temporary file in its folder, then a rename); a
    failed write (a full disk) leaves neither a partial file nor the temporary one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_policy_metadata(path: str | Path) -> PolicyMetadata:
    """Read the sidecar of checkpoint ``path``; a missing or malformed one raises a clear error.

    The sidecar is read through :mod:`uno_env.files` (a regular file of at most
    :data:`SIDECAR_LIMIT` bytes, bounded JSON) and every field is type-checked: one
    :class:`PolicyMismatchError` line names the file, the field, what it holds and what is
    allowed.
    """
    source = metadata_path(path)
    if not source.exists() and not source.is_symlink():
        zip_path = checkpoint_path(path)
        if not zip_path.exists() and not zip_path.is_symlink():  # neither file: say so, not "no sidecar"
            named = Path(path)
            exported = (
                f"; {named} is an exported policy (plain weights), which plays as it is"
                if named.suffix == ".npz" and named.exists()
                else ""
            )
            raise PolicyMismatchError(
                f"checkpoint {zip_path} does not exist (a MaskablePPO checkpoint is a .zip with its "
                f".meta.json sidecar){exported}"
            )
        raise PolicyMismatchError(
            f"checkpoint {checkpoint_path(path)} has no metadata sidecar {source}: it records the "
            "rules, observation spec and env version the policy was trained for (write it with "
            "agents.save_policy_metadata)"
        )
    where = f"checkpoint sidecar {source}"

    def refused(key: str, allowed: str) -> ValueError:
        found = f"is {files.describe(data.get(key))}"
        return files.refuse(where, key, found, allowed, PolicyMismatchError)

    data = files.read_json_object(source, "checkpoint sidecar", SIDECAR_LIMIT, error=PolicyMismatchError)
    if data.get("format") != METADATA_FORMAT:
        raise refused("format", repr(METADATA_FORMAT))
    for key in ("rules", "observation_spec", "env_version", "algorithm", "signature"):
        value = data.get(key)
        optional = key in ("algorithm", "signature") and value is None
        if not optional and (not isinstance(value, str) or len(value) > 64 * files.KiB):
            raise refused(key, "a string")
    players = data.get("num_players")
    if players is not None and (
        isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS
    ):
        raise refused("num_players", f"null or an integer 2..{MAX_PLAYERS}")
    if not isinstance(data.get("extra", {}), dict):
        raise refused("extra", "an object")
    names = {f.name for f in dataclasses.fields(PolicyMetadata)}
    return PolicyMetadata(**{k: v for k, v in data.items() if k in names})


def _rule_differences(recorded: str, wanted: str) -> str:
    """How the game's rules differ from those a policy was trained on, field by field."""
    try:
        trained = RuleSet.parse(recorded)
    except RuleError as exc:
        return f"the trained rules string is not a rule set of this version: {exc}"
    return "; ".join(d.replace("(other:", "(trained:") for d in RuleSet.parse(wanted).differences(trained))


def _same_rules(recorded: str, wanted: str) -> bool:
    """Whether two rules strings name equal rule sets (compared as values, either one-line form)."""
    try:
        return RuleSet.parse(recorded) == RuleSet.parse(wanted)
    except RuleError:
        return False


def check_policy_metadata(
    meta: PolicyMetadata,
    rules: RuleSet | str | Path,
    *,
    observation_spec: str | None = None,
    env_version: str | None = None,
    num_players: int | None = None,
    source: str = "checkpoint",
    older_observations: bool = False,
) -> None:
    """Raise :class:`PolicyMismatchError` naming every way ``meta`` differs from the game.

    With ``older_observations`` (playing, not training on) a checkpoint of an older
    observation spec whose vectors are a prefix of today's (:func:`uno_env.game.encoding.spec_version`)
    fits: it is fed that prefix."""
    problems = []
    wanted_rules = _rules_text(rules)
    if not _same_rules(meta.rules, wanted_rules):
        problems.append(f"rules differ ({_rule_differences(meta.rules, wanted_rules)})")
    wanted_obs = observation_spec if observation_spec is not None else current_observation_spec()
    current = current_observation_spec()
    prefix = older_observations and wanted_obs == current and spec_version(meta.observation_spec)
    if meta.observation_spec != wanted_obs and not prefix:
        problems.append(f"observation spec: trained {meta.observation_spec!r}, game {wanted_obs!r}")
    wanted_env = env_version if env_version is not None else current_env_version()
    if meta.env_version != wanted_env:
        problems.append(f"env version: trained {meta.env_version!r}, game {wanted_env!r}")
    if meta.num_players is not None and num_players is not None and meta.num_players != num_players:
        problems.append(f"players: trained for {meta.num_players}, game has {num_players}")
    if meta.algorithm != ALGORITHM:
        problems.append(f"algorithm {meta.algorithm!r} is not {ALGORITHM!r}")
    if problems:
        raise PolicyMismatchError(f"{source} does not fit this game: " + "; ".join(problems))


class PolicyAgent:
    """A trained MaskablePPO policy as an agent: ``PolicyAgent("run/model.zip", rules="uno")``.

    The sidecar (:func:`metadata_path`) is checked against ``rules`` (and the observation
    spec and env version, by default the installed env's; ``num_players`` if given) before
    the checkpoint is unpickled; a mismatch raises :class:`PolicyMismatchError`. Then the
    checkpoint must be one this installation signed (:mod:`agents.trust`), unless ``trust``:
    otherwise :class:`agents.trust.UntrustedCheckpointError`. ``act``
    takes the env's observation (array or ``{"observation", "action_mask"}``) and mask.
    With ``deterministic`` (default) it plays the most likely legal action; otherwise it
    samples from the masked action distribution with its own seeded generator.

    SB3 checkpoints are pickles: ``trust=True`` runs whatever the file contains.
    """

    def __init__(
        self,
        path: str | Path,
        rules: RuleSet | str | Path,
        *,
        observation_spec: str | None = None,
        env_version: str | None = None,
        num_players: int | None = None,
        deterministic: bool = True,
        seed: int | None = None,
        device: str = "cpu",
        trust: bool = False,
    ) -> None:
        self.path = checkpoint_path(path)
        self.metadata = load_policy_metadata(self.path)
        check_policy_metadata(
            self.metadata,
            rules,
            observation_spec=observation_spec,
            env_version=env_version,
            num_players=num_players,
            source=f"checkpoint {self.path}",
            older_observations=True,
        )
        check_trusted(self.path, metadata_path(self.path), trust=trust)
        from sb3_contrib import MaskablePPO  # the train extra; imported only when used

        self.model = MaskablePPO.load(self.path, device=device)
        shape = self.model.observation_space.shape
        self.inputs = int(shape[0]) if shape else 0
        """Values of the observation it reads: an older spec's checkpoint reads today's prefix."""
        self.deterministic = deterministic
        self._rng = np.random.default_rng(seed)
        self.name = f"policy:{self.path.name}"

    def check_game(
        self, rules: Any, num_players: int | None = None, allow_rules_mismatch: bool = False
    ) -> None:
        """Raise :class:`~uno_env.sim.learned.PolicyGameMismatchError` unless the checkpoint fits a
        table of ``rules`` and ``num_players`` (its sidecar, :func:`check_policy_metadata`); with
        ``allow_rules_mismatch`` (a transfer) other rules and player counts of its deck family fit.
        The tables that seat agents call it (:func:`uno_env.sim.learned.check_fits`)."""
        trained = RuleSet.parse(self.metadata.rules)
        ruleset = load_rules(rules)
        try:
            if allow_rules_mismatch:
                if trained.deck_family != ruleset.deck_family:
                    raise PolicyMismatchError(
                        f"checkpoint {self.path} plays the {trained.deck_family} deck family; these rules "
                        f"use the {ruleset.deck_family} family"
                    )
                check_policy_metadata(
                    self.metadata, trained, source=f"checkpoint {self.path}", older_observations=True
                )
            else:
                check_policy_metadata(
                    self.metadata, ruleset, num_players=num_players, source=f"checkpoint {self.path}",
                    older_observations=True,
                )  # fmt: skip
        except PolicyMismatchError as exc:
            raise PolicyGameMismatchError(str(exc)) from None

    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """The policy's legal action for ``observation``."""
        mask = resolve_mask(observation, action_mask).astype(bool)
        obs = observation["observation"] if isinstance(observation, Mapping) else observation
        obs = np.asarray(obs)[..., : self.inputs]
        if self.deterministic:
            action, _ = self.model.predict(obs, deterministic=True, action_masks=mask)
            chosen = int(np.asarray(action).reshape(-1)[0])
        else:
            import torch

            tensor, _ = self.model.policy.obs_to_tensor(obs)
            with torch.no_grad():
                dist = self.model.policy.get_distribution(tensor, action_masks=mask)
            categorical = dist.distribution
            if not isinstance(categorical, torch.distributions.Categorical):
                raise TypeError(f"policy {self.path} does not have a discrete (categorical) action space")
            probs = categorical.probs.cpu().numpy().reshape(-1).astype(np.float64)
            probs = np.where(mask, probs, 0.0)
            chosen = int(self._rng.choice(probs.size, p=probs / probs.sum()))
        if not 0 <= chosen < mask.size or not mask[chosen]:
            raise RuntimeError(f"policy {self.path} chose action {chosen}, which the mask does not allow")
        return chosen

"""Learned policies: a MaskablePPO checkpoint with its metadata sidecar, checked on load.

A tiny untrained MaskablePPO model on a trivial Gymnasium env stands in for a trained one:
what is tested is the sidecar format, the refusal of a checkpoint recorded for other rules,
another observation spec or env version (before anything is unpickled), and that the agent
only plays actions its mask allows, deterministically or sampled with its own seed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents import (
    PolicyAgent,
    PolicyMismatchError,
    load_policy_metadata,
    metadata_path,
    save_policy_metadata,
)
from agents.policy_agent import METADATA_FORMAT, current_env_version, current_observation_spec
from uno_env import load_rules

sb3_contrib = pytest.importorskip("sb3_contrib")

OBS = "obs-test-1"
ENV = "v-test-1"


class TinyEnv(gym.Env[np.ndarray, np.int64]):
    """Four observation numbers, three actions, action 1 never legal; one step per episode."""

    observation_space = gym.spaces.Box(0.0, 1.0, (4,), np.float32)
    action_space = gym.spaces.Discrete(3)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        return np.zeros(4, dtype=np.float32), {}

    def step(self, action: np.int64) -> tuple[np.ndarray, float, bool, bool, dict]:
        return np.zeros(4, dtype=np.float32), 0.0, True, False, {}

    def action_masks(self) -> np.ndarray:
        return np.array([True, False, True])


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("policy") / "model.zip"
    model = sb3_contrib.MaskablePPO("MlpPolicy", TinyEnv(), n_steps=8, batch_size=8, seed=0, device="cpu")
    model.save(path)
    save_policy_metadata(
        path, "uno", observation_spec=OBS, env_version=ENV, num_players=2, extra={"run": "t"}
    )
    return path


def test_the_sidecar_records_rules_spec_and_version(checkpoint: Path) -> None:
    side = metadata_path(checkpoint)
    assert side.name == "model.meta.json"
    data = json.loads(side.read_text())
    assert data["format"] == METADATA_FORMAT
    assert data["rules"] == str(load_rules("uno"))
    assert (data["observation_spec"], data["env_version"], data["num_players"]) == (OBS, ENV, 2)
    assert data["algorithm"] == "MaskablePPO"
    assert load_policy_metadata(checkpoint).extra == {"run": "t"}
    assert metadata_path(checkpoint.with_suffix("")) == side  # SB3 paths without .zip


def test_a_matching_checkpoint_plays_only_legal_actions(checkpoint: Path) -> None:
    agent = PolicyAgent(checkpoint, "uno", observation_spec=OBS, env_version=ENV, num_players=2)
    obs = np.zeros(4, dtype=np.float32)
    for mask in ([1, 0, 0], [0, 0, 1], [0, 1, 0]):
        assert agent.act(obs, np.array(mask, dtype=np.int8)) == int(np.argmax(mask))
    assert agent.act({"observation": obs, "action_mask": np.array([0, 0, 1])}) == 2


def test_sampling_uses_the_agents_own_seed(checkpoint: Path) -> None:
    def choices(seed: int) -> list[int]:
        agent = PolicyAgent(
            checkpoint, "uno", observation_spec=OBS, env_version=ENV, deterministic=False, seed=seed
        )
        return [agent.act(np.zeros(4, dtype=np.float32), np.array([1, 0, 1])) for _ in range(40)]

    first = choices(3)
    assert first == choices(3)
    assert set(first) == {0, 2}  # both legal actions occur, the illegal one never


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rules": load_rules("uno", hand_size=5)}, "rules differ (hand_size=5 (trained: 7))"),
        ({"observation_spec": "obs-test-2"}, "observation spec: trained 'obs-test-1', game 'obs-test-2'"),
        ({"env_version": "v-test-2"}, "env version: trained 'v-test-1', game 'v-test-2'"),
        ({"num_players": 4}, "players: trained for 2, game has 4"),
    ],
)
def test_a_mismatch_is_refused_with_every_difference_named(
    checkpoint: Path, kwargs: dict[str, Any], message: str
) -> None:
    options: dict[str, Any] = {"rules": "uno", "observation_spec": OBS, "env_version": ENV, **kwargs}
    rules = options.pop("rules")
    with pytest.raises(PolicyMismatchError) as info:
        PolicyAgent(checkpoint, rules, **options)
    assert message in str(info.value)
    assert str(checkpoint) in str(info.value)


def test_refusal_comes_before_unpickling(tmp_path: Path) -> None:
    """A mismatched sidecar is refused without reading the (here corrupt) checkpoint."""
    path = tmp_path / "bad.zip"
    path.write_bytes(b"not a zip file")
    save_policy_metadata(path, "uno", observation_spec=OBS, env_version=ENV)
    with pytest.raises(PolicyMismatchError, match="env version"):
        PolicyAgent(path, "uno", observation_spec=OBS, env_version="other")


def test_a_checkpoint_without_sidecar_is_refused(tmp_path: Path) -> None:
    (tmp_path / "model.zip").write_bytes(b"not read")
    with pytest.raises(PolicyMismatchError, match="has no metadata sidecar"):
        PolicyAgent(tmp_path / "model.zip", "uno")
    side = tmp_path / "x.meta.json"
    side.write_text(json.dumps({"format": "something/9"}))
    with pytest.raises(PolicyMismatchError, match="format is 'something/9'; allowed: 'uno-env-policy/1'"):
        load_policy_metadata(tmp_path / "x.zip")


def test_a_checkpoint_that_does_not_exist_is_named_as_missing(tmp_path: Path) -> None:
    """``uno-env export missing.zip`` said the checkpoint "has no metadata sidecar", and
    ``uno-env export p.npz`` (an exported policy) that ``p.npz.zip`` had none."""
    with pytest.raises(
        PolicyMismatchError, match=r"checkpoint .*missing\.zip does not exist \(a MaskablePPO"
    ):
        load_policy_metadata(tmp_path / "missing.zip")
    exported = tmp_path / "p.npz"
    exported.write_bytes(b"weights")
    with pytest.raises(
        PolicyMismatchError, match=r"p\.npz\.zip does not exist .*p\.npz is an exported policy"
    ):
        load_policy_metadata(exported)


def test_defaults_come_from_the_installed_environment(tmp_path: Path) -> None:
    side = save_policy_metadata(tmp_path / "m.zip", "uno")
    data = json.loads(side.read_text())
    assert data["observation_spec"] == current_observation_spec()
    assert data["env_version"] == current_env_version()


def test_a_checkpoint_of_an_older_observation_spec_plays_on_todays_prefix(tmp_path: Path) -> None:
    """obs-v3 appended fields: an obs-v2 checkpoint still plays (it is fed the first values,
    as many as its observation space has), while training on from it is refused."""
    from agents.policy_agent import check_policy_metadata, load_policy_metadata

    path = tmp_path / "old.zip"
    model = sb3_contrib.MaskablePPO("MlpPolicy", TinyEnv(), n_steps=8, batch_size=8, seed=0, device="cpu")
    model.save(path)
    save_policy_metadata(path, "uno", observation_spec="obs-v2", env_version=current_env_version())
    agent = PolicyAgent(path, "uno")
    assert agent.inputs == 4
    longer = np.array([0.3, 0.9, 0.1, 0.7, 5.0, -5.0], dtype=np.float32)  # today's vector: more fields
    mask = np.array([True, False, True])
    logits = np.asarray(
        model.policy.get_distribution(model.policy.obs_to_tensor(longer[:4])[0]).distribution.logits.detach()
    )[0]
    assert agent.act(longer, mask) == (0 if logits[0] >= logits[2] else 2)
    with pytest.raises(PolicyMismatchError, match="observation spec: trained 'obs-v2', game 'obs-v3'"):
        check_policy_metadata(load_policy_metadata(path), "uno")
    save_policy_metadata(path, "uno", observation_spec="obs-v1", env_version=current_env_version())
    with pytest.raises(PolicyMismatchError, match="trained 'obs-v1'"):
        PolicyAgent(path, "uno")  # not a prefix this installation knows

"""Exported learned policies: the safe file format, the numpy and compiled forward passes.

- An SB3 MaskablePPO policy exported with ``uno-env export`` plays the same actions as the
  torch policy on the same observations (numpy forward pass and compiled one).
- ``simulate`` with a learned seat (compiled, games in lockstep, batched forward pass) plays
  exactly the games a :class:`~uno_env.Game` loop plays with :class:`agents.ExportedAgent`.
- Loading executes no code: a crafted archive whose pickle would run a command is refused,
  and the command never runs; tampered or malformed files are refused with a clear error.
"""

from __future__ import annotations

import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import agents
import uno_env
from uno_env.engine import layout as L
from uno_env.engine.actions import num_actions
from uno_env.engine.rules import compile_spec
from uno_env.game.encoding import observe_state
from uno_env.sim.learned import (
    PolicyFileError,
    file_digest,
    load_exported,
    net_action,
    pack,
    save_exported,
    sidecar_path,
)

sb3_contrib = pytest.importorskip("sb3_contrib")
UNO_ACTIONS = num_actions("uno")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """A MaskablePPO policy (weights drawn at a realistic scale) saved, then exported."""
    import torch

    from agents import save_policy_metadata
    from training.export import export_checkpoint

    tmp = tmp_path_factory.mktemp("policy")
    venv = uno_env.VectorEnv(2, "uno", num_players=2, opponents="greedy").to_sb3()
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, policy_kwargs={"net_arch": [32, 16]}, seed=0, device="cpu"
    )
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.3)
    model.save(tmp / "model.zip")
    save_policy_metadata(tmp / "model.zip", "uno", num_players=2)
    export_checkpoint(tmp / "model.zip", tmp / "tiny.npz", training={"command": "test fixture"})
    return tmp / "tiny.npz", model


def observations(rules: str, players: int, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision of some random games."""
    obs, masks = [], []
    rng = np.random.default_rng(0)
    for seed in range(games):
        game = uno_env.Game(rules, players, seed=seed)
        spec = compile_spec(game.rules)
        while not game.is_over():
            obs.append(observe_state(game.state, spec, game.current_player, game.rules.deck_family))
            masks.append(game.legal_mask().astype(bool))
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
    return np.stack(obs), np.stack(masks)


def test_export_writes_plain_weights_and_the_record(exported: tuple[Path, Any]) -> None:
    path, model = exported
    policy = load_exported(path)
    meta = json.loads(sidecar_path(path).read_text())
    assert meta["format"] == "uno-env-exported-policy/1"
    assert meta["rules"] == str(uno_env.load_rules("uno")) and meta["num_players"] == 2
    assert meta["architecture"] == {
        "kind": "mlp", "inputs": policy.inputs, "hidden": [32, 16], "activation": "tanh",
        "actions": UNO_ACTIONS,
    }  # fmt: skip
    assert meta["training"] == {"command": "test fixture"}
    assert meta["weights_sha256"] == file_digest(path)
    first = model.policy.mlp_extractor.policy_net[0].weight.detach().numpy()
    assert np.array_equal(policy.weights[0], first)
    assert np.array_equal(policy.weights[-1], model.policy.action_net.weight.detach().numpy())


@pytest.mark.parametrize(("rules", "players"), [("uno", 2), ("uno_house", 4), ("uno_mario", 3)])
def test_same_actions_as_the_torch_policy(exported: tuple[Path, Any], rules: str, players: int) -> None:
    """numpy and compiled forward passes choose the torch policy's action on every observation;
    the logits agree to float32 rounding."""
    from training.common import BatchActor

    path, model = exported
    policy = load_exported(path)
    obs, masks = observations(rules, players, 12)
    torch_actions = BatchActor(model.policy, deterministic=True)(obs, masks)
    torch_logits = BatchActor(model.policy).logits(obs)
    assert np.allclose(policy.logits(obs), torch_logits, atol=1e-4)
    bank, table = pack([policy])
    mask8 = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    for i in range(len(obs)):
        mask8[:UNO_ACTIONS] = masks[i]
        assert policy.act(obs[i], masks[i]) == torch_actions[i]
        assert net_action(bank, table, 0, obs[i], mask8, UNO_ACTIONS) == torch_actions[i]
    assert len(obs) > 300


def test_learned_seat_in_simulate_plays_the_python_games(exported: tuple[Path, Any]) -> None:
    """The compiled lockstep loop plays exactly the games of a Game loop with ExportedAgent
    (greedy is deterministic, so its generator does not matter); 300 games cross a block."""
    path, _ = exported
    result = uno_env.simulate("uno", 2, 300, seed=40, policies=[str(path), "greedy"], check_invariants=True)
    learner = agents.ExportedAgent(str(path))
    for g in (0, 1, 255, 256, 299):
        game = uno_env.Game("uno", 2, seed=40 + g)
        greedy = agents.make("greedy", seed=0)
        seats = [learner, greedy]
        outcome = agents.play(game, seats)
        assert outcome.decisions == result.length[g]
        assert (outcome.winner if outcome.winner is not None else -1) == result.winner[g]
    alone = uno_env.simulate("uno", 2, 1, seed=40 + 256, policies=[str(path), "greedy"])
    assert alone.length[0] == result.length[256]


def test_two_different_networks_at_one_table_play_the_python_games() -> None:
    """Two different networks at a table (one a row of the bank each): a move of the first
    network can hand the game to the second's seat within one lockstep pass, and that game
    must wait for its own observation, not take the second network's action on the first's
    stale one. The compiled games equal a Game loop with two ExportedAgents, move for move."""
    nets = ["distilled_uno_2p", "ppo_uno_2p"]
    result = uno_env.simulate("uno", 2, 40, seed=90, policies=nets, check_invariants=True)
    seats = [agents.ExportedAgent(name) for name in nets]
    for g in range(40):
        outcome = agents.play(uno_env.Game("uno", 2, seed=90 + g), seats)
        assert outcome.decisions == result.length[g]
        assert (outcome.winner if outcome.winner is not None else -1) == result.winner[g]


def test_learned_policy_refuses_another_deck_family(exported: tuple[Path, Any]) -> None:
    path, _ = exported
    with pytest.raises(PolicyFileError, match="observations of"):
        uno_env.simulate("mau_mau", 4, 1, policies=[str(path), "greedy", "greedy", "greedy"])


# ================================================================ loading is safe
class _Exploit:
    """Unpickling this runs ``touch MARKER``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def _with_digest(path: Path, source: Path) -> None:
    """A copy of ``source``'s sidecar beside ``path`` whose digest matches ``path``."""
    meta = json.loads(sidecar_path(source).read_text())
    meta["weights_sha256"] = file_digest(path)
    sidecar_path(path).write_text(json.dumps(meta))


def test_loading_a_crafted_pickle_executes_nothing(exported: tuple[Path, Any], tmp_path: Path) -> None:
    path, _ = exported
    marker = tmp_path / "pwned"
    # an archive holding an object array whose pickle would run the command
    evil = tmp_path / "evil.npz"
    with np.load(path) as good:
        arrays = {k: good[k] for k in good.files}
    arrays["action.bias"] = np.array([_Exploit(marker)], dtype=object)
    np.savez(evil, **arrays)  # type: ignore[arg-type]
    _with_digest(evil, path)
    with pytest.raises(PolicyFileError, match=r"not a plain NumPy archive|action\.bias"):
        load_exported(evil)
    # a bare pickle named .npz
    raw = tmp_path / "raw.npz"
    raw.write_bytes(pickle.dumps(_Exploit(marker)))
    _with_digest(raw, path)
    with pytest.raises(PolicyFileError):
        load_exported(raw)
    # and a .npy member that is itself a pickle inside the zip
    inner = tmp_path / "inner.npz"
    with zipfile.ZipFile(inner, "w") as archive:
        archive.writestr("action.bias.npy", pickle.dumps(_Exploit(marker)))
    _with_digest(inner, path)
    with pytest.raises(PolicyFileError):
        load_exported(inner)
    assert not marker.exists(), "loading ran the pickled command"
    # the probe can fail: unpickling the same bytes does run it
    pickle.loads(raw.read_bytes())  # the point of the test
    assert marker.exists()


def test_tampered_or_malformed_files_are_refused(exported: tuple[Path, Any], tmp_path: Path) -> None:
    path, _ = exported
    policy = load_exported(path)
    meta = json.loads(sidecar_path(path).read_text())
    record = {k: meta[k] for k in ("rules", "observation_spec", "env_version", "num_players")}
    copy = save_exported(tmp_path / "copy.npz", list(policy.weights), list(policy.biases), "tanh", record)
    assert load_exported(copy).hidden == (32, 16)
    data = bytearray(copy.read_bytes())
    data[-30] ^= 1
    copy.write_bytes(bytes(data))
    with pytest.raises(PolicyFileError, match="SHA-256"):
        load_exported(copy)
    short = save_exported(
        tmp_path / "short.npz",
        [policy.weights[0][:, :10], *policy.weights[1:]],
        list(policy.biases),
        "tanh",
        record,
    )
    meta_short = json.loads(sidecar_path(short).read_text())
    meta_short["architecture"]["inputs"] = policy.inputs  # the record lies about the shapes
    sidecar_path(short).write_text(json.dumps(meta_short))
    with pytest.raises(
        PolicyFileError, match=r"array 'hidden\.0\.weight' has shape \(32, 10\); allowed: shape"
    ):
        load_exported(short)
    sidecar_path(short).write_text("{not json")
    with pytest.raises(PolicyFileError, match=r"short\.json: the document is not JSON"):
        load_exported(short)
    with pytest.raises(PolicyFileError, match="does not exist"):
        load_exported(tmp_path / "missing.npz")
    with pytest.raises(PolicyFileError, match="names no exported policy"):
        uno_env.sim.learned.load_policy("no_such_policy")


def test_an_exported_policy_starts_a_learner(exported: tuple[Path, Any]) -> None:
    """``uno-env train --init-policy``: the actor takes the exported weights; another shape is refused."""
    from training.export import load_actor

    path, model = exported
    policy = load_exported(path)
    venv = uno_env.VectorEnv(2, "uno", num_players=2, opponents="greedy").to_sb3()
    fresh = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, policy_kwargs={"net_arch": [32, 16]}, seed=5, device="cpu"
    )
    load_actor(fresh.policy, policy)
    for mine, theirs in zip(fresh.policy.mlp_extractor.policy_net.parameters(),
                            model.policy.mlp_extractor.policy_net.parameters(), strict=True):  # fmt: skip
        assert np.array_equal(mine.detach().numpy(), theirs.detach().numpy())
    assert np.array_equal(fresh.policy.action_net.weight.detach().numpy(), policy.weights[-1])
    other = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, policy_kwargs={"net_arch": [16, 16]}, seed=5, device="cpu"
    )
    with pytest.raises(ValueError, match="--net-arch 32 16"):
        load_actor(other.policy, policy)


def _checkpoint(tmp: Path, name: str, net_arch: list[int], seed: int) -> Path:
    """A MaskablePPO checkpoint with random weights (scale 0.3) and its metadata sidecar."""
    import torch

    from agents import save_policy_metadata

    venv = uno_env.VectorEnv(2, "uno", num_players=2, opponents="greedy").to_sb3()
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, policy_kwargs={"net_arch": net_arch}, seed=0, device="cpu"
    )
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.3)
    model.save(tmp / name)
    save_policy_metadata(tmp / name, "uno", num_players=2)
    return tmp / name


def test_export_of_several_checkpoints_is_their_weight_average(
    exported: tuple[Path, Any], tmp_path: Path
) -> None:
    """``uno-env export A.zip B.zip C.zip``: every weight and bias is the mean of the three
    actors' (weight averaging); the record lists each checkpoint and its digest; checkpoints
    of another architecture or another game setting are refused before any is unpickled."""
    from training.export import export_checkpoint

    path, _ = exported
    parts = [path.parent / "model.zip"] + [_checkpoint(tmp_path, f"m{k}.zip", [32, 16], k) for k in (2, 3)]
    alone = [export_checkpoint(c, tmp_path / f"p{k}.npz") for k, c in enumerate(parts)]
    mean = export_checkpoint(parts, tmp_path / "mean.npz")
    for j in range(len(mean.weights)):
        expected_w = (alone[0].weights[j] + alone[1].weights[j].astype(np.float64) + alone[2].weights[j]) / 3
        expected_b = (alone[0].biases[j] + alone[1].biases[j].astype(np.float64) + alone[2].biases[j]) / 3
        assert np.allclose(mean.weights[j], expected_w, atol=1e-7)
        assert np.allclose(mean.biases[j], expected_b, atol=1e-7)
        assert not np.allclose(mean.weights[j], alone[0].weights[j])
    listed = mean.meta["source"]["weight_average_of"]
    assert [item["checkpoint"] for item in listed] == [p.name for p in parts]
    assert [item["checkpoint_sha256"] for item in listed] == [file_digest(p) for p in parts]
    assert mean.hidden == (32, 16) and mean.meta["rules"] == alone[0].meta["rules"]
    wider = _checkpoint(tmp_path, "wide.zip", [32, 32], 4)
    with pytest.raises(ValueError, match="share the architecture"):
        export_checkpoint([parts[0], wider], tmp_path / "bad.npz")
    from agents import save_policy_metadata

    save_policy_metadata(tmp_path / "m3.zip", "uno_house", num_players=2)
    with pytest.raises(ValueError, match="one setting"):
        export_checkpoint([parts[0], parts[2]], tmp_path / "bad.npz")


def test_the_shipped_policies_load_by_name_with_their_record() -> None:
    """Every shipped policy loads with its record (training command, config, evaluation) and
    plays by name in the batch simulator and at a table (``agents.make``)."""
    shipped = uno_env.sim.learned.shipped_policies()
    assert {"distilled_uno_2p", "distilled_uno_4p"} <= set(shipped)
    for name in shipped:
        policy = uno_env.sim.learned.load_policy(name)
        training = policy.meta["training"]
        assert training["command"].startswith("uno-env ") and training["config"]
        assert 0.0 <= training["evaluation"]["win_lo"] <= training["evaluation"]["win_hi"] <= 1.0
        players = int(policy.meta["num_players"])
        names = [name] + ["blocker"] * (players - 1)
        result = uno_env.simulate("uno", players, 40, seed=3, policies=names)
        assert len(result.winner) == 40
        assert isinstance(agents.make(name, seed=1), agents.ExportedAgent)


SHIPPED = {
    "distilled_uno_2p",
    "distilled_uno_4p",
    "expert_uno_2p",
    "expert_uno_4p",
    "expert_ppo_uno_2p",
    "expert_ppo_long_uno_2p",
    "expert_ppo_uno_4p",
    "ppo_uno_2p",
}
"""The pretrained policies in ``uno_env/pretrained/`` (the docs' shipped-policies tables list them)."""


def test_the_shipped_policies_are_the_documented_ones() -> None:
    """The package ships exactly the policies the docs list, each in the shipped-policies
    tables of docs/training.md and docs/agents.md and in the README."""
    assert set(uno_env.sim.learned.shipped_policies()) == SHIPPED
    root = Path(__file__).resolve().parents[1]
    training = (root / "docs" / "training.md").read_text(encoding="utf-8")
    table = training.split("## Shipped policies", 1)[1].split("\n## ", 1)[0]
    agents_doc = (root / "docs" / "agents.md").read_text(encoding="utf-8")
    readme = (root / "README.md").read_text(encoding="utf-8")
    for name in SHIPPED:
        assert f"| `{name}` |" in table, f"{name} missing from the training docs' table"
        assert f"| `{name}` |" in agents_doc, f"{name} missing from the agents docs' table"
        assert f"`{name}`" in readme, f"{name} missing from the README"


def test_the_shipped_folder_is_listed_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a name is a shipped policy was answered by listing and sorting the package
    folder on every call, and agent specs ask it for every game: most of a small study's time
    (142,000 listings for 5,700 games of the default study at 8 games a cell)."""
    from uno_env.styles import registry

    assert "ppo_uno_2p" in registry.shipped_policies()
    listed: list[Path] = []
    glob = Path.glob

    def counted_glob(self: Path, pattern: str) -> Any:
        listed.append(self)
        return glob(self, pattern)

    monkeypatch.setattr(Path, "glob", counted_glob)
    for _ in range(3):
        assert registry.names_exported_policy("ppo_uno_2p")
        assert uno_env.sim.learned.is_learned_policy("expert_uno_4p")
        assert set(registry.shipped_policies()) == SHIPPED
    assert listed == []
    registry.shipped_policies().clear()  # each call gives a copy: changing it changes nothing
    assert set(registry.shipped_policies()) == SHIPPED


@pytest.mark.parametrize(
    "name",
    [
        "ppo_uno_2p",
        "expert_uno_2p",
        "expert_uno_4p",
        "expert_ppo_uno_2p",
        "expert_ppo_long_uno_2p",
        "expert_ppo_uno_4p",
    ],
)
def test_the_docs_quote_the_recorded_evaluation(name: str) -> None:
    """The figure the docs give for a shipped policy against ``blocker`` is its record's: the
    shipped-policies tables of docs/training.md and docs/agents.md and the README quote the
    sidecar's win rate and interval (one decimal), and its game count."""
    policy = load_exported(uno_env.sim.learned.shipped_policies()[name])
    evaluation = policy.meta["training"]["evaluation"]
    rate, low, high = (100 * evaluation[k] for k in ("win_rate", "win_lo", "win_hi"))
    quoted = f"{rate:.1f}% ({low:.1f}%-{high:.1f}%)"
    games = f"{evaluation['games']:,} games"
    root = Path(__file__).resolve().parents[1]
    training = (root / "docs" / "training.md").read_text(encoding="utf-8")
    rows = {
        "docs/training.md": training.split("## Shipped policies", 1)[1].split("\n## ", 1)[0],
        "docs/agents.md": (root / "docs" / "agents.md").read_text(encoding="utf-8"),
    }
    for where, text in rows.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        assert quoted in row and games in row, f"{where}: {row}"
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert quoted.replace(" (", ", ").rstrip(")") + f", of {games}" in readme, "README"


def test_ppo_uno_2p_loads_without_unpickling_and_plays_legal_deterministic_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fine-tuned 2-player policy loads with every unpickler disabled, plays only legal
    actions (the simulator checks each against the mask and the engine invariants after every
    decision), plays the same games twice from the same seed, and acts the same at a Game
    (NumPy forward pass) as in the batch simulator (compiled)."""

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("loading a shipped policy unpickled something")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    path = uno_env.sim.learned.shipped_policies()["ppo_uno_2p"]
    policy = load_exported(path)
    monkeypatch.undo()
    assert policy.meta["num_players"] == 2 and policy.hidden == (64, 64) and policy.activation == "tanh"
    training = policy.meta["training"]
    assert training["command"].startswith("uno-env train ") and "--init-policy" in training["command"]
    assert training["evaluation"]["games"] >= 10_000 and training["evaluation"]["win_lo"] > 0.5
    for names in (["ppo_uno_2p", "blocker"], ["random_legal", "ppo_uno_2p"]):
        first = uno_env.simulate("uno", 2, 300, seed=11, policies=names, check_invariants=True)
        again = uno_env.simulate("uno", 2, 300, seed=11, policies=names)
        assert np.array_equal(first.winner, again.winner) and np.array_equal(first.length, again.length)
    learner = agents.make("ppo_uno_2p")
    result = uno_env.simulate("uno", 2, 20, seed=5, policies=["ppo_uno_2p", "blocker"])
    for g in range(20):
        game = uno_env.Game("uno", 2, seed=5 + g)
        outcome = agents.play(game, [learner, agents.make("blocker", seed=0)])
        assert outcome.decisions == result.length[g]
        assert (outcome.winner if outcome.winner is not None else -1) == result.winner[g]


def test_a_network_of_an_older_observation_spec_reads_todays_prefix() -> None:
    """obs-v3 only appended fields, so an obs-v2 network (the shipped ones) is fed the first
    884 values of today's vector, in Python and compiled, and plays exactly as on obs-v2."""
    from uno_env import Game
    from uno_env.game.encoding import obs_layout
    from uno_env.sim.learned import load_policy

    policy = load_policy("expert_uno_2p")
    assert (policy.obs_version, policy.inputs) == (2, obs_layout("uno", 2).size)
    policy.check_game("uno", 2)
    text = "hands=R1 R2 G4/B1 Y7; discard=B3; draw=R9 Y1 G2; colour=B; seat=0; dir=+; phase=play"
    game = Game.from_position("uno", text + "; hint=R1:0/B0 B1:1")
    obs = observe_state(game.state, game._spec, 0, "uno")
    assert obs.shape == (obs_layout("uno").size,) and obs[884:].any()  # the records are there
    np.testing.assert_array_equal(policy.logits(obs), policy.logits(obs[:884]))
    bank, table = pack([policy])
    mask = np.zeros(UNO_ACTIONS, dtype=np.int8)
    mask[game.legal_actions()] = 1
    full = net_action(bank, table, 0, obs, mask, UNO_ACTIONS)
    assert full == net_action(bank, table, 0, np.ascontiguousarray(obs[:884]), mask, UNO_ACTIONS)
    assert full == policy.act(obs, mask)
    with pytest.raises(ValueError, match="takes observations of 884 values"):
        policy.logits(obs[:900])  # neither its own size nor today's: refused, not cut


@pytest.mark.parametrize(
    ("name", "players"), [("expert_ppo_uno_2p", 2), ("expert_ppo_long_uno_2p", 2), ("expert_ppo_uno_4p", 4)]
)
def test_the_shipped_obs_v3_networks_play_alike_in_python_and_compiled(name: str, players: int) -> None:
    """The fine-tuned networks read today's whole vector, the opponents' records included
    (obs-v3): the batch simulator (compiled encoder and forward pass) and a ``Game`` driven by
    ``agents.make`` (Python encoder, NumPy forward pass) play the same games, decision for
    decision, with the network at every seat in turn, and the batch games keep the invariants."""
    from uno_env.game.encoding import obs_layout
    from uno_env.sim.learned import load_policy

    policy = load_policy(name)
    assert (policy.obs_version, policy.inputs) == (3, obs_layout("uno", 3).size)
    assert policy.meta["num_players"] == players
    deals = 12
    for seat in range(players):
        names = ["blocker"] * players
        names[seat] = name
        result = uno_env.simulate("uno", players, deals, seed=40, policies=names, check_invariants=True)
        for g in range(deals):
            table = [agents.make(n, seed=0) for n in names]
            outcome = agents.play(uno_env.Game("uno", players, seed=40 + g), table)
            assert outcome.decisions == result.length[g]
            assert (outcome.winner if outcome.winner is not None else -1) == result.winner[g]


def test_an_older_observation_policy_starts_a_learner_with_the_new_inputs_at_zero() -> None:
    """``--init-policy distilled_uno_2p`` (obs-v2, 884 inputs) into a learner on today's
    observation: the first layer's first 884 columns are its weights, the rest zero, so the
    learner's actor picks what the exported policy picks."""
    from training.export import load_actor
    from uno_env.sim.learned import load_policy

    policy = load_policy("distilled_uno_2p")
    venv = uno_env.VectorEnv(2, "uno", num_players=2, opponents="greedy").to_sb3()
    learner = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, policy_kwargs={"net_arch": [64, 64]}, seed=5, device="cpu"
    )
    load_actor(learner.policy, policy)
    first = learner.policy.mlp_extractor.policy_net[0].weight.detach().numpy()
    assert first.shape == (64, uno_env.envs.obs_layout("uno").size)
    assert np.array_equal(first[:, :884], policy.weights[0]) and not first[:, 884:].any()
    obs = venv.reset()
    from training.common import BatchActor

    masks = np.stack(venv.env_method("action_masks"))
    actions = BatchActor(learner.policy)(obs, masks)
    assert [policy.act(o, m) for o, m in zip(obs, masks, strict=True)] == actions.tolist()


def test_export_refuses_an_existing_policy_unless_forced(
    exported: tuple[Path, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``uno-env export --out p.npz`` replaced an existing p.npz (or its p.json) without a word;
    now it is one line before anything is read, and ``--force`` (``force=True``) replaces it."""
    from training.cli import main
    from training.export import export_checkpoint

    path, _ = exported
    checkpoint = str(path.parent / "model.zip")
    for existing in ("taken.npz", "taken.json"):
        (tmp_path / existing).write_text("someone's file\n")
        out = tmp_path / "taken.npz"
        assert main(["export", checkpoint, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"--out {tmp_path / existing} already exists (15 bytes); --force replaces it" in err, err
        assert err.count("\n") == 1 and (tmp_path / existing).read_text() == "someone's file\n"
        with pytest.raises(ValueError, match=r"already exists \(15 bytes\); force=True replaces it"):
            export_checkpoint("no-such-model.zip", out)  # refused before the checkpoint is looked for
        assert main(["export", checkpoint, "--out", str(out), "--force"]) == 0
        assert (
            uno_env.sim.learned.load_policy(str(out)).inputs
            == uno_env.sim.learned.load_policy(str(path)).inputs
        )
        out.unlink()
        out.with_suffix(".json").unlink()
    assert main(["export", checkpoint, "--out", str(tmp_path / "new.npz")]) == 0


def test_a_checkpoint_agent_is_held_to_the_table_it_sits_at(exported: tuple[Path, Any]) -> None:
    """A PolicyAgent loaded for 2-player Uno, seated as an env opponent at 4 players or at
    house rules, played without a word; it now answers check_game like an exported policy."""
    from uno_env.sim.learned import PolicyGameMismatchError

    path, _ = exported
    agent = agents.PolicyAgent(path.parent / "model.zip", "uno", num_players=2)
    with pytest.raises(
        PolicyGameMismatchError, match=r"opponents\[0\]: .*players: trained for 2, game has 4"
    ):
        uno_env.SingleAgentEnv("uno", 4, opponents=[agent, "random", "random"])
    with pytest.raises(PolicyGameMismatchError, match=r"rules differ"):
        uno_env.VectorEnv(2, "uno_house", 2, opponents=agent)
    uno_env.SingleAgentEnv("uno", 4, opponents=[agent, "random", "random"], allow_rules_mismatch=True)
    uno_env.SingleAgentEnv("uno", 2, opponents=agent)
    with pytest.raises(PolicyGameMismatchError, match="deck family"):
        agent.check_game("mau_mau", 4, allow_rules_mismatch=True)

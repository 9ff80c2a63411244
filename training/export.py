"""Export a trained MaskablePPO checkpoint to plain weights: ``uno-env export``.

::

    uno-env export runs/uno__ppo__0__20261202-141500/model.zip --out policies/my_uno.npz
    uno-env export model.zip --out my.npz --name my_uno --training-json run_record.json
    uno-env export run/checkpoints/step_*.zip --out averaged.npz     # weight average

Writes ``OUT.npz`` (the actor's weights as NumPy arrays) and ``OUT.json`` (the sidecar: rules,
observation spec, env version, player count, architecture, SHA-256 of the weights, and a
``training`` record), the format of :mod:`uno_env.sim.learned`. The exported policy plays the
same actions as the checkpoint (the arg-max of the masked logits) without torch, runs
compiled in ``simulate``, tournaments and studies, and loads without executing any code.

Several checkpoints of one run give their **weight average** (every actor weight and bias the
element-wise mean over the checkpoints; stochastic weight averaging, Izmailov et al. 2018): one
network of the same size, as fast as each of them, that averages out the step-to-step noise of
a run at a constant learning rate. They must share the architecture, rules, observation spec,
env version and player count; the sidecar's ``source`` lists every checkpoint and its digest.

Only the checkpoint is a pickle: loading one runs whatever code it holds. As everywhere else
(:mod:`agents.trust`), a checkpoint this installation did not sign is refused before it is
opened unless ``--trust-checkpoint`` is given (``trust=True`` in Python); its sidecar and its
zip are checked first either way (:mod:`uno_env.files`). The value network is not exported
(acting needs only the actor).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy_agent import checkpoint_path, load_policy_metadata, metadata_path
from agents.trust import check_trusted
from training.common import Subcommand, add_trust_argument, check_output_file, refuse_existing
from uno_env import files
from uno_env.engine.rules import RuleSet
from uno_env.sim.learned import ExportedPolicy, file_digest, load_exported, save_exported, sidecar_path
from uno_env.versions import OBS_VERSION

from .common import load_model, set_torch_threads
from .extras import TRAIN, require


def actor_layers(policy: Any) -> tuple[list[np.ndarray], list[np.ndarray], str]:
    """The actor of an SB3 ``MaskableActorCriticPolicy`` as (weights, biases, activation).

    Raises ValueError for anything but a flat-observation MLP actor of Linear layers with
    one activation (Tanh or ReLU): the architectures :mod:`uno_env.sim.learned` runs.
    """
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if not isinstance(policy.pi_features_extractor, FlattenExtractor):
        raise ValueError(
            f"the policy's features extractor is {type(policy.pi_features_extractor).__name__}; "
            "only the default FlattenExtractor (flat observations) can be exported"
        )
    weights: list[np.ndarray] = []
    biases: list[np.ndarray] = []
    activations = set()
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, torch.nn.Linear):
            weights.append(module.weight.detach().cpu().numpy().astype(np.float32))
            biases.append(module.bias.detach().cpu().numpy().astype(np.float32))
        elif isinstance(module, torch.nn.Tanh):
            activations.add("tanh")
        elif isinstance(module, torch.nn.ReLU):
            activations.add("relu")
        else:
            raise ValueError(
                f"the actor holds a {type(module).__name__} layer; only Linear, Tanh, ReLU export"
            )
    if len(activations) > 1:
        raise ValueError(f"the actor mixes activations {sorted(activations)}; one is supported")
    head = policy.action_net
    if not isinstance(head, torch.nn.Linear):
        raise ValueError(f"the action head is a {type(head).__name__}, not a Linear layer")
    weights.append(head.weight.detach().cpu().numpy().astype(np.float32))
    biases.append(head.bias.detach().cpu().numpy().astype(np.float32))
    return weights, biases, activations.pop() if activations else "tanh"


def load_actor(policy: Any, exported: ExportedPolicy) -> None:
    """Copy an exported policy's weights into the actor of an SB3 ``MaskableActorCriticPolicy``
    (the reverse of :func:`actor_layers`); the value network is left as it is. A policy of an
    older observation spec reads a prefix of the learner's inputs: the inputs added since
    start at weight zero, so the learner first plays as it does.

    Raises ValueError unless the actor has the same layer shapes (but for those inputs) and
    activation.
    """
    import torch

    weights, _, activation = actor_layers(policy)
    shapes = [w.shape for w in weights]
    source = [np.asarray(w) for w in exported.weights]
    if shapes and shapes[0][1] > exported.inputs and exported.obs_version < OBS_VERSION:
        first = np.zeros(shapes[0], dtype=np.float32)
        first[:, : source[0].shape[1]] = source[0]
        source[0] = first
    wanted = [w.shape for w in source]
    if shapes != wanted or activation != exported.activation:
        raise ValueError(
            f"policy {exported.name} has layers {wanted} ({exported.activation}); the learner has {shapes} "
            f"({activation}): give --net-arch {' '.join(str(h) for h in exported.hidden)}"
        )
    linear = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)] + [
        policy.action_net
    ]
    with torch.no_grad():
        for module, w, b in zip(linear, source, exported.biases, strict=True):
            module.weight.copy_(torch.as_tensor(w))
            module.bias.copy_(torch.as_tensor(b))


def average_layers(
    layers: Sequence[tuple[list[np.ndarray], list[np.ndarray], str]],
) -> tuple[list[np.ndarray], list[np.ndarray], str]:
    """The element-wise mean of several actors' (weights, biases, activation), in float32.

    Raises ValueError unless every actor has the same layer shapes and activation.
    """
    if not layers:
        raise ValueError("nothing to average")
    weights0, _, activation = layers[0]
    shapes = [w.shape for w in weights0]
    for weights, _, act in layers[1:]:
        if [w.shape for w in weights] != shapes or act != activation:
            raise ValueError(
                f"cannot average actors of layers {[w.shape for w in weights]} ({act}) and {shapes} "
                f"({activation}): the checkpoints must share the architecture"
            )
    mean_w = [
        np.mean([layer[0][j].astype(np.float64) for layer in layers], axis=0).astype(np.float32)
        for j in range(len(shapes))
    ]
    mean_b = [
        np.mean([layer[1][j].astype(np.float64) for layer in layers], axis=0).astype(np.float32)
        for j in range(len(shapes))
    ]
    return mean_w, mean_b, activation


def export_checkpoint(
    checkpoint: str | Path | Sequence[str | Path],
    out: str | Path,
    *,
    name: str | None = None,
    training: Mapping[str, Any] | None = None,
    trust: bool = False,
    force: bool = False,
) -> ExportedPolicy:
    """Export ``checkpoint`` (an SB3 MaskablePPO ``.zip`` with its metadata sidecar) to ``out``;
    given several checkpoints, export the weight average of their actors.

    The sidecar's rules, observation spec, env version and player count are carried over (they
    must be the same for every checkpoint); ``training`` (command, config, evaluation) is
    stored as given. Every checkpoint must be one this installation signed, unless ``trust``
    (:class:`agents.trust.UntrustedCheckpointError` before any zip is opened). An existing
    ``out`` or sidecar (``.json`` beside it) is refused before anything is read, unless
    ``force`` (it is replaced). Returns the exported policy as loaded back from disk.
    """
    check_export_target(Path(out), "out", force=force, how="force=True replaces it")

    given = [checkpoint] if isinstance(checkpoint, (str, Path)) else list(checkpoint)
    if not given:
        raise ValueError("no checkpoint to export")
    sources = [checkpoint_path(c) for c in given]
    metas = [load_policy_metadata(s) for s in sources]  # the sidecars first: no pickle for a bad record
    meta = metas[0]
    for other, source in zip(metas[1:], sources[1:], strict=True):
        theirs = (RuleSet.parse(other.rules), other.observation_spec, other.env_version, other.num_players)
        if theirs != (RuleSet.parse(meta.rules), meta.observation_spec, meta.env_version, meta.num_players):
            raise ValueError(
                f"{source} was trained for other rules, observation spec, env version or player "
                f"count than {sources[0]}: only checkpoints of one setting can be averaged"
            )
    for source in sources:  # before any of them is unpickled
        check_trusted(source, metadata_path(source), trust=trust)
    set_torch_threads(1)
    weights, biases, activation = average_layers([actor_layers(load_model(s).policy) for s in sources])
    target = Path(out)
    described = [{"checkpoint": s.name, "checkpoint_sha256": file_digest(s)} for s in sources]
    origin: dict[str, Any] = {"algorithm": meta.algorithm, **described[0], "extra": meta.extra}
    if len(sources) > 1:
        origin = {"algorithm": meta.algorithm, "weight_average_of": described, "extra": meta.extra}
    record: dict[str, Any] = {
        "name": name or target.stem,
        "rules": meta.rules,
        "observation_spec": meta.observation_spec,
        "env_version": meta.env_version,
        "num_players": meta.num_players,
        "source": origin,
        "training": dict(training or {}),
    }
    save_exported(target, weights, biases, activation, record)
    return load_exported(target)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "checkpoint",
        nargs="+",
        help="MaskablePPO checkpoint (.zip, with its .meta.json sidecar); several: their weight average",
    )
    parser.add_argument(
        "--out", required=True, help="the exported policy file to write (.npz; a .json beside it)"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace an existing exported policy (the .npz and its .json); without it one is refused",
    )
    parser.add_argument("--name", help="the policy's name (default: the file stem)")
    parser.add_argument(
        "--training-json",
        metavar="FILE",
        help="a JSON file with the training record to store in the sidecar (command, config, evaluation)",
    )
    add_trust_argument(parser)


def check_export_target(out: Path, option: str, *, force: bool, how: str) -> None:
    """Refuse an export target before any work: not a ``.npz`` path; the ``.npz`` or its
    sidecar a folder, below a file (:func:`~training.common.check_output_file`); either an
    existing file, unless ``force`` (``how`` says how to replace it)."""
    if not str(out).endswith(".npz"):
        raise ValueError(f"{option} must name a .npz file, got {str(out)!r}")
    for path in (out, sidecar_path(out)):
        check_output_file(path, option, f"policy{path.suffix}", make_folder=True)
        if not force:
            refuse_existing(path, option, f"{how}, or name another file")


def cmd_export(args: argparse.Namespace) -> int:
    """Run ``uno-env export`` from parsed arguments."""

    require("export", {"train": TRAIN})
    check_export_target(Path(args.out), "--out", force=args.force, how="--force replaces it")
    training = None
    if args.training_json:
        training = files.read_json_object(args.training_json, "training record")
    policy = export_checkpoint(
        args.checkpoint, args.out, name=args.name, training=training, trust=args.trust_checkpoint,
        force=args.force,
    )  # fmt: skip
    hidden = "x".join(str(h) for h in policy.hidden)
    sources = " + ".join(str(c) for c in args.checkpoint)
    averaged = f" (weight average of {len(args.checkpoint)})" if len(args.checkpoint) > 1 else ""
    print(
        f"exported {sources} -> {args.out} (+ .json){averaged}: {policy.name}, MLP {policy.inputs}-{hidden}-"
        f"{policy.num_actions} {policy.activation}; rules {policy.rules}"
    )
    return 0


COMMAND = Subcommand(
    "export",
    "export a MaskablePPO checkpoint to plain weights (.npz + .json, loads without pickle)",
    _add_arguments,
    cmd_export,
    description=__doc__,
)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

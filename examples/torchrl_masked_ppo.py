"""Masked PPO with TorchRL on ``gymnasium.make_vec("uno_env/Uno-v1", ...)``, no glue code.

TorchRL's ``GymWrapper`` takes the native vector env as it is: it reads the legal-action
mask from ``info["action_mask"]`` (its info-dict reader), the ``ActionMask`` transform
keeps random exploration legal, and the policy samples from TorchRL's
``MaskedCategorical``. The learner plays one rotating seat against the literature's random
player (``random_playable``: a random playable card, draws only with none); at the end it is
evaluated by :func:`training.evaluate.play_policy` on fresh deals against
both random players (``training.evaluate.BASELINES``: ``random_playable``, then
``random_legal``, uniform over the legal actions), each with the win rate's 95% interval
against the fair share 1/n and the games cut at the decision limit.

    python examples/torchrl_masked_ppo.py                     # 2 players, default frames
    python examples/torchrl_masked_ppo.py --players 4 --frames 200000
    python examples/torchrl_masked_ppo.py --frames 2048 --eval-games 20   # smoke run

Needs the ``train`` and ``clients`` extras (torch, torchrl).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import GymWrapper, TransformedEnv
from torchrl.envs.transforms import ActionMask
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import uno_env  # noqa: F401  (registers the uno_env/<preset>-v1 ids)
from training.evaluate import report_against_baselines

OPPONENT = "random_playable"


def make_env(players: int, num_envs: int, seed: int) -> TransformedEnv:
    """The vector env in TorchRL: flat observation, mask from the info dict, masked exploration."""
    venv = gymnasium.make_vec(
        "uno_env/Uno-v1", num_envs=num_envs, num_players=players, opponents=OPPONENT, seat=None
    )
    env = TransformedEnv(GymWrapper(venv, categorical_action_encoding=True), ActionMask())
    env.set_seed(seed)
    return env


def make_modules(obs_size: int, num_actions: int, width: int) -> tuple[ProbabilisticActor, ValueOperator]:
    """A masked categorical policy and a value network, two MLPs over the observation."""
    logits = TensorDictModule(
        MLP(
            in_features=obs_size, out_features=num_actions, num_cells=[width, width], activation_class=nn.Tanh
        ),
        in_keys=["observation"],
        out_keys=["logits"],
    )
    as_bool = TensorDictModule(lambda mask: mask.bool(), in_keys=["action_mask"], out_keys=["legal"])
    actor = ProbabilisticActor(
        TensorDictSequential(as_bool, logits),
        in_keys={"logits": "logits", "mask": "legal"},
        out_keys=["action"],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    value = ValueOperator(
        MLP(in_features=obs_size, out_features=1, num_cells=[width, width], activation_class=nn.Tanh),
        in_keys=["observation"],
    )
    return actor, value


def train(args: argparse.Namespace) -> ProbabilisticActor:
    """PPO on the vector env for ``args.frames`` learner decisions."""
    torch.manual_seed(args.seed)
    env = make_env(args.players, args.num_envs, args.seed)
    obs_size = int(env.observation_spec["observation"].shape[-1])
    num_actions = int(env.action_spec.space.n)
    actor, value = make_modules(obs_size, num_actions, args.width)
    collector = Collector(
        env, actor, frames_per_batch=args.batch_frames, total_frames=args.frames, split_trajs=False
    )
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=value, average_gae=True)
    loss_fn = ClipPPOLoss(actor, value, clip_epsilon=0.2, entropy_coeff=0.01)
    optimiser = torch.optim.Adam(loss_fn.parameters(), lr=3e-4)
    start = time.perf_counter()
    frames = 0
    for data in collector:
        frames += data.numel()
        with torch.no_grad():
            advantage(data)
        flat = data.reshape(-1)
        for _ in range(4):
            for idx in torch.randperm(flat.numel()).split(args.minibatch):
                losses = loss_fn(flat[idx])
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimiser.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss_fn.parameters(), 0.5)
                optimiser.step()
        done = data["next", "done"].squeeze(-1)
        rewards = data["next", "reward"].squeeze(-1)[done]
        mean = float(rewards.mean()) if rewards.numel() else float("nan")
        print(f"{frames:>8} frames, {done.sum():>4} games ended, mean final reward {mean:+.3f}", flush=True)
    collector.shutdown()
    print(f"trained {frames} frames in {time.perf_counter() - start:.0f} s")
    return actor


def evaluate(actor: ProbabilisticActor, args: argparse.Namespace) -> None:
    """Arg-max legal play in a rotating seat against each random player of ``BASELINES``, fresh deals."""
    logits_net = actor.module[0].module[1]  # the TensorDictModule holding the logits MLP

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = logits_net.module(torch.as_tensor(observations))
        logits[~torch.as_tensor(masks, dtype=torch.bool)] = -torch.inf
        return logits.argmax(dim=1).numpy().astype(np.int64)

    report_against_baselines(act, model="torchrl", players=args.players, games=args.eval_games)


def main() -> None:
    """Train, then evaluate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--frames", type=int, default=100_000, help="learner decisions to train on")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--batch-frames", type=int, default=2048)
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    evaluate(train(args), args)


if __name__ == "__main__":
    main()

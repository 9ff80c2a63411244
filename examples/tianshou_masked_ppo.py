"""Masked PPO with Tianshou on ``gymnasium.make("uno_env/Uno-v1", dict_observation=True)``.

Tianshou passes a dict observation to the networks as a ``Batch``; the single-agent env's
opt-in dict observation (``{"observation", "action_mask"}``) goes in unchanged. The actor
reads both keys and sets the logits of illegal actions to a large negative number before
Tianshou's ``Categorical`` samples from them, so exploration, the PPO ratio and the
entropy bonus all stay on legal actions; the critic reads the observation only. Training
runs through Tianshou's own ``PPO`` algorithm and ``OnPolicyTrainer``. The learner plays one
rotating seat against the literature's random player (``random_playable``: a random
playable card, draws only with none); at the end it is evaluated by
:func:`training.evaluate.play_policy` on fresh deals against both random players
(``training.evaluate.BASELINES``: ``random_playable``, then ``random_legal``, uniform over
the legal actions), each with the win rate's 95% interval against the fair share 1/n and
the games cut at the decision limit.

Why PPO and not Tianshou's DQN (whose policy masks through an ``obs``/``mask`` dict): a
masked double DQN with 4-step returns and exploration annealed from uniform over the
legal actions won 8.7% (7.1%-10.6%) of 1,000 games against ``random_playable`` after
101,120 steps (43 minutes on a busy 2-core machine), far below the fair share; this PPO
beats that player within the same number of steps in a few minutes (docs/environments/clients.md).

    python examples/tianshou_masked_ppo.py                     # 2 players, default steps
    python examples/tianshou_masked_ppo.py --players 4
    python examples/tianshou_masked_ppo.py --steps 1024 --eval-games 20   # smoke run

Needs the ``train`` and ``clients`` extras (torch, tianshou).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

# uno_env before tianshou: tianshou compiles numba code when imported, which fixes numba's
# code target for the process; imported after it, the engine would be compiled anew for the
# host CPU instead of loading the portable code `uno-env compile` made (docs/engine.md)
import uno_env  # noqa: F401  (also registers the uno_env/<preset>-v1 ids)

# isort: split
import gymnasium
import numpy as np
import torch
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OnPolicyTrainerParams
from tianshou.utils.logger.logger_base import LazyLogger
from tianshou.utils.net.common import ActionReprNet
from torch import nn

from training.evaluate import report_against_baselines

OPPONENT = "random_playable"
ILLEGAL_LOGIT = -1e8  # exp() of it is exactly 0 in float32: no probability, no entropy, no NaN


def make_env(players: int, reward: str) -> gymnasium.Env:
    """The single-agent env with its dict observation (``observation`` and ``action_mask``)."""
    return gymnasium.make(
        "uno_env/Uno-v1", num_players=players, opponents=OPPONENT, seat=None, dict_observation=True,
        reward=reward,
    )  # fmt: skip


def mlp(inputs: int, outputs: int, width: int) -> nn.Sequential:
    """Two tanh hidden layers."""
    return nn.Sequential(
        nn.Linear(inputs, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, outputs)
    )


def as_float(values: Any) -> torch.Tensor:
    """A float32 tensor of the observation field Tianshou hands over (a numpy array or a tensor)."""
    return torch.as_tensor(values, dtype=torch.float32)


class MaskedActor(ActionReprNet):
    """Logits over all actions with the illegal ones at :data:`ILLEGAL_LOGIT`."""

    def __init__(self, obs_size: int, num_actions: int, width: int) -> None:
        super().__init__()
        self.net = mlp(obs_size, num_actions, width)

    def logits(self, observations: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """The masked logits of a batch of observations and boolean legal-action masks."""
        return self.net(observations).masked_fill(~legal, ILLEGAL_LOGIT)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        """Tianshou's actor call: ``obs`` is the dict observation as a ``Batch``."""
        legal = torch.as_tensor(obs.action_mask).bool()
        return self.logits(as_float(obs.observation), legal), state


class Critic(nn.Module):
    """The state value from the observation vector."""

    def __init__(self, obs_size: int, width: int) -> None:
        super().__init__()
        self.net = mlp(obs_size, 1, width)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> torch.Tensor:
        """Tianshou's critic call: ``obs`` is the dict observation as a ``Batch``."""
        return self.net(as_float(obs.observation))


class ProgressLogger(LazyLogger):
    """Prints the games that ended in each collection and their mean return."""

    def log_training_data(self, log_data: dict, step: int) -> None:
        """Called by the trainer after every collection with the collector's statistics."""
        games = int(log_data.get("n_collected_episodes") or 0)
        returns = log_data.get("returns_stat") or {}
        mean = returns.get("mean", float("nan")) if games else float("nan")
        print(f"{step:>8} steps, {games:>4} games ended, mean game return {mean:+.3f}", flush=True)


def train(args: argparse.Namespace) -> MaskedActor:
    """PPO for ``args.steps`` learner decisions; return the actor."""
    torch.manual_seed(args.seed)
    envs = DummyVectorEnv([lambda: make_env(args.players, args.reward) for _ in range(args.num_envs)])
    envs.seed([args.seed + i for i in range(args.num_envs)])
    probe = make_env(args.players, args.reward)
    obs_size = int(probe.observation_space["observation"].shape[0])  # type: ignore[index]
    num_actions = int(probe.action_space.n)  # type: ignore[attr-defined]
    actor = MaskedActor(obs_size, num_actions, args.width)
    policy = DiscreteActorPolicy(actor=actor, action_space=probe.action_space, deterministic_eval=True)
    algorithm = PPO(
        policy=policy,
        critic=Critic(obs_size, args.width),
        optim=AdamOptimizerFactory(lr=args.lr),
        eps_clip=0.2,
        ent_coef=0.01,
        vf_coef=0.5,
        max_grad_norm=0.5,
        gae_lambda=0.95,
        gamma=0.99,
        return_scaling=args.reward == "score",  # hand points run into the hundreds; win/rank are within 1
    )
    buffer = VectorReplayBuffer(args.batch_steps, buffer_num=args.num_envs)
    collector: Collector = Collector(algorithm, envs, buffer)
    collector.reset()
    start = time.perf_counter()
    result = algorithm.run_training(
        OnPolicyTrainerParams(
            training_collector=collector,
            max_epochs=-(-args.steps // args.epoch_steps),  # enough epochs for at least args.steps
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=args.batch_steps,
            update_step_num_repetitions=args.epochs,
            batch_size=args.minibatch,
            test_collector=None,
            logger=ProgressLogger(),
            show_progress=False,
            verbose=False,
        )
    )
    seconds = time.perf_counter() - start
    print(f"trained {result.train_step} steps ({result.train_episode} games) in {seconds:.0f} s")
    return actor


def evaluate(actor: MaskedActor, args: argparse.Namespace) -> None:
    """Arg-max legal play in a rotating seat against each random player of ``BASELINES``, fresh deals."""

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = actor.logits(as_float(observations), torch.as_tensor(masks).bool())
        return logits.argmax(dim=1).numpy().astype(np.int64)

    report_against_baselines(act, model="tianshou", players=args.players, games=args.eval_games)


def main() -> None:
    """Train, then evaluate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100_000, help="learner decisions to train on")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--epoch-steps", type=int, default=10_240, help="decisions per trainer epoch")
    parser.add_argument("--batch-steps", type=int, default=2048, help="decisions per PPO update")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--reward", default="win", choices=["win", "rank", "score"], help="the env's reward")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    evaluate(train(args), args)


if __name__ == "__main__":
    main()

"""Masked DQN with Tianshou on ``gymnasium.make("uno_env/Uno-v1", dict_observation=True)``.

Tianshou masks actions through the observation: a dict with the keys ``obs`` and ``mask``
(its ``PettingZooEnv`` convention), which its DQN policy reads to keep the arg-max and the
epsilon-greedy exploration on legal actions. The single-agent env's opt-in dict observation
(``{"observation", "action_mask"}``) only needs its keys renamed to Tianshou's, a one-line
Gymnasium ``TransformObservation``. The learner plays one rotating seat against the
literature's random player (``random_playable``: a random playable card, draws only with
none); at the end it is evaluated by :func:`training.evaluate.play_policy` on fresh deals
with the win rate's 95% interval against the fair share 1/n and the games cut at the
decision limit.

    python examples/tianshou_masked_dqn.py                     # 2 players, default steps
    python examples/tianshou_masked_dqn.py --players 4
    python examples/tianshou_masked_dqn.py --steps 1000 --eval-games 20   # smoke run

Needs the ``train`` and ``clients`` extras (torch, tianshou).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.wrappers import NormalizeReward, TransformObservation
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import uno_env  # noqa: F401  (registers the uno_env/<preset>-v1 ids)
from training.evaluate import report_against_baseline

OPPONENT = "random_playable"


def make_env(players: int) -> gymnasium.Env:
    """The single-agent env with Tianshou's observation keys: ``obs`` (vector) and ``mask`` (legal).

    Trained on the ``score`` reward (hand points, scaled by Gymnasium's ``NormalizeReward``):
    a first policy loses nearly every game against the literature's random player, so a
    win/loss reward is almost always -1 and says nothing; hand points say how badly.
    """
    env = gymnasium.make(
        "uno_env/Uno-v1", num_players=players, opponents=OPPONENT, seat=None, dict_observation=True,
        reward="score",
    )  # fmt: skip
    env = NormalizeReward(env)
    inner: spaces.Dict = env.observation_space  # type: ignore[assignment]
    mask_space: spaces.Box = inner["action_mask"]  # type: ignore[assignment]
    space = spaces.Dict({"obs": inner["observation"], "mask": spaces.MultiBinary(mask_space.shape[0])})
    return TransformObservation(
        env, lambda o: {"obs": o["observation"], "mask": o["action_mask"].astype(bool)}, space
    )


def train(args: argparse.Namespace) -> Net:
    """Double DQN with n-step returns for ``args.steps`` learner decisions; return the Q-network."""
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # Tianshou's epsilon-greedy draws from numpy's global generator
    envs = DummyVectorEnv([lambda: make_env(args.players) for _ in range(args.num_envs)])
    envs.seed([args.seed + i for i in range(args.num_envs)])
    probe = make_env(args.players)
    obs_size = int(probe.observation_space["obs"].shape[0])  # type: ignore[index]
    num_actions = int(probe.action_space.n)  # type: ignore[attr-defined]
    net = Net(state_shape=obs_size, action_shape=num_actions, hidden_sizes=[args.width, args.width])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=probe.action_space, eps_training=args.eps, eps_inference=0.0
    )
    algorithm = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=args.lr),
        gamma=0.99,
        n_step_return_horizon=args.n_step,
        target_update_freq=args.target_update,
    )
    buffer = VectorReplayBuffer(args.buffer, buffer_num=args.num_envs)
    collector: Collector = Collector(algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    collector.collect(n_step=args.batch_size * args.num_envs)  # a first batch to sample from
    start = time.perf_counter()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=max(1, args.steps // args.epoch_steps),
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=args.collect_steps,
            update_step_num_gradient_steps_per_sample=args.updates_per_step,
            batch_size=args.batch_size,
            test_collector=None,
            show_progress=False,
        )
    )
    seconds = time.perf_counter() - start
    print(f"trained {result.train_step} steps ({result.train_episode} games) in {seconds:.0f} s")
    return net


def evaluate(net: Net, args: argparse.Namespace) -> None:
    """Arg-max legal Q in a rotating seat against the literature's random player, fresh deals."""

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            q, _ = net(torch.as_tensor(observations))
        q[~torch.as_tensor(masks, dtype=torch.bool)] = -torch.inf
        return q.argmax(dim=1).numpy().astype(np.int64)

    report_against_baseline(
        act, model="tianshou", players=args.players, games=args.eval_games, opponent=OPPONENT
    )


def main() -> None:
    """Train, then evaluate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100_000, help="learner decisions to train on")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--epoch-steps", type=int, default=10_000, help="decisions per logged epoch")
    parser.add_argument("--collect-steps", type=int, default=256, help="decisions between updates")
    parser.add_argument("--updates-per-step", type=float, default=0.125, help="gradient steps per decision")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--buffer", type=int, default=50_000)
    parser.add_argument("--n-step", type=int, default=4, help="n-step return horizon")
    parser.add_argument("--target-update", type=int, default=250, help="gradient steps between target syncs")
    parser.add_argument("--eps", type=float, default=0.05, help="epsilon-greedy exploration while training")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    evaluate(train(args), args)


if __name__ == "__main__":
    main()

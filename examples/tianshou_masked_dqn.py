"""Masked DQN with Tianshou on ``gymnasium.make("uno_env/Uno-v1", dict_observation=True)``.

Tianshou masks actions through the observation: a dict with the keys ``obs`` and ``mask``
(its ``PettingZooEnv`` convention), which its DQN policy reads to keep the arg-max and the
epsilon-greedy exploration on legal actions. The single-agent env's opt-in dict observation
(``{"observation", "action_mask"}``) only needs its keys renamed to Tianshou's, a one-line
Gymnasium ``TransformObservation``. The learner plays one rotating seat against the
literature's random player (``random_playable``: a random playable card, draws only with
none); at the end it is evaluated by :func:`training.evaluate.play_policy` on fresh deals against
both random players (``training.evaluate.BASELINES``: ``random_playable``, then
``random_legal``, uniform over the legal actions), each with the win rate's 95% interval
against the fair share 1/n and the games cut at the decision limit.

Exploration starts uniform over the legal actions and anneals to ``--eps``: under official
rules a player must call "UNO" before laying the second-to-last card (U-UNO-1) and a missed
call is always caught (2 cards), so a policy that never calls cannot win a game. With a
constant 5% exploration the call was almost never tried, and the DQN won 1.0% (0.5%-1.8%) of
1,000 games against ``random_playable`` after 24,576 steps, fewer than the random player.

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
from training.evaluate import BASELINES, report_against_baseline

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
        model=net, action_space=probe.action_space, eps_training=args.eps_start, eps_inference=0.0
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
    policy.set_eps_inference(args.eps_start)  # a first batch to sample from, played as exploration
    collector.collect(n_step=args.batch_size * args.num_envs)
    policy.set_eps_inference(0.0)
    explore_steps = max(1, int(args.steps * args.explore_fraction))
    shown = [-1]  # the last epoch announced

    def anneal_epsilon(epoch: int, env_step: int) -> None:
        # from uniform over legal actions down to args.eps: calling "UNO" (U-UNO-1) must be tried
        # often enough to be learned, and a game without the call is lost (a miss is always caught)
        progress = min(1.0, env_step / explore_steps)
        policy.set_eps_training(args.eps_start + progress * (args.eps - args.eps_start))
        if epoch != shown[0]:
            shown[0] = epoch
            print(f"epoch {epoch}: {env_step:>8} steps, epsilon {policy.eps_training:.3f}", flush=True)

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
            training_fn=anneal_epsilon,
            show_progress=False,
        )
    )
    seconds = time.perf_counter() - start
    print(f"trained {result.train_step} steps ({result.train_episode} games) in {seconds:.0f} s")
    return net


def evaluate(net: Net, args: argparse.Namespace) -> None:
    """Arg-max legal Q in a rotating seat against each random player of ``BASELINES``, fresh deals."""

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            q, _ = net(torch.as_tensor(observations))
        q[~torch.as_tensor(masks, dtype=torch.bool)] = -torch.inf
        return q.argmax(dim=1).numpy().astype(np.int64)

    for opponent in BASELINES:  # the literature's random player, then the uniform one
        report_against_baseline(
            act, model="tianshou", players=args.players, games=args.eval_games, opponent=opponent
        )


def main() -> None:
    """Train, then evaluate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100_000, help="learner decisions to train on")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--epoch-steps", type=int, default=10_000, help="decisions per logged epoch")
    # 128 decisions x 0.125 = 16 gradient steps per update (Tianshou shows a progress bar from 20 on)
    parser.add_argument("--collect-steps", type=int, default=128, help="decisions between updates")
    parser.add_argument("--updates-per-step", type=float, default=0.125, help="gradient steps per decision")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--buffer", type=int, default=50_000)
    parser.add_argument("--n-step", type=int, default=4, help="n-step return horizon")
    parser.add_argument("--target-update", type=int, default=250, help="gradient steps between target syncs")
    parser.add_argument("--eps-start", type=float, default=1.0, help="exploration (epsilon) at the start")
    parser.add_argument("--eps", type=float, default=0.05, help="exploration (epsilon) after annealing")
    parser.add_argument(
        "--explore-fraction", type=float, default=0.3, help="share of the steps over which epsilon anneals"
    )
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    evaluate(train(args), args)


if __name__ == "__main__":
    main()

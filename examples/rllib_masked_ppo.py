"""Masked PPO with RLlib (new API stack) on ``gymnasium.make("uno_env/Uno-v1", dict_observation=True)``.

RLlib's action-masking module (``ActionMaskingTorchRLModule``, shipped in
``ray.rllib.examples``) reads a dict observation with the keys ``observations`` and
``action_mask`` (a float mask: it adds ``log(mask)`` to the logits). The single-agent
env's opt-in dict observation (``{"observation", "action_mask"}``) only needs its keys
renamed to RLlib's and the mask made float, a one-line Gymnasium
``TransformObservation``. The learner plays one rotating seat against the literature's
random player (``random_playable``: a random playable card, draws only with none); at the
end it is evaluated by :func:`training.evaluate.play_policy` on fresh deals against
both random players (``training.evaluate.BASELINES``: ``random_playable``, then
``random_legal``, uniform over the legal actions), each with the win rate's 95% interval
against the fair share 1/n and the games cut at the decision limit.

The defaults (the ``win`` reward, 200,000 steps) beat ``random_playable``; the ``score``
reward at 100,000 steps only drew level with it (docs/environments/clients.md).

RLlib pins its own Gymnasium release (``ray[rllib]==2.60.0`` needs ``gymnasium==1.2.2``),
so it gets an environment of its own, beside the project's::

    python3.11 -m venv .venv-rllib
    .venv-rllib/bin/pip install torch==2.13.0 "ray[rllib]==2.60.0" -e .
    .venv-rllib/bin/python examples/rllib_masked_ppo.py                 # 2 players
    .venv-rllib/bin/python examples/rllib_masked_ppo.py --players 4
    .venv-rllib/bin/python examples/rllib_masked_ppo.py --steps 2048 --eval-games 20   # smoke run
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np
import ray
import torch
from gymnasium import spaces
from gymnasium.wrappers import NormalizeReward, TransformObservation
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import uno_env  # noqa: F401  (registers the uno_env/<preset>-v1 ids)
from training.evaluate import report_against_baselines

OPPONENT = "random_playable"


def make_env(config: dict[str, Any]) -> gymnasium.Env:
    """The single-agent env with RLlib's observation keys: ``observations`` and a float ``action_mask``.

    The ``score`` reward (hand points, up to hundreds a game) is scaled by Gymnasium's
    ``NormalizeReward``; ``win`` and ``rank`` pay within [-1, 1] and go in as they are.
    """
    env = gymnasium.make(
        "uno_env/Uno-v1", num_players=config["players"], opponents=OPPONENT, seat=None,
        dict_observation=True, reward=config["reward"],
    )  # fmt: skip
    if config["reward"] == "score":
        env = NormalizeReward(env)
    inner: spaces.Dict = env.observation_space  # type: ignore[assignment]
    mask_shape = inner["action_mask"].shape
    space = spaces.Dict(
        {"observations": inner["observation"], "action_mask": spaces.Box(0.0, 1.0, mask_shape, np.float32)}
    )
    return TransformObservation(
        env,
        lambda o: {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)},
        space,
    )


def train(args: argparse.Namespace) -> Any:
    """PPO for at least ``args.steps`` learner decisions; return the trained RLModule."""
    register_env("uno_env_single", make_env)
    config = (
        PPOConfig()
        .environment("uno_env_single", env_config={"players": args.players, "reward": args.reward})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=args.num_envs)
        .learners(num_learners=0)
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                model_config={"fcnet_hiddens": [args.width, args.width], "fcnet_activation": "tanh"},
            )
        )
        .training(
            train_batch_size_per_learner=args.batch_steps,
            minibatch_size=args.minibatch,
            num_epochs=4,
            lr=3e-4,
            gamma=0.99,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    start = time.perf_counter()
    steps = 0
    while steps < args.steps:
        result = algo.train()
        steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        mean = result["env_runners"].get("episode_return_mean", float("nan"))
        print(f"{steps:>8} steps, mean game return {mean:+.3f} ({args.reward} reward)", flush=True)
    print(f"trained {steps} steps in {time.perf_counter() - start:.0f} s")
    module = algo.get_module()
    algo.stop()
    return module


def evaluate(module: Any, args: argparse.Namespace) -> None:
    """Arg-max legal play in a rotating seat against each random player of ``BASELINES``, fresh deals."""

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = {
            "observations": torch.as_tensor(observations, dtype=torch.float32),
            "action_mask": torch.as_tensor(masks, dtype=torch.float32),
        }
        with torch.no_grad():
            logits = module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        logits[~torch.as_tensor(masks, dtype=torch.bool)] = -torch.inf
        return logits.argmax(dim=1).numpy().astype(np.int64)

    report_against_baselines(act, model="rllib", players=args.players, games=args.eval_games)


def main() -> None:
    """Train, then evaluate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200_000, help="learner decisions to train on")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--batch-steps", type=int, default=2048, help="decisions per PPO update")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--reward", default="win", choices=["win", "rank", "score"], help="reward scheme")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        evaluate(train(args), args)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()

"""Train MaskablePPO on a uno_env PettingZoo env with the SB3 action-mask pattern.

This is PettingZoo's Stable-Baselines3 action-masking tutorial pattern (a wrapper that
turns the AEC env into a Gymnasium env, sb3-contrib's ``ActionMasker`` and
``MaskablePPO``) applied to ``uno_env``: the only uno-specific line is the env id. One
model plays every seat (self-play through the AEC turn order); afterwards it is evaluated
in one seat against uniformly random opponents.

    python examples/sb3_action_mask.py                      # 4 players, 20,480 steps
    python examples/sb3_action_mask.py --env-id uno_env/uno-v0 --players 2 --steps 50000
    python examples/sb3_action_mask.py --steps 256 --n-steps 128 --eval-games 2   # smoke run

Models are saved as ``<env name>_<time>.zip`` in ``--out`` (default: the current folder).
Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch).
"""

from __future__ import annotations

import argparse
import glob
import os
import time
from typing import Any

import gymnasium as gym
import numpy as np
import pettingzoo
import pettingzoo.utils
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker

import uno_env  # noqa: F401  (registers the uno_env/<preset>-v0 ids)

ENV_ID = "uno_env/uno-v0"


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
    """A PettingZoo AEC env seen as a single-agent Gymnasium env, for SB3 with action masks.

    Each step is the decision of whoever is to move; the observation returned is that of
    the next player to move, and the reward, termination and truncation are those of the
    player who just acted.
    """

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """Reset the AEC env; expose one agent's spaces (all agents share them) to SB3."""
        # the tutorial's pattern: a PettingZoo wrapper that also poses as a Gymnasium env, so
        # its spaces are attributes here and methods on the wrapped env (mypy can't follow)
        super().reset(seed, options)  # type: ignore[call-arg]
        agent = self.possible_agents[0]
        self.observation_space = super().observation_space(agent)["observation"]  # type: ignore[operator]
        self.action_space = super().action_space(agent)  # type: ignore[operator]
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Act for the player to move; report what happened to that player."""
        actor = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[actor],
            self.terminations[actor],
            self.truncations[actor],
            self.infos[actor],
        )

    def observe(self, agent: str) -> np.ndarray:
        """The observation vector alone (the mask goes through :meth:`action_mask`)."""
        return super().observe(agent)["observation"]

    def action_mask(self) -> np.ndarray:
        """Legal actions of the player to move."""
        return super().observe(self.agent_selection)["action_mask"]


def mask_fn(env: SB3ActionMaskWrapper) -> np.ndarray:
    """What ActionMasker calls for the current mask."""
    return env.action_mask()


def make_env(env_id: str, **env_kwargs: Any) -> Any:
    """The PettingZoo AEC env behind ``env_id``."""
    return pettingzoo.make("aec", env_id, **env_kwargs)


def train_action_mask(
    env_id: str, steps: int, seed: int, out: str, ppo_kwargs: dict[str, Any], **env_kwargs: Any
) -> str:
    """Train one model for every seat of the env; return the saved model's path."""
    env = make_env(env_id, **env_kwargs)
    name = str(env.metadata["name"])
    print(f"Training on {env_id} ({name}) for {steps} steps.")
    env = SB3ActionMaskWrapper(env)
    env.reset(seed=seed)  # defines observation_space / action_space for SB3
    env = ActionMasker(env, mask_fn)  # type: ignore[arg-type]  # the wrapper poses as a gym.Env
    model = MaskablePPO(MaskableActorCriticPolicy, env, seed=seed, verbose=1, **ppo_kwargs)
    model.set_random_seed(seed)
    model.learn(total_timesteps=steps)
    path = os.path.join(out, f"{name}_{time.strftime('%Y%m%d-%H%M%S')}")
    model.save(path)
    print(f"Saved {path}.zip")
    env.close()
    return path + ".zip"


def eval_action_mask(
    env_id: str, model_path: str, num_games: int, seed: int, render_mode: str | None = None, **env_kwargs: Any
) -> dict[str, float]:
    """Play ``num_games`` with the model in seat 1 and uniform-random players elsewhere."""
    env = make_env(env_id, render_mode=render_mode, **env_kwargs)
    model = MaskablePPO.load(model_path)
    trained = env.possible_agents[1]
    print(f"Evaluating {model_path} as {trained} against random players.")
    wins = truncated = 0
    total = 0.0
    for game in range(num_games):
        env.reset(seed=seed + game)
        for i, agent in enumerate(env.possible_agents):
            env.action_space(agent).seed(seed + game + i)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                if agent == trained:
                    total += reward
                    wins += reward > 0
                    truncated += truncation
                action = None
            elif agent == trained:
                action = int(
                    model.predict(obs["observation"], action_masks=obs["action_mask"], deterministic=True)[0]
                )
            else:
                action = int(env.action_space(agent).sample(obs["action_mask"]))
            env.step(action)
    env.close()
    result = {
        "games": float(num_games),
        "win_rate": wins / max(num_games, 1),
        "mean_reward": total / max(num_games, 1),
        "truncated": float(truncated),
    }
    print(
        f"Win rate {result['win_rate']:.3f}, mean reward {result['mean_reward']:+.3f}, {truncated} truncated."
    )
    return result


def main() -> None:
    """Train, then evaluate the newest model of this env in ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default=ENV_ID, help="a registered uno_env PettingZoo id")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--steps", type=int, default=20_480, help="training timesteps")
    parser.add_argument("--n-steps", type=int, default=2048, help="PPO rollout length")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--max-decisions", type=int, default=None, help="override the decision limit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=".", help="folder for the saved model")
    args = parser.parse_args()

    env_kwargs: dict[str, Any] = {"num_players": args.players}
    if args.max_decisions is not None:
        env_kwargs["max_decisions"] = args.max_decisions
    ppo_kwargs = {"n_steps": args.n_steps, "batch_size": args.batch_size}
    train_action_mask(args.env_id, args.steps, args.seed, args.out, ppo_kwargs, **env_kwargs)
    name = make_env(args.env_id, **env_kwargs).metadata["name"]
    latest = max(glob.glob(os.path.join(args.out, f"{name}*.zip")), key=os.path.getctime)
    eval_action_mask(args.env_id, latest, args.eval_games, args.seed, **env_kwargs)


if __name__ == "__main__":
    main()

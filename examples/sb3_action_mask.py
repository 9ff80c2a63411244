"""Train MaskablePPO on a uno_env PettingZoo env with the SB3 action-mask pattern.

This is PettingZoo's Stable-Baselines3 action-masking tutorial pattern (a wrapper that
turns the AEC env into a Gymnasium env, sb3-contrib's ``ActionMasker`` and
``MaskablePPO``) applied to ``uno_env``; the uno-specific lines are the env id, the
opponents and the reward. Three changes to the tutorial make it learn:

- The model plays one seat (rotating from game to game) and the wrapper plays the other
  seats with an opponent (by default ``random_playable``, the literature's random player: a
  random playable card, drawing only with none), so every reward the model sees is its
  own. (The tutorial's wrapper hands every seat's decisions to one model and pays only the
  player who made the last move: the losers' -1 never reaches it.)
- It trains on the env's ``score`` reward (hand points: the winner scores the cards left in
  the other hands, a loser pays its own), scaled by SB3's ``VecNormalize``. A new policy
  plays like ``random_legal`` and wins about 1% of its games against the literature's random
  player, so the ``win`` reward is -1 almost every game and carries almost no signal: with
  it the tutorial's run ended below the random player (43.2% of 400 games at 2 players after
  40,960 steps; at 8 env copies the mean reward had not moved from -1 after 32,768 steps).
  Hand points grade every loss (a loss holding few points beats one holding many), which
  teaches shedding and dumping high cards from the first games. The evaluation still counts
  wins.
- Eight copies of the wrapped env step side by side (SB3's ``DummyVecEnv``), with PPO
  settings for that batch (256 steps per copy, minibatch 256, 10 epochs, entropy 0.01,
  two layers of 128) over 102,400 steps.

Afterwards the model is evaluated in a rotating seat against the training opponent, then
against the other random player of ``training.evaluate.BASELINES`` (``random_legal``, uniform
over the legal actions, after the default ``random_playable``), each with the win rate's 95%
interval against the fair share 1/n and the games cut at the decision limit.

    python examples/sb3_action_mask.py                      # 2 players, default steps
    python examples/sb3_action_mask.py --env-id uno_env/uno-v1 --players 4
    python examples/sb3_action_mask.py --steps 256 --envs 2 --n-steps 64 --eval-games 2   # smoke run

Models are saved as ``<env name>_<time>.zip`` in ``--out`` (default: the current folder).
Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch).
"""

from __future__ import annotations

import argparse
import glob
import os
import time
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
import pettingzoo
import pettingzoo.utils
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

import agents
import uno_env  # noqa: F401  (registers the uno_env/<preset>-v1 ids)
from training.evaluate import BASELINES
from uno_env.stats import wilson_interval

ENV_ID = "uno_env/uno-v1"
OPPONENT = "random_playable"  # the literature's random player


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
    """A PettingZoo AEC env seen as a single-agent Gymnasium env, for SB3 with action masks.

    The model decides for one seat (``seat_of_game(game)``, rotating); the wrapper plays the
    other seats with ``opponent`` (an :mod:`agents` agent) until it is the model's turn or
    the game is over. Observation, reward, termination and truncation are the model's seat's.
    """

    def __init__(self, env: Any, opponent: str = OPPONENT, seed: int = 0) -> None:
        super().__init__(env)
        self.opponent = agents.make(opponent, seed=seed)
        self.games = 0
        self.learner = ""

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
        self.learner = self.possible_agents[self.games % len(self.possible_agents)]
        self.games += 1
        self._play_opponents()
        return self.observe(self.learner), {}

    def _play_opponents(self) -> None:
        """The other seats move until the model's seat decides or the game is over."""
        while self.agents and self.agent_selection != self.learner:
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                break
            obs = super().observe(agent)
            view = self.env.unwrapped.public_view()  # what a scripted agent may read
            super().step(self.opponent.act(obs["observation"], obs["action_mask"], view=view))

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Act for the model's seat, let the others move; report what happened to the model."""
        super().step(action)
        self._play_opponents()
        me = self.learner
        return (
            self.observe(me),
            self._cumulative_rewards[me],
            self.terminations[me],
            self.truncations[me],
            self.infos[me],
        )

    def observe(self, agent: str) -> np.ndarray:
        """The observation vector alone (the mask goes through :meth:`action_mask`)."""
        return super().observe(agent)["observation"]

    def action_mask(self) -> np.ndarray:
        """Legal actions of the model's seat (all zeros once the game is over)."""
        return super().observe(self.learner)["action_mask"]


def mask_fn(env: SB3ActionMaskWrapper) -> np.ndarray:
    """What ActionMasker calls for the current mask."""
    return env.action_mask()


def make_env(env_id: str, **env_kwargs: Any) -> Any:
    """The PettingZoo AEC env behind ``env_id``."""
    return pettingzoo.make("aec", env_id, **env_kwargs)


def train_action_mask(
    env_id: str,
    steps: int,
    seed: int,
    out: str,
    ppo_kwargs: dict[str, Any],
    opponent: str = OPPONENT,
    num_envs: int = 1,
    **env_kwargs: Any,
) -> str:
    """Train one model against ``opponent`` in a rotating seat; return the saved model's path.

    ``num_envs`` copies of the wrapped env are stepped side by side (SB3's ``DummyVecEnv``),
    so one forward pass of the network decides for all of them.
    """

    def one_env(index: int) -> Any:
        env = SB3ActionMaskWrapper(make_env(env_id, **env_kwargs), opponent, seed=seed + index)
        env.reset(seed=seed + index)  # defines observation_space / action_space for SB3
        # Monitor records the episode returns that SB3 prints (ep_rew_mean)
        return Monitor(ActionMasker(env, mask_fn))  # type: ignore[arg-type]  # the wrapper poses as a gym.Env

    name = str(make_env(env_id, **env_kwargs).metadata["name"])
    print(f"Training on {env_id} ({name}) for {steps} steps against {opponent}, {num_envs} env(s).")
    copies = DummyVecEnv([partial(one_env, index) for index in range(num_envs)])
    # rewards scaled by the running spread of the returns: the score reward pays hand points
    env = VecNormalize(copies, norm_obs=False, norm_reward=True, gamma=ppo_kwargs.get("gamma", 0.99))
    model = MaskablePPO(MaskableActorCriticPolicy, env, seed=seed, verbose=1, **ppo_kwargs)
    model.set_random_seed(seed)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    print(f"Trained {model.num_timesteps} steps in {time.perf_counter() - start:.0f} s.")
    path = os.path.join(out, f"{name}_{time.strftime('%Y%m%d-%H%M%S')}")
    model.save(path)
    print(f"Saved {path}.zip")
    env.close()
    return path + ".zip"


def eval_action_mask(
    env_id: str,
    model_path: str,
    num_games: int,
    seed: int,
    opponent: str = OPPONENT,
    render_mode: str | None = None,
    **env_kwargs: Any,
) -> dict[str, float]:
    """Play ``num_games`` with the model in a rotating seat against ``opponent`` at every other seat.

    Game ``j`` is dealt from seed ``seed + 10_000 + j`` (not the training games' seeds) and the
    model sits at seat ``j % n``; the model plays its arg-max legal action.
    """
    env = make_env(env_id, render_mode=render_mode, **env_kwargs)
    model = MaskablePPO.load(model_path)
    players = len(env.possible_agents)
    rival = agents.make(opponent, seed=seed + 1)
    print(f"Evaluating {model_path} in a rotating seat against {opponent} ({num_games} games).")
    wins = truncated = 0
    total = 0.0
    for game in range(num_games):
        env.reset(seed=seed + 10_000 + game)
        trained = env.possible_agents[game % players]
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                if agent == trained:
                    total += reward
                    wins += termination and reward > 0
                    truncated += truncation
                action = None
            elif agent == trained:
                action = int(
                    model.predict(obs["observation"], action_masks=obs["action_mask"], deterministic=True)[0]
                )
            else:
                action = rival.act(obs["observation"], obs["action_mask"], view=env.unwrapped.public_view())
            env.step(action)
    env.close()
    low, high = wilson_interval(wins, num_games)
    fair = 1.0 / players
    result = {
        "games": float(num_games),
        "win_rate": wins / max(num_games, 1),
        "win_low": low,
        "win_high": high,
        "fair_share": fair,
        "mean_reward": total / max(num_games, 1),
        "truncated": float(truncated),
    }
    verdict = "above" if low > fair else "not above"
    print(
        f"Win rate vs {opponent} {result['win_rate']:.3f} (95% CI {low:.3f}-{high:.3f}; "
        f"fair share {fair:.3f}: {verdict}), mean reward {result['mean_reward']:+.3f}, "
        f"{truncated} truncated of {num_games}."
    )
    if truncated > num_games / 2:
        print("STALLING: most games ended at the decision limit (E-END-1)")
    return result


# defaults: tuned so the run beats the literature's random player at 2 and 4 players within
# a few minutes on a 2-core machine (docs/environments/clients.md: "Example runs")
DEFAULT_STEPS = 102_400
DEFAULT_ENVS = 8


def main() -> None:
    """Train, then evaluate the newest model of this env in ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default=ENV_ID, help="a registered uno_env PettingZoo id")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="training steps, all copies")
    parser.add_argument("--envs", type=int, default=DEFAULT_ENVS, help="env copies stepped side by side")
    parser.add_argument("--n-steps", type=int, default=256, help="PPO rollout length per env copy")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--n-epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--net-arch", type=int, nargs="+", default=[128, 128])
    parser.add_argument(
        "--reward",
        default="score",
        choices=["win", "rank", "score"],
        help="training reward (default score: hand points; evaluation counts wins)",
    )
    parser.add_argument(
        "--opponent", default=OPPONENT, help="agent at the other seats while training and evaluating"
    )
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--max-decisions", type=int, default=None, help="override the decision limit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=".", help="folder for the saved model")
    args = parser.parse_args()
    torch.set_num_threads(1)  # small networks: more threads only contend for the cores

    env_kwargs: dict[str, Any] = {"num_players": args.players}
    if args.max_decisions is not None:
        env_kwargs["max_decisions"] = args.max_decisions
    ppo_kwargs = {
        "n_steps": args.n_steps,
        "batch_size": args.batch_size,
        "n_epochs": args.n_epochs,
        "learning_rate": args.lr,
        "ent_coef": args.ent_coef,
        "gamma": args.gamma,
        "policy_kwargs": {"net_arch": args.net_arch},
    }
    train_action_mask(
        args.env_id,
        args.steps,
        args.seed,
        args.out,
        ppo_kwargs,
        args.opponent,
        args.envs,
        **env_kwargs,
        reward=args.reward,
    )
    name = make_env(args.env_id, **env_kwargs).metadata["name"]
    latest = max(glob.glob(os.path.join(args.out, f"{name}*.zip")), key=os.path.getctime)
    # the training opponent, then the random players not yet met ("vs random" names which one)
    for opponent in [args.opponent] + [b for b in BASELINES if b != args.opponent]:
        start = time.perf_counter()
        eval_action_mask(args.env_id, latest, args.eval_games, args.seed, opponent, **env_kwargs)
        print(f"Evaluated in {time.perf_counter() - start:.0f} s.")


if __name__ == "__main__":
    main()

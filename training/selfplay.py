"""Self-play through the PettingZoo AEC env: one shared policy for every seat (``uno-env selfplay``).

::

    uno-env selfplay --rules uno --players 4 --steps 200000
    python -m training.selfplay --rules mau_mau --players 3 --steps 50000 --envs 4

The ecosystem's pattern (PettingZoo's Stable-Baselines3 action-mask tutorial): the AEC env
(:func:`uno_env.env`) is wrapped as a Gymnasium env
(:class:`training.selfplay_env.SelfPlayEnv`) that
MaskablePPO trains through ``action_masks()``, and the policy being trained also plays every
other seat. Unlike the tutorial's wrapper, which reports to each step the reward of whoever
just moved (so a player's own loss never reaches it), each game here is seen from one seat,
the learner's, which rotates with the game seed (``seed % players``); the other seats'
decisions are made by the current policy (sampled from its masked distribution, with a
seeded generator), so the final reward reaches the decisions that led to it. Over the
rotating seats one network learns every seat.

A run writes ``runs/<rules>__selfplay__<seed>__<time>/``: ``config.json``, ``rules.txt``,
``env.json``, ``model.zip`` + ``model.meta.json`` (the checked policy sidecar) and
``eval.json`` / ``eval.csv`` (win rate, rank and points against ``--eval-opponents`` with
95% intervals, via :mod:`training.evaluate`). For speed, opponent pools, checkpoints and
resume, use :mod:`training.train` (the native vector env).

SB3 checkpoints are pickles: load them from trusted sources only.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.policy_agent import current_env_version, current_observation_spec, save_policy_metadata
from uno_env.compiler.compiling import warm_up

from .common import (
    BatchActor,
    Subcommand,
    add_rule_arguments,
    check_number,
    check_player_count,
    check_training_seed,
    check_widths,
    resolve_rules,
    rules_label,
    set_torch_threads,
)
from .evaluate import evaluate, format_table, opponent_seats, write_results
from .extras import TRAIN, require
from .runner import write_file_atomic
from .train import make_logger


@dataclass
class SelfPlayConfig:
    """Arguments of a self-play run (written to ``config.json``)."""

    rules: str = "uno"
    overrides: list[str] = field(default_factory=list)
    players: int = 4
    seed: int = 0
    total_steps: int = 100_000
    envs: int = 8
    """Self-play games stepped side by side (SB3 ``DummyVecEnv``)."""
    n_steps: int = 256
    batch_size: int = 512
    n_epochs: int = 4
    learning_rate: float = 3e-4
    ent_coef: float = 0.01
    gamma: float = 0.995
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    reward: str = "win"
    eval_games: int = 2000
    eval_opponents: list[str] = field(default_factory=lambda: ["random_playable", "blocker"])
    threads: int = 1
    runs_dir: str = "runs"
    progress_bar: bool = True

    def check(self) -> None:
        """Raise ValueError naming a bad value."""
        for name in (
            "players",
            "total_steps",
            "envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "eval_games",
            "threads",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        check_number("learning_rate", self.learning_rate, 0.0, closed=False)
        check_number("ent_coef", self.ent_coef, 0.0)
        check_number("gamma", self.gamma, 0.0, 1.0)
        check_widths("net_arch", self.net_arch)
        check_training_seed("seed", self.seed)


def selfplay(cfg: SelfPlayConfig) -> Path:
    """Train one shared policy by self-play through the AEC env; return the run directory."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from .selfplay_env import SelfPlayEnv

    cfg.check()
    set_torch_threads(cfg.threads)
    rules = resolve_rules(cfg.rules, cfg.overrides)
    rules.check_players(cfg.players)
    for entry in cfg.eval_opponents:  # any agent spec (agents.spec), each checked before training
        opponent_seats(entry, cfg.players)
    warm_up("env")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(cfg.runs_dir) / f"{rules_label(rules)}__selfplay__{cfg.seed}__{stamp}"
    k = 1
    while run_dir.exists():
        run_dir = run_dir.with_name(f"{rules_label(rules)}__selfplay__{cfg.seed}__{stamp}-{k}")
        k += 1
    run_dir.mkdir(parents=True)
    config = dataclasses.asdict(cfg) | {"rules_string": str(rules)}
    (run_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    (run_dir / "rules.txt").write_text(str(rules) + "\n", encoding="utf-8")
    env_info = {"observation_spec": current_observation_spec(), "env_version": current_env_version()}
    (run_dir / "env.json").write_text(json.dumps(env_info, indent=2) + "\n", encoding="utf-8")
    print(f"run directory: {run_dir}")

    games = [SelfPlayEnv(rules, cfg.players, reward=cfg.reward) for _ in range(cfg.envs)]
    venv = DummyVecEnv([lambda g=g: g for g in games])  # type: ignore[misc]
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        ent_coef=cfg.ent_coef,
        policy_kwargs={"net_arch": list(cfg.net_arch)},
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )
    # the training curve goes to the run directory (SB3's own default is a new /tmp/SB3-<time> folder)
    model.set_logger(make_logger(run_dir, tensorboard=False))
    current = BatchActor(model.policy, deterministic=False, seed=cfg.seed + 1)  # the live policy

    def opponent(obs: np.ndarray, mask: np.ndarray) -> int:
        return int(current(obs[None, :], mask[None, :].astype(bool))[0])

    for game in games:
        game.set_opponent(opponent)
    start = time.perf_counter()
    model.learn(cfg.total_steps, progress_bar=cfg.progress_bar)
    seconds = time.perf_counter() - start
    # whole or not at all (a full disk); SB3 writes to the open binary file
    write_file_atomic(run_dir / "model.zip", lambda handle: model.save(handle))  # type: ignore[arg-type]
    save_policy_metadata(
        run_dir / "model.zip", rules, num_players=cfg.players, extra={"run": run_dir.name, "mode": "selfplay"}
    )
    rate = model.num_timesteps / seconds
    print(f"trained {model.num_timesteps:,} steps in {seconds:.0f} s ({rate:,.0f} steps/s)")
    results = evaluate(
        str(run_dir / "model.zip"),
        rules,
        cfg.players,
        cfg.eval_opponents,
        cfg.eval_games,
        seed=cfg.seed + 10**9,
    )
    print(format_table(results))
    write_results(results, run_dir / "eval", {"steps": int(model.num_timesteps), "train_seconds": seconds})
    return run_dir


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    d = SelfPlayConfig()
    a = parser.add_argument
    add_rule_arguments(parser, d.rules)
    a("--players", type=int, default=d.players, help=f"players per game (default: {d.players})")
    a("--seed", type=int, default=d.seed, help="seed of torch, numpy and the games")
    a("--steps", dest="total_steps", type=int, default=d.total_steps, help="learner decisions to train for")
    a("--envs", type=int, default=d.envs, help="self-play games side by side")
    a("--n-steps", type=int, default=d.n_steps, help="rollout length per game (batch = n_steps x envs)")
    a("--batch-size", type=int, default=d.batch_size, help="PPO minibatch size")
    a("--n-epochs", type=int, default=d.n_epochs, help="PPO epochs per batch")
    a("--lr", dest="learning_rate", type=float, default=d.learning_rate, help="learning rate")
    a("--ent-coef", type=float, default=d.ent_coef, help="entropy bonus")
    a("--gamma", type=float, default=d.gamma, help="discount")
    a("--net-arch", type=int, nargs="+", default=d.net_arch, help="hidden layer widths")
    a("--reward", default=d.reward, choices=["win", "rank", "score"], help="env reward")
    a("--eval-games", type=int, default=d.eval_games, help="evaluation games per opponent set")
    a("--eval-opponents", nargs="+", default=d.eval_opponents, help="evaluation opponent sets")
    a("--threads", type=int, default=d.threads, help="torch threads (default: 1)")
    a("--runs-dir", default=d.runs_dir, help="parent of run directories (default: runs)")
    a("--no-progress", dest="progress_bar", action="store_false", help="no progress bar")


def run_cli(args: argparse.Namespace) -> int:
    """Run ``uno-env selfplay`` from parsed arguments."""

    require("selfplay", {"train": TRAIN})
    check_player_count(resolve_rules(args.rules, args.overrides), args.players)
    names = {f.name for f in dataclasses.fields(SelfPlayConfig)}
    selfplay(SelfPlayConfig(**{k: v for k, v in vars(args).items() if k in names}))
    return 0


COMMAND = Subcommand(
    "selfplay", "self-play MaskablePPO through the PettingZoo AEC env", _add_arguments, run_cli
)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

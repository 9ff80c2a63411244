"""Expert iteration: a network learns the search, the search uses the network, repeat.

::

    uno-env expert --rules uno --players 2 --rounds 4 --games 2000 --out runs/expert_uno_2p
    uno-env expert --resume runs/expert_uno_2p            # after an interruption
    uno-env expert --status runs/expert_uno_2p            # where every round stands

Expert iteration (Anthony, Tian & Barber 2017; the loop of AlphaZero, Silver et al. 2018) with
the determinised search of :mod:`uno_env.styles.search` as the expert. Each round ``r``:

1. **Label.** The searcher (``--search``, from round 1 on guided by the network of the round
   before: ``net=...``, :mod:`uno_env.sim.guided`) plays ``--games`` games, chunk by chunk,
   against the ``--opponents`` in turn (``self``: the searcher at every seat). Every decision
   of a searcher with two or more legal actions becomes a row: the mover's observation, its
   legal actions, every action searched with its mean rollout value and the move played
   (:func:`uno_env.sim.guided.label_games`). With chance ``--critic-rate`` a decision of any seat
   also gives the *privileged* observation of every seat (all hands revealed) with who won:
   the critic's data (the oracle's information as a critic, as PerfectDou's critic sees every
   hand in training while its policy sees its own).
2. **Learn.** A policy network (``--net-arch``, tanh MLP, the exported format of
   :mod:`uno_env.sim.learned`) learns the search's moves from the rows of the last ``--window``
   rounds: the masked cross-entropy against the move played, mixed (``--soft``) with the
   softmax of the searched actions' values at temperature ``--temperature``; a critic
   (``--critic-arch``) learns the chance that the observer wins from the privileged rows.
   Both start from the previous round's weights (round 0 from ``--init-policy``, if given).
3. **Export and measure.** The pair is exported as one plain-weights file
   (``rounds/NN/net.npz`` + ``.json``: no pickle, compiled inference) and the network alone
   plays ``--eval-deals`` deals against ``--eval-opponent`` at every seat (duplicate format,
   interval by deal; the *selection* deals, seed ``--eval-seed``). With
   ``--eval-search-deals`` the guided search of the next round is measured the same way.

The next round's searcher is guided by that file. ``OUT/final.npz`` is the last round's
network; its sidecar's ``training`` holds the command, config, every round's data and
evaluations.

**Fine-tuning** (``--finetune-steps N``, default 0: none). After the last round the network is
trained on with MaskablePPO on the game outcome (:func:`run_finetune`): a run directory of
:mod:`training.train` in ``OUT/finetune/``, the actor loaded from ``OUT/final.npz``, the
``--finetune-opponents`` (default: ``--eval-opponent``) at the other seats, evaluated and
checkpointed every ``--finetune-eval-every`` steps against ``--eval-opponent``. Its last
checkpoint's actor is the run's player, ``OUT/finetuned.npz`` (plain weights, no critic);
``final.npz`` stays the expert-iteration network with its critic, for guided searches. An
interrupted stage continues from its last checkpoint on ``--resume``, where
``--finetune-steps`` may grow (and ``--rounds`` no longer: the stage started from the last
round's network).

**Resume and progress.** Every chunk is a task of :func:`training.runner.run_batches` (a
process pool, ``--executor ray`` or in this process) that writes its data file atomically
(``rounds/NN/chunks/chunk_KKKKK.npz``); a round's network, evaluation and record are written
when done. ``--resume OUT`` continues with the missing chunks, networks and evaluations of the
run's own config; ``--rounds`` may be raised on resume to train on (not lowered), and ``--window`` and
``--epochs`` changed from the next round to train on (kept in ``config.json`` as ``changes``,
so the config still describes the whole run). ``progress.csv`` holds one
row per round (rows; the labelling's wall seconds, its seconds summed over the chunks, which
run side by side, and its CPU seconds; the training seconds; the evaluation); the progress line
on stderr counts chunks and games. **Seeds**: chunk ``k`` of round ``r`` deals its games
from ``seed + r * 10**7 + k * chunk_games``; the network's weights and data order from
``seed + r``; the evaluation deals from ``--eval-seed`` (the same every round: a paired
comparison of the rounds). Same config and seed, same run (one torch thread).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import uno_env
from agents.policy_agent import load_policy_metadata
from agents.spec import parse_seats, parse_weighted
from training.common import (
    Subcommand,
    add_run_arguments,
    check_number,
    check_seed_span,
    check_training_seed,
    refuse_other_design,
    resolve_rules,
    set_torch_threads,
)
from training.export import export_checkpoint
from training.runner import (
    Progress,
    lock_folder,
    log_event,
    make_run_folder,
    run_batches,
    workers_for,
    write_file_atomic,
    write_json_atomic,
)
from training.train import TrainConfig, last_checkpoint_summary
from training.train import resume as resume_training
from training.train import train as start_training
from uno_env import files
from uno_env.engine.rules import RuleSet, compile_spec
from uno_env.game.encoding import obs_layout
from uno_env.sim.guided import label_games, network_seating
from uno_env.sim.learned import (
    MAX_NAME,
    PolicyFileError,
    PolicyGameMismatchError,
    check_exportable,
    file_digest,
    is_learned_policy,
    load_exported,
    load_policy,
    save_exported,
)
from uno_env.stats import grouped_ratio
from uno_env.styles.params import P_NET
from uno_env.styles.registry import parse_policy
from uno_env.versions import ENV_VERSION, OBS_VERSION

from .extras import executor_needs, merge, require

EXPERT_FORMAT = "uno-env-expert/1"
ROUND_SEEDS = 10_000_000
"""Deals of round ``r`` start at ``seed + r * ROUND_SEEDS``."""
FINETUNED_SUFFIX = "_finetuned"
"""The fine-tuned network is named ``NAME_finetuned``: the longest of the run's network names."""
EPOCH_COLUMNS = (
    "epoch", "loss", "agreement", "critic_loss", "held_loss", "held_agreement", "held_critic_loss", "seconds",
    "selection_win_rate",
)  # fmt: skip
"""The columns of a round's ``train.csv`` (one row per epoch)."""
SELECTIONS = ("agreement", "play")
"""How a round keeps its policy's epoch: the one that agrees most with the search's moves on the
held-out chunks, or the one that wins most against ``eval_opponent`` on the selection deals."""
SELF = "self"
"""The opponent entry that seats the searcher at every seat (self-play; every seat labelled)."""
FINETUNE_FIELDS = (
    "finetune_steps", "finetune_opponents", "finetune_lr", "finetune_ent_coef", "finetune_num_envs",
    "finetune_n_steps", "finetune_batch_size", "finetune_eval_every", "finetune_eval_games",
)  # fmt: skip
"""The options of the fine-tuning stage (recorded only when not at their defaults)."""
FINETUNE_DIR = "finetune"
"""The stage's MaskablePPO run directory inside the run's folder."""
FINETUNED = "finetuned.npz"
"""The stage's player (plain weights, actor only) inside the run's folder."""
CHANGEABLE = ("window", "epochs")
"""The training options a resumed run may change from its next round on (``--window``, ``--epochs``)."""


@dataclass
class ExpertConfig:
    """Everything an expert-iteration run depends on (written to ``config.json``)."""

    rules: str = "uno"
    overrides: list[str] = field(default_factory=list)
    players: int = 2
    seed: int = 0
    rounds: int = 4
    games: int = 2000
    chunk_games: int = 50
    search: str = "search:sims=1000"
    opponents: list[str] = field(
        default_factory=lambda: ["blocker", "self", "aggressor", "blocker", "greedy"]
    )
    init_policy: str = ""
    critic_rate: float = 0.25
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    critic_arch: list[int] = field(default_factory=lambda: [64, 64])
    window: int = 2
    epochs: int = 4
    batch_size: int = 512
    learning_rate: float = 1e-3
    soft: float = 0.0
    temperature: float = 0.02
    eval_opponent: str = "blocker"
    eval_deals: int = 2000
    eval_seed: int = 500_000_000
    eval_search_deals: int = 0
    select: str = "agreement"
    threads: int = 1
    name: str = ""
    finetune_steps: int = 0
    """Learner steps of the fine-tuning stage (MaskablePPO on the game outcome, started from
    ``final.npz``; :func:`run_finetune`). 0: no stage."""
    finetune_opponents: list[str] = field(default_factory=list)
    """The stage's opponent pool (``uno-env train --opponents`` entries). Empty: ``eval_opponent``
    at every other seat."""
    finetune_lr: float = 1e-4
    finetune_ent_coef: float = 0.005
    finetune_num_envs: int = 128
    finetune_n_steps: int = 128
    finetune_batch_size: int = 4096
    finetune_eval_every: int = 2_000_000
    """Steps between the stage's evaluations and checkpoints (the unit of its resume)."""
    finetune_eval_games: int = 500
    """Games per evaluation of the stage against ``eval_opponent``."""
    changes: list[dict[str, int]] = field(default_factory=list)
    """Training options changed on resume, each from a round on: ``{"round": r, "window": w,
    "epochs": e}`` (either option may be left out). Kept in ``config.json``, so the config still
    describes the whole run: the same config and seed give the same run."""

    def at_round(self, r: int) -> tuple[int, int]:
        """The (window, epochs) that train round ``r``: the options, then every change from a
        round <= ``r`` in order."""
        window, epochs = self.window, self.epochs
        for change in self.changes:
            if change["round"] <= r:
                window = change.get("window", window)
                epochs = change.get("epochs", epochs)
        return window, epochs

    def check(self) -> None:
        """Raise ValueError naming the first option out of range."""

        positive = ("rounds", "games", "chunk_games", "window", "epochs", "batch_size", "threads")
        for key in positive:
            if getattr(self, key) < 1:
                raise ValueError(f"--{key.replace('_', '-')} must be >= 1, got {getattr(self, key)}")
        if self.eval_deals < 0 or self.eval_search_deals < 0:
            raise ValueError("--eval-deals and --eval-search-deals must be >= 0")
        if not 0.0 <= self.critic_rate <= 1.0:
            raise ValueError(f"--critic-rate must be in [0, 1], got {self.critic_rate}")
        if not 0.0 <= self.soft <= 1.0:
            raise ValueError(f"--soft must be in [0, 1], got {self.soft}")
        check_number("--temperature", self.temperature, 0.0, closed=False)
        if not self.net_arch or not self.critic_arch or min(self.net_arch + self.critic_arch) < 1:
            raise ValueError("--net-arch and --critic-arch need one or more positive widths")
        check_seed_span(
            "--seed",
            self.seed,
            (self.rounds - 1) * ROUND_SEEDS + self.games,
            f"game i of round r is dealt from seed + r * {ROUND_SEEDS:,} + i; {self.rounds} rounds of "
            f"{self.games:,} games",
        )
        check_seed_span(
            "--eval-seed",
            self.eval_seed,
            max(self.eval_deals, self.eval_search_deals, 1),
            "evaluation deal d is dealt from eval-seed + d",
        )
        longest = f"{self.name}{FINETUNED_SUFFIX}"  # and NAME_roundR, no longer below 10,000 rounds
        if len(longest) > MAX_NAME:
            raise ValueError(
                f"--name has {len(self.name):,} characters; at most {MAX_NAME - len(FINETUNED_SUFFIX)}: "
                f"the run's networks are named NAME_roundR and NAME{FINETUNED_SUFFIX}, of at most {MAX_NAME}"
            )
        if self.select not in SELECTIONS:
            raise ValueError(f"--select must be one of {', '.join(SELECTIONS)}, got {self.select!r}")
        if self.select == "play" and self.eval_deals < 1:
            raise ValueError("--select play needs --eval-deals >= 1: the epochs are chosen on those deals")
        check_number("--learning-rate", self.learning_rate, 0.0, closed=False)
        style, params = parse_policy(self.search)
        if not style.is_search:
            raise ValueError(
                f"--search must be the search or the oracle (with parameters), got {self.search!r}"
            )

        if params[P_NET] >= 0:
            raise ValueError("--search must not name a network: expert iteration adds its own (net=...)")
        if not self.opponents:
            raise ValueError("--opponents needs one or more entries (styles, exported policies or 'self')")
        for entry in self.opponents:
            if entry != SELF:
                _check_player(entry, "--opponents")
        _check_player(self.eval_opponent, "--eval-opponent")
        if self.init_policy:
            try:
                load_policy(self.init_policy)  # a network to start from, never a style
            except PolicyFileError as exc:
                raise ValueError(f"--init-policy {self.init_policy!r}: {exc}") from None
        self._check_changes()
        self._check_finetune()

    def _check_finetune(self) -> None:
        if isinstance(self.finetune_steps, bool) or not isinstance(self.finetune_steps, int):
            raise ValueError(f"--finetune-steps must be an integer >= 0, got {self.finetune_steps!r}")
        if self.finetune_steps < 0:
            raise ValueError(f"--finetune-steps must be >= 0 (0: no fine-tuning), got {self.finetune_steps}")
        sizes = ("finetune_num_envs", "finetune_n_steps", "finetune_batch_size", "finetune_eval_every")
        for key in (*sizes, "finetune_eval_games"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"--{key.replace('_', '-')} must be an integer >= 1, got {value!r}")
        check_number("--finetune-lr", self.finetune_lr, 0.0, closed=False)
        check_number("--finetune-ent-coef", self.finetune_ent_coef, 0.0)
        if self.finetune_steps:  # the stage's MaskablePPO run takes the run's seed, after the rounds
            check_training_seed("--seed (with --finetune-steps)", self.seed, self.finetune_steps)
        for entry in self.finetune_opponents:
            try:
                text, _ = parse_weighted(entry, where="--finetune-opponents")
                parse_seats(text, self.players - 1, where=f"--finetune-opponents {entry!r}")
            except ValueError as exc:
                raise ValueError(
                    f"--finetune-opponents {entry!r}: {exc} (entries are agent specs or seat tables "
                    "with an optional @weight, as uno-env train --opponents)"
                ) from None

    def _check_changes(self) -> None:
        previous = -1
        for change in self.changes:
            number = change.get("round") if isinstance(change, dict) else None
            if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                raise ValueError(f"changes: each entry needs a round number >= 0, got {change!r}")
            unknown = sorted(set(change) - set(CHANGEABLE) - {"round"})
            if unknown or len(change) < 2:
                raise ValueError(
                    f"changes: an entry changes {' or '.join(CHANGEABLE)} from a round on, got {change!r}"
                )
            if number <= previous:
                raise ValueError(f"changes: rounds must increase, got {number} after {previous}")
            previous = number
            for key in CHANGEABLE:
                value = change.get(key, 1)
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise ValueError(
                        f"changes: {key} must be an integer >= 1, got {value!r} (round {previous})"
                    )


def _check_player(name: str, option: str) -> None:
    """Raise ValueError naming ``option`` unless ``name`` is a style or a readable exported policy."""
    try:
        if is_learned_policy(name):
            load_policy(name)
        else:
            parse_policy(name)
    except ValueError as exc:
        raise ValueError(f"{option} {name!r}: {exc}") from None


NO_TRANSFER = "uno-env expert has no transfer option: name one trained for these rules and player count"
"""What a refusal of an opponent's network says instead of an opt-in: expert iteration offers none."""


def check_opponent_networks(cfg: ExpertConfig, rules: RuleSet) -> None:
    """Refuse an opponent that plays with a network (an exported policy, a search's guide)
    trained for other rules or another player count than the run's, before any game: the
    ``--opponents`` (``self`` is the run's own searcher) and the ``--eval-opponent``, each seated
    as every tool seats a network (:func:`uno_env.sim.guided.network_seating`, through
    :func:`uno_env.sim.learned.check_fits`). They were seated unchecked, so a network trained
    for 4 players or other rules labelled and judged a run without a word. ``--init-policy``
    is not held to this: a start from another variant's network is a transfer by design."""
    named = [("--opponents", name) for name in cfg.opponents if name != SELF]
    for option, name in [*named, ("--eval-opponent", cfg.eval_opponent)]:
        try:
            network_seating([name] * cfg.players, rules, allow_rules_mismatch=False, allow_with=NO_TRANSFER)
        except PolicyGameMismatchError as exc:
            raise PolicyGameMismatchError(f"{option} {name!r}: {exc}") from None


# ================================================================ the run folder
def round_dir(out: Path, r: int) -> Path:
    """``OUT/rounds/03``."""
    return out / "rounds" / f"{r:02d}"


def chunk_path(out: Path, r: int, k: int) -> Path:
    """``OUT/rounds/03/chunks/chunk_00012.npz``."""
    return round_dir(out, r) / "chunks" / f"chunk_{k:05d}.npz"


def network_path(out: Path, r: int) -> Path:
    """The network trained at the end of round ``r``: ``OUT/rounds/03/net.npz``."""
    return round_dir(out, r) / "net.npz"


def guide_of(cfg: ExpertConfig, out: Path, r: int) -> str:
    """The network guiding round ``r``'s searcher: the network of round ``r - 1``, or for
    round 0 ``--init-policy`` (empty: none)."""
    if r == 0:
        return cfg.init_policy
    return str(network_path(out, r - 1).resolve())


def searcher_of(cfg: ExpertConfig, out: Path, r: int) -> str:
    """The search text of round ``r`` (``--search`` plus ``net=`` of its guide)."""
    guide = guide_of(cfg, out, r)
    if not guide:
        return cfg.search
    sep = "," if ":" in cfg.search else ":"
    return f"{cfg.search}{sep}net={guide}"


# ================================================================ labelling (one chunk: a task)
@dataclass(frozen=True)
class ChunkTask:
    """One chunk of labelled games: picklable, paths absolute."""

    path: str
    rules: str
    players: int
    searcher: str
    opponent: str
    seed: int
    games: int
    critic_ppm: int


def chunk_tasks(cfg: ExpertConfig, out: Path, r: int) -> list[ChunkTask]:
    """Round ``r``'s chunks whose data files are missing (chunk ``k`` against opponent entry
    ``k mod len(opponents)``)."""
    rules = str(resolve_rules(cfg.rules, cfg.overrides))
    searcher = searcher_of(cfg, out, r)
    chunks = -(-cfg.games // cfg.chunk_games)
    tasks = []
    for k in range(chunks):
        path = chunk_path(out, r, k)
        if path.exists():
            continue
        tasks.append(
            ChunkTask(
                str(path.resolve()),
                rules,
                cfg.players,
                searcher,
                cfg.opponents[k % len(cfg.opponents)],
                cfg.seed + r * ROUND_SEEDS + k * cfg.chunk_games,
                min(cfg.chunk_games, cfg.games - k * cfg.chunk_games),
                round(cfg.critic_rate * 1_000_000),
            )
        )
    return tasks


def cpu_seconds() -> float:
    """CPU seconds of this process (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def label_chunk(task: ChunkTask) -> dict[str, Any]:
    """Play and record one chunk (:func:`uno_env.sim.guided.label_games`), write its data file
    atomically and return its summary (rows, critic rows, seconds, CPU seconds)."""

    start, cpu = time.perf_counter(), cpu_seconds()
    rules = RuleSet.parse(task.rules)
    n = task.players
    if task.opponent == SELF:
        names, labelled = [task.searcher] * n, np.ones(n, dtype=np.bool_)
    else:
        names = [task.searcher] + [task.opponent] * (n - 1)
        labelled = np.zeros(n, dtype=np.bool_)
        labelled[0] = True
    # the opponents were checked before the run (check_opponent_networks); the searcher's network
    # is the run's own, or --init-policy, which may start from another variant (a transfer)
    seating = network_seating(names, rules, allow_rules_mismatch=True)
    spec = compile_spec(rules)
    deck = rules.deck_counts(n)
    actions = rules.num_actions
    per_game = 64 * n
    while True:
        rows = task.games * per_game
        crows = max(1, round(task.games * per_game * n * task.critic_ppm / 1_000_000 * 2))
        buffers: dict[str, np.ndarray] = {
            "obs_ptr": np.zeros(rows + 1, np.int64),
            "obs_idx": np.zeros(rows * 96, np.int16),
            "obs_val": np.zeros(rows * 96, np.float32),
            "masks": np.zeros((rows, actions), np.int8),
            "cand_ptr": np.zeros(rows + 1, np.int64),
            "cand_action": np.zeros(rows * 8, np.int16),
            "cand_value": np.zeros(rows * 8, np.float32),
            "cand_samples": np.zeros(rows * 8, np.int32),
            "kept": np.zeros(rows, np.int16),
            "played": np.zeros(rows, np.int16),
            "row_game": np.zeros(rows, np.int32),
            "row_seat": np.zeros(rows, np.int8),
            "crit_ptr": np.zeros(crows + 1, np.int64),
            "crit_idx": np.zeros(crows * 128, np.int16),
            "crit_val": np.zeros(crows * 128, np.float32),
            "crit_game": np.zeros(crows, np.int32),
            "crit_seat": np.zeros(crows, np.int8),
            "winners": np.zeros(task.games, np.int64),
        }
        used, cused = label_games(
            spec, n, deck, task.seed, task.games, seating.codes, seating.params, labelled,
            seating.seat_nets, seating.bank, seating.table, seating.offsets, seating.obs_size,
            task.critic_ppm, *buffers.values(),
        )  # fmt: skip
        if used >= 0 and cused >= 0:
            break
        per_game *= 2  # a buffer was too small: the same games again with larger ones
    data = {
        "obs_ptr": buffers["obs_ptr"][: used + 1],
        "obs_idx": buffers["obs_idx"][: buffers["obs_ptr"][used]],
        "obs_val": buffers["obs_val"][: buffers["obs_ptr"][used]],
        "masks": buffers["masks"][:used],
        "cand_ptr": buffers["cand_ptr"][: used + 1],
        "cand_action": buffers["cand_action"][: buffers["cand_ptr"][used]],
        "cand_value": buffers["cand_value"][: buffers["cand_ptr"][used]],
        "cand_samples": buffers["cand_samples"][: buffers["cand_ptr"][used]],
        "kept": buffers["kept"][:used],
        "played": buffers["played"][:used],
        "row_game": buffers["row_game"][:used],
        "row_seat": buffers["row_seat"][:used],
        "crit_ptr": buffers["crit_ptr"][: cused + 1],
        "crit_idx": buffers["crit_idx"][: buffers["crit_ptr"][cused]],
        "crit_val": buffers["crit_val"][: buffers["crit_ptr"][cused]],
        "crit_game": buffers["crit_game"][:cused],
        "crit_seat": buffers["crit_seat"][:cused],
        "winners": buffers["winners"],
        "seed": np.array([task.seed], np.int64),
    }

    write_file_atomic(Path(task.path), lambda handle: np.savez_compressed(handle, **data))  # type: ignore[arg-type]
    return {
        "path": task.path,
        "games": task.games,
        "rows": int(used),
        "critic_rows": int(cused),
        "seconds": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
    }


# ================================================================ the data
@dataclass
class Rows:
    """Sparse rows (``ptr``/``idx``/``val``: entries ``ptr[r]:ptr[r+1]``) with per-row arrays."""

    ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray
    extra: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sparse entries of ``rows``: (indices, values, offsets), EmbeddingBag's inputs."""
        starts = self.ptr[rows]
        lengths = self.ptr[rows + 1] - starts
        offsets = np.zeros(len(rows), dtype=np.int64)
        np.cumsum(lengths[:-1], out=offsets[1:])
        take = np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()))
        return self.idx[take].astype(np.int64), self.val[take], offsets


def _concat(parts: list[Rows]) -> Rows:
    ptrs, shift = [np.zeros(1, np.int64)], 0
    for p in parts:
        ptrs.append(p.ptr[1:] + shift)
        shift += int(p.ptr[-1])
    keys = parts[0].extra.keys() if parts else []
    return Rows(
        np.concatenate(ptrs),
        np.concatenate([p.idx for p in parts]) if parts else np.zeros(0, np.int16),
        np.concatenate([p.val for p in parts]) if parts else np.zeros(0, np.float32),
        {k: np.concatenate([p.extra[k] for p in parts]) for k in keys},
    )


CHUNK_LIMIT = 4 * files.GiB
"""Largest labelled chunk file read back."""


def read_chunk(cfg: ExpertConfig, path: Path) -> dict[str, np.ndarray]:
    """A labelled chunk of ``cfg`` (:func:`uno_env.files.read_npz`: each array of its dtype and at
    most the rows the chunk's games can have, headers checked before data), and its sparse rows
    consistent: row pointers rising from 0 to the length of their entries, observation indices
    within the layout, actions within the table, games and seats within the chunk. A
    :class:`uno_env.files.FileError` line otherwise."""

    rules = resolve_rules(cfg.rules, cfg.overrides)
    n, actions = cfg.players, rules.num_actions
    rows = cfg.chunk_games * rules.max_decisions * n + 1
    crows = rows * n
    spec = {
        "obs_ptr": ("int64", 1, rows),
        "obs_idx": ("int16", 1, rows * 96),
        "obs_val": ("float32", 1, rows * 96),
        "masks": ("int8", actions, rows),
        "cand_ptr": ("int64", 1, rows),
        "cand_action": ("int16", 1, rows * 8),
        "cand_value": ("float32", 1, rows * 8),
        "cand_samples": ("int32", 1, rows * 8),
        "kept": ("int16", 1, rows),
        "played": ("int16", 1, rows),
        "row_game": ("int32", 1, rows),
        "row_seat": ("int8", 1, rows),
        "crit_ptr": ("int64", 1, crows),
        "crit_idx": ("int16", 1, crows * 128),
        "crit_val": ("float32", 1, crows * 128),
        "crit_game": ("int32", 1, crows),
        "crit_seat": ("int8", 1, crows),
        "winners": ("int64", 1, cfg.chunk_games),
        "seed": ("int64", 1, 1),
    }
    arrays = {
        name: files.ArraySpec(
            dtype, (None, width) if name == "masks" else (None,), count * width * np.dtype(dtype).itemsize
        )
        for name, (dtype, width, count) in spec.items()
    }
    data = files.read_npz(path, "labelled chunk", arrays, CHUNK_LIMIT)
    size = obs_layout(rules.deck_family).size
    source = f"labelled chunk {path}"
    games = len(data["winners"])
    for ptr, idx, limit in (
        ("obs_ptr", "obs_idx", size),
        ("crit_ptr", "crit_idx", size),
        ("cand_ptr", "cand_action", actions),
    ):
        pointers, entries = data[ptr], data[idx]
        if (
            len(pointers) == 0
            or pointers[0] != 0
            or pointers[-1] != len(entries)
            or (np.diff(pointers) < 0).any()
        ):
            raise files.refuse(
                source,
                f"array {ptr!r}",
                "does not rise from 0 to the length of its entries",
                f"row pointers into {idx!r}",
            )
        if entries.size and (entries.min() < 0 or entries.max() >= limit):
            raise files.refuse(source, f"array {idx!r}", f"holds {int(entries.max())}", f"0..{limit - 1}")
    checks = (
        ("masks", "rows", len(data["obs_ptr"]) - 1), ("played", "rows", len(data["obs_ptr"]) - 1),
        ("crit_game", "critic rows", len(data["crit_ptr"]) - 1),
        ("crit_seat", "critic rows", len(data["crit_ptr"]) - 1),
    )  # fmt: skip
    for name, what, count in checks:
        if len(data[name]) != count:
            raise files.refuse(
                source, f"array {name!r}", f"has {len(data[name]):,} rows", f"one per {what} ({count:,})"
            )
    for name, low, high in (
        ("played", 0, actions - 1),
        ("crit_game", 0, games - 1),
        ("crit_seat", 0, n - 1),
        ("winners", -1, n - 1),
    ):
        values = data[name]
        if values.size and (values.min() < low or values.max() > high):
            raise files.refuse(
                source, f"array {name!r}", f"holds {int(values.min())}..{int(values.max())}", f"{low}..{high}"
            )
    return data


def load_rounds(
    cfg: ExpertConfig, out: Path, rounds: list[int], held_share: float = 0.05
) -> tuple[Rows, Rows, Rows, Rows]:
    """The policy rows and critic rows of ``rounds``, split into (training, held out): the last
    ``held_share`` of each round's chunks are held out (at least one when a round has two)."""
    policy: list[list[Rows]] = [[], []]
    critic: list[list[Rows]] = [[], []]
    for r in rounds:
        chunks = -(-cfg.games // cfg.chunk_games)
        held = max(1, round(chunks * held_share)) if chunks > 1 else 0
        for k in range(chunks):
            side = 1 if k >= chunks - held else 0
            data = read_chunk(cfg, chunk_path(out, r, k))
            winners = data["winners"]
            cand_ptr = data["cand_ptr"]
            target = _soft_targets(
                cfg, data["masks"], cand_ptr, data["cand_action"], data["cand_value"], data["played"]
            )
            policy[side].append(
                Rows(
                    data["obs_ptr"],
                    data["obs_idx"],
                    data["obs_val"],
                    {"masks": data["masks"], "target": target, "played": data["played"].astype(np.int64)},
                )
            )
            won = (winners[data["crit_game"]] == data["crit_seat"]).astype(np.float32)
            critic[side].append(Rows(data["crit_ptr"], data["crit_idx"], data["crit_val"], {"won": won}))
    return _concat(policy[0]), _concat(policy[1]), _concat(critic[0]), _concat(critic[1])


def _soft_targets(
    cfg: ExpertConfig,
    masks: np.ndarray,
    cand_ptr: np.ndarray,
    cand_action: np.ndarray,
    cand_value: np.ndarray,
    played: np.ndarray,
) -> np.ndarray:
    """Per row the target distribution over the actions (float16): the move played, mixed with
    share ``soft`` of the softmax of the searched actions' mean values at ``temperature``."""
    rows, actions = masks.shape
    target = np.zeros((rows, actions), dtype=np.float32)
    target[np.arange(rows), played] = 1.0 - cfg.soft
    if cfg.soft > 0 and rows:
        counts = np.diff(cand_ptr)
        row_of = np.repeat(np.arange(rows), counts)
        scaled = cand_value / cfg.temperature
        top = np.full(rows, -np.inf)
        np.maximum.at(top, row_of, scaled)
        weight = np.exp(scaled - top[row_of])
        total = np.zeros(rows)
        np.add.at(total, row_of, weight)
        np.add.at(target, (row_of, cand_action.astype(np.int64)), cfg.soft * weight / total[row_of])
    return target.astype(np.float16)


# ================================================================ the networks
def _network(inputs: int, hidden: list[int], outputs: int) -> Any:
    """A tanh MLP whose first layer is a sparse sum (EmbeddingBag): the exported layout."""
    import torch

    class SparseMLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = torch.nn.EmbeddingBag(inputs, hidden[0], mode="sum")
            self.first_bias = torch.nn.Parameter(torch.zeros(hidden[0]))
            bound = 1.0 / np.sqrt(inputs)
            torch.nn.init.uniform_(self.first.weight, -bound, bound)
            torch.nn.init.uniform_(self.first_bias, -bound, bound)
            layers: list[torch.nn.Module] = []
            width = hidden[0]
            for h in hidden[1:]:
                layers += [torch.nn.Linear(width, h), torch.nn.Tanh()]
                width = h
            layers.append(torch.nn.Linear(width, outputs))
            self.rest = torch.nn.Sequential(*layers)

        def forward(self, idx: Any, val: Any, offsets: Any) -> Any:
            h = torch.tanh(self.first(idx, offsets, per_sample_weights=val) + self.first_bias)
            return self.rest(h)

        def layers(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
            weights = [self.first.weight.detach().numpy().T.astype(np.float32)]
            biases = [self.first_bias.detach().numpy().astype(np.float32)]
            for m in self.rest:
                if isinstance(m, torch.nn.Linear):
                    weights.append(m.weight.detach().numpy().astype(np.float32))
                    biases.append(m.bias.detach().numpy().astype(np.float32))
            return weights, biases

        def load_layers(self, weights: tuple[np.ndarray, ...], biases: tuple[np.ndarray, ...]) -> None:
            """Start from exported layers; a network of an older observation spec reads a prefix
            of the inputs, so the inputs added since start at weight zero (it plays as before)."""
            with torch.no_grad():
                first = np.zeros((inputs, hidden[0]), dtype=np.float32)
                first[: weights[0].shape[1]] = weights[0].T
                self.first.weight.copy_(torch.as_tensor(first))
                self.first_bias.copy_(torch.as_tensor(biases[0]))
                linear = [m for m in self.rest if isinstance(m, torch.nn.Linear)]
                for m, w, b in zip(linear, weights[1:], biases[1:], strict=True):
                    m.weight.copy_(torch.as_tensor(w))
                    m.bias.copy_(torch.as_tensor(b))

    return SparseMLP()


def _state(network: Any) -> dict[str, Any]:
    """A copy of a network's weights (its ``state_dict``, cloned)."""
    return {k: v.detach().clone() for k, v in network.state_dict().items()}


def _batches(count: int, size: int, rng: np.random.Generator) -> list[np.ndarray]:
    order = rng.permutation(count)
    return [np.sort(order[lo : lo + size]) for lo in range(0, count, size)]


def train_round(cfg: ExpertConfig, out: Path, r: int, log: Path) -> dict[str, Any]:
    """Train round ``r``'s policy and critic on the last ``window`` rounds' rows (from the
    previous round's weights, else ``init_policy``); export ``rounds/NN/net.npz``; return the
    training record."""
    import torch

    set_torch_threads(cfg.threads)
    torch.manual_seed(cfg.seed + r)
    rng = np.random.default_rng(cfg.seed + r)
    rules = resolve_rules(cfg.rules, cfg.overrides)

    inputs = obs_layout(rules.deck_family).size
    actions = rules.num_actions
    window_size, epochs = cfg.at_round(r)
    window = list(range(max(0, r - window_size + 1), r + 1))
    train, held, ctrain, cheld = load_rounds(cfg, out, window)
    policy = _network(inputs, cfg.net_arch, actions)
    critic = _network(inputs, cfg.critic_arch, 1)
    start_from = str(network_path(out, r - 1)) if r > 0 else cfg.init_policy
    if start_from:
        previous = load_policy(start_from)
        if list(previous.hidden) == cfg.net_arch and previous.activation == "tanh":
            policy.load_layers(previous.weights, previous.biases)
        if previous.has_critic and [w.shape[0] for w in previous.critic_weights[:-1]] == cfg.critic_arch:
            critic.load_layers(previous.critic_weights, previous.critic_biases)
    p_opt = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    c_opt = torch.optim.Adam(critic.parameters(), lr=cfg.learning_rate)

    def policy_loss(rows: Rows, batch: np.ndarray) -> tuple[Any, Any]:
        idx, val, off = rows.gather(batch)
        logits = policy(torch.as_tensor(idx), torch.as_tensor(val), torch.as_tensor(off))
        legal = torch.as_tensor(rows.extra["masks"][batch] != 0)
        logits = logits.masked_fill(~legal, -1e9)
        target = torch.as_tensor(rows.extra["target"][batch].astype(np.float32))
        loss = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        hits = logits.argmax(dim=1) == torch.as_tensor(rows.extra["played"][batch])
        return loss, hits

    def critic_loss(rows: Rows, batch: np.ndarray) -> Any:
        idx, val, off = rows.gather(batch)
        logit = critic(torch.as_tensor(idx), torch.as_tensor(val), torch.as_tensor(off))[:, 0]
        won = torch.as_tensor(rows.extra["won"][batch])
        return torch.nn.functional.binary_cross_entropy_with_logits(logit, won)

    def held_out() -> tuple[float, float, float]:
        with torch.no_grad():
            loss = hits = 0.0
            for batch in _batches(len(held), 4096, np.random.default_rng(0)):
                value, hit = policy_loss(held, batch)
                loss += float(value) * len(batch)
                hits += float(hit.sum())
            closs = 0.0
            for batch in _batches(len(cheld), 4096, np.random.default_rng(0)):
                closs += float(critic_loss(cheld, batch)) * len(batch)
        return loss / max(1, len(held)), hits / max(1, len(held)), closs / max(1, len(cheld))

    def selection_score(h_agree: float) -> tuple[float, float]:
        """What the epoch is kept by, lower first: minus the held-out agreement, or (``select
        = "play"``) minus the win rate on the selection deals; and that win rate (else nan)."""
        if cfg.select != "play":
            return -h_agree, math.nan
        weights, biases = policy.layers()
        candidate = log.with_name("epoch_candidate.npz")
        save_exported(candidate, weights, biases, "tanh", {"name": "epoch_candidate", **network_meta})
        won = duplicate_win_rate(str(candidate), cfg, cfg.eval_deals, cfg.eval_seed)["win_rate"]
        candidate.unlink()
        candidate.with_suffix(".json").unlink(missing_ok=True)
        return -won, won

    network_meta = {
        "rules": str(rules),
        "observation_spec": f"obs-v{OBS_VERSION}",
        "env_version": f"v{ENV_VERSION}",
        "num_players": cfg.players,
    }
    history = []
    begin = time.perf_counter()
    # early stopping: the policy keeps the epoch (0: where it started) that agrees most with the
    # search's moves on the held-out chunks (or wins most on the selection deals), the critic the
    # one with the lowest held-out loss
    h_loss, h_agree, h_closs = held_out()
    score, won = selection_score(h_agree)
    best = {"policy": (score, 0, _state(policy)), "critic": (h_closs, 0, _state(critic))}
    with log.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(EPOCH_COLUMNS)
        row0 = [0, math.nan, math.nan, math.nan, h_loss, h_agree, h_closs, 0.0, won]
        writer.writerow(row0)
        history.append(dict(zip(EPOCH_COLUMNS, row0, strict=True)))
        for epoch in range(1, epochs + 1):
            total = hits = 0.0
            for batch in _batches(len(train), cfg.batch_size, rng):
                loss, hit = policy_loss(train, batch)
                p_opt.zero_grad()
                loss.backward()
                p_opt.step()
                total += float(loss.detach()) * len(batch)
                hits += float(hit.sum())
            ctotal = 0.0
            critic_batch = cfg.batch_size * max(1, len(ctrain) // max(1, len(train)))
            for batch in _batches(len(ctrain), critic_batch, rng):
                closs = critic_loss(ctrain, batch)
                c_opt.zero_grad()
                closs.backward()
                c_opt.step()
                ctotal += float(closs.detach()) * len(batch)
            h_loss, h_agree, h_closs = held_out()
            score, won = selection_score(h_agree)
            row = [epoch, total / max(1, len(train)), hits / max(1, len(train)), ctotal / max(1, len(ctrain)),
                   h_loss, h_agree, h_closs, time.perf_counter() - begin, won]  # fmt: skip
            writer.writerow(row)
            handle.flush()
            history.append(dict(zip(EPOCH_COLUMNS, row, strict=True)))
            played = "" if math.isnan(won) else f", {won:.2%} on the selection deals"
            print(
                f"round {r} epoch {epoch}: loss {row[1]:.4f}, agreement {row[2]:.3f} "
                f"(held out {h_agree:.3f}), critic {row[3]:.4f} (held out {h_closs:.4f}){played}",
                file=sys.stderr,
                flush=True,
            )
            if (not len(held) and cfg.select != "play") or score <= best["policy"][0]:
                best["policy"] = (score, epoch, _state(policy))
            if not len(cheld) or h_closs < best["critic"][0]:
                best["critic"] = (h_closs, epoch, _state(critic))
    policy.load_state_dict(best["policy"][2])
    critic.load_state_dict(best["critic"][2])
    weights, biases = policy.layers()
    c_weights, c_biases = critic.layers()
    record: dict[str, Any] = {
        "round": r,
        "window": window,
        "rows": len(train),
        "held_rows": len(held),
        "critic_rows": len(ctrain),
        "held_critic_rows": len(cheld),
        "started_from": Path(start_from).name if start_from else None,
        "epochs": history,
        "kept_epochs": {"policy": best["policy"][1], "critic": best["critic"][1]},
        "select": cfg.select,
        "train_seconds": time.perf_counter() - begin,
    }
    meta = {"name": f"{cfg.name or 'expert'}_round{r}", **network_meta, "training": record}
    save_exported(network_path(out, r), weights, biases, "tanh", meta, critic=(c_weights, c_biases))
    return record


# ================================================================ evaluation
def duplicate_win_rate(
    player: str, cfg: ExpertConfig, deals: int, seed: int, opponent: str | None = None
) -> dict[str, Any]:
    """``player``'s win rate against ``opponent`` (default ``eval_opponent``) at every seat on
    ``deals`` deals from ``seed``: duplicate format, 95% interval with the deal as the unit."""

    rules = resolve_rules(cfg.rules, cfg.overrides)
    opponent = opponent or cfg.eval_opponent
    n = cfg.players
    wins = np.zeros(deals)
    start, cpu = time.perf_counter(), cpu_seconds()
    for seat in range(n):
        names = [opponent] * n
        names[seat] = player
        # the opponent was checked before the run (check_opponent_networks); the player is the
        # run's own network, or the search it guides
        result = uno_env.simulate(rules, n, deals, seed=seed, policies=names, allow_rules_mismatch=True)
        wins += result.winner == seat
    est = grouped_ratio(wins, np.full(deals, n))
    lo, hi = est.proportion_interval()
    return {
        "opponent": opponent,
        "deals": deals,
        "games": deals * n,
        "seed": seed,
        "win_rate": est.value,
        "win_lo": lo,
        "win_hi": hi,
        "seconds": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
    }


# ================================================================ the run
def round_state(cfg: ExpertConfig, out: Path, r: int) -> str:
    """``done`` (record written), ``trained``, ``labelled``, ``labelling`` or ``waiting``."""
    folder = round_dir(out, r)
    if (folder / "record.json").is_file():
        return "done"
    if network_path(out, r).is_file():
        return "trained"
    chunks = -(-cfg.games // cfg.chunk_games)
    have = sum(chunk_path(out, r, k).exists() for k in range(chunks))
    if have == chunks:
        return "labelled"
    return "labelling" if have else "waiting"


def _load_config(out: Path) -> ExpertConfig:
    data = files.read_json_object(out / "config.json", "expert-iteration config")
    if data.pop("format", None) != EXPERT_FORMAT:
        raise ValueError(f"{out / 'config.json'} is not an expert-iteration config ({EXPERT_FORMAT})")
    # runs from before the field was recorded labelled obs-v2 rows
    labelled_with = data.pop("observation_spec", "obs-v2")
    if labelled_with != f"obs-v{OBS_VERSION}":
        raise ValueError(
            f"{out} holds rows labelled with {files.describe(labelled_with)} observations; this "
            f"installation encodes obs-v{OBS_VERSION}, whose later fields those rows lack, so the run "
            f"cannot go on: start a new one (--init-policy {out / 'final.npz'} keeps what it learned)"
        )
    names = {f.name for f in dataclasses.fields(ExpertConfig)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{out / 'config.json'} has unknown option(s) {', '.join(unknown)}")
    cfg = ExpertConfig(**data)
    try:
        cfg.check()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{out / 'config.json'}: {exc}") from None
    return cfg


def config_fields(cfg: ExpertConfig) -> dict[str, Any]:
    """``cfg`` as recorded data: every field, except the fine-tuning options at their defaults.

    The fine-tuning options came after runs were recorded: leaving them out at their defaults
    keeps those runs' ``config.json``, ``final.npz`` sidecar and sweep digest what they were (a
    config without them loads with the defaults, which is how those runs ran)."""
    data = dataclasses.asdict(cfg)
    defaults = dataclasses.asdict(ExpertConfig())
    return {k: v for k, v in data.items() if k not in FINETUNE_FIELDS or v != defaults[k]}


def _config_record(cfg: ExpertConfig) -> dict[str, Any]:
    return {"format": EXPERT_FORMAT, "observation_spec": f"obs-v{OBS_VERSION}", **config_fields(cfg)}


def run_expert(
    cfg: ExpertConfig,
    out: Path,
    command: str = "",
    *,
    executor: str = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    resume: bool = False,
    progress: bool = True,
) -> Path:
    """Run (or continue) expert iteration in ``out``; return the final network's path.

    ``resume`` continues a run of the same config except ``rounds`` (which may grow) and
    ``changes`` (which may gain entries from the first round not yet trained on)."""
    cfg.check()
    rules = resolve_rules(cfg.rules, cfg.overrides)
    rules.check_players(cfg.players)
    check_opponent_networks(cfg, rules)
    check_exportable(rules, cfg.net_arch, "--net-arch", critic=cfg.critic_arch)
    workers = workers_for(executor, workers, ray_address)

    make_run_folder(out, "expert iteration")
    with claim_run_folder_lock(out):  # checked and recorded by the session that holds the folder
        return _run_expert(cfg, out, command, resume, executor, workers, ray_address, progress)


def _run_expert(
    cfg: ExpertConfig,
    out: Path,
    command: str,
    resume: bool,
    executor: str,
    workers: int,
    ray_address: str | None,
    progress: bool,
) -> Path:
    """:func:`run_expert` in its folder, held (:func:`claim_run_folder_lock`)."""
    # the fine-tuning's budget may change on resume (it continues to the new total), and its
    # other options too while the stage has not started
    started = (out / FINETUNE_DIR).exists()
    free = ("rounds", "changes", "finetune_steps", *(() if started else FINETUNE_FIELDS))

    def differences(a: ExpertConfig, b: ExpertConfig) -> list[str]:
        x, y = dataclasses.asdict(a), dataclasses.asdict(b)
        return sorted(k for k in x if k not in free and x[k] != y[k])

    recorded = out / "config.json"
    if recorded.is_file():
        if not resume:
            raise ValueError(
                f"{out} holds an expert-iteration run: continue it with --resume {out}, or choose --out"
            )
        before = _load_config(out)
        changed = differences(before, cfg)
        if changed:
            raise ValueError(
                f"{out} was run with another config (it differs in {', '.join(changed)}); resume it "
                "unchanged (--rounds may grow, "
                "--window and --epochs may change from the next round on, --finetune-steps may grow "
                "and the other fine-tuning options change until the fine-tuning starts)"
            )
        if cfg.rounds < before.rounds:
            # the rounds past the new count are trained or planned: final.npz would be rewritten
            # from an earlier round, and config.json would describe less than the run holds
            raise ValueError(
                f"{out}: --rounds may be raised on resume, not lowered: --rounds {cfg.rounds} (the run's: "
                f"{before.rounds}); resume without --rounds, or use rounds/NN/net.npz of an earlier round"
            )
        _check_added_changes(before, cfg, out)
        if started and cfg.rounds != before.rounds:
            # the stage trains on from the last round's network: more rounds would leave the
            # fine-tuned player behind the final network it claims to start from
            raise ValueError(
                f"{out}: the fine-tuning started from round {before.rounds - 1}'s network; --rounds cannot "
                f"change any more (start a new run with --init-policy {out / 'final.npz'} to go on)"
            )
        trained = finetune_step(out)
        if cfg.finetune_steps < trained:
            raise ValueError(
                f"{out}: the fine-tuning has trained {trained:,} steps; --finetune-steps must be at "
                f"least that, got {cfg.finetune_steps:,}"
            )
    write_json_atomic(recorded, _config_record(cfg))
    log = out / "log.jsonl"
    for r in range(cfg.rounds):
        state = round_state(cfg, out, r)
        if state == "done":
            continue
        folder = round_dir(out, r)
        tasks = chunk_tasks(cfg, out, r)
        labelled = _labelling_summary(folder)
        if tasks:
            if progress:
                print(
                    f"round {r}: labelling {len(tasks)} chunks with {searcher_of(cfg, out, r)}",
                    file=sys.stderr,
                )
            bar = Progress(len(tasks), label=f"round {r} chunks", enabled=progress)

            def store(
                result: dict[str, Any],
                bar: Progress = bar,
                labelled: dict[str, Any] = labelled,
                folder: Path = folder,
            ) -> None:
                name = Path(result["path"]).stem
                labelled[name] = {k: v for k, v in result.items() if k != "path"}
                write_json_atomic(folder / "labelling.json", labelled)
                bar.update(result["games"])

            began = time.perf_counter()
            run_batches(
                label_chunk, tasks, store, executor=executor, workers=workers, ray_address=ray_address
            )
            spent = time.perf_counter() - began
            log_event(log, "labelled", round=r, chunks=len(tasks), seconds=spent, time=time.time())
        if not network_path(out, r).is_file():
            train_round(cfg, out, r, folder / "train.csv")
            log_event(log, "trained", round=r, time=time.time())

        record = load_exported(network_path(out, r)).meta["training"]
        record["labelling"] = _labelling_totals(labelled) | {"wall": _labelling_wall(log, r)}
        record["searcher"] = searcher_of(cfg, out, r)
        if cfg.eval_deals:
            record["evaluation"] = duplicate_win_rate(
                str(network_path(out, r)), cfg, cfg.eval_deals, cfg.eval_seed
            )
        if cfg.eval_search_deals:
            record["search_evaluation"] = duplicate_win_rate(
                searcher_of(cfg, out, r + 1), cfg, cfg.eval_search_deals, cfg.eval_seed
            )
        write_json_atomic(folder / "record.json", record)
        _append_progress(out, record)
        if progress:
            print(_round_line(record), file=sys.stderr, flush=True)
    final = _export_final(cfg, out, command)
    if cfg.finetune_steps:
        run_finetune(cfg, out, command, progress=progress)
    return final


def next_untrained_round(out: Path) -> int:
    """The first round of ``out`` without a network (the next one to train)."""
    r = 0
    while network_path(out, r).is_file():
        r += 1
    return r


def with_changes(cfg: ExpertConfig, out: Path, window: int | None, epochs: int | None) -> ExpertConfig:
    """``cfg`` (a run's recorded config) with ``--window`` / ``--epochs`` given on resume taking
    effect from the first round of ``out`` not yet trained; unchanged when neither differs from
    what that round would use."""
    given = {k: v for k, v in (("window", window), ("epochs", epochs)) if v is not None}
    for key, value in given.items():
        if value < 1:
            raise ValueError(f"--{key} must be >= 1, got {value}")
    r = next_untrained_round(out)
    current = dict(zip(CHANGEABLE, cfg.at_round(r), strict=True))
    change = {k: v for k, v in given.items() if v != current[k]}
    if not change:
        return cfg
    kept = [c for c in cfg.changes if c["round"] < r]
    same_round = [c for c in cfg.changes if c["round"] == r]
    merged = {**(same_round[0] if same_round else {}), "round": r, **change}
    return dataclasses.replace(cfg, changes=[*kept, merged])


def _check_added_changes(before: ExpertConfig, cfg: ExpertConfig, out: Path) -> None:
    """A resume may add (or amend) changes only from the first round not yet trained on: the
    rounds already trained keep the options they were trained with."""
    r = next_untrained_round(out)
    if [c for c in before.changes if c["round"] < r] != [c for c in cfg.changes if c["round"] < r]:
        raise ValueError(
            f"{out}: rounds 0-{r - 1} are trained; --window and --epochs can change from round {r} on"
        )


def claim_run_folder_lock(out: Path) -> Any:
    """One run at a time per folder (:func:`training.runner.lock_folder`)."""

    return lock_folder(out, "expert iteration")


def _labelling_summary(folder: Path) -> dict[str, Any]:
    path = folder / "labelling.json"
    if path.is_file():
        return files.read_json_object(path, "labelling summary")
    return {}


def _labelling_totals(labelled: dict[str, Any]) -> dict[str, Any]:
    keys = ("games", "rows", "critic_rows", "seconds", "cpu")
    return {k: sum(v[k] for v in labelled.values()) for k in keys}


def _labelling_wall(log: Path, r: int) -> float | None:
    """Wall seconds of round ``r``'s labelling: the sessions that finished it (``labelled``
    events of ``log.jsonl``); None when none recorded them (a run of an earlier version)."""
    if not log.is_file():
        return None
    spans = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:  # the log is informational: a damaged line costs its figure, never the resume
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict) or event.get("event") != "labelled" or event.get("round") != r:
            continue
        if isinstance(event.get("seconds"), (int, float)):
            spans.append(float(event["seconds"]))
    return sum(spans) if spans else None


def _round_line(record: dict[str, Any]) -> str:
    lab = record["labelling"]
    line = (
        f"round {record['round']}: {lab['rows']:,} rows from {lab['games']:,} games ({lab['cpu']:.0f} CPU s, "
        f"{lab['rows'] / max(lab['cpu'], 1e-9):.0f} rows per CPU s)"
    )
    for key, what in (("evaluation", "network"), ("search_evaluation", "guided search")):
        ev = record.get(key)
        if ev:
            line += (
                f"; {what} {ev['win_rate']:.1%} [{ev['win_lo']:.1%}, {ev['win_hi']:.1%}] against "
                f"{ev['opponent']} ({ev['games']:,} games)"
            )
    return line


def _append_progress(out: Path, record: dict[str, Any]) -> None:
    path = out / "progress.csv"
    lab = record["labelling"]
    ev = record.get("evaluation") or {}
    sev = record.get("search_evaluation") or {}
    kept = record.get("kept_epochs", {})
    epochs = record.get("epochs") or [{}]
    policy_row = epochs[min(kept.get("policy", len(epochs) - 1), len(epochs) - 1)]
    critic_row = epochs[min(kept.get("critic", len(epochs) - 1), len(epochs) - 1)]
    row = {
        "round": record["round"],
        "games": lab["games"],
        "rows": lab["rows"],
        "critic_rows": lab["critic_rows"],
        "label_seconds": round(lab["seconds"], 1),
        "label_wall": None if lab.get("wall") is None else round(lab["wall"], 1),
        "label_cpu": round(lab["cpu"], 1),
        "train_seconds": round(record["train_seconds"], 1),
        "held_agreement": policy_row.get("held_agreement"),
        "held_critic_loss": critic_row.get("held_critic_loss"),
        "net_win_rate": ev.get("win_rate"),
        "net_win_lo": ev.get("win_lo"),
        "net_win_hi": ev.get("win_hi"),
        "search_win_rate": sev.get("win_rate"),
        "search_win_lo": sev.get("win_lo"),
        "search_win_hi": sev.get("win_hi"),
    }
    rows = []
    if path.is_file():
        with path.open(newline="", encoding="utf-8") as handle:
            rows = [r for r in csv.DictReader(handle) if int(r["round"]) != record["round"]]
    rows.append({k: ("" if v is None else v) for k, v in row.items()})
    rows.sort(key=lambda r: int(r["round"]))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        writer.writeheader()
        writer.writerows(rows)


def _export_final(cfg: ExpertConfig, out: Path, command: str) -> Path:
    """``OUT/final.npz``: the last round's network, its sidecar holding every round's record."""

    last = load_exported(network_path(out, cfg.rounds - 1))
    rounds = [
        files.read_json_object(round_dir(out, r) / "record.json", "round record") for r in range(cfg.rounds)
    ]
    meta = {k: v for k, v in last.meta.items() if k not in ("format", "architecture", "weights_sha256")}
    meta["name"] = cfg.name or meta["name"]
    meta["training"] = {
        "method": "expert iteration: the determinised search, guided by the previous round's network, labels "
        "positions; a policy network learns its moves and a privileged critic the outcomes",
        "command": command,
        "config": config_fields(cfg),
        "rounds": rounds,
        "evaluation": rounds[-1].get("evaluation"),
    }
    return save_exported(
        out / "final.npz",
        list(last.weights),
        list(last.biases),
        last.activation,
        meta,
        critic=(list(last.critic_weights), list(last.critic_biases)),
    )


# ================================================================ the fine-tuning stage
def player_path(cfg: ExpertConfig, out: Path) -> Path:
    """The run's player: ``OUT/finetuned.npz`` with a fine-tuning stage, else ``OUT/final.npz``."""
    return out / (FINETUNED if cfg.finetune_steps else "final.npz")


def finetune_config(cfg: ExpertConfig, out: Path) -> TrainConfig:
    """The stage's MaskablePPO config: the run's rules, players and seed, the actor loaded from
    ``OUT/final.npz`` (``net_arch`` its hidden widths), the fine-tuning options, one torch thread."""
    return TrainConfig(
        rules=cfg.rules,
        overrides=list(cfg.overrides),
        players=cfg.players,
        exp="finetune",
        seed=cfg.seed,
        total_steps=cfg.finetune_steps,
        num_envs=cfg.finetune_num_envs,
        n_steps=cfg.finetune_n_steps,
        batch_size=cfg.finetune_batch_size,
        learning_rate=cfg.finetune_lr,
        ent_coef=cfg.finetune_ent_coef,
        net_arch=list(cfg.net_arch),
        init_policy=str((out / "final.npz").resolve()),
        opponents=list(cfg.finetune_opponents) or [cfg.eval_opponent],
        eval_every=cfg.finetune_eval_every,
        eval_games=cfg.finetune_eval_games,
        eval_opponents=[cfg.eval_opponent],
        threads=1,
        runs_dir=str(out),
        progress_bar=False,
        tensorboard=False,
    )


def finetune_step(out: Path) -> int:
    """Learner steps of the run's fine-tuning at its last checkpoint (0: none yet)."""
    latest = out / FINETUNE_DIR / "checkpoints" / "latest.json"
    if not latest.is_file():
        return 0
    step = files.read_json_object(latest, "checkpoint record").get("step", 0)
    return step if isinstance(step, int) and not isinstance(step, bool) else 0


def finetune_summary(out: Path) -> dict[str, Any]:
    """The stage so far: steps and wall seconds at its last checkpoint, and the evaluation rows
    of that step (empty before its first checkpoint)."""
    last = last_checkpoint_summary(out / FINETUNE_DIR)
    return {key: last[key] for key in ("step", "seconds", "evaluation")}


def _finetuned_step(path: Path) -> int | None:
    """The step the player file ``path`` was exported at (None: no such file)."""
    if not path.is_file():
        return None
    step = load_exported(path).meta.get("training", {}).get("step")
    return step if isinstance(step, int) else None


def _model_step(folder: Path) -> int | None:
    """The step of a training run's ``model.zip`` (its sidecar; None: no model yet)."""
    model = folder / "model.zip"
    if not model.is_file():
        return None
    step = load_policy_metadata(model).extra.get("step")
    return step if isinstance(step, int) else None


def run_finetune(cfg: ExpertConfig, out: Path, command: str = "", *, progress: bool = True) -> Path:
    """Run (or continue) the fine-tuning stage in ``OUT/finetune`` and export its player.

    A MaskablePPO run (:func:`training.train.train`) from the expert-iteration network's actor,
    trained on the game outcome against the fine-tuning opponents; an interrupted stage
    continues from its last checkpoint (:func:`training.train.resume`, to ``finetune_steps``),
    a finished one is not redone. The player, ``OUT/finetuned.npz``, is the last checkpoint's
    actor (plain weights); its sidecar's ``training`` holds the stage's config, step, seconds
    and last evaluation. Returns its path."""
    folder = out / FINETUNE_DIR
    target = out / FINETUNED
    step = finetune_step(out)
    if step >= cfg.finetune_steps and _finetuned_step(target) == step:
        return target  # finished and exported: nothing to redo
    if step < cfg.finetune_steps or _model_step(folder) != step:
        # model.zip is the run's last file: one of the last checkpoint's step means the run ended
        # there and only the export is missing; otherwise it trains (on) to the budget
        if progress:
            print(f"fine-tuning: MaskablePPO to {cfg.finetune_steps:,} steps in {folder}", file=sys.stderr)
        if (folder / "config.json").is_file():
            resume_training(folder, total_steps=cfg.finetune_steps)
        else:
            start_training(
                finetune_config(cfg, out), run_dir=folder, rules=resolve_rules(cfg.rules, cfg.overrides)
            )
    last = last_checkpoint_summary(folder)
    recorded = files.read_json_object(folder / "config.json", "run config")
    training = {
        "method": "MaskablePPO on the game outcome, the actor started from the expert-iteration network "
        "(final.npz); the last checkpoint's actor",
        "command": command,
        "config": recorded,
        "expert_config": config_fields(cfg),
        "started_from_sha256": file_digest(out / "final.npz"),
        **last,  # the last checkpoint: its file, step, seconds and evaluation rows
    }
    name = f"{cfg.name or 'expert'}{FINETUNED_SUFFIX}"
    export_checkpoint(  # this stage's own file: a resumed stage exports it again
        folder / "checkpoints" / last["checkpoint"], target, name=name, training=training, force=True
    )
    log_event(out / "log.jsonl", "finetuned", step=last["step"], time=time.time())
    if progress:
        print(_finetune_line(cfg, out), file=sys.stderr, flush=True)
    return target


def _finetune_line(cfg: ExpertConfig, out: Path) -> str:
    summary = finetune_summary(out)
    step = summary["step"]
    state = "done" if _finetuned_step(out / FINETUNED) == step and step >= cfg.finetune_steps else "training"
    if not (out / FINETUNE_DIR).exists():
        state = "waiting"
    line = f"fine-tuning: {state:<10} {step:,}/{cfg.finetune_steps:,} steps"
    for row in summary["evaluation"]:
        line += (
            f"; {row['win_rate']:.1%} [{row['win_low']:.1%}, {row['win_high']:.1%}] against "
            f"{row['opponents']} ({row['games']:,} games)"
        )
    return line


def status_lines(out: Path) -> list[str]:
    """Where every round of the run in ``out`` stands."""
    cfg = _load_config(out)
    lines = []
    for r in range(cfg.rounds):
        state = round_state(cfg, out, r)
        chunks = -(-cfg.games // cfg.chunk_games)
        have = sum(chunk_path(out, r, k).exists() for k in range(chunks))
        line = f"round {r:>2}: {state:<10} {have}/{chunks} chunks"
        record = round_dir(out, r) / "record.json"
        if record.is_file():
            line += " | " + _round_line(files.read_json_object(record, "round record"))
        lines.append(line)
    if cfg.finetune_steps:
        lines.append(_finetune_line(cfg, out))
    return lines


# ================================================================ command line
def _add_arguments(parser: argparse.ArgumentParser) -> None:
    d = ExpertConfig()
    a = parser.add_argument
    a("--rules", default=d.rules, help="preset name or rule TOML file")
    a("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="rule override")
    a("--players", type=int, default=d.players)
    a("--seed", type=int, default=d.seed)
    a(
        "--rounds",
        type=int,
        default=None,
        help=f"rounds of labelling and learning (default: {d.rounds}; with --resume: the run's, which "
        "may be raised)",
    )
    a("--games", type=int, default=d.games, help="labelled games per round")
    a(
        "--chunk-games",
        type=int,
        default=d.chunk_games,
        help="games per data chunk (a task; the unit of resume)",
    )
    a("--search", default=d.search, help=f"the searcher, without a network (default: {d.search})")
    a(
        "--opponents",
        nargs="+",
        default=d.opponents,
        help="what the searcher plays, chunk by chunk in turn: styles, exported policies, or 'self' (the "
        "searcher at every seat)",
    )
    a("--init-policy", default=d.init_policy, help="exported network to start from (guides round 0's search)")
    a("--critic-rate", type=float, default=d.critic_rate, help="share of decisions giving critic rows")
    a("--net-arch", type=int, nargs="+", default=d.net_arch, help="the policy's hidden widths")
    a("--critic-arch", type=int, nargs="+", default=d.critic_arch, help="the critic's hidden widths")
    a(
        "--window",
        type=int,
        default=None,
        help=f"rounds of data each network learns from (default: {d.window}; with --resume: from the "
        "next round on)",
    )
    a(
        "--epochs",
        type=int,
        default=None,
        help=f"training epochs per round (default: {d.epochs}; with --resume: from the next round on)",
    )
    a("--batch-size", type=int, default=d.batch_size)
    a("--learning-rate", type=float, default=d.learning_rate)
    a("--soft", type=float, default=d.soft, help="share of the target from the searched values' softmax")
    a("--temperature", type=float, default=d.temperature, help="temperature of that softmax (win chance)")
    a("--eval-opponent", default=d.eval_opponent)
    a(
        "--select",
        choices=SELECTIONS,
        default=d.select,
        help="keep each round's epoch by held-out agreement with the search, or by its win rate on the "
        "selection deals (--eval-deals from --eval-seed against --eval-opponent)",
    )
    a(
        "--eval-deals",
        type=int,
        default=d.eval_deals,
        help="deals per round's network evaluation (every seat)",
    )
    a("--eval-seed", type=int, default=d.eval_seed, help="seed of the evaluation deals (the selection deals)")
    a(
        "--eval-search-deals",
        type=int,
        default=d.eval_search_deals,
        help="deals for the guided search's evaluation",
    )
    a("--threads", type=int, default=d.threads, help="torch threads")
    a("--name", default=d.name, help="the final network's name")
    a(
        "--finetune-steps",
        type=int,
        default=None,
        help="after the last round, train the network on with MaskablePPO for this many learner steps "
        f"(OUT/finetune, the player OUT/{FINETUNED}; default 0: none; with --resume: the new total)",
    )
    a(
        "--finetune-opponents",
        nargs="+",
        default=None,
        help="the fine-tuning's opponent pool (uno-env train --opponents entries; default: --eval-opponent)",
    )
    a("--finetune-lr", type=float, default=None, help=f"the fine-tuning's learning rate ({d.finetune_lr:g})")
    a(
        "--finetune-ent-coef",
        type=float,
        default=None,
        help=f"the fine-tuning's entropy bonus ({d.finetune_ent_coef:g})",
    )
    a("--finetune-num-envs", type=int, default=None, help=f"games at once ({d.finetune_num_envs})")
    a("--finetune-n-steps", type=int, default=None, help=f"rollout length per game ({d.finetune_n_steps})")
    a("--finetune-batch-size", type=int, default=None, help=f"PPO minibatch ({d.finetune_batch_size})")
    a(
        "--finetune-eval-every",
        type=int,
        default=None,
        help=f"steps between the fine-tuning's evaluations and checkpoints ({d.finetune_eval_every:,})",
    )
    a(
        "--finetune-eval-games",
        type=int,
        default=None,
        help=f"games per evaluation against --eval-opponent ({d.finetune_eval_games})",
    )
    add_run_arguments(
        parser, "expert-iteration run", "where chunks are labelled", "runs/expert__<rules>__<N>p__<seed>"
    )
    parser.add_argument("--status", type=Path, metavar="DIR", help="print where every round of DIR stands")


RESUME_FREE = ("rounds", *CHANGEABLE, *FINETUNE_FIELDS)
"""The config options ``--resume`` takes from the command line (:func:`run_expert` checks what
they may change); every other one is the run's own."""


def _refuse_other_design(args: argparse.Namespace, cfg: ExpertConfig, out: Path) -> None:
    """Refuse options given with ``--resume`` that differ from the run's recorded config (or
    ``--out``): a resumed run goes on with its own design (:data:`RESUME_FREE` may change)."""
    refuse_other_design(
        args,
        _add_arguments,
        dataclasses.asdict(cfg),
        out,
        free=RESUME_FREE,
        allowed="--rounds, --window, --epochs and the fine-tuning options may be given",
    )


def cmd_expert(args: argparse.Namespace) -> int:
    """Run ``uno-env expert`` from parsed arguments."""
    if args.status is not None:
        for line in status_lines(args.status):
            print(line)
        return 0

    require(
        "expert",
        merge({"train": ("torch",)}, executor_needs(args.executor)),
        resume_dir=args.resume,
        keeps="each round's labelled chunks and networks are kept in its run folder; "
        "uno-env expert --resume DIR continues",
    )
    names = {f.name for f in dataclasses.fields(ExpertConfig)}
    if args.resume is not None:
        cfg = _load_config(args.resume)
        _refuse_other_design(args, cfg, args.resume)
        if args.rounds is not None:  # run_expert refuses fewer rounds than the run's
            cfg.rounds = args.rounds
        cfg = with_changes(cfg, args.resume, args.window, args.epochs)
        # fine-tuning options given on resume: run_expert refuses what may no longer change
        given = {k: getattr(args, k) for k in FINETUNE_FIELDS if getattr(args, k) is not None}
        cfg = dataclasses.replace(cfg, **given)
        out = args.resume
    else:
        given = {k: v for k, v in vars(args).items() if k in names and v is not None}
        cfg = ExpertConfig(**given)
        out = args.out or Path("runs") / f"expert__{cfg.rules}__{cfg.players}p__{cfg.seed}"
    command = "uno-env expert " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "uno-env expert"
    final = run_expert(
        cfg,
        out,
        command,
        executor=args.executor,
        workers=args.workers,
        ray_address=args.ray_address,
        resume=args.resume is not None,
        progress=not args.quiet,
    )
    print(f"final network: {final}")
    if cfg.finetune_steps:
        print(f"fine-tuned player: {player_path(cfg, out)}")
    return 0


COMMAND = Subcommand(
    "expert",
    "expert iteration: a network learns the search, the search uses the network, round after round",
    _add_arguments,
    cmd_expert,
    description=__doc__,
)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

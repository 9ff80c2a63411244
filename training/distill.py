"""Distil the search agent into a small policy network: ``uno-env distill``.

::

    uno-env distill --rules uno --players 2 --teacher search:sims=1000,trust=1 \\
        --opponents blocker aggressor greedy --games 12000 --net-arch 64 64 --out runs/distill_uno_2p

The teacher (any compiled policy; the search agent by default) plays games against the
opponents; every decision it takes with more than one legal action is recorded as the
mover's observation (the env's encoding), its legal-action mask and the teacher's action
(behaviour cloning; Silver et al. 2017 and Anthony et al. 2017 train the policy on the
search's choices in the same way). A tanh MLP of the PPO policy's shape is then trained on
them with the masked cross-entropy, exported as plain weights (:mod:`uno_env.sim.learned`:
``OUT/policy.npz`` + ``.json``, no pickle, runs compiled in studies and tournaments) and
evaluated against ``--eval-opponent`` in duplicate format (deal-grouped interval).

**Data**: games are played in chunks of ``--chunk-games`` (chunk ``k``: seeds ``seed +
k * chunk_games ...``); each chunk is written to ``OUT/chunks/chunk_K.npz`` when done, so an
interrupted run resumes with the missing chunks (``--resume OUT``; a chunk file that cannot
be read is collected again; the run's rules are kept in ``OUT/rules.txt`` and a resume whose
``--rules`` file now gives other rules is refused). One session at a time holds ``OUT`` (``OUT/.lock``,
:func:`training.runner.lock_folder`). Game ``g`` seats the
teacher at seat ``g mod N`` and opponent entry ``(g div N) mod len(opponents)`` at the
others. The compiled teacher draws its randomness from each game's agent generator:
the same seed gives the same data.

**Training** (torch, ``--threads``, default 1): Adam, ``--epochs`` passes in a seeded order,
the last ``holdout`` share of the chunks (a field of the run's ``config.json``, 0.05; at least
one chunk when the share is above 0) held out to report the agreement with the teacher; a run
of one chunk, or a share of 0, holds none out, says so and records no agreement.
``OUT/train.csv`` logs every epoch; ``OUT/record.json`` holds the command, config, data size,
agreement and evaluation, and goes into the exported sidecar's ``training``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

import uno_env
from uno_env import files
from uno_env.engine.rules import RuleSet, compile_spec
from uno_env.game.encoding import obs_layout
from uno_env.sim.learned import check_exportable, collect_decisions, save_exported
from uno_env.stats import grouped_ratio
from uno_env.styles.registry import policy_table
from uno_env.versions import ENV_VERSION, OBS_VERSION

from .common import (
    Subcommand,
    check_number,
    check_seed_span,
    check_widths,
    refuse_other_design,
    resolve_rules,
    set_torch_threads,
)
from .extras import require
from .runner import (
    Progress,
    lock_folder,
    make_run_folder,
    results_folder,
    write_file_atomic,
    write_json_atomic,
)


@dataclass
class DistillConfig:
    """Everything a distillation run depends on (written to ``config.json``)."""

    rules: str = "uno"
    overrides: list[str] = field(default_factory=list)
    players: int = 2
    teacher: str = "search:sims=1000,trust=1"
    opponents: list[str] = field(default_factory=lambda: ["blocker", "aggressor", "greedy"])
    games: int = 12_000
    chunk_games: int = 500
    seed: int = 0
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    epochs: int = 12
    batch_size: int = 512
    learning_rate: float = 1e-3
    holdout: float = 0.05
    eval_opponent: str = "blocker"
    eval_games: int = 5000
    eval_seed: int = 1_000_000_000
    threads: int = 1
    name: str = ""


def check_config(cfg: DistillConfig) -> None:
    """Raise ValueError naming the first option a run could not use, before any game: a field
    of another type (a ``config.json`` edited before ``--resume``), a count below 1, a seed whose
    games run past the game seeds, a network or name the exported policy file refuses (which
    it did only at the end, after the games and the training)."""
    defaults = DistillConfig()
    kinds = {int: "an integer", str: "a string"}
    for key in (spec.name for spec in dataclasses.fields(DistillConfig)):
        value, default, option = getattr(cfg, key), getattr(defaults, key), f"--{key.replace('_', '-')}"
        if isinstance(default, list):
            item = int if key == "net_arch" else str
            if not isinstance(value, list) or any(
                isinstance(v, bool) or not isinstance(v, item) for v in value
            ):
                raise ValueError(
                    f"{option} must be a list of {'integers' if item is int else 'strings'}, got {value!r}"
                )
        elif isinstance(default, float):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{option} must be a number, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, type(default)):
            raise ValueError(f"{option} must be {kinds[type(default)]}, got {value!r}")
    if cfg.games < 1 or cfg.chunk_games < 1 or cfg.epochs < 1 or cfg.batch_size < 1:
        raise ValueError("--games, --chunk-games, --epochs and --batch-size must be positive")
    if cfg.eval_games < 1 or cfg.threads < 1:
        raise ValueError(
            f"--eval-games and --threads must be at least 1, got {cfg.eval_games} and {cfg.threads}"
        )
    if not 0 <= cfg.holdout < 1:
        raise ValueError(f"holdout must be a share in [0, 1), got {cfg.holdout}")
    check_seed_span(
        "--seed", cfg.seed, cfg.games, f"the teacher's game i is dealt from seed + i, {cfg.games:,} games"
    )
    check_seed_span(
        "eval_seed",
        cfg.eval_seed,
        cfg.eval_games,
        f"evaluation deal d is dealt from eval_seed + d, {cfg.eval_games:,} deals",
    )
    # checked before the teacher's games: torch refuses them only when the network trains
    check_number("--learning-rate", cfg.learning_rate, 0.0, closed=False)
    check_widths("--net-arch", cfg.net_arch)
    check_exportable(resolve_rules(cfg.rules, cfg.overrides), cfg.net_arch, "--net-arch", name=cfg.name)


# ================================================================ the data
def collect_chunk(cfg: DistillConfig, index: int) -> dict[str, np.ndarray]:
    """The decisions of chunk ``index`` (games ``index * chunk_games ...``; the last chunk
    holds what is left of ``games``)."""
    rules = resolve_rules(cfg.rules, cfg.overrides)
    spec = compile_spec(rules)
    layout = obs_layout(rules.deck_family)
    teacher_code, teacher_params = policy_table([cfg.teacher])
    codes, params = policy_table(list(cfg.opponents))
    capacity = cfg.chunk_games * rules.max_decisions // 2 + 1
    capacity = min(capacity, cfg.chunk_games * 400)
    obs = np.zeros((capacity, layout.size), dtype=np.float32)
    masks = np.zeros((capacity, rules.num_actions), dtype=np.int8)
    actions = np.zeros(capacity, dtype=np.int64)
    won = np.zeros(capacity, dtype=np.int8)
    first_seed = cfg.seed + index * cfg.chunk_games
    games = min(cfg.chunk_games, cfg.games - index * cfg.chunk_games)
    rows = collect_decisions(
        spec, cfg.players, rules.deck_counts(cfg.players), first_seed, games,
        int(teacher_code[0]), teacher_params[0], codes, params, layout.offsets, obs, masks, actions, won,
    )  # fmt: skip
    return {"obs": obs[:rows], "masks": masks[:rows], "actions": actions[:rows], "won": won[:rows]}


CHUNK_LIMIT = 4 * files.GiB
"""Largest decision chunk file read back."""


def chunk_arrays(cfg: DistillConfig) -> dict[str, files.ArraySpec]:
    """What a decision chunk of ``cfg`` holds (rows: at most the chunk's capacity)."""
    rules = resolve_rules(cfg.rules, cfg.overrides)
    rows = min(cfg.chunk_games * rules.max_decisions // 2 + 1, cfg.chunk_games * 400)
    size, actions = obs_layout(rules.deck_family).size, rules.num_actions
    return {
        "obs": files.ArraySpec("float32", (None, size), rows * size * 4),
        "masks": files.ArraySpec("int8", (None, actions), rows * actions),
        "actions": files.ArraySpec("int64", (None,), rows * 8),
        "won": files.ArraySpec("int8", (None,), rows),
    }


def chunk_path(out: Path, index: int) -> Path:
    """``OUT/chunks/chunk_00003.npz``."""
    return out / "chunks" / f"chunk_{index:05d}.npz"


def read_chunk(cfg: DistillConfig, out: Path, index: int) -> dict[str, np.ndarray]:
    """Chunk ``index`` of ``out`` (:func:`uno_env.files.read_npz`: bounded, checked arrays of
    one row count; a damaged file is refused in one line naming it)."""
    path = chunk_path(out, index)
    data = files.read_npz(path, "decision chunk", chunk_arrays(cfg), CHUNK_LIMIT)
    rows = {len(value) for value in data.values()}
    if len(rows) != 1:
        raise files.refuse(
            f"decision chunk {path}", "the archive", f"holds arrays of {sorted(rows)} rows",
            "one row count for obs, masks, actions and won",
        )  # fmt: skip
    return data


def collect(cfg: DistillConfig, out: Path, progress: bool = True) -> None:
    """Write every missing chunk (resumable: finished chunks are kept); a chunk file that
    cannot be read (cut short on disk) is named on stderr and collected again. Each chunk is
    written whole or not at all (:func:`training.runner.write_file_atomic`)."""
    chunks = -(-cfg.games // cfg.chunk_games)
    results_folder(out / "chunks")  # the temporary files of writes a kill cut short go
    todo = []
    for k in range(chunks):
        if chunk_path(out, k).exists():
            try:
                read_chunk(cfg, out, k)
                continue
            except ValueError as exc:
                print(f"{exc}; collecting it again", file=sys.stderr)
        todo.append(k)
    bar = Progress(len(todo), label="chunks", enabled=progress)
    for k in todo:
        data = collect_chunk(cfg, k)

        def write(handle: IO[bytes], data: dict[str, np.ndarray] = data) -> None:
            np.savez_compressed(handle, **data)  # type: ignore[arg-type]

        write_file_atomic(chunk_path(out, k), write)
        bar.update(cfg.chunk_games)


def load_data(cfg: DistillConfig, out: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The recorded decisions as (training, held-out) arrays; observations as float16."""
    chunks = -(-cfg.games // cfg.chunk_games)
    held = max(1, round(chunks * cfg.holdout)) if chunks > 1 and cfg.holdout > 0 else 0
    parts: list[list[dict[str, np.ndarray]]] = [[], []]
    for k in range(chunks):
        data = read_chunk(cfg, out, k)
        part = {"obs": data["obs"].astype(np.float16), "masks": data["masks"], "actions": data["actions"]}
        parts[1 if k >= chunks - held else 0].append(part)

    def join(items: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        if not items:
            return {
                "obs": np.zeros((0, 1), np.float16),
                "masks": np.zeros((0, 1), np.int8),
                "actions": np.zeros(0),
            }
        return {key: np.concatenate([i[key] for i in items]) for key in items[0]}

    return join(parts[0]), join(parts[1])


# ================================================================ the network
def train_network(
    cfg: DistillConfig, data: dict[str, np.ndarray], held: dict[str, np.ndarray], log_path: Path
) -> tuple[list[np.ndarray], list[np.ndarray], float]:
    """Train the MLP; return its weights, biases (torch layout) and held-out agreement."""
    import torch

    set_torch_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    size = data["obs"].shape[1]
    actions = data["masks"].shape[1]
    layers: list[torch.nn.Module] = []
    width = size
    for hidden in cfg.net_arch:
        layers += [torch.nn.Linear(width, hidden), torch.nn.Tanh()]
        width = hidden
    layers.append(torch.nn.Linear(width, actions))
    net = torch.nn.Sequential(*layers)
    optimiser = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(cfg.seed)
    count = len(data["actions"])

    def batch_loss(rows: np.ndarray, source: dict[str, np.ndarray]) -> tuple[Any, Any]:
        x = torch.as_tensor(source["obs"][rows].astype(np.float32))
        legal = torch.as_tensor(source["masks"][rows] != 0)
        target = torch.as_tensor(source["actions"][rows])
        logits = net(x).masked_fill(~legal, -1e9)
        return torch.nn.functional.cross_entropy(logits, target), logits.argmax(dim=1) == target

    def agreement(source: dict[str, np.ndarray]) -> float:
        if len(source["actions"]) == 0:
            return float("nan")
        hits = 0
        with torch.no_grad():
            for start in range(0, len(source["actions"]), 4096):
                rows = np.arange(start, min(start + 4096, len(source["actions"])))
                hits += int(batch_loss(rows, source)[1].sum())
        return hits / len(source["actions"])

    with log_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["epoch", "loss", "train_agreement", "holdout_agreement", "seconds"])
        start = time.perf_counter()
        for epoch in range(1, cfg.epochs + 1):
            order = rng.permutation(count)
            total = 0.0
            hits = 0
            for lo in range(0, count, cfg.batch_size):
                rows = np.sort(order[lo : lo + cfg.batch_size])
                loss, hit = batch_loss(rows, data)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                total += loss.item() * len(rows)
                hits += int(hit.sum())
            held_agree = agreement(held)
            writer.writerow([epoch, total / count, hits / count, held_agree, time.perf_counter() - start])
            handle.flush()
            held_text = f"{held_agree:.3f} (held out)" if len(held["actions"]) else "none held out"
            print(
                f"epoch {epoch}: loss {total / count:.4f}, agreement {hits / count:.3f} (train), {held_text}",
                file=sys.stderr,
            )
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    weights = [m.weight.detach().numpy().astype(np.float32) for m in linear]
    biases = [m.bias.detach().numpy().astype(np.float32) for m in linear]
    return weights, biases, agreement(held)


# ================================================================ evaluation and the run
def evaluate_duplicate(policy: str, cfg: DistillConfig) -> dict[str, Any]:
    """Win rate of ``policy`` against ``eval_opponent`` at every seat on the same deals, with a
    95% interval grouped by deal (:mod:`uno_env.stats`)."""

    rules = resolve_rules(cfg.rules, cfg.overrides)
    n = cfg.players
    wins = np.zeros(cfg.eval_games)
    for seat in range(n):
        names = [cfg.eval_opponent] * n
        names[seat] = policy
        result = uno_env.simulate(
            rules, n, cfg.eval_games, seed=cfg.eval_seed, policies=names, allow_rules_mismatch=True
        )
        wins += result.winner == seat
    est = grouped_ratio(wins, np.full(cfg.eval_games, n))
    lo, hi = est.proportion_interval()
    return {
        "opponent": cfg.eval_opponent,
        "deals": cfg.eval_games,
        "games": cfg.eval_games * n,
        "win_rate": est.value,
        "win_lo": lo,
        "win_hi": hi,
        "seed": cfg.eval_seed,
    }


def run(cfg: DistillConfig, out: Path, command: str, progress: bool = True) -> Path:
    """Collect (or resume), train, export and evaluate; return the exported ``.npz``."""

    rules = resolve_rules(cfg.rules, cfg.overrides)
    rules.check_players(cfg.players)
    policy_table([cfg.teacher, *cfg.opponents, cfg.eval_opponent])  # names checked before any game
    make_run_folder(out, "distillation")
    with lock_folder(out, "distillation"):  # one session per run folder, checked before it writes
        return _run(cfg, out, rules, command, progress)


def _run(cfg: DistillConfig, out: Path, rules: Any, command: str, progress: bool) -> Path:
    """:func:`run` in its folder, held (:func:`training.runner.lock_folder`)."""
    config_file = out / "config.json"
    wanted = dataclasses.asdict(cfg)
    if config_file.exists() and files.read_json(config_file, "distill config") != wanted:
        raise ValueError(
            f"{out} holds a run with another config; resume it unchanged or choose another --out"
        )
    check_run_rules(out, cfg, rules)
    write_json_atomic(config_file, wanted)
    collect(cfg, out, progress)
    data, held = load_data(cfg, out)
    weights, biases, agree = train_network(cfg, data, held, out / "train.csv")
    record: dict[str, Any] = {
        "method": "behaviour cloning of the teacher's decisions (masked cross-entropy)",
        "command": command,
        "config": wanted,
        "decisions": len(data["actions"]),
        "holdout_decisions": len(held["actions"]),
        "holdout_agreement": agree,
    }
    name = cfg.name or f"distilled_{rules.preset_name() or 'custom'}_{cfg.players}p"
    meta = {
        "name": name,
        "rules": str(rules),
        "observation_spec": f"obs-v{OBS_VERSION}",
        "env_version": f"v{ENV_VERSION}",
        "num_players": cfg.players,
        "training": record,
    }
    target = out / "policy.npz"
    save_exported(target, weights, biases, "tanh", meta)
    record["evaluation"] = evaluate_duplicate(str(target), cfg)
    meta["training"] = record
    save_exported(target, weights, biases, "tanh", meta)
    write_json_atomic(out / "record.json", record)
    ev = record["evaluation"]
    if len(held["actions"]):
        agreement = f"held-out agreement with the teacher {agree:.1%}"
    else:  # an agreement over no decisions is no number (it printed "nan%")
        single = -(-cfg.games // cfg.chunk_games) == 1  # one chunk is all training data (load_data)
        if single:
            why = (
                "the run's one data chunk was all used for training (--games above --chunk-games holds "
                "the last chunks out)"
            )
        elif cfg.holdout == 0:
            why = "the run's config holds no chunk out (holdout = 0)"
        else:
            why = "the held-out chunks hold no decisions"
        agreement = f"no held-out agreement with the teacher: {why}"
    print(
        f"{name}: {ev['win_rate']:.1%} [{ev['win_lo']:.1%}, {ev['win_hi']:.1%}] against {ev['opponent']} "
        f"({ev['games']:,} games, {ev['deals']:,} deals); {agreement} -> {target}"
    )
    return target


def check_run_rules(out: Path, cfg: DistillConfig, rules: RuleSet) -> None:
    """Record the run's rules in ``OUT/rules.txt`` at its start (as ``uno-env train`` does) and
    refuse a later session whose rules differ: ``config.json`` names a rule file, which may be
    edited between sessions, and one run's chunks must come from one rule set. A run from
    before the record has none to compare with: its rules are recorded now."""
    path = out / "rules.txt"
    if not (path.exists() or path.is_symlink()):
        write_file_atomic(path, lambda handle: handle.write(f"{rules}\n".encode()))
        return
    try:
        recorded = RuleSet.parse(files.read_text(path, "run rules").strip())
    except ValueError as exc:
        raise ValueError(f"cannot read the run's rules {path}: {exc}") from None
    if recorded != rules:
        given = f"--rules {cfg.rules}" + "".join(f" --set {item}" for item in cfg.overrides)
        raise ValueError(
            f"{out} was started with the rules {recorded} ({path}); its {given} now gives {rules} "
            f"(given, other: the run's: {'; '.join(rules.differences(recorded))}): one run keeps one rule "
            "set, so restore the rule file, or start another run with --out"
        )


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    d = DistillConfig()
    a = parser.add_argument
    a("--rules", default=d.rules, help="preset name or rule TOML file")
    a("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="rule override")
    a("--players", type=int, default=d.players)
    a(
        "--teacher",
        default=d.teacher,
        help=f"compiled policy whose decisions are learned (default: {d.teacher})",
    )
    a("--opponents", nargs="+", default=d.opponents, help="compiled policies the teacher plays against")
    a("--games", type=int, default=d.games, help="games the teacher plays")
    a("--chunk-games", type=int, default=d.chunk_games, help="games per data chunk (the unit of resume)")
    a("--seed", type=int, default=d.seed)
    a("--net-arch", type=int, nargs="+", default=d.net_arch, help="hidden layer widths")
    a("--epochs", type=int, default=d.epochs)
    a("--batch-size", type=int, default=d.batch_size)
    a("--learning-rate", type=float, default=d.learning_rate)
    a("--eval-opponent", default=d.eval_opponent)
    a("--eval-games", type=int, default=d.eval_games, help="deals of the evaluation (each at every seat)")
    a("--threads", type=int, default=d.threads)
    a("--name", default=d.name, help="the policy's name (default: distilled_<rules>_<N>p)")
    a("--out", type=Path, default=None, help="run directory (default: runs/distill__<rules>__<N>p__<seed>)")
    a("--resume", type=Path, default=None, metavar="OUT", help="continue the run in OUT with its config")
    a("--quiet", action="store_true", help="no progress display")


def _refuse_other_design(args: argparse.Namespace, cfg: DistillConfig, out: Path) -> None:
    """Refuse options given with ``--resume`` that differ from the run's recorded config (or
    ``--out``): its chunks must all come from one design."""
    refuse_other_design(args, _add_arguments, dataclasses.asdict(cfg), out)


def cmd_distill(args: argparse.Namespace) -> int:
    """Run ``uno-env distill`` from parsed arguments."""

    require(
        "distill",
        {"train": ("torch",)},
        resume_dir=args.resume,
        keeps="distillation writes its finished chunks into its run folder; "
        "uno-env distill --resume DIR continues",
    )
    if args.resume is not None:
        recorded = files.read_json_object(args.resume / "config.json", "distill config")
        names = {f.name for f in dataclasses.fields(DistillConfig)}
        unknown = sorted(set(recorded) - names)
        if unknown:
            where = f"distill config {args.resume / 'config.json'}"
            raise files.refuse(
                where, "the document", f"has unknown keys {unknown}", f"the keys {sorted(names)}"
            )
        try:
            cfg = DistillConfig(**recorded)
        except TypeError as exc:
            raise ValueError(f"distill config {args.resume / 'config.json'}: {exc}") from None
        out = args.resume
        _refuse_other_design(args, cfg, out)
    else:
        names = {f.name for f in dataclasses.fields(DistillConfig)}
        cfg = DistillConfig(**{k: v for k, v in vars(args).items() if k in names})
        out = args.out or Path("runs") / f"distill__{cfg.rules}__{cfg.players}p__{cfg.seed}"
    try:
        check_config(cfg)
    except ValueError as exc:
        if args.resume is None:
            raise
        raise ValueError(f"distill config {args.resume / 'config.json'}: {exc}") from None
    command = "uno-env distill " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "uno-env distill"
    run(cfg, out, command, progress=not args.quiet)
    return 0


COMMAND = Subcommand(
    "distill",
    "train a small policy network on the search agent's decisions and export it",
    _add_arguments,
    cmd_distill,
    description=__doc__,
)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

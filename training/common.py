"""Shared pieces of the training and evaluation scripts.

- :func:`resolve_rules`: a rule variant from a preset name or TOML file plus ``key=value``
  overrides (``--set``), parsed with the canonical rules-string types;
  :func:`add_rule_arguments` adds ``--rules`` and ``--set`` to a command, and
  :func:`check_player_count` words a bad ``--players`` in terms of those options.
- :class:`Subcommand`: how a module declares its ``uno-env`` subcommand (parser and
  ``python -m training.<module>``).
- :func:`add_run_arguments`: the run-folder and executor options of the study, the sweep and
  the tournament; :func:`add_trust_argument`: ``--trust-checkpoint``.
- :func:`set_torch_threads`: the torch intra-op thread count (1 by default, see below).
- :class:`BatchActor`: batched inference of a MaskablePPO policy over a batch of
  observations with legal-action masks (deterministic arg-max, or sampled from the masked
  distribution with a numpy generator, so evaluation never touches torch's global RNG).

Torch threads: the training loop alternates a compiled environment step (one core) with
small-batch MLP updates; on a 2-core machine more than one torch thread buys little and
competes with the environment and with other processes, so the default is 1
(``--threads`` changes it).

Heavy packages (torch, sb3) are imported inside functions.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import PolicyAgent, PolicyMismatchError
from agents.policy_agent import check_policy_metadata, load_policy_metadata
from agents.trust import check_checkpoint_file
from training.extras import MissingPackageError
from training.runner import EXECUTORS
from uno_env.engine.rng import SEED_LIMIT
from uno_env.engine.rules import MAX_PLAYERS, RuleError, RuleSet, load_rules
from uno_env.game.records import RecordError, load_records
from uno_env.spelling import each_with_suggestion


def parse_overrides(items: Sequence[str]) -> dict[str, str]:
    """``["stacking=D2/D2", "seven_swap=true"]`` -> ``{"stacking": "D2/D2", ...}`` (raw text values).

    A field set twice (``--set hand_size=7 --set hand_size=8``) is refused, as the rule string
    refuses a field named twice: neither value is dropped without a word."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--set expects key=value (a rule field and its value), got {item!r}")
        if key in out:
            raise ValueError(
                f"--set {key} is given twice ({out[key]!r:.60}, then {value.strip()!r:.60}); allowed: "
                "each rule field once (lists such as stacking take their items comma-separated, "
                "--set stacking=D2/D2,WD4/WD4)"
            )
        out[key] = value.strip()
    return out


def resolve_rules(rules: str | Path | RuleSet, overrides: Sequence[str] | dict[str, str] = ()) -> RuleSet:
    """The rule set of a preset name / TOML file / RuleSet with ``key=value`` overrides applied.

    Override values are text, read as in the canonical rules string (``true``/``false``,
    numbers, comma-separated tuples); an unknown key raises a :class:`~uno_env.RuleError`
    listing the valid ones.
    """
    base = load_rules(rules)
    extra = parse_overrides(overrides) if not isinstance(overrides, dict) else dict(overrides)
    if not extra:
        return base
    items = dict(part.partition("=")[::2] for part in base.full_text().split())
    unknown = sorted(set(extra) - set(items))
    if unknown:
        raise RuleError(
            f"unknown rule key(s) {each_with_suggestion(unknown, items)}; valid keys: {', '.join(items)}"
        )
    items.update(extra)
    return RuleSet.parse(" ".join(f"{k}={v}" for k, v in items.items()))


def add_rule_arguments(
    parser: argparse.ArgumentParser, default: str = "uno", *, resumable: bool = False
) -> None:
    """Add ``--rules`` and the repeatable ``--set KEY=VALUE`` of every command that takes rules.

    ``resumable``: the command's ``--resume`` reads the rules from its folder, so ``--rules``
    defaults to None (the caller uses ``default`` for a new run) and a given one can be told
    from the default.
    """
    if resumable:
        parser.add_argument(
            "--rules",
            default=None,
            help=f"preset name or rule TOML file (default: {default}; with --resume: the folder's)",
        )
    else:
        parser.add_argument("--rules", default=default, help="preset name or rule TOML file")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change one rule field, e.g. --set seven_swap=true --set stacking=D2/D2,WD4/WD4 "
        "(repeatable, each field once; 'uno-env rules --fields' lists the fields and their values)",
    )


def check_player_count(rules: RuleSet, players: int, flag: str = "--players") -> None:
    """Raise a :class:`~uno_env.RuleError` naming the command-line options when ``players``
    cannot play ``rules``."""
    try:
        rules.check_players(players)
    except RuleError:
        name = rules.preset_name() or "this rule set"
        allowed = f"{name} is played by {rules.min_players}..{rules.max_players} players"
        if not 2 <= players <= MAX_PLAYERS:
            raise RuleError(f"{flag} {players}: games seat 2..{MAX_PLAYERS} players, and {allowed}") from None
        widen = f"max_players={players}" if players > rules.max_players else f"min_players={players}"
        raise RuleError(
            f"{flag} {players}: {allowed}; choose {flag} in that range, or widen the range with --set {widen}"
        ) from None


def check_number(
    name: str, value: Any, lowest: float, highest: float = math.inf, *, closed: bool = True
) -> None:
    """Raise ValueError unless ``value`` is a finite number (not a bool) from ``lowest`` (itself
    allowed when ``closed``) to ``highest``: a training option, which PyTorch and SB3 take as
    given (a NaN learning rate fails only once the envs or the teacher's games have run)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    above = number and (value >= lowest if closed else value > lowest)
    if not number or not math.isfinite(value) or not above or value > highest:
        low = f"{'>=' if closed else '>'} {lowest:g}"
        allowed = f"in {'[' if closed else '('}{lowest:g}, {highest:g}]" if math.isfinite(highest) else low
        raise ValueError(f"{name} must be a finite number {allowed}, got {value!r}")


SB3_SEED_LIMIT = 2**32
"""Stable-baselines3 seeds NumPy's legacy generator (``np.random.seed``) with a run's seed, which
takes ``0..2**32-1``: a larger seed fails only once the envs and the model are built."""


def check_training_seed(name: str, seed: Any, headroom: int = 0) -> None:
    """Raise ValueError unless ``seed`` is an integer (not a bool) such that ``seed .. seed +
    headroom`` all lie in ``0..2**32-1``: a MaskablePPO run's seed, reseeded with ``seed + step``
    when it resumes (``headroom``: its steps)."""
    highest = SB3_SEED_LIMIT - 1 - headroom
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= highest:
        reason = f" (the run reseeds with seed + step, up to {headroom:,} steps)" if headroom else ""
        raise ValueError(
            f"{name} must be an integer in 0..{highest:,}: stable-baselines3 seeds NumPy's generator "
            f"with it, which takes 0..2**32-1{reason}; got {seed!r}"
        )


def check_seed_span(name: str, seed: Any, span: int, what: str) -> None:
    """Raise ValueError unless ``seed`` is an integer (not a bool) such that the game seeds
    ``seed .. seed + span - 1`` all lie in ``0..2**63-1``; ``what`` says which games they deal.
    A compiled loop that deals game ``i`` from ``seed + i`` wraps past 2**63 without a word,
    and NumPy refuses a negative seed naming no option."""
    highest = SEED_LIMIT - span
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= highest:
        raise ValueError(f"{name} must be an integer in 0..{highest:,} ({what}), got {seed!r}")


def check_widths(name: str, widths: Any) -> None:
    """Raise ValueError unless ``widths`` lists one or more positive integer layer widths."""
    if (
        not isinstance(widths, list)
        or not widths
        or any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in widths)
    ):
        raise ValueError(f"{name} must list positive layer widths (integers), got {widths!r}")


def rules_label(rules: RuleSet) -> str:
    """A short name for run directories: the preset's name, or ``custom``."""
    return rules.preset_name() or "custom"


def set_torch_threads(threads: int) -> None:
    """Set torch's intra-op thread count (``threads >= 1``)."""
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    import torch

    torch.set_num_threads(threads)


class BatchActor:
    """Batched action choice of a MaskablePPO policy (``model.policy`` or a frozen copy).

    ``actor(obs, masks)`` takes observations ``(B, obs_size)`` and boolean masks
    ``(B, num_actions)`` and returns ``(B,)`` int64 legal actions: the most likely legal
    action when ``deterministic``, else a sample from the masked distribution drawn with
    ``rng`` (Gumbel-max on the logits), so torch's global RNG is never used.
    """

    def __init__(self, policy: Any, *, deterministic: bool = True, seed: int | None = None) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of a batch of observations, ``(B, num_actions)`` float64."""
        import torch

        policy = self.policy
        # a checkpoint of an older observation spec reads today's prefix (spec checked on load)
        width = int(policy.observation_space.shape[0])
        with torch.no_grad():
            tensor = torch.as_tensor(np.asarray(obs, dtype=np.float32)[:, :width], device=policy.device)
            features = policy.extract_features(tensor, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            out = policy.action_net(latent)
        return np.asarray(out.cpu().numpy(), dtype=np.float64)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Legal actions for every row (rows without a legal action get action 0)."""
        masks = np.asarray(masks, dtype=bool)
        logits = self.logits(obs)
        if not self.deterministic:
            logits = logits + self.rng.gumbel(size=logits.shape)
        logits = np.where(masks, logits, -np.inf)
        actions = np.argmax(logits, axis=1).astype(np.int64)
        actions[~masks.any(axis=1)] = 0
        return actions


_MARKUP = (
    (re.compile(r":[a-z]+:`~?([^`<]*?)(?: <[^>]*>)?`"), lambda m: m.group(1).rsplit(".", 1)[-1]),
    (re.compile(r"``([^`]+)``"), lambda m: m.group(1)),
    (re.compile(r"\*\*([^*]+)\*\*"), lambda m: m.group(1)),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])"), lambda m: m.group(1)),
    (re.compile(r"`([^`]+)`"), lambda m: m.group(1)),
)


def plain_text(text: str) -> str:
    """Docstring text without its markup: ``x`` and `x` become x, **x** and *x* become x,
    :class:`~pkg.Name` becomes Name."""
    for pattern, repl in _MARKUP:
        text = pattern.sub(repl, text)
    return text


class PlainHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help as plain text: descriptions keep their layout without markup, and every option
    that takes a value shows its default unless its help already names one."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain_text(text))

    def _get_help_string(self, action: argparse.Action) -> str:
        text = plain_text(action.help or "")
        default = action.default
        shows_default = (
            action.option_strings
            and action.nargs != 0  # flags (store_true / store_false) say what they do
            and default not in (None, argparse.SUPPRESS, [], "")
            and "default" not in text
        )
        if shows_default:
            value = " ".join(map(str, default)) if isinstance(default, list | tuple) else str(default)
            text += f" (default: {value})"
        return text.replace("%", "%%")


@dataclass(frozen=True)
class Subcommand:
    """A ``uno-env`` subcommand, declared once by the module that implements it.

    The module names it ``COMMAND`` (:func:`training.cli.build_parser` adds ``COMMAND`` of every
    module of :data:`training.cli.SUBCOMMAND_MODULES`) and exposes ``main = COMMAND.main``
    (``python -m training.<module>``: the same command line and errors).
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str | None = None
    """The long help (a module docstring, say); ``uno-env`` shows it as plain text."""

    def add_to(self, subparsers: argparse._SubParsersAction) -> None:
        """Add the subcommand's parser, its options and its ``func`` to ``uno-env``."""
        parser = subparsers.add_parser(self.name, help=self.help, description=self.description)
        self.add_arguments(parser)
        parser.set_defaults(func=self.run)

    def main(self, argv: Sequence[str] | None = None) -> int:
        """``python -m training.<module> ...``: exactly ``uno-env <name> ...`` (the same
        options, help and errors)."""
        parser = argparse.ArgumentParser(
            prog=f"uno-env {self.name}", description=self.description, formatter_class=PlainHelpFormatter
        )
        self.add_arguments(parser)
        parser.set_defaults(func=self.run)
        words = list(sys.argv[1:] if argv is None else argv)
        args = parser.parse_args(words)
        args.command_argv = words
        return run_parsed(args)


def given_options(
    args: argparse.Namespace, add_arguments: Callable[[argparse.ArgumentParser], None]
) -> set[str]:
    """The destinations of the options that the command line of ``args`` gave, a default value
    given explicitly included (``--seed 0``), so that ``--resume`` can tell an option left out
    from one that asks for the default. The words come from ``args.command_argv``, which
    :meth:`Subcommand.main` and ``uno-env`` record; a namespace built otherwise gives none."""
    words = getattr(args, "command_argv", None)
    if words is None:
        return set()
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    for action in parser._actions:
        action.default = argparse.SUPPRESS  # only what the words set appears in the namespace
    found, _ = parser.parse_known_args(words)
    return set(vars(found))


def refuse_other_design(
    args: argparse.Namespace,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    recorded: dict[str, Any],
    out: Path,
    *,
    free: Collection[str] = (),
    allowed: str = "",
) -> None:
    """ValueError naming both values for each option given with ``--resume`` (a default value
    given explicitly included, :func:`given_options`) that differs from the run's ``recorded``
    config, and for ``--out``: a resumed run goes on with its own design, so a changed option
    would otherwise be dropped without a word. ``free`` options may change on resume (``allowed``
    says which, in words)."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    on_command_line = given_options(args, add_arguments)  # --seed 0 as well as --seed 5
    differ = []
    for action in parser._actions:
        key = action.dest
        if key not in recorded or key in free or not action.option_strings:
            continue
        value = getattr(args, key, action.default)
        if (key in on_command_line or value != action.default) and value != recorded[key]:
            differ.append(f"{action.option_strings[-1]} {value!r} (the run's: {recorded[key]!r})")
    if getattr(args, "out", None) is not None:
        differ.append(f"--out {args.out} (the run's folder is {out})")
    if differ:
        raise ValueError(
            f"--resume continues {out} with its own config; {'; '.join(differ)} differ from it: drop them"
            f"{f' ({allowed})' if allowed else ''}, or start a new run in a new folder with --out"
        )


ERROR_WORD_LIMIT = 300
"""Longest run of non-blank characters an error message prints whole (a value echoed back)."""
ERROR_LIMIT = 2000
"""Longest error message printed whole; a longer one keeps its start and its end."""


def error_text(message: str) -> str:
    """``message`` as ``uno-env: error:`` prints it: a word longer than :data:`ERROR_WORD_LIMIT`
    (a huge value the user gave, echoed back) is cut to its start and its length, and a
    message still longer than :data:`ERROR_LIMIT` (thousands of unknown keys) keeps its start
    and its end, where the allowed values are said."""

    def cut(match: re.Match[str]) -> str:
        word = match.group()
        return f"{word[: ERROR_WORD_LIMIT // 2]}...({len(word):,} characters)"

    text = re.sub(rf"\S{{{ERROR_WORD_LIMIT + 1},}}", cut, message)
    if len(text) <= ERROR_LIMIT:
        return text
    keep = ERROR_LIMIT // 2
    return f"{text[:keep]} ...({len(text) - 2 * keep:,} characters)... {text[-keep:]}"


def run_parsed(args: argparse.Namespace) -> int:
    """Run a parsed command line's ``func``, as ``uno-env`` and every ``python -m training.*``
    do: bad input (unknown rules, malformed files, impossible settings) and a missing optional
    package end with ``uno-env: error: <what and what is allowed>`` and exit code 2; a reader
    that went away (``uno-env rules --fields | head``) ends quietly; Ctrl-C ends with one line
    (exit code 130), which for a long job says that its finished work is kept for ``--resume``."""
    try:
        return int(args.func(args))
    except (RuleError, ValueError, MissingPackageError) as exc:
        print(f"uno-env: error: {error_text(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        quiet_stdout()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback (the long jobs keep their work)
        keeps = (
            f"; the finished work is kept in {args.resume or args.out or 'the run folder named above'}: "
            "continue with --resume"
            if hasattr(args, "resume") and hasattr(args, "out")
            else ""
        )
        print(f"\nuno-env: interrupted{keeps}", file=sys.stderr)
        return 130


def quiet_stdout() -> None:
    """Point stdout at the null device (after a broken pipe, so exiting does not complain)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file descriptor (captured output)
        pass


def add_run_arguments(parser: argparse.ArgumentParser, what: str, where: str, out_default: str) -> None:
    """The options of every long job that writes a run folder (the study, the sweep, the
    tournament): ``--out``, ``--resume DIR``, where its work runs (``--executor``,
    ``--workers``, ``--ray-address``; :func:`training.runner.run_batches`) and ``--quiet``.

    ``what`` names the job (``"study"``), ``where`` the executor's help (``"where batches
    run"``), ``out_default`` the default folder.
    """
    parser.add_argument("--out", type=Path, default=None, help=f"output folder (default: {out_default})")
    parser.add_argument(
        "--resume", type=Path, default=None, metavar="DIR", help=f"continue the {what} in DIR"
    )
    parser.add_argument("--executor", choices=EXECUTORS, default="process", help=where)
    parser.add_argument("--workers", type=int, default=None, help="processes / Ray CPUs (default: cores)")
    parser.add_argument("--ray-address", default=None, help="address of an existing Ray cluster")
    parser.add_argument("--quiet", action="store_true", help="no progress display")


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of :func:`add_run_arguments` as the keyword arguments of a run function
    (:func:`training.study.run_study`, :func:`training.sweep.run_sweep`,
    :func:`training.tournament.run_tournament`)."""
    return {
        "executor": args.executor,
        "workers": args.workers,
        "ray_address": args.ray_address,
        "resume": args.resume is not None,
        "progress": not args.quiet,
    }


def add_trust_argument(parser: argparse.ArgumentParser) -> None:
    """``--trust-checkpoint``: load checkpoints this installation did not sign (:mod:`agents.trust`)."""
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="load MaskablePPO checkpoints that this installation did not write (downloaded, from "
        "another machine or user, or changed since). SB3 checkpoints are pickles: loading one runs "
        "any code it contains, so give this only for files from a source you trust",
    )


def add_rules_mismatch_argument(parser: argparse.ArgumentParser) -> None:
    """``--allow-rules-mismatch``: seat exported policies (and searches' guide networks) on rules
    or player counts other than their training's (:func:`agents.spec.check_seated_networks`)."""
    parser.add_argument(
        "--allow-rules-mismatch",
        action="store_true",
        help="let exported policies (and searches' guide networks) play rules or player counts other than "
        "those they were trained for (a transfer)",
    )


def load_model(path: str | Path, device: str = "cpu") -> Any:
    """Load a MaskablePPO checkpoint *without* the metadata or signature checks (callers check first).

    SB3 checkpoints are pickles: load them from trusted sources only (:mod:`agents.trust`).
    The zip's file checks (:func:`agents.trust.check_checkpoint_file`) run here all the same.
    """
    from sb3_contrib import MaskablePPO

    check_checkpoint_file(path)
    return MaskablePPO.load(str(path), device=device)


def plural(n: int, noun: str) -> str:
    """``n`` and ``noun``, the noun plural (with an ``s``) when ``n`` is not 1."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def load_checkpoint_actor(
    path: str | Path,
    rules: RuleSet,
    num_players: int,
    *,
    deterministic: bool = True,
    seed: int | None = None,
    allow_rules_mismatch: bool = False,
    trust: bool = False,
    log: Callable[[str], None] = print,
) -> BatchActor:
    """A checkpoint's batched actor, after the metadata check of :class:`agents.PolicyAgent`.

    Without ``allow_rules_mismatch`` any difference in rules, observation spec, env version
    or player count raises :class:`agents.PolicyMismatchError`. With it, other rules and
    player counts are accepted when the observation spec, env version and deck family agree
    (a transfer evaluation, announced through ``log``). Checkpoints are pickles: one this
    installation did not sign is refused unless ``trust`` (:mod:`agents.trust`).
    """

    meta = load_policy_metadata(path)
    try:
        check_policy_metadata(meta, rules, num_players=num_players, source=f"checkpoint {path}")
        agent = PolicyAgent(path, rules, num_players=num_players, trust=trust)
    except PolicyMismatchError as exc:
        if not allow_rules_mismatch:
            raise PolicyMismatchError(
                f"{exc}. To evaluate it under other rules of the same deck family on purpose "
                "(a transfer evaluation), pass --allow-rules-mismatch"
            ) from exc
        trained = RuleSet.parse(meta.rules)
        if trained.deck_family != rules.deck_family:
            raise PolicyMismatchError(
                f"checkpoint {path} was trained on the {trained.deck_family} deck family; these rules use "
                f"the {rules.deck_family} family: the action tables differ, no transfer possible"
            ) from exc
        # everything but the rules and the player count must still agree
        agent = PolicyAgent(path, trained, trust=trust)
        log(
            f"TRANSFER EVALUATION: policy trained on {trained.preset_name() or 'custom rules'} "
            f"({meta.num_players or 'any'} players), evaluated on {rules.preset_name() or 'custom rules'} "
            f"({num_players} players); observation spec {meta.observation_spec} and env version "
            f"{meta.env_version} agree. Differences: {exc}"
        )
    return BatchActor(agent.model.policy, deterministic=deterministic, seed=seed)


def check_output_file(path: Path, option: str, example: str, *, make_folder: bool = False) -> None:
    """Refuse, before any work, an output file path (``option``'s) that cannot be written: a
    folder (``example`` names a file to give in it), a path below a file, and unless
    ``make_folder`` (the command creates it) a folder that does not exist."""
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; give a file such as {path / example}")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"{option} {path}: {parent} is a file, not a folder")
    if not make_folder and not path.parent.is_dir():
        raise ValueError(f"{option} {path}: the folder {path.parent} does not exist")


def refuse_existing(path: Path, option: str, how: str) -> None:
    """Refuse an existing file (a link too) a command would replace: one line naming it, its
    size and ``how`` to go on (``--force`` replaces it; another name)."""
    if path.exists() or path.is_symlink():
        size = f" ({path.stat().st_size:,} bytes)" if path.is_file() else ""
        raise ValueError(f"{option} {path} already exists{size}; {how}")


def check_record_file(path: Path, option: str, *, append: bool, make_folder: bool = False) -> None:
    """Refuse a record file a command could not use (:func:`check_output_file`: a folder, a
    path below a file, a missing folder unless ``make_folder``; a file that cannot be written);
    with ``append`` an existing file that is not a record file (its games would be appended to
    something :func:`uno_env.game.records.load_records` refuses, and an unreadable line left
    before them); without it (the command writes a new file) any existing file that is not
    empty, so nothing is replaced. Creates no file."""
    check_output_file(path, option, "games.jsonl", make_folder=make_folder)
    if not path.exists() or path.stat().st_size == 0:
        if path.parent.is_dir() and not os.access(path if path.exists() else path.parent, os.W_OK):
            raise ValueError(f"{option} {path} cannot be written: permission denied")
        return
    if not append:
        refuse_existing(
            path, option, "this command writes a new record file: name another file or remove that one"
        )
    try:
        load_records(path)
    except (RecordError, OSError) as exc:
        raise ValueError(
            f"{option} {path} is not a record file to append to ({exc}); allowed: a new file or "
            "a record file (as uno-env play, simulate, serve and benchmark --trace write)"
        ) from None
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        if handle.read(1) != b"\n":
            raise ValueError(
                f"{option} {path} is not a record file to append to: its last line does not end "
                "(a file cut short?); allowed: a new file or a record file whose lines all end"
            )


@contextmanager
def record_target(path: str | None, *, append: bool = True) -> Iterator[None]:
    """Refuse a ``--record`` path that cannot be used (:func:`check_record_file`: ``append``
    for ``uno-env play``, a new file for ``uno-env simulate``) before any game is played; run
    the block; then remove the file the check created if nothing was written to it (a run
    stopped before its records: no empty file left). ``None`` (no ``--record``) checks nothing."""
    if path is None:
        yield
        return
    target = Path(path)
    check_record_file(target, "--record", append=append)
    existed = target.exists()
    try:
        with target.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ValueError(f"--record {path} cannot be written: {exc.strerror or exc}") from None
    try:
        yield
    finally:
        if not existed and target.is_file() and target.stat().st_size == 0:
            target.unlink()

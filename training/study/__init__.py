"""The house-rules study: a factorial experiment over rule variants, player counts and styles.

``uno-env study [SPEC.toml]`` (or ``python -m training.study``) answers "which house rules
favour which play styles?" with the compiled batch engine. Without a SPEC it runs the
built-in default spec (``training/specs/default_study.toml``): twelve single-switch variations
of official Uno (stacking, Seven-O, jump-in, the draw rules, Wild Draw Four legality and
bluffs, multi-plays, ...), at 2 and 4 players, the seven scripted styles of the default field.

**Spec** (TOML; unknown keys, switches, values, styles and impossible player counts are
refused with an error naming what is allowed)::

    name = "mini"              # names the output folder
    seed = 0                   # deal d of every cell is dealt with seed + d
    bases = ["uno"]            # presets (or rule TOML files) the variations start from
    players = [2, 4]           # player counts
    styles = ["greedy", "hoarder", "bluffer:bluff=0.3"]   # default: DEFAULT_FIELD, seven styles
    games = 20000              # games per cell (rounded up to whole deals x seatings)
    batch_games = 100000       # at most this many games per batch (one task)
    allow_rules_mismatch = false   # true: learned policies may play other rules (transfer)
    replicate = false          # true: play the design again on fresh deals (replication)
    reference = "greedy"       # each style also alone against this style ("" for none)

    [variations]               # label = { switch = value, ... } (RuleSet field names)
    stacking = { stacking = ["D2/D2", "WD4/WD4", "WD4/D2"] }
    seven_swap = { seven_swap = true }

**Cells and seating.** A *variant* is a base preset, or a base preset with one variation
applied (a variation that does not change a base is skipped for it). A *cell* is one variant
at one player count. The seatings of a cell, for ``k`` styles and ``n`` seats: every
combination of ``n`` of the styles, each in its ``n`` cyclic rotations (``C(k, n) x n``
seatings: 42 for 7 styles at 2 players, 140 at 4). Every style then sits in every seat
equally often and meets every other style at the same number of tables, so each style's win
rate is measured against *the field of all the study's styles* (the mix), seat effects
balanced. With more seats than styles (or more than :data:`MAX_SEATINGS` such seatings) the
cell uses ``k`` tables of a cyclic rotation instead (seat ``j`` of table ``t`` plays style
``(t + j) mod k``; a style may fill several seats, and a style meets only its neighbours in
the list when ``n < k``); a style's win rate is always per seat (wins of its seats /
seat-games), so the fair share is ``1 / players``. Every deal of a cell is replayed at each
seating (duplicate format: the same shuffled deck under every seating; deals per seating =
``games / seatings`` rounded up), and deal ``d`` uses seed ``seed + d`` in *every* cell
(common random numbers across variants), which reduces the noise of the comparisons.

**Replication and the fixed reference.** ``replicate = true`` (``--replicate``) plays the
whole design again on fresh deals (deal set 1: deals ``[D, 2D)`` of every cell, where the
primary set plays ``[0, D)``), so the report can say which detected effects replicate.
``reference`` (default ``"greedy"``, ``""`` for none; ``--reference``) adds the
fixed-reference seatings: each style but the reference alone at a table of ``players - 1``
reference players, in every seat, on the same deals, so a style's change can be read apart
from the other styles' losses (against the field, the changes sum to zero).

**What is recorded.** Each batch keeps its counts *per deal* (summed over its seatings): per
style its wins, points, rank sum and ranked games, per seat its wins, the first mover's wins
(the seat of the first decision), decisions, turns and truncated games, plus histograms of
the length in decisions and in turns. :mod:`training.study.stats` turns them into the tidy
``results.csv`` (one row per deal set, cell and style: levels with 95% intervals in which the
deal is the unit, changes against the base paired by deal), ``effects.csv`` (every change
the report shows, detected or not by Benjamini-Hochberg at a 5% false discovery rate, with
its false-coverage-rate interval and its replication); :mod:`training.study.plots` and
:mod:`training.study.report` draw the plots and write ``report.md``.

**Scale and safety.** A cell is split into batches of at most ``batch_games`` games
(consecutive seatings, each playing the same chunk of deals); batches run on a process pool (``--workers``,
default: the cores) or as Ray tasks (``--executor ray``). Each finished batch is written to
``batches/<id>.json`` atomically (:func:`training.runner.write_json_atomic`); ``--resume
DIR`` runs only the missing batches. Batch seeds come from the spec seed and the batch's
deal range, never from execution order, so the same spec and seed give byte-identical
results files. Each batch file records its seed and :func:`task_key` (a digest of its
design): on resume an unreadable file is run again and one of another design is refused
(:func:`scan_batches`). Pool workers die with the study, the output folder is locked while a
run uses it, plans over :data:`training.runner.MAX_BATCHES` batches are refused when the
spec is read, and file-system errors end the run with one line (:mod:`training.runner`).
Output folder: ``runs/study__<name>__<seed>__<UTC time>/`` (or ``--out``):
``spec.toml`` (the normalised spec), ``checkpoints.json`` (SHA-256 of the learned policies'
files, checked on resume), ``batches/``, ``results.csv`` (+ ``results.parquet``
with pyarrow), ``effects.csv``, ``report.md``, ``winrate_change.png``, ``game_length.png`` and ``log.jsonl``
(timings; the only file that differs between identical runs).

**Learned policies.** ``styles`` may also name MaskablePPO checkpoints: a path ending in
``.zip``, or that path without it (``"runs/uno/model.zip"``, with its ``.meta.json`` sidecar; see
:mod:`agents.policy_agent`). They take seats like the scripted styles (same seatings, same
result columns; the ``style`` column holds the path as given). The sidecar is checked for
every cell when the spec is read: a checkpoint trained on another deck family, another
observation spec or env version is refused. A study varies the rules, so a policy trained on
``uno`` meets other rules in the variation cells; that is a *transfer* experiment and needs
``allow_rules_mismatch = true`` in the spec (the option ``uno-env evaluate
--allow-rules-mismatch`` offers; without it any difference in rules or player count is
refused with a message that names the differences and this key). SB3 checkpoints are pickles:
one this installation did not sign is refused unless the study runs with
``--trust-checkpoint`` (a command-line flag, never a spec key, so a shared spec cannot turn
the check off; :mod:`agents.trust`).

**A policy per variant.** ``sweep = "runs/sweep__default"`` names a finished sweep
(:mod:`training.sweep`): the study then seats the style ``learned`` (added to ``styles`` if
not listed) and, in every cell, that seat plays the policy the sweep trained on exactly the
cell's rules at its player count (a cell the sweep did not train is refused when the spec is
read). Its rows in ``results.csv`` are the *adapted* player's; the report adds the skill
premium per variant, from the study's own games and the sweep's cross-evaluation
(:func:`training.transfer.study_skill_lines`).

Seatings with a learned seat are played by a Python loop over :class:`uno_env.Game`
(``LEARNED_CHUNK`` games of the batch at a time): scripted seats decide through
:func:`agents.make` (seeded ``deal_seed * 16 + seat``, wrapped into the seed range as the
tournament seeds them: :func:`uno_env.envs.common.seat_seed`), and at every round all the games
waiting on one learned policy get their actions from a single batched forward pass
(:class:`training.common.BatchActor`, deterministic arg-max, loaded with
:func:`training.common.load_checkpoint_actor` once per worker process; torch runs
with one thread per worker). Seatings of scripted styles only still run in the compiled
batch simulator, so a scripted style's games in such a cell come from both engines (the
same deals and the same style, different random streams). The native vector env was not
used: it resets a finished game inside its compiled step, and the study needs every seat's
ranking, score and the game length. A study with learned policies splits its cells into
batches of at most ``LEARNED_BATCH_GAMES`` games so progress and resume stay fine-grained.
The inference is batched in the same way whatever the executor (the batch composition is
fixed by the task), so results stay byte-identical across executors and runs.
"""

from __future__ import annotations

from training.common import Subcommand

from .batches import load_batches, missing_batches, scan_batches
from .checkpoints import check_checkpoints, check_trust, checkpoint_digests
from .cli import add_arguments, cmd_study
from .load import load_spec, parse_spec
from .planning import (
    BatchTask,
    check_spec_size,
    deals_per_seating,
    first_deal,
    kind_seatings,
    plan,
    reference_seatings,
    seatings,
    task_key,
)
from .play import DEAL_ARRAYS, STYLE_ARRAYS, play_learned, run_batch
from .plots import plot_study
from .report import assemble, report_text, results_frame
from .run import default_out_dir, run_study, write_spec
from .spec import (
    DEFAULT_FIELD,
    DEFAULT_REFERENCE,
    DEFAULT_SPEC,
    KINDS,
    LEARNED,
    LEARNED_BATCH_GAMES,
    LEARNED_CHUNK,
    MAX_SEATINGS,
    QUANTILES,
    SPEC_KEYS,
    STUDY_FORMAT,
    SpecError,
    StudySpec,
    Variant,
    check_checkpoint,
    default_spec_path,
    is_checkpoint,
    parse_spec_fields,
)
from .stats import (
    COLUMNS,
    EFFECT_COLUMNS,
    FDR,
    MEASURE_COLUMNS,
    MEASURES,
    cell_rows,
    effect_rows,
    merge_cells,
)

COMMAND = Subcommand(
    "study",
    "factorial house-rules study (rule variants x players x styles)",
    add_arguments,
    cmd_study,
    description=__doc__,
)
main = COMMAND.main

__all__ = [
    "COLUMNS",
    "COMMAND",
    "DEAL_ARRAYS",
    "DEFAULT_FIELD",
    "DEFAULT_REFERENCE",
    "DEFAULT_SPEC",
    "EFFECT_COLUMNS",
    "FDR",
    "KINDS",
    "LEARNED",
    "LEARNED_BATCH_GAMES",
    "LEARNED_CHUNK",
    "MAX_SEATINGS",
    "MEASURES",
    "MEASURE_COLUMNS",
    "QUANTILES",
    "SPEC_KEYS",
    "STUDY_FORMAT",
    "STYLE_ARRAYS",
    "BatchTask",
    "SpecError",
    "StudySpec",
    "Variant",
    "assemble",
    "cell_rows",
    "check_checkpoint",
    "check_checkpoints",
    "check_spec_size",
    "check_trust",
    "checkpoint_digests",
    "cmd_study",
    "deals_per_seating",
    "default_out_dir",
    "default_spec_path",
    "effect_rows",
    "first_deal",
    "is_checkpoint",
    "kind_seatings",
    "load_batches",
    "load_spec",
    "main",
    "merge_cells",
    "missing_batches",
    "parse_spec",
    "parse_spec_fields",
    "plan",
    "play_learned",
    "plot_study",
    "reference_seatings",
    "report_text",
    "results_frame",
    "run_batch",
    "run_study",
    "scan_batches",
    "seatings",
    "task_key",
    "write_spec",
]

"""``uno-env replay``: step through a recorded game, check it replays exactly, write a video.

::

    uno-env replay games.jsonl                    # every table of the first game
    uno-env replay games.jsonl --game -1 --step   # the last game, Enter after each action
    uno-env replay games.jsonl --video game.gif --fps 2 --seat 0

The record (:mod:`uno_env.game.records`) is re-dealt from its seed and its actions are applied
one by one; after each, the table is printed (every hand face up, or only ``--seat``'s).
At the end the replay is verified (:func:`uno_env.game.records.check_replay`): the recorded
outcome and final position, the preset and the record's digest must all match.

Exit codes: 0 verified; 1 the game does not replay as recorded (an action that is not legal,
another outcome or final position, a preset that is not the rules, an edited record); 2 bad
input (a malformed file, named with its line, or a bad option); 3 the record cannot be
verified because it has no outcome, final position or digest (a game recorded before its
end, a hand-written record): only the legality of its actions from the seed was checked.
``--allow-unverified`` turns 3 into 0 (the output still says what was not checked).
``--video`` draws every position with the
``rgb_array`` renderer (:func:`uno_env.envs.render.render_rgb`) and writes a GIF (Pillow)
or an MP4 (imageio with imageio-ffmpeg, the ``video`` extra; a clear error if missing).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from training.common import Subcommand, check_output_file, quiet_stdout
from training.extras import require
from uno_env import Game
from uno_env.compiler.compiling import warm_up
from uno_env.envs.render import render_rgb, render_table
from uno_env.game.records import (
    GameRecord,
    IncompleteRecordError,
    ReplayMismatchError,
    check_replay,
    load_records,
    missing_checks,
    one_line,
)

EXIT_UNVERIFIED = 3
"""Exit code of a replay that ran but could not be verified (the record lacks its result)."""
MESSAGE_LIMIT = 2000
"""Longest mismatch message (it quotes positions; a huge recorded value is cut, not echoed)."""


def pick_record(records: Sequence[GameRecord], index: int, source: str) -> GameRecord:
    """Record ``index`` of a file (negative counts from the end); a clear error if out of range."""
    if not -len(records) <= index < len(records):
        raise ValueError(f"--game {index}: {source} holds {len(records)} game(s), 0..{len(records) - 1}")
    return records[index]


VIDEO_SUFFIXES = (".mp4", ".m4v", ".mov", ".mkv", ".webm")
"""Video types written with imageio and imageio-ffmpeg (the video extra); ``.gif`` needs only Pillow."""
GIF_HINT = "or write a .gif, which needs only Pillow"


def write_video(frames: Sequence[np.ndarray], path: str | Path, fps: float) -> None:
    """Write ``frames`` as a GIF (Pillow) or an MP4 (imageio with imageio-ffmpeg) at ``fps`` frames/s.

    Raises ValueError for another file type and :class:`training.extras.MissingPackageError`
    (a RuntimeError) naming the package to install when the MP4 encoder is missing.
    """
    path = Path(path)
    suffix = video_type(path)
    if not frames:
        raise ValueError("no frames to write")
    if suffix == ".gif":
        from PIL import Image

        images = [Image.fromarray(frame) for frame in frames]
        images[0].save(
            path,
            save_all=True,
            append_images=images[1:],
            duration=round(1000.0 / fps),
            loop=0,
            optimize=False,
        )
        return
    if suffix in VIDEO_SUFFIXES:
        require("replay", {"video": ("imageio", "imageio_ffmpeg")}, hint=GIF_HINT, before_work=False)
        import imageio.v2 as imageio

        imageio.mimsave(path, list(frames), fps=fps, macro_block_size=8)


def video_type(path: str | Path) -> str:
    """The suffix of a video file :func:`write_video` writes (``.gif`` or one of
    :data:`VIDEO_SUFFIXES`), lower case; another is refused, naming the allowed ones."""
    suffix = Path(path).suffix.lower()
    if suffix != ".gif" and suffix not in VIDEO_SUFFIXES:
        raise ValueError(
            f"--video {path}: unknown video type {suffix!r}; use .gif or .mp4 "
            f"(also {', '.join(VIDEO_SUFFIXES[1:])})"
        )
    return suffix


def _describe(game: Game, seat: int, action: int) -> str:
    return f"seat {seat}: {game.describe_action(action)}"


def replay_record(
    record: GameRecord,
    out: TextIO,
    inp: TextIO | None = None,
    seat: int | None = None,
    quiet: bool = False,
    video: str | None = None,
    fps: float = 2.0,
    partial: bool = False,
) -> Game:
    """Replay ``record`` printing the table after each action (waiting for Enter with ``inp``).

    Returns the final game after verifying it against the record
    (:class:`~uno_env.game.records.ReplayMismatchError` if it differs;
    :class:`~uno_env.game.records.IncompleteRecordError` if it cannot be verified, unless
    ``partial``).
    """
    game = record.new_game()
    if seat is not None and not 0 <= seat < game.num_players:
        raise ValueError(f"--seat must be a seat 0..{game.num_players - 1}, got {seat}")
    shown = None if seat is None else [seat]
    last: list[int | None] = [None] * game.num_players
    title = game.rules.preset_name() or "custom rules"
    frames: list[np.ndarray] = []

    def show(header: str) -> None:
        if video is not None:
            frames.append(
                render_rgb(
                    game.state,
                    game.deck,
                    game.rules.num_faces,
                    seat,
                    last,
                    title,
                    call_word=game.rules.call_name,
                )
            )
        if quiet:
            return
        out.write(f"\n{header}\n")
        table = render_table(
            game.state, game.deck, game.rules.num_faces, shown, last, title, call_word=game.rules.call_name
        )
        out.write(table + "\n")
        out.flush()

    who = ", ".join(f"seat {i}: {name}" for i, name in enumerate(record.agents or ()))
    out.write(
        f"replay: {record.preset or 'custom rules'}, {record.num_players} players, seed {record.seed}, "
        f"{len(record.actions)} actions{'; ' + who if who else ''}\n"
    )
    show("dealt")
    for step, action in enumerate(record.actions):
        if inp is not None:
            out.write("[Enter: next action] ")
            out.flush()
            if not inp.readline():
                inp = None  # end of input: play the rest without waiting
        if game.is_over():
            raise ReplayMismatchError(f"the record goes on after the game ended (action {step})")
        actor = game.current_player
        try:
            game.step(action)
        except ValueError as exc:
            raise ReplayMismatchError(f"action {step} of the record does not replay: {exc}") from None
        last[actor] = action
        show(f"action {step + 1}/{len(record.actions)}: {_describe(game, actor, action)}")
    check_replay(record, game, partial=partial)
    missing = missing_checks(record)
    outcome = game.outcome()
    if outcome is None:
        out.write("\nthe record ends before the game does\n")
    elif outcome.truncated:
        out.write("\nreplayed: decision limit reached, no winner\n")
    else:
        out.write(
            f"\nreplayed: seat {outcome.winner} won; ranking {list(outcome.ranking)}; "
            f"scores {list(outcome.scores)}\n"
        )
    if missing:
        out.write(
            f"NOT VERIFIED: the record has no {', '.join(missing)}; only the legality of its "
            f"{len(record.actions)} actions from seed {record.seed} was checked\n"
        )
    else:
        out.write("verified: outcome, final position, preset and digest match the record\n")
    if video is not None:
        write_video(frames, video, fps)
        out.write(f"wrote {video} ({len(frames)} frames at {fps:g} fps)\n")
    return game


def configure(parser: argparse.ArgumentParser) -> None:
    """The options of ``uno-env replay``."""
    parser.add_argument("file", help="a JSON Lines record file (uno-env play --record, simulate --record)")
    parser.add_argument("--game", type=int, default=0, help="which game of the file, 0-based; -1 the last")
    parser.add_argument("--step", action="store_true", help="wait for Enter after each action")
    parser.add_argument("--seat", type=int, default=None, help="show only this seat's hand (default: all)")
    parser.add_argument("--quiet", action="store_true", help="print only the summary, not every table")
    parser.add_argument("--video", metavar="OUT.gif|OUT.mp4", help="write the game as a video")
    parser.add_argument("--fps", type=float, default=2.0, help="video frames per second (default: 2)")
    parser.add_argument(
        "--allow-unverified",
        action="store_true",
        help="exit 0 for a record without outcome, final position or digest (default: exit code 3; "
        "only the legality of its actions is checked)",
    )


def run(args: argparse.Namespace, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    """Replay one game from parsed arguments; the exit code of the module docstring (0, 1, 3)."""
    out = sys.stdout if out is None else out
    if not (math.isfinite(args.fps) and args.fps > 0):  # NaN passes "<= 0"; inf gives 0 ms frames
        raise ValueError(f"--fps must be a finite number of frames per second > 0, got {args.fps}")
    if not Path(args.file).exists():
        raise ValueError(f"record file {args.file} does not exist")
    if args.video:
        check_output_file(Path(args.video), "--video", "game.gif")
        video_type(args.video)
    if args.video and Path(args.video).suffix.lower() in VIDEO_SUFFIXES:
        require("replay", {"video": ("imageio", "imageio_ffmpeg")}, hint=GIF_HINT)
    record = pick_record(load_records(args.file), args.game, args.file)
    warm_up("game")
    try:
        replay_record(
            record,
            out,
            (sys.stdin if inp is None else inp) if args.step else None,
            args.seat,
            args.quiet,
            args.video,
            args.fps,
            args.allow_unverified,
        )
    except ReplayMismatchError as exc:
        message = f"{record.origin}: the game does not replay as recorded: {exc}"
        print(f"uno-env replay: {one_line(message, MESSAGE_LIMIT)}", file=sys.stderr)
        return 1
    except IncompleteRecordError as exc:
        message = f"NOT VERIFIED: {record.origin}: {exc} (--allow-unverified accepts that)"
        print(f"uno-env replay: {one_line(message, MESSAGE_LIMIT)}", file=sys.stderr)
        return EXIT_UNVERIFIED
    except KeyboardInterrupt:
        out.write("\ninterrupted\n")
        return 130
    except BrokenPipeError:  # the reader went away (``| head``)
        quiet_stdout()
        return 0
    return 0


COMMAND = Subcommand("replay", "step through a recorded game; write a video", configure, run)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

"""Replays in the browser: any game record, step by step, every hand shown.

A :class:`Replay` re-deals a record (:mod:`uno_env.game.records`) from its seed and applies its
actions, keeping a spectator's view (:func:`training.serve.views.seat_view` with every hand)
and the public event of each step; at the end the replay is verified like ``uno-env
replay`` does (:func:`uno_env.game.records.check_replay`; a record without outcome, final
position or digest is shown as not verified). Beside each decision: what the agent saw
(stored in a browser game's record, else :func:`training.serve.explain.analyse`), and each
seat's chance of winning along the game (:class:`~training.serve.explain.WinEstimator`),
computed in a worker thread while the page already steps through the game. A game of a
match trace (:mod:`agents.trace`: ``uno-env benchmark --trace``, a tournament's trace) also
shows, beside each decision, the trace's line: the JSON view the agent was shown
(:func:`agents.text.decision_json`), its raw answers and the re-asks, the move parsed,
retries, seconds and tokens (:func:`checked_trace`; a line that does not match the game's
decision is not shown).

Records come from the server's record folder and files (``uno-env serve --records``,
``--replay FILE``) or are sent by the page; either way they are read by
:func:`uno_env.game.records.load_records`, the one reader of record files.
"""

from __future__ import annotations

import json
import math
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from uno_env import Game
from uno_env.game.records import (
    GameRecord,
    IncompleteRecordError,
    RecordError,
    ReplayMismatchError,
    check_replay,
    load_records,
    missing_checks,
    parse_records,
)

from .explain import WinEstimator, analyse
from .views import controls, public_event, seat_view

MAX_UPLOAD = 1_000_000
"""Largest record text the page may send, in bytes."""
MAX_REPLAYS = 8
"""Replays kept at once (the oldest is dropped)."""
MAX_REPLAY_DECISIONS = 10_000
"""Longest game a replay holds, in decisions (the default ``max_decisions``). Each step keeps
a game and a view (tens of kilobytes), so a 10,000-decision game takes seconds to build and
hundreds of megabytes; ``uno-env replay`` steps through a game of any length."""
MAX_KEPT_DECISIONS = 20_000
"""Decisions of all the kept replays together (the oldest replays are dropped to stay within)."""


class Replay:
    """One record stepped through (see the module docstring)."""

    def __init__(self, replay_id: str, record: GameRecord, estimator: WinEstimator) -> None:
        self.id = replay_id
        self.record = record
        self.estimator = estimator
        if len(record.actions) > MAX_REPLAY_DECISIONS:
            raise RecordError(
                f"{record.origin or 'record'}: a game of {len(record.actions):,} decisions; a replay here "
                f"holds at most {MAX_REPLAY_DECISIONS:,} (uno-env replay FILE steps through any length)"
            )
        game = record.new_game()
        self.names = list(record.agents or [f"seat {s}" for s in range(record.num_players)])
        self.games: list[Game] = [game.clone()]
        self.frames: list[dict[str, Any]] = [{"view": seat_view(game, None, self.names), "event": None}]
        for step, action in enumerate(record.actions):
            if game.is_over():
                raise RecordError(
                    f"{record.origin or 'record'}: the record goes on after the game ended (action {step})"
                )
            self.frames[-1]["labels"] = {a["action"]: a["label"] for a in controls(game, game.current_player)}
            before = game.decision()
            actor = game.current_player
            try:
                game.step(action)
            except ValueError as exc:
                raise RecordError(
                    f"{record.origin or 'record'}: action {step} does not replay: {exc}"
                ) from None
            event = public_event(before, actor, action, game, None, self.names)
            self.frames.append({"view": seat_view(game, None, self.names), "event": event})
            self.games.append(game.clone())
        try:
            check_replay(record, game)
            self.verified = "verified: outcome, final position, preset and digest match the record"
        except IncompleteRecordError:
            self.verified = f"not verified: the record has no {', '.join(missing_checks(record))}"
        except ReplayMismatchError as exc:
            self.verified = f"does not replay as recorded: {str(exc)[:300]}"
        self.trace = _trace_steps(record, self.games)
        self.chart: list[list[float]] = []
        self._views: dict[int, dict[str, Any] | None] = {}
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._estimate, daemon=True)
        self._thread.start()

    def _estimate(self) -> None:
        for step, game in enumerate(self.games):
            if self._closed.is_set():
                return
            self.chart.append(self.estimator.estimate(game, step))

    def close(self) -> None:
        """Stop computing win chances (the replay was dropped: nobody reads them)."""
        self._closed.set()

    def summary(self) -> dict[str, Any]:
        """What the page needs to step through the replay."""
        record = self.record
        return {
            "replay": self.id,
            "names": self.names,
            "preset": record.preset,
            "players": record.num_players,
            "seed": record.seed,
            "source": record.source,
            "verified": self.verified,
            "estimator": {"name": self.estimator.name, "description": self.estimator.description},
            "frames": self.frames,
            "actions": list(record.actions),
            "traced": sorted(self.trace),
        }

    def chart_so_far(self) -> dict[str, Any]:
        """The win chances computed so far (one list per step, one share per seat)."""
        values = list(self.chart)
        return {"done": len(values), "total": len(self.games), "values": values}

    def agent_view(self, step: int) -> dict[str, Any] | None:
        """What the agent deciding at ``step`` saw (``None``: a person, or no step)."""
        if not 0 <= step < len(self.record.actions):
            raise ValueError(
                f"step {step} is not a decision of this game (0..{len(self.record.actions) - 1})"
            )
        if step not in self._views:
            view = self._agent_view(step)
            traced = self.trace.get(step)
            self._views[step] = view if traced is None else {**(view or {"kind": "choice"}), "trace": traced}
        return self._views[step]

    def _agent_view(self, step: int) -> dict[str, Any] | None:
        stored = self.record.extra.get("agent_views") if self.record.source == "web" else None
        if isinstance(stored, list) and len(stored) == len(self.record.actions):
            return checked_view(stored[step])
        game = self.games[step]
        name = self.names[game.current_player]
        return analyse(name, game.clone(), seed=(self.record.seed + step) % 2**63)


TRACE_TEXT = 4_000
"""Longest text of a trace line the page is sent (an answer, a re-ask; longer ones are cut)."""
TRACE_VIEW = 40_000
"""Longest JSON view of a trace line the page is sent, in characters (a longer one is left out)."""


def _trace_steps(record: GameRecord, games: list[Game]) -> dict[int, dict[str, Any]]:
    """The record's trace lines by step, each checked (:func:`checked_trace`) against the game:
    the decision number, the seat to move and the action played must be the record's."""
    out: dict[int, dict[str, Any]] = {}
    for line in record.trace:
        step = line.get("decision")
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < len(record.actions):
            continue
        if line.get("seat") != games[step].current_player or line.get("action") != record.actions[step]:
            continue
        checked = checked_trace(line)
        if checked is not None:
            out[step] = checked
    return out


def _cut(text: Any) -> str:
    value = str(text)
    if len(value) <= TRACE_TEXT:
        return value
    return value[: TRACE_TEXT - 30] + f"... ({len(value):,} characters)"


def checked_trace(line: Any) -> dict[str, Any] | None:
    """A trace line (:mod:`agents.trace`) as the page may show it: text fields as bounded
    strings, numbers as numbers, the JSON view as its (bounded) text; a line that is not an
    object is dropped. The page shows these as text only."""
    if not isinstance(line, dict):
        return None

    def texts(key: str, most: int = 32) -> list[str]:
        value = line.get(key)
        return [_cut(v) for v in value[:most]] if isinstance(value, list) else []

    def number(key: str) -> float:
        value = line.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
        return 0.0

    tokens = line.get("tokens")
    view = json.dumps(line.get("view"), indent=1, sort_keys=True)
    return {
        "agent": _cut(line.get("agent", ""))[:200],
        "move": _cut(line.get("move", ""))[:200],
        "legal": texts("legal", 256),
        "answers": texts("answers"),
        "reasks": texts("reasks"),
        "retries": int(number("retries")),
        "fallback": line.get("fallback") is True,
        "seconds": round(number("seconds"), 6),
        "tokens": {
            _cut(k)[:60]: int(v)
            for k, v in (tokens.items() if isinstance(tokens, dict) else [])
            if isinstance(v, int) and not isinstance(v, bool)
        },
        "view": view if len(view) <= TRACE_VIEW else None,
    }


def checked_view(item: Any) -> dict[str, Any] | None:
    """A stored agent view as the page may draw it: a known kind, action ids and numbers of
    equal length; anything else (a record edited by hand) is dropped."""
    if not isinstance(item, dict) or item.get("kind") not in ("probabilities", "visits", "choice"):
        return None
    if item["kind"] == "choice":
        return {"kind": "choice"}
    lists = {key: item.get(key) for key in ("actions", "values", "means") if key in item}
    ok = (
        all(
            isinstance(v, list)
            and len(v) == len(lists["actions"] or [])
            and len(v) <= 256
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
            for v in lists.values()
        )
        and isinstance(lists.get("actions"), list)
        and isinstance(lists.get("values"), list)
    )
    return {"kind": item["kind"], **lists} if ok else None


def records_in(paths: list[Path]) -> list[tuple[Path, int, GameRecord]]:
    """Every record of the files ``paths`` (folders: their ``*.jsonl`` files) as ``(file,
    index, record)``; a file that cannot be read is skipped (``uno-env serve`` refuses such a
    ``--replay`` file at the start, so only one damaged since is left out)."""
    out: list[tuple[Path, int, GameRecord]] = []
    for path in paths:
        files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
        for file in files:
            try:
                records = load_records(file)
            except (RecordError, OSError):
                continue
            out.extend((file, i, r) for i, r in enumerate(records))
    return out


UPLOADED = "the uploaded record"
"""What errors call record text the page sent (never a path of the server's)."""


def parse_uploaded(text: str) -> GameRecord:
    """The first record of record text the page sent (bounded; read line by line as
    :func:`uno_env.game.records.load_records` reads a file, errors naming :data:`UPLOADED`)."""
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) > MAX_UPLOAD:
        raise RecordError(f"the record text has {len(data):,} bytes; at most {MAX_UPLOAD:,} are read")
    return parse_records(enumerate(data.splitlines(keepends=True), 1), UPLOADED)[0]


class Replays:
    """The replays a server keeps (the :data:`MAX_REPLAYS` most recent)."""

    def __init__(self, estimator: WinEstimator) -> None:
        self.estimator = estimator
        self.replays: OrderedDict[str, Replay] = OrderedDict()

    def open(self, record: GameRecord) -> Replay:
        """A new replay of ``record``; the oldest replays are dropped (their win chances no
        longer computed) to keep :data:`MAX_REPLAYS` and :data:`MAX_KEPT_DECISIONS`."""

        replay = Replay(secrets.token_urlsafe(9), record, self.estimator)
        self.replays[replay.id] = replay
        while len(self.replays) > MAX_REPLAYS or (
            len(self.replays) > 1
            and sum(len(kept.record.actions) for kept in self.replays.values()) > MAX_KEPT_DECISIONS
        ):
            self.replays.popitem(last=False)[1].close()
        return replay

    def get(self, replay_id: str) -> Replay:
        """The replay of ``replay_id`` (ValueError if it is gone)."""
        if replay_id not in self.replays:
            raise ValueError("no replay with this id (open the game again)")
        return self.replays[replay_id]

"""Replays in the browser: any game record, step by step, every hand shown.

A :class:`Replay` re-deals a record (:mod:`uno_env.game.records`) from its seed and applies its
actions, keeping a spectator's view (:func:`training.serve.views.seat_view` with every hand)
and the public event of each step; at the end the replay is verified like ``uno-env
replay`` does (:func:`uno_env.game.records.check_replay`; a record without outcome, final
position or digest is shown as not verified). Beside each decision: what the agent saw
(stored in a browser game's record, else :func:`training.serve.explain.analyse`), and each
seat's chance of winning along the game (:class:`~training.serve.explain.WinEstimator`),
computed in a worker thread while the page already steps through the game.

Records come from the server's record folder and files (``uno-env serve --records``,
``--replay FILE``) or are sent by the page; either way they are read by
:func:`uno_env.game.records.load_records`, the one reader of record files.
"""

from __future__ import annotations

import tempfile
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
)

from .explain import WinEstimator, analyse
from .views import controls, public_event, seat_view

MAX_UPLOAD = 1_000_000
"""Largest record text the page may send, in bytes."""
MAX_REPLAYS = 8
"""Replays kept at once (the oldest is dropped)."""


class Replay:
    """One record stepped through (see the module docstring)."""

    def __init__(self, replay_id: str, record: GameRecord, estimator: WinEstimator) -> None:
        self.id = replay_id
        self.record = record
        self.estimator = estimator
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
        self.chart: list[list[float]] = []
        self._views: dict[int, dict[str, Any] | None] = {}
        self._thread = threading.Thread(target=self._estimate, daemon=True)
        self._thread.start()

    def _estimate(self) -> None:
        for step, game in enumerate(self.games):
            self.chart.append(self.estimator.estimate(game, step))

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
            self._views[step] = self._agent_view(step)
        return self._views[step]

    def _agent_view(self, step: int) -> dict[str, Any] | None:
        stored = self.record.extra.get("agent_views") if self.record.source == "web" else None
        if isinstance(stored, list) and len(stored) == len(self.record.actions):
            return checked_view(stored[step])
        game = self.games[step]
        name = self.names[game.current_player]
        return analyse(name, game.clone(), seed=(self.record.seed + step) % 2**63)


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
    index, record)``; a file that cannot be read is skipped (the listing says so)."""
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


def parse_uploaded(text: str) -> GameRecord:
    """The first record of record text the page sent (bounded; read by :func:`load_records`)."""
    data = text.encode("utf-8")
    if len(data) > MAX_UPLOAD:
        raise RecordError(f"the record text has {len(data):,} bytes; at most {MAX_UPLOAD:,} are read")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "uploaded.jsonl"
        path.write_bytes(data)
        records = load_records(path)
    return records[0]


class Replays:
    """The replays a server keeps (the :data:`MAX_REPLAYS` most recent)."""

    def __init__(self, estimator: WinEstimator) -> None:
        self.estimator = estimator
        self.replays: OrderedDict[str, Replay] = OrderedDict()

    def open(self, record: GameRecord) -> Replay:
        """A new replay of ``record``."""
        import secrets

        replay = Replay(secrets.token_urlsafe(9), record, self.estimator)
        self.replays[replay.id] = replay
        while len(self.replays) > MAX_REPLAYS:
            self.replays.popitem(last=False)
        return replay

    def get(self, replay_id: str) -> Replay:
        """The replay of ``replay_id`` (ValueError if it is gone)."""
        if replay_id not in self.replays:
            raise ValueError("no replay with this id (open the game again)")
        return self.replays[replay_id]

"""Match traces: every decision of a match as a JSON line, then each game's record.

A trace is a game-records file (:mod:`uno_env.game.records`) whose games are preceded by their
decisions, one line each::

    {"format": "uno-env-trace/1", "game": 0, "seed": 7, "decision": 12, "seat": 1,
     "agent": "llm:model=m", "view": {...decision_json...}, "legal": ["R7", "draw"],
     "answers": ["play the red seven"], "reasks": [], "action": 7, "move": "R7",
     "retries": 0, "fallback": false, "seconds": 0.41,
     "tokens": {"prompt_tokens": 380, "completion_tokens": 3}}

``view`` is :func:`agents.text.decision_json` of the decision (what the player was shown),
``answers`` the raw answers of agents that answer in words (chat models; for others the
list is empty), ``action`` / ``move`` the move played. After a game's decisions comes its
record (``uno-env-record/1``, with the agents' names), so ``uno-env replay TRACE`` replays
and verifies every game of a trace, and :func:`read_trace` gives the decisions back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from uno_env import files
from uno_env.game.facade import Game
from uno_env.game.records import TRACE_FORMAT, record_game
from uno_env.styles.view import PublicView

from .text import decision_json


class TraceWriter:
    """Appends a match's decisions and game records to a JSON Lines file (flushed per game)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] | None = self.path.open("a", encoding="utf-8")
        self.games = 0

    def decision(self, game: Game, view: PublicView, agent: Any, action: int, seconds: float) -> None:
        """One decision: the view shown, the legal moves, what the agent answered and played."""
        exchange = getattr(agent, "last_exchange", None) or {}
        line = {
            "format": TRACE_FORMAT,
            "game": self.games,
            "seed": game.seed,
            "decision": len(game.history),
            "seat": view.current_player,
            "agent": str(getattr(agent, "name", type(agent).__name__)),
            "view": decision_json(view),
            "legal": [view.describe_action(a) for a in view.legal_actions()],
            "answers": list(exchange.get("answers", [])),
            "reasks": list(exchange.get("reasks", [])),
            "action": int(action),
            "move": view.describe_action(int(action)),
            "retries": int(exchange.get("retries", 0)),
            "fallback": bool(exchange.get("fallback", False)),
            "seconds": round(float(seconds), 6),
            "tokens": dict(exchange.get("tokens", {})),
        }
        self._write(line)

    def game_over(self, game: Game, agents: list[str]) -> None:
        """The game's record (replayable), after its decisions."""
        self._write(record_game(game, agents=agents, source="trace").to_dict())
        assert self._handle is not None
        self._handle.flush()
        self.games += 1

    def _write(self, data: dict[str, Any]) -> None:
        if self._handle is None:
            raise ValueError(f"trace {self.path} is closed")
        self._handle.write(json.dumps(data, separators=(",", ":")) + "\n")

    def close(self) -> None:
        """Close the file."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """The decision lines of a trace, in order (as :func:`uno_env.game.records.load_records` reads them)."""

    out = []
    where = f"trace {path}"
    for number, raw in files.read_lines(path, "trace"):  # bounded, regular files only
        line = files.decode_text(raw, f"{where}, line {number}")
        if line.strip():
            data = files.parse_json(line, f"{where}, line {number}")
            if isinstance(data, dict) and data.get("format") == TRACE_FORMAT:
                out.append(data)
    return out

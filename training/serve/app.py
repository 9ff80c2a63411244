"""The web app of ``uno-env serve``: a Starlette application (ASGI), served by uvicorn.

Routes:

- ``GET /``: the page (``static/index.html``, plain JavaScript and CSS shipped in the
  package: no build step); ``/static/...`` its files.
- ``GET /api/setup``: the presets with every rule field's value, the fields' metadata
  (:func:`uno_env.engine.rules.rule_fields`: type, allowed values, rule ID, what it does), the
  agents of the catalogue, the player range.
- ``POST /api/tables``: a new table from ``{"preset", "rules": {field: value}, "players",
  "seats": ["human" | agent id, ...]}`` (and ``"seed"`` on a server started with
  ``--fixed-seeds``). The rules are built by :meth:`uno_env.RuleSet.with_overrides`, the
  same validation as a rule file's. Answers the table id and each person's join token.
- ``GET /ws``: a table's websocket (:mod:`training.serve.protocol`).
- ``GET /api/records``: the recorded games the server can replay; ``POST /api/replays``
  opens one (``{"id": N}``, a record of that list, or ``{"text": "<record line>"}``);
  ``GET /api/replays/{id}/chart`` the win chances computed so far;
  ``GET /api/replays/{id}/agent/{step}`` what the agent saw at a step.

Every request body is bounded (:data:`MAX_BODY`) and checked; a refusal is a JSON
``{"error": "..."}`` with status 400 and changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from uno_env.engine.rules import MAX_PLAYERS, PRESETS, RuleError, load_rules, rule_fields
from uno_env.files import DUPLICATE_ALLOWED, DuplicateKeyError, unique_keys

from .explain import ESTIMATORS, SearchValue, WinEstimator
from .protocol import MAX_MESSAGE, ProtocolError, parse_message
from .replays import Replays, parse_uploaded, records_in
from .seats import HUMAN, CatalogueEntry, default_catalogue
from .tables import Connection, Table, TableError, Tables

STATIC = Path(__file__).with_name("static")
MAX_BODY = 1_100_000
"""Largest request body read, in bytes (a record sent for replay is the largest)."""
MAX_WATCHERS_PER_TABLE = 24
"""Most watchers of one table at once. A seat's link always joins: each seat holds one
connection (joining again replaces it), so the seats cannot be crowded out by watchers."""
MAX_MESSAGES_PER_SECOND = 200


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return value


def setup_payload(catalogue: dict[str, CatalogueEntry], fixed_seeds: bool) -> dict[str, Any]:
    """What the page needs to offer a new game."""
    fields = [{k: _jsonable(v) for k, v in f.items()} for f in rule_fields()]
    presets = {name: {k: _jsonable(v) for k, v in rules.to_dict().items()} for name, rules in PRESETS.items()}
    return {
        "presets": presets,
        "fields": fields,
        "max_players": MAX_PLAYERS,
        "agents": [{"id": e.id, "summary": e.summary, "cheats": e.cheats} for e in catalogue.values()],
        "human": HUMAN,
        "fixed_seeds": fixed_seeds,
        "estimators": list(ESTIMATORS),
    }


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, bounded (ValueError says what is wrong)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ValueError(f"the request body is larger than {MAX_BODY:,} bytes")
    try:
        data = json.loads(body, object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        raise ValueError(f"the request body: {exc}; allowed: {DUPLICATE_ALLOWED}") from None
    except (ValueError, RecursionError):
        raise ValueError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def table_rules(data: dict[str, Any]) -> tuple[Any, int]:
    """The rule set and player count of a new-table request (RuleError / ValueError)."""
    preset = data.get("preset", "uno")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}")
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise ValueError("rules must be an object of rule fields and values")
    rules = load_rules(preset).with_overrides(overrides, source="rules")
    players = data.get("players")
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"players must be an integer 2..{MAX_PLAYERS}")
    rules.check_players(players)
    return rules, players


def build_app(
    tables: Tables,
    replays: Replays,
    record_paths: list[Path],
) -> Starlette:
    """The application over ``tables`` and ``replays``; ``record_paths`` are the record files
    and folders the page may replay."""

    building = asyncio.Lock()  # one replay built at a time, each in a worker thread

    def error(message: str, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": " ".join(message.split())[:500]}, status_code=status)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def setup(request: Request) -> Response:
        return JSONResponse(setup_payload(tables.catalogue, tables.fixed_seeds))

    async def new_table(request: Request) -> Response:
        try:
            data = await read_json(request)
            unknown = sorted(set(data) - {"preset", "rules", "players", "seats", "seed"})
            if unknown:
                raise ValueError(
                    f"unknown field(s) {', '.join(k[:20] for k in unknown[:5])}; a new table has "
                    "preset, rules, players, seats (and seed)"
                )
            rules, players = table_rules(data)
            seats = data.get("seats")
            if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
                raise ValueError("seats must list 'human' or an agent id per seat")
            seed = data.get("seed")
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise ValueError("seed must be an integer")
            table = tables.create(rules, players, seats, seed)
        except (RuleError, ValueError) as exc:
            return error(str(exc))
        return JSONResponse(
            {
                "table": table.id,
                "names": table.names,
                "tokens": {str(seat): token for seat, token in table.tokens.items()},
            }
        )

    async def list_records(request: Request) -> Response:
        items = []
        for number, (file, index, record) in enumerate(records_in(record_paths)):
            outcome = record.outcome
            items.append(
                {
                    "id": number,
                    "file": file.name,
                    "game": index,
                    "preset": record.preset or "custom",
                    "players": record.num_players,
                    "agents": list(record.agents or []),
                    "source": record.source,
                    "decisions": len(record.actions),
                    "winner": None if outcome is None else outcome.winner,
                }
            )
        return JSONResponse({"records": items[-500:]})

    async def open_replay(request: Request) -> Response:
        try:
            data = await read_json(request)
            if "text" in data:
                if not isinstance(data["text"], str):
                    raise ValueError("text must be the record's JSON line")
                record = parse_uploaded(data["text"])
            else:
                number = data.get("id")
                found = records_in(record_paths)
                if not found:
                    raise ValueError(
                        "this server has no recorded games to open; "
                        'send {"text": "<record line>"} to replay one'
                    )
                if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < len(found):
                    raise ValueError(f"id must be a record of the list, 0..{len(found) - 1}")
                record = found[number][2]
            async with building:  # a long game takes seconds: the tables are served meanwhile
                replay = await asyncio.to_thread(replays.open, record)
        except ValueError as exc:  # RecordError is a ValueError
            return error(str(exc))
        return JSONResponse(replay.summary())

    async def replay_chart(request: Request) -> Response:
        try:
            replay = replays.get(request.path_params["replay"])
        except ValueError as exc:
            return error(str(exc), 404)
        return JSONResponse(replay.chart_so_far())

    async def replay_agent(request: Request) -> Response:
        try:
            replay = replays.get(request.path_params["replay"])
            step = int(request.path_params["step"])
            view = await asyncio.to_thread(replay.agent_view, step)
        except ValueError as exc:
            return error(str(exc), 404)
        return JSONResponse({"step": step, "view": view})

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        table: Table | None = None
        connection: Connection | None = None
        window_start = 0.0
        count = 0

        async def send(message: dict[str, Any]) -> None:
            await ws.send_text(json.dumps(message, separators=(",", ":")))

        try:
            while True:
                raw = await ws.receive()
                if raw["type"] == "websocket.disconnect":
                    break
                now = time.monotonic()
                if now - window_start > 1.0:
                    window_start, count = now, 0
                count += 1
                if count > MAX_MESSAGES_PER_SECOND:
                    await send(
                        {"type": "error", "error": f"more than {MAX_MESSAGES_PER_SECOND} messages a second"}
                    )
                    await ws.close(code=1008)
                    break
                text = raw.get("text")
                if text is None:
                    text = raw.get("bytes") or b""
                try:
                    message = parse_message(text)
                    if message.type in ("join", "watch"):
                        if connection is not None:
                            raise ProtocolError("this connection already sits at a table")
                        table = tables.get(message.fields["table"])
                        seat = (
                            table.seat_of_token(message.fields["token"]) if message.type == "join" else None
                        )
                        watchers = sum(1 for c in table.connections if c.seat is None)
                        if seat is None and watchers >= MAX_WATCHERS_PER_TABLE:
                            raise TableError(
                                f"this table has its most watchers ({MAX_WATCHERS_PER_TABLE}); "
                                "a seat's link still joins"
                            )
                        connection = Connection(send, seat)
                        await table.attach(connection)
                    else:
                        if table is None or connection is None:
                            raise ProtocolError(
                                'join a seat first: {"type": "join", "table": ..., "token": ...}'
                            )
                        await table.act(connection, message.fields["action"], message.fields["decision"])
                except (ProtocolError, TableError) as exc:
                    await send({"type": "error", "error": str(exc)})
        except WebSocketDisconnect:
            pass
        except asyncio.CancelledError:
            # the server is stopping: uvicorn cancels what still runs after its grace period,
            # such as an agents' game this connection started and is driving. The game stops
            # here and its programs with it, and the server exits without a traceback.
            if table is not None:
                table.close_agents()
        finally:
            if table is not None and connection is not None:
                table.detach(connection)

    routes = [
        Route("/", index),
        Route("/api/setup", setup),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/records", list_records),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/{replay}/chart", replay_chart),
        Route("/api/replays/{replay}/agent/{step:int}", replay_agent),
        WebSocketRoute("/ws", websocket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


def make_app(
    *,
    records: Path | None = None,
    replay_files: list[Path] | None = None,
    agents: list[str] | None = None,
    estimator: WinEstimator | None = None,
    max_tables: int = 64,
    pace: float = 0.0,
    fixed_seeds: bool = False,
    trust: bool = False,
    allow_rules_mismatch: bool = False,
) -> tuple[Starlette, Tables]:
    """The app with its tables: records of finished games appended to ``records``; the page
    may replay those and ``replay_files``; ``agents`` adds ``NAME=SPEC`` catalogue entries."""

    catalogue = default_catalogue(agents or [])
    tables = Tables(
        catalogue, records, max_tables=max_tables, pace=pace, fixed_seeds=fixed_seeds, trust=trust,
        allow_rules_mismatch=allow_rules_mismatch,
    )  # fmt: skip
    replays = Replays(estimator or SearchValue())
    paths = ([records] if records is not None else []) + list(replay_files or [])
    return build_app(tables, replays, paths), tables


__all__ = ["MAX_MESSAGE", "build_app", "make_app"]

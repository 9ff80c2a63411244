"""Web tables: a game, its seats (people and agents), its connections, its record.

A :class:`Table` holds one :class:`~uno_env.Game` dealt from a seed, the agent of every
agent seat (seeded from the game's seed, :func:`~training.serve.seats.agent_seed`) and a
join token per seat of a person. Each connection is a seat (it joined with that seat's
token) or a watcher. After every decision each connection gets what its seat may see
(:mod:`training.serve.views`): the public event and its new view, and nothing when it
learns nothing. A seat's decision is taken only when it is that seat's decision, for the
decision number the seat answers, and legal; otherwise a one-line error goes back and the
game is unchanged. While an out-of-turn window asks other seats (H-JUMP-1, H-ZEROSEE-1) a
seat sees, and answers, the decision it would have had without the window
(:func:`~training.serve.views.let_windows_go`): its move waits at the table, with no reply,
and is made when the window closes with every chance let go (and dropped when someone
jumps in, which everyone sees), so no reply tells it that a window was open. Agents decide
as soon as the decision is theirs; when the game ends its record
(:mod:`uno_env.game.records`, with what each agent saw in ``extra``) is appended to the
server's record file.

:class:`Tables` keeps the tables of a server, at most ``max_tables`` at once: finished and
idle tables make room for new ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import Agent
from agents.match import AgentError
from uno_env import Game
from uno_env.engine.actions import ActionKind, action_kind
from uno_env.engine.rng import check_seed, fresh_seed
from uno_env.engine.rules import RuleSet
from uno_env.game.records import GameRecord, append_records, record_game

from .explain import explained_act
from .seats import HUMAN, CatalogueEntry, agent_seed, build_agent
from .views import WINDOW_PHASES, let_windows_go, public_event, seat_view, visible_decisions

Send = Callable[[dict[str, Any]], Awaitable[None]]
"""How a table sends one message to one connection."""
PUBLIC = -1
"""The observer index of a watcher at a table with people: sees what every seat sees publicly."""


def _drop_outcome(future: asyncio.Future[Any]) -> None:
    """Read the outcome of a decision dropped when the server stopped (its program was stopped,
    so it usually ends in an error), which asyncio would otherwise log as never retrieved."""
    if not future.cancelled():
        future.exception()


class TableError(ValueError):
    """A request the table refuses (the text says why; nothing changed)."""


@dataclass
class Connection:
    """One websocket at a table: its seat (:data:`PUBLIC` or ``None`` for a watcher) and the
    last view it was sent (only changes are sent)."""

    send: Send
    seat: int | None
    last_view: dict[str, Any] | None = None
    id: int = field(default_factory=itertools.count().__next__)


class Table:
    """One game at the web table (see the module docstring)."""

    def __init__(
        self,
        table_id: str,
        rules: RuleSet,
        num_players: int,
        seed: int,
        seats: Sequence[CatalogueEntry | None],
        *,
        trust: bool = False,
        allow_rules_mismatch: bool = False,
        pace: float = 0.0,
        on_record: Callable[[GameRecord], None] | None = None,
    ) -> None:
        if len(seats) != num_players:
            raise TableError(f"{len(seats)} seats for {num_players} players")
        self.id = table_id
        self.rules = rules
        self.seed = seed
        self.pace = pace
        self.game = Game(rules, num_players, seed=seed)
        self.agents: dict[int, Agent] = {}
        self.names: list[str] = []
        for seat, entry in enumerate(seats):
            if entry is None:
                self.names.append(HUMAN)
                continue
            try:
                self.agents[seat] = build_agent(
                    entry.spec, rules, num_players, agent_seed(seed, seat), trust=trust,
                    allow_rules_mismatch=allow_rules_mismatch,
                )  # fmt: skip
            except ValueError as exc:
                raise TableError(f"seat {seat}: agent {entry.id!r} cannot play these rules: {exc}") from None
            self.names.append(entry.id)
        self.tokens = {
            seat: secrets.token_urlsafe(18) for seat in range(num_players) if seat not in self.agents
        }
        self.agent_views: list[dict[str, Any] | None] = []
        self.connections: list[Connection] = []
        self.lock = asyncio.Lock()
        self.on_record = on_record
        self.record: GameRecord | None = None
        self.touched = time.monotonic()
        self.moves = 0
        self.failed: str | None = None
        """Why the game stopped when an agent failed (the table then takes no more moves)."""
        self.stopping = False
        """The server is stopping: the agents make no more moves (:meth:`Tables.stop`)."""
        self.stopped = asyncio.Event()
        """Set with :attr:`stopping`: the decision an agent is thinking over is dropped."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop the agents' moves run on (set by :meth:`run_agents`)."""
        self.waiting: dict[int, tuple[int, int]] = {}
        """Moves made while an out-of-turn window asked other seats: seat -> (action, the
        decision number it answered); made when that decision comes (see the module docstring)."""

    # ---------------------------------------------------------------- who is here
    @property
    def has_people(self) -> bool:
        """Whether any seat is a person's (then watchers see no hand until the game ends)."""
        return bool(self.tokens)

    def seat_of_token(self, token: str) -> int:
        """The seat whose join token ``token`` is (TableError if none)."""
        for seat, secret in self.tokens.items():
            if secrets.compare_digest(secret.encode(), token.encode()):
                return seat
        raise TableError("this join token is not one of this table's seats")

    def observer(self, connection: Connection) -> int | None:
        """The index the views of ``connection`` are built for: its seat, ``None`` (every
        hand) for a watcher of a table without people or of a finished game, else
        :data:`PUBLIC`."""
        if connection.seat is not None:
            return connection.seat
        return PUBLIC if self.has_people and not self.game.is_over() else None

    def view(self, connection: Connection) -> dict[str, Any]:
        """What ``connection`` may see now."""
        return seat_view(self.game, self.observer(connection), self.names)

    # ---------------------------------------------------------------- connections
    async def attach(self, connection: Connection) -> None:
        """Add ``connection`` (a seat replaces that seat's earlier connection) and send it the
        table as it stands."""
        async with self.lock:
            if connection.seat is not None:
                for old in [c for c in self.connections if c.seat == connection.seat]:
                    self.connections.remove(old)
                    await _quiet(old.send({"type": "error", "error": "this seat was joined from elsewhere"}))
            self.connections.append(connection)
            self.touched = time.monotonic()
            view = self.view(connection)
            connection.last_view = view
            await _quiet(connection.send({"type": "welcome", "table": self.id, "view": view}))
            if self.failed is not None:
                await _quiet(connection.send({"type": "error", "error": self.failed}))
        await self.run_agents()

    def detach(self, connection: Connection) -> None:
        """Forget ``connection`` (its seat stays; a person rejoins with the same token)."""
        if connection in self.connections:
            self.connections.remove(connection)

    # ---------------------------------------------------------------- decisions
    async def act(self, connection: Connection, action: int, decision: int) -> None:
        """The decision of ``connection``'s seat; TableError (nothing changed) unless it is
        that seat's decision number ``decision`` and ``action`` is legal."""
        seat = connection.seat
        async with self.lock:
            game = self.game
            if seat is None:
                raise TableError("a watcher cannot play; join a seat with its token")
            if connection not in self.connections:
                raise TableError("this seat was joined from elsewhere; reload to take it back")
            if game.is_over():
                raise TableError("the game is over")
            if self.failed is not None:
                raise TableError(self.failed)
            seen = let_windows_go(game, seat)  # the game as this seat sees it
            current = visible_decisions(seen, seat)
            if decision != current:
                raise TableError(
                    f"decision {decision} is not the current one ({current}): "
                    "the move was already made or the view is out of date"
                )
            if seen.current_player != seat:
                raise TableError("it is not your decision now")
            legal = seen.legal_actions()
            if action not in legal:
                notations = ", ".join(f"{a} ({seen.describe_action(a)})" for a in legal)
                raise TableError(f"action {action} is not legal now; legal: {notations}")
            if seen is game:
                await self._step(seat, action, None)
            else:
                self.waiting[seat] = (action, decision)  # made once the window closes (run_agents)
        await self.run_agents()

    def _waiting_move(self, seat: int) -> int | None:
        """The move ``seat`` made ahead, while a window asked others, if it answers the decision
        now due (else it is dropped: someone jumped in, and the decision is another)."""
        made = self.waiting.pop(seat, None)
        if made is None:
            return None
        action, decision = made
        if decision != visible_decisions(self.game, seat) or action not in self.game.legal_actions():
            return None
        return action

    async def run_agents(self) -> None:
        """Let the agents decide while the decision is theirs. An agent thinks in a worker
        thread (the search's compiled code releases the interpreter), holding this table's
        lock, so the server goes on serving the other tables; the lock is released between
        decisions."""
        while True:
            async with self.lock:
                game = self.game
                if game.is_over() or self.failed is not None or self.stopping:
                    return
                seat = game.current_player
                ahead = self._waiting_move(seat)
                if ahead is not None:
                    await self._step(seat, ahead, None)
                    continue
                if seat not in self.agents:
                    return
                in_window = game.phase in WINDOW_PHASES
                self.loop = asyncio.get_running_loop()
                thinking = asyncio.ensure_future(
                    asyncio.to_thread(explained_act, self.agents[seat], game, self.names[seat])
                )
                stopped = asyncio.ensure_future(self.stopped.wait())
                try:
                    await asyncio.wait((thinking, stopped), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    stopped.cancel()
                if not thinking.done():
                    # the server is stopping: a slow agent (a program, a language model) could
                    # outlast its grace period, after which it cancels this task and logs an
                    # error. The decision is dropped and the programs are stopped (which ends
                    # it) in a worker thread, which the server waits for only once it has closed
                    thinking.add_done_callback(_drop_outcome)
                    self.loop.run_in_executor(None, self.close_agents)
                    return
                try:
                    action, why = thinking.result()
                except AgentError as exc:
                    await self._fail(seat, exc)
                    return
                await self._step(seat, action, why)
                if in_window and action_kind(action, game.deck)[0] == ActionKind.PASS:
                    continue  # a let-go answer nobody else sees: no pause that would show it
            await asyncio.sleep(self.pace)

    async def _fail(self, seat: int, exc: AgentError) -> None:
        """Stop the game: the agent at ``seat`` failed (raised, answered no legal move, broke its
        protocol). The operator's log gets the agent's error; the connections only that the
        game stopped and which seat failed (the error may name that seat's legal moves)."""
        print(f"uno-env serve: table {self.id}: {exc}", file=sys.stderr, flush=True)
        self.failed = (
            f"the game stopped: the agent at seat {seat} ({self.names[seat]}) failed; the server's "
            "log says why. Start a new table"
        )
        self.close_agents()
        for connection in list(self.connections):
            await _quiet(connection.send({"type": "error", "error": self.failed}))

    def close_agents(self) -> None:
        """Stop the agents that hold a program or a connection (``cmd:``, ``llm:``)."""
        for agent in self.agents.values():
            close = getattr(agent, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):
                    close()

    async def _step(self, seat: int, action: int, why: dict[str, Any] | None) -> None:
        """Apply ``seat``'s ``action`` and tell every connection what it may learn (under the lock)."""
        before = self.game.decision()
        self.game.step(action)
        for ahead, (_, number) in list(self.waiting.items()):  # someone jumped in: another decision
            seen = let_windows_go(self.game, ahead)
            if seen.is_over() or seen.current_player != ahead or visible_decisions(seen, ahead) != number:
                del self.waiting[ahead]
        self.agent_views.append(why)
        self.moves += 1
        self.touched = time.monotonic()
        if self.game.is_over() and self.record is None:
            self.record = record_game(
                self.game, self.names, source="web", extra={"table": self.id, "agent_views": self.agent_views}
            )
            if self.on_record is not None:
                self.on_record(self.record)
            self.close_agents()
        for connection in list(self.connections):
            observer = self.observer(connection)
            event = public_event(before, seat, action, self.game, observer, self.names)
            view = seat_view(self.game, observer, self.names)
            if event is None and view == connection.last_view:
                continue
            connection.last_view = view
            await _quiet(connection.send({"type": "update", "event": event, "view": view}))


async def _quiet(sending: Awaitable[None]) -> None:
    """Send, ignoring a connection that has gone (its socket's own handler cleans up)."""
    with contextlib.suppress(Exception):  # a closed socket raises several kinds; the reader notices
        await sending


class Tables:
    """The tables of one server (see the module docstring); records go to ``records``."""

    def __init__(
        self,
        catalogue: dict[str, CatalogueEntry],
        records: Path | None,
        *,
        max_tables: int = 64,
        idle_seconds: float = 3600.0,
        trust: bool = False,
        allow_rules_mismatch: bool = False,
        pace: float = 0.0,
        fixed_seeds: bool = False,
    ) -> None:
        self.catalogue = catalogue
        self.allow_rules_mismatch = allow_rules_mismatch
        self.records = records
        self.max_tables = max_tables
        self.idle_seconds = idle_seconds
        self.trust = trust
        self.pace = pace
        self.fixed_seeds = fixed_seeds
        self.tables: dict[str, Table] = {}
        self._write = threading.Lock()

    def stop(self) -> None:
        """The server is stopping (Ctrl-C): every table's agents make no more moves and drop the
        decision in hand, so a game of agents alone, which plays on after its watchers left,
        lets the server exit at once. Called from the signal handler: the tables' loop is
        woken through :meth:`asyncio.AbstractEventLoop.call_soon_threadsafe`."""
        for table in list(self.tables.values()):
            table.stopping = True
            if table.loop is not None and not table.loop.is_closed():
                table.loop.call_soon_threadsafe(table.stopped.set)

    def save(self, record: GameRecord) -> None:
        """Append a finished game's record to the server's record file. A write that fails (a
        full disk, the file's folder gone) must not stop the game's last move from reaching the
        table, so the operator's log gets the error and the record's line instead."""
        if self.records is None:
            return
        with self._write:
            try:
                append_records(self.records, record)
            except OSError as exc:
                print(
                    f"uno-env serve: cannot append the record of table {record.extra.get('table')} to "
                    f"{self.records}: {exc.strerror or exc}; the record: {record.to_json()}",
                    file=sys.stderr,
                    flush=True,
                )

    def _make_room(self) -> None:
        now = time.monotonic()
        for key, table in list(self.tables.items()):
            idle = now - table.touched > self.idle_seconds
            ended = table.game.is_over() or table.failed is not None
            if idle or (ended and not table.connections):
                table.close_agents()
                del self.tables[key]
        if len(self.tables) >= self.max_tables:
            raise TableError(
                f"the server holds its most tables ({self.max_tables}); finish a game or wait for "
                "idle ones to close"
            )

    def create(
        self, rules: RuleSet, num_players: int, seats: Sequence[str], seed: int | None = None
    ) -> Table:
        """A new table; ``seats`` names ``human`` or a catalogue id per seat (TableError says
        what is wrong). ``seed`` only when the server allows fixed seeds."""

        if len(seats) != num_players:
            raise TableError(f"seats lists {len(seats)} entries for {num_players} players; give one per seat")
        entries: list[CatalogueEntry | None] = []
        for seat, name in enumerate(seats):
            if name == HUMAN:
                entries.append(None)
            elif name in self.catalogue:
                entries.append(self.catalogue[name])
            else:
                shown = name[:40] if isinstance(name, str) else type(name).__name__
                raise TableError(f"seat {seat}: {shown!r} is not 'human' nor an agent of this server")
        if seed is not None and not self.fixed_seeds:
            raise TableError(
                "this server deals from fresh seeds (start it with --fixed-seeds to choose them)"
            )
        self._make_room()
        table_id = secrets.token_urlsafe(9)
        table = Table(
            table_id,
            rules,
            num_players,
            fresh_seed() if seed is None else check_seed(seed),
            entries,
            trust=self.trust,
            allow_rules_mismatch=self.allow_rules_mismatch,
            pace=self.pace,
            on_record=self.save,
        )
        self.tables[table_id] = table
        return table

    def get(self, table_id: str) -> Table:
        """The table of ``table_id`` (TableError if there is none)."""
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no table with this id (it may have finished and closed)")
        return table

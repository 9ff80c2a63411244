"""A web table server on 127.0.0.1 in a thread, for the web tests and the load run."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from training.serve.app import make_app
from training.serve.cli import make_server
from training.serve.tables import Tables

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def running_server(records: Path | None, **options: Any) -> Iterator[tuple[str, Tables]]:
    """``(base URL, tables)`` of a server started on a free port of 127.0.0.1, stopped on exit."""
    app, tables = make_app(records=records, **options)
    server, sock = make_server(app, "127.0.0.1", 0)
    port = sock.getsockname()[1]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", tables
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def choose(options: list[dict[str, Any]], want: str = "") -> int:
    """The scripted person's choice among the legal controls (``action``, ``kind``, ``card``
    text or None): with ``want="seven"`` a seat to swap with or a 7; with
    ``want="challenge"`` a challenge; else the lowest card id, else the lowest action id."""
    if want == "challenge":
        for option in options:
            if option["kind"] == "challenge":
                return int(option["action"])
    if want == "seven":
        targets = sorted(int(o["action"]) for o in options if o["kind"] == "target")
        if targets:
            return targets[0]
        sevens = sorted(
            int(o["action"]) for o in options if o["kind"] == "card" and (o["card"] or "")[1:] == "7"
        )
        if sevens:
            return sevens[0]
    cards = sorted(int(o["action"]) for o in options if o["kind"] == "card")
    if cards:
        return cards[0]
    return min(int(o["action"]) for o in options)


def emulate(
    rules: Any,
    seats: list[str],
    seed: int,
    want: str = "",
    limit: int = 5000,
    catalogue_extra: tuple[str, ...] | list[str] = (),
) -> tuple[Any, list[str]]:
    """The game a table of ``seats`` (``human`` or a catalogue id) dealt with ``seed`` plays
    when every person follows :func:`choose` (the server's agents, seeded as the server seeds
    them); the game and the phases the people were asked."""
    from training.serve.explain import explained_act
    from training.serve.seats import agent_seed, build_agent, default_catalogue
    from training.serve.views import controls
    from uno_env import Game

    catalogue = default_catalogue(list(catalogue_extra))
    game = Game(rules, len(seats), seed=seed)
    agents = {
        s: build_agent(catalogue[name].spec, game.rules, len(seats), agent_seed(seed, s))
        for s, name in enumerate(seats)
        if name != "human"
    }
    asked: list[str] = []
    while not game.is_over() and limit > 0:
        limit -= 1
        seat = game.current_player
        if seat in agents:
            action, _ = explained_act(agents[seat], game)
        else:
            asked.append(game.phase.name.lower())
            options = [
                {"action": c["action"], "kind": c["kind"], "card": c.get("card", {}).get("text")}
                for c in controls(game, seat)
            ]
            action = choose(options, want)
        game.step(action)
    return game, asked

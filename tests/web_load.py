"""Load run of the web table on 127.0.0.1: many tables at once, scripted people over real websockets.

::

    python -m tests.web_load --tables 50            # starts `uno-env serve` on a free port of 127.0.0.1
    python -m tests.web_load --tables 50 --url http://127.0.0.1:8000   # a server started with --fixed-seeds

Every table seats one or two scripted people (websocket clients that answer each decision with
:func:`tests.web_server.choose` from the legal list they were sent) and agents (scripted
styles, the search and a shipped network), dealt from its own seed. The run checks that no
move is lost or played twice (every person's move is acknowledged exactly once, no error
comes back) and that every table's record equals the same seed played in the engine with the
same choices (:func:`tests.web_server.emulate`), and reports the latency of a person's move:
from sending it to receiving the update that shows it applied (the server also plays the
agents' moves that follow before answering, so this is what a person waits), median and
99th percentile. Requests go to 127.0.0.1 only; the run ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.web_server import choose, emulate
from uno_env import load_rules
from uno_env.game.records import load_records

LINEUPS = (
    ["human", "greedy", "random_playable", "blocker"],
    ["human", "human", "bluffer", "greedy"],
    ["human", "distilled_uno_2p"],
    ["human", "search:sims=100", "cautious"],
)
"""Seat line-ups, used in turn (the search at a lower budget keeps the run short)."""
SEARCH_AGENT = "quick_search=search:sims=100"


@dataclass
class Person:
    """One scripted person's side of a table: moves sent, acknowledged, latencies, errors."""

    sent: int = 0
    acknowledged: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST ``body`` as JSON to the server; its JSON answer."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        data: dict[str, Any] = json.loads(response.read())
    return data


async def play_person(ws_url: str, table: str, token: str, person: Person, timeout: float) -> None:
    """Join a seat and answer every decision until the game ends."""
    import websockets

    async with websockets.connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "join", "table": table, "token": token}))
        waiting: tuple[int, float] | None = None
        deadline = time.monotonic() + timeout
        while True:
            raw = await asyncio.wait_for(ws.recv(), timeout=max(1.0, deadline - time.monotonic()))
            message = json.loads(raw)
            if message["type"] == "error":
                person.errors.append(message["error"])
                continue
            view = message["view"]
            if waiting is not None and view["decisions"] > waiting[0]:
                person.acknowledged += 1
                person.latencies.append(time.perf_counter() - waiting[1])
                waiting = None
            if view["over"]:
                return
            if view["legal"] and waiting is None:
                options = [
                    {"action": c["action"], "kind": c["kind"], "card": c.get("card", {}).get("text")}
                    for c in view["legal"]
                ]
                action = choose(options)
                waiting = (view["decisions"], time.perf_counter())
                person.sent += 1
                await ws.send(json.dumps({"type": "act", "action": action, "decision": view["decisions"]}))


def start_server(records: Path) -> tuple[subprocess.Popen[str], str]:
    """``uno-env serve`` on a free port of 127.0.0.1 (fixed seeds); the process and its URL."""
    command = [
        sys.executable, "-m", "training.serve.cli", "--host", "127.0.0.1", "--port", "0", "--fixed-seeds",
        "--records", str(records), "--max-tables", "500", "--agent", SEARCH_AGENT,
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env={**os.environ})
    assert process.stdout is not None
    line = process.stdout.readline()
    while line and "http://" not in line:  # the lines before the address say what it prepares
        line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    url = line.split("http://", 1)[1].split("/", 1)[0]
    return process, f"http://{url}"


def lineup(index: int) -> list[str]:
    """The seats of table ``index`` (catalogue ids)."""
    seats = LINEUPS[index % len(LINEUPS)]
    return [SEARCH_AGENT.split("=")[0] if s.startswith("search:") else s for s in seats]


async def run_load(url: str, tables: int, seed: int, timeout: float) -> dict[str, Any]:
    """Create ``tables`` tables at once, play them all, and return what happened."""
    made = []
    for i in range(tables):
        seats = lineup(i)
        body = {"preset": "uno", "rules": {}, "players": len(seats), "seats": seats, "seed": seed + i}
        made.append((i, seats, await asyncio.to_thread(post, url + "/api/tables", body)))
    ws_url = url.replace("http://", "ws://") + "/ws"
    people: dict[tuple[int, str], Person] = {}
    jobs = []
    start = time.perf_counter()
    for i, _, answer in made:
        for seat, token in answer["tokens"].items():
            person = people.setdefault((i, seat), Person())
            jobs.append(play_person(ws_url, answer["table"], token, person, timeout))
    await asyncio.gather(*jobs)
    wall = time.perf_counter() - start
    latencies = np.array([x for p in people.values() for x in p.latencies])
    return {
        "made": [(i, seats, answer["table"]) for i, seats, answer in made],
        "people": people,
        "wall": wall,
        "latencies": latencies,
    }


def check(result: dict[str, Any], records: Path, seed: int) -> list[str]:
    """The problems found: lost or repeated moves, errors, records that differ from the engine."""
    problems = []
    for (i, seat), person in result["people"].items():
        if person.errors:
            problems.append(f"table {i} seat {seat}: errors {person.errors[:3]}")
        if person.sent != person.acknowledged:
            problems.append(
                f"table {i} seat {seat}: {person.sent} moves sent, {person.acknowledged} acknowledged"
            )
    by_table = {r.extra.get("table"): r for r in load_records(records)} if records.exists() else {}
    rules = load_rules("uno")
    for i, seats, table in result["made"]:
        record = by_table.get(table)
        if record is None:
            problems.append(f"table {i}: no record")
            continue
        game, asked = emulate(rules, seats, seed + i, catalogue_extra=[SEARCH_AGENT])
        if list(record.actions) != [a for _, a in game.history]:
            problems.append(f"table {i}: the record differs from seed {seed + i} played in the engine")
        moves = sum(p.acknowledged for (t, _), p in result["people"].items() if t == i)
        if moves != len(asked):
            problems.append(f"table {i}: {moves} moves of people acknowledged, the engine asked {len(asked)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run the load test and print its table (exit 1 on any problem)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument(
        "--url",
        default=None,
        help=f"a running server (started with --fixed-seeds and --agent {SEARCH_AGENT}); default: start one",
    )
    parser.add_argument("--records", type=Path, default=None, help="its record file (with --url)")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    folder = tempfile.TemporaryDirectory()
    process = None
    if args.url is None:
        records = Path(folder.name) / "games.jsonl"
        process, url = start_server(records)
    else:
        url, records = args.url, args.records
        if records is None:
            parser.error("--url needs --records (the server's record file)")
    try:
        result = asyncio.run(run_load(url, args.tables, args.seed, args.timeout))
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
    problems = check(result, records, args.seed)
    lat = result["latencies"] * 1000
    moves = int(sum(p.acknowledged for p in result["people"].values()))
    decisions = sum(len(r.actions) for r in load_records(records))
    print(
        f"{args.tables} tables at once on {url}: {len(result['people'])} scripted people, "
        f"{moves} moves by people, "
        f"{decisions} decisions in all, {result['wall']:.1f} s"
    )
    print(
        "latency of a person's move (sent -> applied, agents' replies included): "
        f"median {np.median(lat):.1f} ms, "
        f"p90 {np.percentile(lat, 90):.1f} ms, p99 {np.percentile(lat, 99):.1f} ms, max {lat.max():.1f} ms"
    )
    print("lost or repeated moves, errors, records unlike the engine: " + ("none" if not problems else ""))
    for line in problems:
        print("  " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

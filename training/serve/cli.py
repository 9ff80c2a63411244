"""``uno-env serve``: the web table on this machine.

::

    uno-env serve                                  # http://127.0.0.1:8000, records under runs/web/
    uno-env serve --port 8080 --replay games.jsonl # also offer the games of a record file
    uno-env serve --agent strong=search:sims=2000 --agent mine=policy.npz

It needs the ``web`` extra (``pip install 'uno-env[web]'``: Starlette, uvicorn,
websockets) and says so before starting. The server listens on 127.0.0.1 unless ``--host``
says otherwise (another machine's people can then join your tables: nothing else is needed,
and nothing is encrypted). Every finished game is appended to ``--records`` (a JSON Lines
record file that ``uno-env replay`` reads and ``uno-env results`` summarises). The page
seats the play styles, the shipped policies and the agents given with ``--agent NAME=SPEC``
(any agent spec: a style with parameters, an exported ``.npz`` policy, a MaskablePPO
checkpoint, which needs ``--trust-checkpoint`` unless this installation wrote it, your own
``FILE.py:NAME`` or ``MODULE:ATTR`` agent, a ``cmd:COMMAND`` or ``llm:...`` agent); it can
name nothing else.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from training.common import Subcommand, add_rules_mismatch_argument, add_trust_argument, check_record_file
from training.extras import checkpoint_needs, merge, require
from uno_env.compiler.compiling import warm_up
from uno_env.game.records import RecordError, load_records

from .explain import make_estimator
from .explain import warm_up as warm_web

WEB_PACKAGES = ("starlette", "uvicorn", "websockets")
SHUTDOWN_GRACE_SECONDS = 2
"""How long Ctrl-C waits for running requests and tables before it stops them: a table of
agents alone plays on after its last watcher left, and would otherwise hold the server."""
INSTALL_LINE = "pip install 'uno-env[web]'"
DEFAULT_RECORDS = Path("runs") / "web" / "games.jsonl"
WS_MAX_SIZE = 65536
"""Largest websocket frame the server reads at all (the app refuses anything over
:data:`training.serve.protocol.MAX_MESSAGE` with an error; larger frames close the socket)."""


def check_web_packages(agents: list[str] | None = None) -> None:
    """Raise :class:`training.extras.MissingPackageError` naming the install line when a web
    package is missing (or torch, for a ``.zip`` checkpoint among the ``--agent`` specs)."""

    specs = [entry.partition("=")[2] for entry in agents or []]
    require("serve", merge({"web": WEB_PACKAGES}, checkpoint_needs(specs)))


def configure(parser: argparse.ArgumentParser) -> None:
    """The options of ``uno-env serve``."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")
    parser.add_argument(
        "--records",
        type=Path,
        default=DEFAULT_RECORDS,
        help=f"record file every finished game is appended to (default: {DEFAULT_RECORDS})",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a record file (or a folder of them) the page may replay besides --records (repeatable)",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="add an agent the page may seat: any agent spec (docs/agents.md#agent-specs): a style with "
        "parameters, an exported .npz policy, a .zip checkpoint, your FILE.py:NAME or MODULE:ATTR agent, "
        "a cmd:COMMAND or llm:... agent (repeatable)",
    )
    parser.add_argument(
        "--win-estimate",
        default="search",
        help="the win chances drawn in replays: search (rollouts from the true hands), hands "
        "(the search's leaf value alone), calibrated (the balance atlas' fitted model) or "
        "calibrated:FILE (an atlas run's winprob.json) (default: search)",
    )
    parser.add_argument("--max-tables", type=int, default=64, help="tables at once (default: 64)")
    parser.add_argument(
        "--fixed-seeds",
        action="store_true",
        help="let a table's creator choose its seed (tests and load runs: whoever picks the seed "
        "knows the deal)",
    )
    add_trust_argument(parser)
    add_rules_mismatch_argument(parser)


def check_replay_path(path: Path) -> None:
    """Refuse a ``--replay`` path the page could not offer: missing, a folder without
    ``*.jsonl`` files, or a record file (one of the folder's) that
    :func:`uno_env.game.records.load_records` refuses (the page left it out without a word)."""
    if not path.exists():
        raise ValueError(f"--replay {path} does not exist")
    found = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not found:
        raise ValueError(
            f"--replay {path} is a folder without record files; allowed: a record file or a folder of *.jsonl"
        )
    for file in found:
        try:
            load_records(file)
        except (RecordError, OSError) as exc:
            raise ValueError(f"--replay {file} is not a record file the page can replay: {exc}") from None


def run(args: argparse.Namespace) -> int:
    """Start the server (blocks until Ctrl-C)."""
    check_web_packages(list(args.agent))
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {args.port}")
    if not 1 <= args.max_tables <= 10_000:
        raise ValueError(f"--max-tables must be 1..10000, got {args.max_tables}")
    for path in args.replay:
        check_replay_path(path)
    records: Path = args.records
    # checked before its folder is made: a path below a file stopped in a traceback from mkdir
    check_record_file(records, "--records", append=True, make_folder=True)
    records.parent.mkdir(parents=True, exist_ok=True)

    from .app import make_app

    estimator = make_estimator(args.win_estimate)
    print("uno-env serve: preparing the engine (compiled once per install, then cached) ...", flush=True)
    warm_up("game")
    warm_web()
    app, tables = make_app(
        records=records,
        replay_files=list(args.replay),
        agents=list(args.agent),
        estimator=estimator,
        max_tables=args.max_tables,
        fixed_seeds=args.fixed_seeds,
        trust=args.trust_checkpoint,
        allow_rules_mismatch=args.allow_rules_mismatch,
    )
    server, sock = make_server(app, args.host, args.port, on_exit=tables.stop)
    port = sock.getsockname()[1]
    print(
        f"uno-env serve: http://{args.host}:{port}/ (Ctrl-C stops); finished games go to {records}",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
    return 0


def make_server(
    app: Any, host: str, port: int, on_exit: Callable[[], None] | None = None
) -> tuple[Any, socket.socket]:
    """A uvicorn server for ``app`` and the socket it is to serve, bound to ``host:port``
    (``port`` 0: a free port, read from the socket); ``on_exit`` is called when Ctrl-C (or
    SIGTERM) asks the server to stop, before it waits :data:`SHUTDOWN_GRACE_SECONDS` for what
    still runs and then cancels it."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if on_exit is not None:
                on_exit()
            super().handle_exit(sig, frame)

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # connections wait in the queue until the server accepts them
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    config = uvicorn.Config(
        app,
        ws_max_size=WS_MAX_SIZE,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
    )
    return Server(config), sock


COMMAND = Subcommand(
    "serve", "play, watch and replay games in the browser (a local web app)", configure, run, __doc__
)
main = COMMAND.main


if __name__ == "__main__":
    import sys

    sys.exit(main())

"""An out-of-process agent for the protocol tests: the same logic as ``seeded_agent.Seeded``,
speaking the JSON-lines protocol of :mod:`agents.process` over stdin/stdout.

Run as ``python protocol_agent.py [--bias B] [--move]`` (``--move``: answer with the move's
notation instead of its id; ``--bad``: answer with an illegal move; ``--exit-after N``: exit
with code 4 after answering N ``act`` messages, as a program that crashes mid-game;
``--sleep S``: think S seconds before each ``act`` answer, as a slow program or model).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from seeded_agent import Seeded


def main() -> int:
    bias = float(sys.argv[sys.argv.index("--bias") + 1]) if "--bias" in sys.argv else 0.9
    agent = Seeded(0, bias)
    exit_after = int(sys.argv[sys.argv.index("--exit-after") + 1]) if "--exit-after" in sys.argv else -1
    sleep = float(sys.argv[sys.argv.index("--sleep") + 1]) if "--sleep" in sys.argv else 0.0
    acts = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "close":
            return 0
        if kind == "hello":
            reply: dict[str, object] = {"name": "protocol-seeded"}
        elif kind == "reset":
            agent.reset(message["seed"])
            reply = {}
        else:
            time.sleep(sleep)
            mask = np.zeros(max(message["legal"]) + 1, dtype=np.int8)
            mask[message["legal"]] = 1
            action = agent.act(None, mask)
            if "--bad" in sys.argv:
                reply = {"action": max(message["legal"]) + 1}
            elif "--move" in sys.argv:
                move = next(m["move"] for m in message["view"]["legal"] if m["id"] == action)
                reply = {"move": move}
            else:
                reply = {"action": action}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        acts += kind == "act"
        if acts == exit_after:
            sys.stderr.write(f"crashed after {acts} moves\n")
            return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""An agent file written as a script: it parses the command line when it is loaded, so loaded
by a tool it reads the tool's arguments and exits (``tests/test_own_agents.py``)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--depth", type=int, default=1)
options = parser.parse_args()


class FirstLegal:
    """The first legal id."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        return int(np.flatnonzero(action_mask)[0])

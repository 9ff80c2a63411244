"""Agents that play :mod:`uno_env` games, scripted and learned, behind one interface.

- :class:`Agent`: ``act(observation, action_mask, view=None) -> action id``; seeded.
- :func:`make` / :func:`available`: agents by name, ``make("bluffer:bluff=0.3", seed=1)``.
- :class:`ScriptedAgent`: the compiled play styles of :mod:`uno_env.styles` (the same code
  the batch simulator runs), reading a :class:`PublicView` of the game.
- :class:`RandomAgent`: the uniform-random legal baseline (``random_legal``); the
  literature's random player (a random playable card, draws only with none) is the
  compiled style ``random_playable``.
- :class:`ExportedAgent`: an exported learned policy (plain weights: a shipped name such as
  ``distilled_uno_2p`` or a ``.npz`` file), forward pass in NumPy, no torch, no pickle.
- :class:`PolicyAgent`: a trained MaskablePPO checkpoint, checked against the game's rules,
  observation spec and env version (:func:`save_policy_metadata` writes the record), and
  loaded only when this installation signed it or the caller trusts it (:mod:`agents.trust`).
- :func:`play`: seat agents at a :class:`uno_env.Game` and play it out.
- :func:`parse_agent` (:mod:`agents.spec`): the one agent-spec grammar of every command and
  spec file (styles, shipped and exported policies, checkpoints, ``FILE.py:NAME`` and
  ``MODULE:ATTR`` Python agents, ``cmd:`` and ``llm:`` agents, seat tables, mixtures).
- :class:`ProcessAgent` (:mod:`agents.process`): an agent in another process, JSON lines over
  stdin/stdout; :class:`ChatAgent` (:mod:`agents.llm`): a chat model behind an
  OpenAI-compatible endpoint.
- :mod:`agents.text`: the decision as JSON and as a prompt, and the answer parser;
  :mod:`agents.match`, :mod:`agents.benchmark`, :mod:`agents.trace`: games between any
  agents, the benchmark protocol, match traces.

The styles, their ideas and parameters: ``docs/agents.md``
(``agents.describe()`` prints the table).
"""

from uno_env.styles.view import PublicView

from .base import Agent, play
from .exported_agent import ExportedAgent
from .llm import ChatAgent
from .policy_agent import (
    PolicyAgent,
    PolicyMetadata,
    PolicyMismatchError,
    load_policy_metadata,
    metadata_path,
    save_policy_metadata,
)
from .process import ProcessAgent
from .random_agent import RandomAgent
from .registry import available, describe, make
from .scripted import ScriptedAgent
from .spec import AgentSpec, AgentSpecError, parse_agent
from .trust import UntrustedCheckpointError

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "ChatAgent",
    "ExportedAgent",
    "PolicyAgent",
    "PolicyMetadata",
    "PolicyMismatchError",
    "ProcessAgent",
    "PublicView",
    "RandomAgent",
    "ScriptedAgent",
    "UntrustedCheckpointError",
    "available",
    "describe",
    "load_policy_metadata",
    "make",
    "metadata_path",
    "parse_agent",
    "play",
    "save_policy_metadata",
]

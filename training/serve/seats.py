"""Who may sit at a web table: the catalogue of agents the page may pick, and building them.

The page never names code or files: it picks an entry of the catalogue by its id. The
catalogue holds every compiled play style (the search and the oracle among them, the oracle
marked as cheating), every shipped learned policy, and the agents the person running the
server adds on its command line (``uno-env serve --agent NAME=SPEC``: any agent spec of
:mod:`agents.spec`, such as a style with parameters, an exported ``.npz`` policy, a
MaskablePPO checkpoint, the operator's own ``FILE.py:NAME`` agent, ``cmd:`` or ``llm:``).
Building an agent from its spec happens in one function, :func:`build_agent`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents import Agent, ExportedAgent
from agents.spec import check_seated_networks, parse_agent
from training.play import agent_seed as play_agent_seed
from uno_env.engine.rules import RuleSet
from uno_env.sim.learned import load_policy, shipped_policies
from uno_env.styles.params import STYLE_ALIASES
from uno_env.styles.registry import STYLES, canonical_policy

HUMAN = "human"
"""The name of a person's seat in records (as ``uno-env play`` writes it)."""
MAX_NAME = 40


@dataclass(frozen=True)
class CatalogueEntry:
    """An agent the page may seat: its id (what the page sends), the spec it is built from
    and a one-line summary."""

    id: str
    spec: str
    summary: str
    cheats: bool = False


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in the game dealt with ``game_seed`` (as ``uno-env
    play`` seeds its agents, so a web game and a terminal game of the same seed agree)."""

    return play_agent_seed(game_seed, seat)


def build_agent(
    spec: str,
    rules: RuleSet,
    num_players: int,
    seed: int,
    *,
    trust: bool = False,
    allow_rules_mismatch: bool = False,
) -> Agent:
    """The agent of ``spec`` for a game of ``rules`` and ``num_players``, seeded with ``seed``.

    ``spec`` is any agent spec (:mod:`agents.spec`): a play style (``greedy``,
    ``search:sims=400``), an exported policy (a shipped name or a ``.npz`` path), a MaskablePPO
    checkpoint (``.zip``: a pickle, loaded only when this installation signed it or ``trust``),
    a Python, out-of-process or chat-model agent. An exported policy, or a search's guide
    network, must have been trained for these rules and this player count unless
    ``allow_rules_mismatch`` (``serve --allow-rules-mismatch``: a transfer;
    :meth:`agents.spec.AgentSpec.check_networks`). ValueError says what is wrong.
    """
    agent = parse_agent(spec, where=f"agent {spec!r}")
    check_seated_networks(
        [agent], rules, num_players, allow_rules_mismatch=allow_rules_mismatch,
        allow_with="uno-env serve --allow-rules-mismatch seats it on other rules",
    )  # fmt: skip
    if agent.kind == "policy":
        return ExportedAgent(load_policy(agent.target), seed)
    return agent.make(rules, num_players, seed, trust=trust)


def default_catalogue(extra: Sequence[str] = ()) -> dict[str, CatalogueEntry]:
    """The styles, the shipped policies, then ``extra`` entries ``NAME=SPEC`` from the command
    line (ValueError for a malformed one or a name already taken)."""
    out: dict[str, CatalogueEntry] = {}
    for name, style in STYLES.items():
        out[name] = CatalogueEntry(name, name, style.summary, cheats=style.cheats)
    for name in shipped_policies():
        summary = str(load_policy(name).meta.get("summary") or "learned policy")
        out[name] = CatalogueEntry(name, name, summary)
    for item in extra:
        name, sep, spec = item.partition("=")
        name, spec = name.strip(), spec.strip()
        if not sep or not name or not spec:
            raise ValueError(f"--agent {item!r}: write NAME=SPEC, e.g. strong=search:sims=2000")
        if len(name) > MAX_NAME or not all(c.isalnum() or c in "_-." for c in name):
            raise ValueError(
                f"--agent {item!r}: the name must be letters, digits, '_', '-' or '.' (at most 40)"
            )
        if name in out or name in STYLE_ALIASES or name == HUMAN:  # records name the seats by it
            raise ValueError(f"--agent {item!r}: the name {name!r} is already taken")
        out[name] = CatalogueEntry(name, spec, _summary(spec))
    return out


def _summary(spec: str) -> str:
    """A one-line description of an operator's agent spec (checked here, before any game)."""
    agent = parse_agent(spec, where="--agent")  # ValueError names what is wrong
    if agent.kind == "policy":
        return f"learned policy {spec}"
    if agent.kind == "checkpoint":
        return f"MaskablePPO checkpoint {Path(agent.target).name}"
    if agent.kind == "style":
        return canonical_policy(spec)
    return f"{agent.kind} agent {agent.label}"

"""Agents by name: ``make("bluffer:bluff=0.3,challenge=0.8", seed=1)`` and :func:`available`."""

from __future__ import annotations

from pathlib import Path

from uno_env.engine.rng import check_seed
from uno_env.sim.learned import is_learned_policy, load_policy, shipped_policies
from uno_env.styles.registry import STYLES, available_styles, parse_policy

from .base import Agent
from .exported_agent import ExportedAgent
from .random_agent import RandomAgent
from .scripted import ScriptedAgent


def make(spec: str | Path, seed: int | None = None) -> Agent:
    """The agent named by ``spec``: a style name, optionally with ``:key=value,...``, or an
    exported learned policy (a shipped name such as ``distilled_uno_2p``, or a ``.npz`` path).

    ``"random_legal"`` (also ``"random"``) is :class:`RandomAgent`; exported policies are
    :class:`ExportedAgent`; every other name of :func:`available` (``"random_playable"``, the
    literature's random player, included) is a :class:`ScriptedAgent` running the compiled
    style. Unknown names or parameters raise ValueError listing the valid ones. SB3
    checkpoints load with :class:`PolicyAgent`. A ``spec`` that is not text raises TypeError and a
    ``seed`` that is not an integer in ``0..2**63-1`` ValueError, whatever the kind of agent.
    """
    if isinstance(spec, Path):  # an exported policy's file
        spec = str(spec)
    if not isinstance(spec, str):
        raise TypeError(
            f"agents.make takes an agent name: a style ('greedy', 'bluffer:bluff=0.3'), a shipped policy "
            f"('ppo_uno_2p') or a .npz path; got {type(spec).__name__} {spec!r:.80}"
        )
    if seed is not None:
        seed = check_seed(seed)
    if is_learned_policy(spec):
        return ExportedAgent(spec, seed)
    style, _ = parse_policy(spec)  # validates name and parameters
    if style.name == "random_legal":
        return RandomAgent(seed)
    return ScriptedAgent(spec, seed)


def available() -> dict[str, str]:
    """Every agent name with a one-line description: the styles, then the shipped policies."""
    names = available_styles()
    for name in shipped_policies():
        policy = load_policy(name)
        names[name] = str(policy.meta.get("summary") or f"learned policy ({policy.rules.split()[0]})")
    return names


def describe() -> str:
    """A Markdown table of the styles: name, idea, parameters (default, range)."""
    lines = ["| style | idea | parameters |", "| --- | --- | --- |"]
    for style in STYLES.values():
        params = "; ".join(
            f"`{p.name}` = {p.decode(p.default)} ({p.allowed()}): {p.doc}" for p in style.params
        )
        lines.append(f"| `{style.name}` | {style.idea} | {params or '-'} |")
    return "\n".join(lines)

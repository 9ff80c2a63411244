"""Agents by name: ``make("bluffer:bluff=0.3,challenge=0.8", seed=1)`` and :func:`available`."""

from __future__ import annotations

from uno_env.policies import STYLES, available_styles, parse_policy

from .base import Agent
from .random_agent import RandomAgent
from .scripted import ScriptedAgent


def make(spec: str, seed: int | None = None) -> Agent:
    """The agent named by ``spec``: a style name, optionally with ``:key=value,...``.

    ``"random_legal"`` (also ``"random"``) is :class:`RandomAgent`; every other name of
    :func:`available` (``"random_playable"``, the literature's random player, included) is a
    :class:`ScriptedAgent` running the compiled style. Unknown names or parameters raise
    ValueError listing the valid ones. Learned policies load with :class:`PolicyAgent`.
    """
    style, _ = parse_policy(spec)  # validates name and parameters
    if style.name == "random_legal":
        return RandomAgent(seed)
    return ScriptedAgent(spec, seed)


def available() -> dict[str, str]:
    """Every agent name with a one-line description."""
    return available_styles()


def describe() -> str:
    """A Markdown table of the styles: name, idea, parameters (default, range)."""
    lines = ["| style | idea | parameters |", "| --- | --- | --- |"]
    for style in STYLES.values():
        params = "; ".join(
            f"`{p.name}` = {p.decode(p.default)} ({p.low:g}..{p.high:g}): {p.doc}" for p in style.params
        )
        lines.append(f"| `{style.name}` | {style.idea} | {params or '-'} |")
    return "\n".join(lines)

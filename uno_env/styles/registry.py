"""The registry of compiled play styles: names, codes, parameters and their text form.

:data:`STYLES` collects the entries that each style module declares next to its kernels
(:mod:`.baselines`, :mod:`.scripted`, :mod:`.monte_carlo`, :mod:`.search`), in that order,
which is the order users see. :func:`parse_policy` reads ``"name:key=value,..."``
(``"bluffer:bluff=0.3,challenge=0.8"``) and :func:`policy_table` builds the code and
parameter arrays the compiled loops take. :data:`POLICIES` and :data:`POLICY_DOCS` are
computed from :data:`STYLES`, so the simulator, the envs, the CLI, the tournament and the
study all see a new style. A ``net=`` parameter names an exported network: a shipped one
(:func:`shipped_policies`) or a ``.npz`` path.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from ..spelling import suggestion
from .baselines import BASELINE_STYLES
from .monte_carlo import MONTE_CARLO_STYLES
from .params import NETWORKS, NUM_POLICY_PARAMS, P_NET, P_ROLLOUT, P_VALUE, STYLE_ALIASES, Style
from .scripted import SCRIPTED_STYLES
from .search import ROLLOUT_NET, SEARCH_STYLES, VALUE_NET

STYLES: dict[str, Style] = {
    s.name: s for s in (*BASELINE_STYLES, *SCRIPTED_STYLES, *MONTE_CARLO_STYLES, *SEARCH_STYLES)
}
"""Every compiled style by name, in registry order."""
NUM_POLICIES = len(STYLES)
"""Number of compiled styles; their codes are ``0 .. NUM_POLICIES - 1`` (tested)."""
PRETRAINED_DIR = Path(__file__).parent.parent / "pretrained"
"""The exported policies shipped in the package."""


@cache
def _shipped_by_name() -> dict[str, Path]:
    # the package folder is listed once per process: agent specs ask whether a name is a shipped
    # policy for every game a study or tournament plays, and a listing per call took most of a
    # small study's time
    if not PRETRAINED_DIR.is_dir():
        return {}
    return {p.stem: p for p in sorted(PRETRAINED_DIR.glob("*.npz"))}


def shipped_policies() -> dict[str, Path]:
    """The pretrained policies in the package, by name (file stem); the folder is read once
    per process (a copy: the caller may change it)."""
    return dict(_shipped_by_name())


def names_exported_policy(text: str) -> bool:
    """Whether a policy text names an exported policy: a shipped name or a ``.npz`` path (not
    a style with parameters such as ``search:net=policy.npz``)."""
    name = text.strip()
    style = name.partition(":")[0].strip()
    if ":" in name and STYLE_ALIASES.get(style, style) in STYLES:
        return False
    return name.endswith(".npz") or name in shipped_policies()


def network_id(text: str, where: str = "parameter 'net'") -> int:
    """The index in :data:`NETWORKS` of the exported network ``text`` names (a shipped name or
    an ``.npz`` path), added if new; ValueError when it names none. The file itself is read
    and checked where the search is seated (:mod:`uno_env.sim.guided`)."""
    name = text.strip()
    if not names_exported_policy(name):
        known = ", ".join(shipped_policies()) or "none"
        raise ValueError(
            f"{where} must name an exported network: a .npz path or a shipped one ({known}); got {text!r}"
        )
    if name not in NETWORKS:
        NETWORKS.append(name)
    return NETWORKS.index(name)


def available_styles() -> dict[str, str]:
    """Every compiled style name with its one-line summary."""
    return {name: style.summary for name, style in STYLES.items()}


OTHER_AGENT_PREFIXES = ("cmd", "llm", "py", "file")
"""Agent-spec prefixes (:mod:`agents.spec`) of agents that are not compiled styles."""


def _names_another_kind_of_agent(text: str, name: str) -> bool:
    """Whether ``text`` reads as an agent spec that is no compiled style: ``FILE.py:NAME``,
    ``MODULE:ATTR`` (a dotted module), ``cmd:``/``llm:``/``py:``/``file:``, a path or a checkpoint."""
    return (
        name in OTHER_AGENT_PREFIXES
        or name.endswith(".py")
        or "." in name
        or text.startswith(("/", "./", "../", "~"))
        or text.endswith(".zip")
    )


def parse_policy(text: str) -> tuple[Style, np.ndarray]:
    """Read ``"name"`` or ``"name:key=value,..."``; return the style and its parameter array.

    A bare value sets the style's first parameter (``"search:400"`` is ``"search:sims=400"``).
    Unknown names and parameters raise ValueError listing the valid ones; omitted parameters
    take their defaults. The names of :data:`STYLE_ALIASES` read as the styles they name. An
    empty entry (``"greedy:"``, ``"search:sims=5,"``, ``"search:,sims=5"``) is refused.
    """
    name, colon, rest = text.strip().partition(":")
    name = name.strip()
    style = STYLES.get(STYLE_ALIASES.get(name, name))
    if style is None:
        if _names_another_kind_of_agent(text.strip(), name):
            raise ValueError(
                f"{text.strip()!r} is not a compiled play style: it reads as an agent spec of another kind "
                "(a Python file or module, a program, a chat model or a checkpoint), and only compiled "
                "styles and exported policies (.npz, shipped names) run here; make the agent "
                f"(agents.spec.parse_agent({text.strip()!r}).make()) and pass the object, which the envs' "
                "opponents, agents.play and run_tournament take (uno_env.simulate takes compiled ones only)"
            )
        aliases = ", ".join(f"{a} (= {b})" for a, b in STYLE_ALIASES.items())
        raise ValueError(
            f"unknown play style {name!r}{suggestion(name, [*STYLES, *STYLE_ALIASES])}; available: "
            f"{', '.join(STYLES)}; also {aliases}"
        )
    params = style.default_params()
    by_name = {p.name: p for p in style.params}
    seen: set[str] = set()
    items = rest.split(",") if colon else []
    if any(not item.strip() for item in items):
        # "search:sims=5," or "greedy:" is most likely a parameter lost in editing: never read as
        # if it were not there
        allowed = (
            f"{name} alone or {name}:key=value,... with one key=value between commas (its parameters: "
            f"{', '.join(by_name)})"
            if by_name
            else f"{name} alone (it has no parameters)"
        )
        raise ValueError(f"style spec {text.strip()!r} has an empty parameter entry; allowed: {allowed}")
    for position, item in enumerate(items):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep and position == 0 and style.params and key not in by_name:
            key, value = style.params[0].name, item  # "search:400": the first parameter
        elif not sep:
            raise ValueError(f"style parameter {item.strip()!r} of {name!r} is not key=value")
        if key not in by_name:
            valid = ", ".join(by_name) or "none"
            raise ValueError(
                f"style {name!r} has no parameter {key!r}{suggestion(key, by_name)}; its parameters: {valid}"
            )
        if key in seen:
            raise ValueError(f"style parameter {key!r} of {name!r} is given twice")
        seen.add(key)
        chosen = by_name[key]
        where = f"parameter {chosen.name!r} of style {name!r}"
        params[chosen.slot] = (
            network_id(value, where) if chosen.network else chosen.encode(value.strip(), name)
        )
    if style.is_search and params[P_NET] < 0:
        needs = [p.name for p in style.params if p.guided and p.name != "net" and p.name in seen]
        if params[P_ROLLOUT] == ROLLOUT_NET:
            needs.append("rollout=net")
        if params[P_VALUE] == VALUE_NET:
            needs.append("value=net")
        if needs:
            raise ValueError(
                f"{', '.join(needs)} of {name!r} {'needs' if len(needs) == 1 else 'need'} a network: add "
                "net=NAME (an exported .npz or a shipped name)"
            )
    return style, params


def canonical_policy(text: str) -> str:
    """The canonical text of a policy name with parameters (every default written out)."""
    style, params = parse_policy(text)
    return style.format(params)


POLICIES: dict[str, int] = {name: style.code for name, style in STYLES.items()}
"""Compiled policy name -> code (:func:`choose_action`'s ``policy``); see :data:`STYLES`."""

POLICY_DOCS: dict[str, str] = available_styles()
"""Compiled policy name -> one-line description."""


def policy_table(names: list[str], networks: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Codes (int64, one per name) and parameters (int64, ``len(names) x NUM_POLICY_PARAMS``)
    of policy texts such as ``"greedy"`` or ``"bluffer:bluff=0.3,challenge=0.8"``.

    A search guided by a network (``search:net=NAME``) needs a caller that seats networks
    (``networks=True``: the batch simulator and :mod:`uno_env.sim.guided`); elsewhere it is
    refused with a ValueError, never played without its network."""
    codes = np.zeros(len(names), dtype=np.int64)
    params = np.full((len(names), NUM_POLICY_PARAMS), -1, dtype=np.int64)
    for i, name in enumerate(names):
        style, values = parse_policy(name)
        if values[P_NET] >= 0 and not networks:
            raise ValueError(
                f"{name!r}: a search guided by a network plays in simulate, tournaments, studies, sweeps and "
                "at a Game (agents.make), not here (compiled styles without networks only)"
            )
        codes[i] = style.code
        params[i] = values
    return codes, params

"""The parameter array of the compiled styles: one slot per parameter name, and the style records.

Every compiled style takes an ``int64`` array of :data:`NUM_POLICY_PARAMS` slots per player
(built by :func:`uno_env.styles.registry.policy_table` or
:func:`~uno_env.styles.registry.parse_policy`). Each parameter name has a slot of its own
below, never shared with another name (``tests/test_agents_styles.py`` checks), so every
style reads its parameters where the text form put them. Rates and probabilities are stored
in millionths (:data:`PPM`), counts as integers, and a negative slot means the style's
default (:func:`param`).

:class:`Style` and :class:`StyleParam` are the records each style module declares its styles
with, next to their kernels; :mod:`uno_env.styles.registry` collects them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..compiler.jit import njit

NUM_POLICY_PARAMS = 24
"""Slots of a parameter array: room for every slot below and for parameters of styles added
later (a test checks that every declared slot fits)."""
PPM = 1_000_000
AUTO = -1  # a stored "auto": the default for the game's player count
NO_NETWORK = -1  # the stored ``net`` of a search without a network

# one slot per parameter name (styles that share a name share its meaning)
P_DOUBT = 0  # evidence styles: challenge when P(bluff) >= doubt (millionths)
P_THREAT = 1  # hoarder, blocker: an opponent with this many cards or fewer is a threat
P_LIMIT = 2  # hoarder: beyond this many cards in its own hand it stops hoarding
P_BLUFF = 3  # bluffer: chance of playing a Wild Draw Four as a bluff (millionths)
P_CHALLENGE = 4  # bluffer: chance of challenging a Wild Draw Four (millionths)
P_RESERVE = 5  # cautious: wild cards kept back as sure last cards
P_SAMPLES = 6  # monte_carlo: determinisations per decision (each rolls out every candidate)
P_MARGIN = 7  # monte_carlo: extra win share (millionths) a move needs to overrule the greedy choice
P_DEPTH = 8  # monte_carlo, search, oracle: decisions per rollout (0: to the end of the round)
P_SIMS = 9  # search, oracle: simulations per decision (one rollout of one candidate action)
P_TRUST = 10  # search: share (millionths) of samples that believe the players' hints
P_CONFIDENCE = 11  # search, oracle: standard errors (hundredths) by which a move must beat the default
P_ROLLOUT = 12  # search, oracle: style code of the rollout policy at every seat
P_EXPLORE = 13  # search, oracle: chance (millionths) of a uniformly random rollout decision
P_PILE = 14  # oracle: 1 to see the order of the draw pile as well
P_VALUE = 15  # search, oracle: the leaf value model (0 hand sizes, 1 hand sizes and wilds, 2 net)
# a search guided by a network (``search:net=NAME``, uno_env.sim.guided): slots read only there
P_NET = 16  # search, oracle: the network (parsed: an id of NETWORKS; compiled: its row in the bank)
P_CRITIC = 17  # search, oracle, compiled only: the bank row of the network's critic (-1: none)
P_TOP = 18  # search, oracle: candidates searched, the network's most likely first (0: every one)
P_DEFAULT = 19  # search, oracle: the move kept unless beaten: the rollout style's or the network's
P_OWN = 20  # search, oracle: who plays the searcher's own seat in its rollouts
P_INFER = 21  # search: share (millionths) of samples that must agree with the last move (rollout style)

NETWORKS: list[str] = []
"""The networks named by parsed ``net=`` parameters in this process: ``params[P_NET]`` of a parsed
policy is an index of this list (the seating code, :func:`uno_env.sim.guided.seat_guides`, loads the
file and writes the network's bank row in its own copy of the parameters)."""


@njit(cache=True, internal=True)
def param(params: np.ndarray, slot: int, default: int) -> int:
    """Parameter ``slot`` of a style, or ``default`` where the slot is negative."""
    value = params[slot]
    return default if value < 0 else value


# ================================================================ the style records (Python)
@dataclass(frozen=True)
class StyleParam:
    """One parameter of a style: its slot in the parameter array and allowed values.

    A ``rate`` is a probability written as a number in [0, 1] and stored in millionths;
    with ``choices`` the value is one of those names, stored as its index; otherwise the
    value is an integer.
    """

    name: str
    slot: int
    default: int
    low: float
    high: float
    rate: bool
    doc: str
    choices: tuple[str, ...] = ()
    auto: bool = False  # "auto" (stored as AUTO): the default for the game's player count
    network: bool = False  # the value names an exported network (stored: its index in NETWORKS)
    guided: bool = False  # only with a network (``net=``): left out of the text without one
    quiet: bool = False  # left out of the text at its default (added later: earlier names stay)

    def encode(self, text: str, style: str) -> int:
        """The stored value of ``text``; raise ValueError naming the allowed range."""
        where = f"parameter {self.name!r} of style {style!r}"
        if self.network:
            raise ValueError(f"{where} names a network: read it with uno_env.styles.registry.parse_policy")
        if self.auto and text == "auto":
            return AUTO
        if self.choices:
            text = STYLE_ALIASES.get(text, text)  # "rollout=random" is random_legal
            if text not in self.choices:
                raise ValueError(f"{where} must be one of {', '.join(self.choices)}; got {text!r}")
            return self.choices.index(text)
        try:
            value = float(text) if self.rate else int(text)
        except ValueError:
            kind = "a number" if self.rate else "an integer"
            raise ValueError(f"{where} must be {kind}, got {text!r}") from None
        if not self.low <= value <= self.high:
            raise ValueError(f"{where} must be between {self.low:g} and {self.high:g}, got {text}")
        return round(value * PPM) if self.rate else int(value)

    def decode(self, stored: int) -> str:
        """The text form of a stored value."""
        if self.network:
            return NETWORKS[stored] if 0 <= stored < len(NETWORKS) else "none"
        if self.auto and stored == AUTO:
            return "auto"
        if self.choices:
            return self.choices[stored]
        return f"{stored / PPM:g}" if self.rate else str(stored)

    def allowed(self) -> str:
        """The allowed values as text (``a|b|c`` or ``low..high``, with ``|auto``)."""
        if self.network:
            return "a shipped network's name or an exported .npz path"
        text = "|".join(self.choices) if self.choices else f"{self.low:g}..{self.high:g}"
        return text + "|auto" if self.auto else text


@dataclass(frozen=True)
class Style:
    """A named compiled play style: its code, a one-line summary, its idea per decision and
    its parameters. ``cheats``: it reads hidden information (the oracle); tournaments and
    studies refuse it unless cheating agents are allowed."""

    name: str
    code: int
    summary: str
    idea: str
    params: tuple[StyleParam, ...] = ()
    cheats: bool = False

    def default_params(self) -> np.ndarray:
        """The parameter array with every default filled in."""
        out = np.full(NUM_POLICY_PARAMS, -1, dtype=np.int64)
        for p in self.params:
            out[p.slot] = p.default
        return out

    def format(self, params: np.ndarray) -> str:
        """Canonical ``name:key=value,...`` text of this style with ``params`` (the parameters
        of a network-guided search only when it has a network, a ``quiet`` one only away from
        its default)."""
        if not self.params:
            return self.name
        guided = params[P_NET] >= 0 if self.is_search else False
        values = ",".join(
            f"{p.name}={p.decode(int(params[p.slot]))}"
            for p in self.params
            if (guided or not p.guided) and not (p.quiet and int(params[p.slot]) in (p.default, -1))
        )
        return f"{self.name}:{values}"

    @property
    def is_search(self) -> bool:
        """Whether this is one of the search agents (which a network may guide: it has ``net``)."""
        return any(p.network for p in self.params)


def _doubt(default: int) -> StyleParam:
    return StyleParam(
        "doubt",
        P_DOUBT,
        default,
        0.0,
        1.0,
        True,
        "challenge a Wild Draw Four when the estimated chance of a bluff is at least this",
    )


STYLE_ALIASES = {"random": "random_legal"}
"""Older names still read: ``random`` is ``random_legal`` (uniform over the legal actions)."""


def spelled_out(text: str) -> str:
    """An agent's text as reports name it: an alias spelled out (``random`` reads
    ``random_legal``, so a "vs random" line says which random player), in every seat of a seat
    table (``a | b``, or ``a/b`` of names: a text whose parts name files, with a ``.`` in
    them, is one path and split no further); everything else unchanged."""
    if "|" in text:
        return " | ".join(spelled_out(part.strip()) for part in text.split("|"))
    parts = text.split("/")
    if len(parts) > 1 and any("." in part or not part for part in parts):
        return text  # a path (runs/x/model.zip), not a seat table
    named = []
    for part in parts:
        head, sep, params = part.partition(":")
        named.append(STYLE_ALIASES.get(head, head) + sep + params)
    return "/".join(named)

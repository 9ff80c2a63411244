"""What an agent may see: :class:`PublicView`, a game at a decision with the hidden parts wiped.

Python agents decide from a :class:`PublicView` (an environment builds it from its own
buffers, :meth:`PublicView.of` from a :class:`~uno_env.Game`); a compiled style run through
:meth:`PublicView.style_action` sees only :meth:`PublicView.redacted`, and draws from the
agent's own generator (:func:`agent_generator`), never from the game's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..engine import layout as L
from ..engine.rng import seed_rng
from .dispatch import choose_action
from .facts import own_bluff_known
from .public import PublicAccessors
from .search import search_decision

if TYPE_CHECKING:
    from ..engine.rules import RuleSet
    from ..game.facade import Game


@dataclass(frozen=True)
class PublicView(PublicAccessors):
    """A game at a decision as an agent may see it: the state buffer and the rules.

    The typed accessors (:class:`uno_env.styles.public.PublicAccessors`: ``hand()``,
    ``top_card``, ``active_colour``, ``phase``, ``decision()``, ``drawn_card``,
    ``hand_sizes()``, ``pending_penalty``, ``scores()``, ``legal_actions()``,
    ``public_history()``...) read only what the player to move may know, named as
    :class:`~uno_env.game.facade.Game` names it.

    ``state`` is the game's full state buffer and ``spec`` its compiled rule set; nothing here
    writes to them. :meth:`redacted` gives the copy an agent actually reads: the other
    players' hands, the draw pile's order, the chance generator and the engine's bluff flag
    (unless it is the mover's own, :func:`own_bluff_known`) are wiped, so an agent cannot use
    hidden information even by mistake. Build one with
    :meth:`of` from a :class:`~uno_env.game.facade.Game`; an environment builds it from its own
    buffers (``PublicView(state, spec)``).
    """

    state: np.ndarray
    spec: np.ndarray
    rules: RuleSet | None = None
    """The rule set, when the caller has it (the game's; the text and JSON views print it)."""
    log: Sequence[tuple[int, int, int]] | None = field(default=None, repr=False, compare=False)
    log_length: int = 0

    @classmethod
    def of(cls, game: Game) -> PublicView:
        """The view of ``game`` (a :class:`~uno_env.game.facade.Game`) at its current decision."""
        return cls(game.state, game.compiled.spec, game.rules, game.log, len(game.log))

    @property
    def seat(self) -> int:
        """The seat that decides now (-1 once the game is over)."""
        return int(self.state[L.S_CURRENT])

    @property
    def num_actions(self) -> int:
        """Size of the action table of the rule set's deck family."""
        return int(self.spec[L.SP_NUM_ACTIONS])

    def redacted(self) -> np.ndarray:
        """A copy of the state holding only what the player to move may know."""
        out = self.state.copy()
        seat = int(out[L.S_CURRENT])
        for other in range(L.MAX_PLAYERS):
            if other != seat:
                out[L.HANDS + other * L.MAX_FACES : L.HANDS + (other + 1) * L.MAX_FACES] = 0
                out[L.HELD + other] = 0
        out[L.DRAW_PILE : L.DRAW_PILE + L.MAX_CARDS] = 0
        out[L.RNG : L.RNG + L.RNG_WORDS] = 0
        if not own_bluff_known(out):
            out[L.S_BLUFF] = 0
        return out

    def style_action(
        self,
        style: int,
        params: np.ndarray,
        mask: np.ndarray,
        generator: np.ndarray,
        full: bool = False,
        chooser: Callable[[np.ndarray, np.ndarray, np.ndarray, int], int] | None = None,
    ) -> int:
        """The action compiled ``style`` (with ``params``) takes here, seeing only :meth:`redacted`
        (``full``: the whole state, for a style that cheats by design, the oracle).

        ``mask`` is the mover's legal-action mask (nonzero: legal); ``generator`` the caller's
        own generator (:func:`agent_generator`), which the style draws from and which is
        advanced in place, so a Python agent's choices depend on its own seed, never on the
        game's. ``chooser(state, spec, mask, count)`` decides instead of :func:`choose_action`
        when given (a search guided by a network, :mod:`uno_env.sim.guided`). Returns -1 when
        nothing is legal.
        """
        state = self.state.copy() if full else self.redacted()
        state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = generator
        legal = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        legal[: self.num_actions] = mask[: self.num_actions] != 0
        if chooser is not None:
            action = chooser(state, self.spec, legal, int(legal.sum()))
        else:
            action = choose_action(state, self.spec, legal, int(legal.sum()), style, params)
        generator[:] = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS]
        return int(action)

    def search_with_counts(
        self,
        params: np.ndarray,
        mask: np.ndarray,
        generator: np.ndarray,
        full: bool,
        visits: np.ndarray,
        values: np.ndarray,
    ) -> int:
        """:meth:`style_action` of the search (``full``: the oracle) that also reports what it
        saw: the rollouts per action id in ``visits`` and their mean value in ``values``
        (:func:`uno_env.styles.search.search_decision`). The same action, the generator advanced alike."""
        state = self.state.copy() if full else self.redacted()
        state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = generator
        legal = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        legal[: self.num_actions] = mask[: self.num_actions] != 0
        action = search_decision(state, self.spec, legal, int(legal.sum()), params, full, visits, values)
        generator[:] = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS]
        return int(action)


def agent_generator(seed: int, stream: int) -> np.ndarray:
    """A generator of its own for a Python agent, seeded from ``(seed, stream)`` (see
    :meth:`PublicView.style_action`)."""
    generator = np.zeros(L.RNG_WORDS, dtype=np.int64)
    seed_rng(generator, 0, seed, stream)
    return generator

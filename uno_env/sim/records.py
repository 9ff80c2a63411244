"""Records of the batch simulator's games: each game of :func:`uno_env.simulate` played again
through :class:`~uno_env.Game` with the same compiled styles, as a :class:`~uno_env.game.records.GameRecord`.

The batch loops keep no action history; :func:`record_simulated` replays chosen games with
the styles deciding from the full game state and the game's own agent generator, as the
batch loop does, so the records are the batch's games (tested).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import layout as L
from ..engine.rules import RuleSet, compile_spec, load_rules
from ..game.facade import Game
from ..game.records import GameRecord, record_game
from ..styles.baselines import POLICY_RANDOM_LEGAL, random_action
from ..styles.dispatch import choose_action
from ..styles.registry import parse_policy, policy_table


def record_simulated(
    rules: RuleSet | str | Path,
    num_players: int,
    seed: int,
    policies: str | Sequence[str],
    games: Iterable[int],
    **overrides: Any,
) -> list[GameRecord]:
    """Records of games ``i`` of ``uno_env.simulate(rules, num_players, ..., seed, policies)``.

    The batch engine keeps no action history, so each game is played again through
    :class:`~uno_env.Game` (dealt with seed ``seed + i``) with the same compiled styles
    deciding from the full game state and the game's own agent generator, exactly as
    :func:`uno_env.sim.batch.play_games_with_params` does: the records are the batch's games.
    """
    ruleset = load_rules(rules, **overrides)
    names = [policies] * num_players if isinstance(policies, str) else list(policies)
    if len(names) != num_players:
        raise ValueError(f"policies lists {len(names)} names for {num_players} players")
    codes, params = policy_table(names)
    spec = compile_spec(ruleset)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    out = []
    for i in games:
        game = Game(ruleset, num_players, seed=seed + i)
        state = game.state  # the compiled styles advance its agent generator, as in the batch loop
        while not game.is_over():
            mask[:] = 0
            legal = game.legal_actions()
            mask[legal] = 1
            seat = game.current_player
            if codes[seat] == POLICY_RANDOM_LEGAL:
                action = random_action(state, mask, len(legal))
            else:
                action = choose_action(state, spec, mask, len(legal), codes[seat], params[seat])
            game.step(int(action))
        out.append(
            record_game(
                game,
                agents=[_style_name(n) for n in names],
                source="simulate",
                extra={"game_index": int(i)},
            )
        )
    return out


def _style_name(policy: str) -> str:
    """The canonical text of a compiled style (``"bluffer:bluff=0.3,..."``)."""
    style, values = parse_policy(policy)
    return style.format(values)

"""Time per decision of each agent, on the decisions it meets against the field, one core.

For every agent: play games of the rule set with the agent in seat ``g mod N`` and the field
(default ``blocker``) at the other seats, keep the states where the agent had to decide,
then time the agent deciding every one of them again inside one compiled loop (no Python
per decision), on this process's CPU clock. Decisions with a single legal action count:
they are decisions the agent meets in play (the search agents answer them at once). Exported
policies are timed as the batch simulator runs them: observation encoding plus the compiled
forward pass, one observation at a time (the batched pass of a study is cheaper per row).
A search guided by a network (``search:net=NAME``) is timed with its compiled network, on the
decisions it meets playing itself.

::

    python benchmarks/decision_time.py --agents search oracle distilled_uno_2p blocker --players 2
    python benchmarks/decision_time.py --agents search --players 4 --positions 400
    python benchmarks/decision_time.py --agents search search:net=expert_uno_2p --players 2

The figures depend on the machine and on its load: the script prints each agent's CPU and wall
milliseconds per decision (their ratio is the share of the CPU the timing got) and, on stderr,
the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

import numpy as np
from numba import njit

import uno_env
from uno_env.engine import layout as L
from uno_env.engine.rules import compile_spec
from uno_env.game.encoding import encode, obs_layout, observe_state
from uno_env.sim.guided import GuidedChooser, guided_choose, network_of
from uno_env.sim.learned import best_legal, forward_rows, is_learned_policy, load_policy, pack, widest_layer
from uno_env.styles.dispatch import choose_action
from uno_env.styles.registry import policy_table
from uno_env.styles.view import PublicView


@njit(cache=True)
def decide_all(states: np.ndarray, spec: np.ndarray, masks: np.ndarray, code: int, params: np.ndarray) -> int:
    """Every state's decision by compiled policy ``code`` (on a copy); a checksum of the actions."""
    state = np.empty(states.shape[1], dtype=np.int64)
    total = 0
    for i in range(states.shape[0]):
        state[:] = states[i]
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        total += choose_action(state, spec, masks[i], count, code, params)
    return total


@njit(cache=True)
def net_decide_all(
    states: np.ndarray,
    spec: np.ndarray,
    masks: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    obs_size: int,
) -> int:
    """Every state's decision by network 0 of the bank, one observation at a time."""
    x = np.zeros((1, obs_size), dtype=np.float32)
    width = widest_layer(table)
    h_a = np.zeros((1, width), dtype=np.float32)
    h_b = np.zeros((1, width), dtype=np.float32)
    rows = np.zeros(1, dtype=np.int64)
    total = 0
    for i in range(states.shape[0]):
        encode(states[i], spec, states[i, L.S_CURRENT], offsets, x[0])
        forward_rows(bank, table, 0, x, rows, 1, h_a, h_b)
        total += best_legal(bank, table, 0, h_a[0], masks[i], spec[L.SP_NUM_ACTIONS])
    return total


@njit(cache=True)
def guided_decide_all(
    states: np.ndarray,
    spec: np.ndarray,
    masks: np.ndarray,
    code: int,
    params: np.ndarray,
    bank: np.ndarray,
    table: np.ndarray,
    offsets: np.ndarray,
    obs_size: int,
) -> int:
    """Every state's decision by a search guided by the bank's networks (on a copy)."""
    state = np.empty(states.shape[1], dtype=np.int64)
    total = 0
    for i in range(states.shape[0]):
        state[:] = states[i]
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        total += guided_choose(state, spec, masks[i], count, code, params, bank, table, offsets, obs_size)
    return total


def positions(
    rules: str, players: int, agent: str, field: str, count: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """States (and masks) where ``agent`` decides in games against ``field`` (before deciding)."""
    states: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    learned = load_policy(agent) if is_learned_policy(agent) else None
    guided = GuidedChooser(agent) if network_of(agent) is not None else None
    game_index = 0
    while len(states) < count:
        me = game_index % players
        names = [field] * players
        names[me] = field if learned is not None or guided is not None else agent
        codes, params = policy_table(names)
        game = uno_env.Game(rules, players, seed=seed + game_index)
        spec = compile_spec(game.rules)
        mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        while not game.is_over() and len(states) < count:
            seat = game.current_player
            mask[:] = 0
            mask[: game.num_actions] = game.legal_mask()
            if seat == me:
                states.append(game.state.copy())
                masks.append(mask.copy())
            if seat == me and learned is not None:
                obs = observe_state(game.state, spec, seat, game.rules.deck_family)
                action = learned.act(obs, game.legal_mask())
            elif seat == me and guided is not None:
                action = guided(PublicView(game.state, spec).redacted(), spec, mask, int(mask.sum()))
            else:
                action = int(
                    choose_action(game.state.copy(), spec, mask, int(mask.sum()), codes[seat], params[seat])
                )
            game.step(action)
        game_index += 1
    return np.stack(states), np.stack(masks)


def time_agent(rules: str, players: int, agent: str, field: str, count: int, seed: int) -> dict[str, float]:
    """CPU and wall milliseconds per decision of ``agent`` (mean over ``count`` positions)."""
    ruleset = uno_env.load_rules(rules)
    spec = compile_spec(ruleset)
    states, masks = positions(rules, players, agent, field, count, seed)
    if network_of(agent) is not None:
        chooser = GuidedChooser(agent)
        g_params, g_bank, g_table, offsets, size = chooser.arguments(spec)
        code = chooser.style.code

        def run() -> int:
            return int(guided_decide_all(states, spec, masks, code, g_params, g_bank, g_table, offsets, size))
    elif is_learned_policy(agent):
        bank, table = pack([load_policy(agent)])
        layout = obs_layout(ruleset.deck_family)

        def run() -> int:
            return int(net_decide_all(states, spec, masks, bank, table, layout.offsets, layout.size))
    else:
        codes, params = policy_table([agent])

        def run() -> int:
            return int(decide_all(states, spec, masks, int(codes[0]), params[0]))

    run()  # compile and warm
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    per = 1000 / len(states)
    return {"positions": len(states), "cpu_ms": cpu * per, "wall_ms": wall * per}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", required=True, help="compiled styles or exported policies")
    parser.add_argument("--rules", default="uno")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--field", default="blocker", help="the other seats (default: blocker)")
    parser.add_argument("--positions", type=int, default=300, help="decisions timed per agent")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"{args.rules}, {args.players} players, against {args.field}:")
    print("| agent | decisions timed | CPU ms/decision | wall ms/decision |")
    print("| --- | ---: | ---: | ---: |")
    for agent in args.agents:
        r = time_agent(args.rules, args.players, agent, args.field, args.positions, args.seed)
        print(f"| `{agent}` | {r['positions']:,.0f} | {r['cpu_ms']:.4g} | {r['wall_ms']:.4g} |", flush=True)
    after = os.getloadavg()
    note = "the CPU clock is less sensitive to a busy machine than the wall clock"
    print(f"\nload average before {load[0]:.2f}, after {after[0]:.2f} ({note})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The compiled forward pass of exported networks (:mod:`uno_env.sim.learned`), exactly.

The batch simulator, the guided search and expert iteration all play through
:func:`~uno_env.sim.learned.forward_rows` and :func:`~uno_env.sim.learned.best_legal`. Their
docstrings promise sums in a fixed order (each unit adds its non-zero inputs in index order,
each logit its terms in input order), so a move never depends on the batch, on how the loops
are blocked, or on whether a hidden layer's zero inputs are added (an exact zero) or skipped.
These tests hold them to it bit for bit against a plain float32 reference that adds one term
at a time, on random networks whose widths are not multiples of the blocking (four inputs or
four actions at a time), tanh and ReLU, sparse and dense inputs, odd and even batches, every
count of legal actions, and ties.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from uno_env.sim.learned import (
    TANH_H,
    TANH_K,
    TANH_LIMIT,
    best_legal,
    forward_rows,
    net_action,
    pack_layers,
    widest_layer,
)


def tanh_reference(values: np.ndarray) -> np.ndarray:
    """The continued fraction of :func:`uno_env.sim.learned.tanh_unit`, in numpy float64."""
    x = np.clip(values.astype(np.float64), -TANH_LIMIT, TANH_LIMIT)
    y = x * x
    num = np.full_like(x, TANH_K[0])
    for c in TANH_K[1:]:
        num = num * y + c
    den = np.full_like(x, TANH_H[0])
    for c in TANH_H[1:]:
        den = den * y + c
    return (x * num / den).astype(np.float32)


def hidden_reference(
    weights: list[np.ndarray], biases: list[np.ndarray], activation: str, obs: np.ndarray
) -> np.ndarray:
    """The last hidden layer: each unit starts at its bias and adds ``input * weight`` for the
    non-zero inputs one at a time, in index order (float32 throughout)."""
    h: np.ndarray = obs.astype(np.float32)
    for w, b in zip(weights[:-1], biases[:-1], strict=True):
        out: np.ndarray = b.astype(np.float32).copy()
        for i in np.flatnonzero(h):
            out = out + np.float32(h[i]) * w[:, i]
        h = tanh_reference(out) if activation == "tanh" else np.maximum(out, np.float32(0.0))
    return h


def action_reference(w: np.ndarray, b: np.ndarray, hidden: np.ndarray, mask: np.ndarray) -> int:
    """The legal action with the highest logit (lowest id on ties), each logit summed in
    input order."""
    best, best_logit = -1, np.float32(-np.inf)
    for a in np.flatnonzero(mask):
        logit = np.float32(b[a])
        for i in range(hidden.shape[0]):
            logit = np.float32(logit + np.float32(hidden[i] * w[a, i]))
        if best < 0 or logit > best_logit:
            best, best_logit = int(a), logit
    return best


def random_network(
    rng: np.random.Generator, inputs: int, hidden: tuple[int, ...], actions: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    widths = [inputs, *hidden, actions]
    weights = [
        rng.normal(0, 1.5 / np.sqrt(n), (m, n)).astype(np.float32) for n, m in itertools.pairwise(widths)
    ]
    biases = [rng.normal(0, 0.3, m).astype(np.float32) for m in widths[1:]]
    return weights, biases


def sparse_observations(rng: np.random.Generator, rows: int, inputs: int) -> np.ndarray:
    """Rows from all-zero to dense, mostly 0/1 like the env's observation, some fractions."""
    obs = np.zeros((rows, inputs), dtype=np.float32)
    for r in range(rows):
        density = [0.0, 0.01, 0.05, 0.3, 1.0][r % 5]
        on = rng.random(inputs) < density
        obs[r, on] = 1.0
        scaled = on & (rng.random(inputs) < 0.3)
        obs[r, scaled] = rng.random(int(scaled.sum())).astype(np.float32) * 3 - 1
    return obs


@pytest.mark.parametrize(
    ("hidden", "activation"),
    [((13, 7), "tanh"), ((128, 128), "tanh"), ((6, 9, 5), "relu"), ((64, 64), "relu"), ((1, 3), "tanh")],
)
def test_hidden_layers_and_the_move_match_the_in_order_reference_bit_for_bit(
    hidden: tuple[int, ...], activation: str
) -> None:
    rng = np.random.default_rng(len(hidden) * 1000 + sum(hidden))
    inputs, actions, rows = 97, 11, 40
    weights, biases = random_network(rng, inputs, hidden, actions)
    bank, table = pack_layers([("net", tuple(weights), tuple(biases), activation)])
    obs = sparse_observations(rng, rows, inputs)
    width = widest_layer(table)
    h_a = np.zeros((rows, width), dtype=np.float32)
    h_b = np.zeros((rows, width), dtype=np.float32)
    # a batch in scrambled order: rows are independent of their batch and position; hidden
    # layers go two rows at a time, so an odd batch first leaves its last row alone
    order = rng.permutation(rows).astype(np.int64)
    forward_rows(bank, table, 0, obs, order, rows - 1, h_a, h_b)
    alone = order[rows - 2]
    np.testing.assert_array_equal(
        h_a[alone, : hidden[-1]], hidden_reference(weights, biases, activation, obs[alone])
    )
    forward_rows(bank, table, 0, obs, order, rows, h_a, h_b)
    for r in range(rows):
        expected = hidden_reference(weights, biases, activation, obs[r])
        np.testing.assert_array_equal(h_a[r, : hidden[-1]], expected, err_msg=f"row {r}")
        # every count of legal actions, including all and one
        for legal in (1, 2, 3, 4, 5, 8, 9, actions):
            mask = np.zeros(actions, dtype=np.int8)
            mask[rng.choice(actions, legal, replace=False)] = 1
            got = best_legal(bank, table, 0, h_a[r], mask, actions)
            assert got == action_reference(weights[-1], biases[-1], expected, mask), (r, legal)
        assert net_action(bank, table, 0, obs[r], mask, actions) == got


def test_the_continued_fraction_is_tanh_to_float32_rounding() -> None:
    x = np.concatenate([np.linspace(-12, 12, 20001), [0.0, -0.0, 1e-30, -1e-30]]).astype(np.float32)
    np.testing.assert_allclose(tanh_reference(x), np.tanh(x.astype(np.float64)), rtol=2e-7, atol=1e-37)
    assert tanh_reference(np.array([20.0, -20.0], dtype=np.float32)).tolist() == [1.0, -1.0]


def test_equal_logits_go_to_the_lowest_legal_action() -> None:
    rng = np.random.default_rng(5)
    weights, biases = random_network(rng, 20, (9,), 10)
    # actions 2, 5, 6 and 9 share one row of weights and one bias: their logits are equal
    for a in (5, 6, 9):
        weights[-1][a] = weights[-1][2]
        biases[-1][a] = biases[-1][2]
    biases[-1][[2, 5, 6, 9]] += 100.0  # and above every other action
    bank, table = pack_layers([("net", tuple(weights), tuple(biases), "tanh")])
    obs = sparse_observations(rng, 1, 20)[0]
    for legal, expected in (([2, 5, 6, 9], 2), ([9, 6, 5], 5), ([0, 1, 3, 4, 6, 7, 8, 9], 6), ([9], 9)):
        mask = np.zeros(10, dtype=np.int8)
        mask[legal] = 1
        assert net_action(bank, table, 0, obs, mask, 10) == expected, legal

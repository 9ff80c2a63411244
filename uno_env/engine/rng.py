"""Seeded random numbers inside the game state (no global generator anywhere).

Each game carries its own xorwow generator (Marsaglia's xorshift with a Weyl sequence, the
generator cuRAND uses by default) in six words of its state buffer. Every operation keeps
values below 2**63, so the same code gives the same numbers compiled by numba, uncompiled
under ``NUMBA_DISABLE_JIT=1`` and on any platform: same seed, same game, everywhere.

A generator is seeded from ``(seed, stream)``: the seed a user gives and a stream number
(the game index inside a batch, or which of a game's generators), mixed with murmur3's
32-bit finaliser.
"""

from __future__ import annotations

import secrets

import numpy as np

from ..compiler.jit import njit

M32 = 0xFFFFFFFF
WEYL_STEP = 362437
SEED_LIMIT = 2**63  # seeds are 0..2**63-1: they fit the state's int64 words


def check_seed(seed: object) -> int:
    """A game seed as int; anything but an integer in ``0..2**63-1`` (bools too) raises ValueError."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be an integer in 0..2**63-1, got {seed!r}")
    return int(seed)


def fresh_seed(count: int = 1) -> int:
    """A seed from the operating system's entropy (``seed=None`` everywhere), such that the
    ``count`` seeds ``seed .. seed+count-1`` of a batch all stay below 2**63."""
    return secrets.randbelow(max(SEED_LIMIT - count + 1, 1))


@njit(cache=True, internal=True)
def mul32(a: int, b: int) -> int:
    """``a * b mod 2**32`` for ``a, b < 2**32`` without exceeding 2**49."""
    return (a * (b & 0xFFFF) + (((a * (b >> 16)) & 0xFFFF) << 16)) & M32


@njit(cache=True, internal=True)
def mix32(h: int) -> int:
    """murmur3's 32-bit finaliser: a bijection that spreads every input bit."""
    h ^= h >> 16
    h = mul32(h, 0x85EBCA6B)
    h ^= h >> 13
    h = mul32(h, 0xC2B2AE35)
    h ^= h >> 16
    return h


@njit(cache=True)
def seed_rng(buf: np.ndarray, at: int, seed: int, stream: int) -> None:
    """Seed the generator stored at ``buf[at:at+6]`` from ``seed`` (< 2**63) and ``stream``."""
    lo = seed & M32
    hi = (seed >> 32) & M32
    key = mix32(mix32(lo ^ 0x9E3779B9) ^ hi)
    for k in range(5):
        word = mix32(key ^ mix32(stream & M32 ^ mix32(((stream >> 32) & M32) + k * 0x632BE5AB)))
        if word == 0:
            word = 0x6C078965 + k
        buf[at + k] = word
    buf[at + 5] = mix32(key + 0x7F4A7C15) & M32
    for _ in range(8):
        next_u32(buf, at)


@njit(cache=True, internal=True)
def next_u32(buf: np.ndarray, at: int) -> int:
    """Advance the generator at ``buf[at:at+6]`` and return 32 random bits."""
    x = buf[at]
    t = x ^ (x >> 2)
    v = buf[at + 4]
    buf[at] = buf[at + 1]
    buf[at + 1] = buf[at + 2]
    buf[at + 2] = buf[at + 3]
    buf[at + 3] = v
    v = (v ^ ((v << 4) & M32)) ^ (t ^ ((t << 1) & M32))
    buf[at + 4] = v
    d = (buf[at + 5] + WEYL_STEP) & M32
    buf[at + 5] = d
    return (v + d) & M32


@njit(cache=True)
def rand_below(buf: np.ndarray, at: int, n: int) -> int:
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**31`` (bias below n / 2**32)."""
    return (next_u32(buf, at) * n) >> 32


@njit(cache=True, internal=True)
def chance_ppm(buf: np.ndarray, at: int, ppm: int) -> bool:
    """True with probability ``ppm / 1_000_000``."""
    if ppm >= 1_000_000:
        return True
    if ppm <= 0:
        return False
    return rand_below(buf, at, 1_000_000) < ppm


@njit(cache=True, internal=True)
def shuffle(buf: np.ndarray, start: int, count: int, rng_at: int) -> None:
    """Fisher-Yates shuffle of ``buf[start:start+count]`` in place, ``j = rand_below(buf,
    rng_at, i + 1)`` for ``i`` from ``count - 1`` down to 1.

    The generator's words stay in local variables for the whole shuffle and are written back
    at the end (:func:`next_u32`, step by step): the same numbers, but the compiled loop does
    not reload and store the generator around every swap, as it must when both live in one
    array.
    """
    x0 = buf[rng_at]
    x1 = buf[rng_at + 1]
    x2 = buf[rng_at + 2]
    x3 = buf[rng_at + 3]
    x4 = buf[rng_at + 4]
    d = buf[rng_at + 5]
    for i in range(count - 1, 0, -1):
        t = x0 ^ (x0 >> 2)
        x0 = x1
        x1 = x2
        x2 = x3
        x3 = x4
        x4 = (x4 ^ ((x4 << 4) & M32)) ^ (t ^ ((t << 1) & M32))
        d = (d + WEYL_STEP) & M32
        j = (((x4 + d) & M32) * (i + 1)) >> 32
        tmp = buf[start + i]
        buf[start + i] = buf[start + j]
        buf[start + j] = tmp
    buf[rng_at] = x0
    buf[rng_at + 1] = x1
    buf[rng_at + 2] = x2
    buf[rng_at + 3] = x3
    buf[rng_at + 4] = x4
    buf[rng_at + 5] = d

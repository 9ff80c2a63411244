"""Near-miss spellings: the "did you mean" of every error that refuses an unknown name.

A rule key, a position field, a spec key, a preset, a play style or an option written with
a typo (``stackng``, ``color``, ``gams``) is refused with the valid names listed; the list
can be long (fifty rule keys), so the message first names the closest ones.
:func:`suggestion` is that part of the message. This module imports nothing from the
package, so every layer may use it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.75
"""Least similarity (``difflib``'s ratio, 0..1) of a name suggested for a typo."""


def close_names(name: str, names: Iterable[str], *, limit: int = 3) -> list[str]:
    """The names of ``names`` closest to ``name`` (at most ``limit``, closest first; letter
    case ignored, so ``Stacking`` finds ``stacking``), or none when nothing is close."""
    choices = {str(choice).lower(): str(choice) for choice in names}
    found = difflib.get_close_matches(str(name).lower(), list(choices), n=limit, cutoff=CUTOFF)
    return [choices[key] for key in found]


def suggestion(name: str, names: Iterable[str]) -> str:
    """``" (did you mean 'stacking'?)"`` for a ``name`` close to one of ``names`` (with "or"
    between several), else ``""``: put it right after the refused name."""
    close = close_names(name, names)
    if not close:
        return ""
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)"


def each_with_suggestion(unknown: Iterable[str], names: Iterable[str]) -> str:
    """The refused names ``unknown``, comma-separated, each followed by its :func:`suggestion`
    (``"stackng (did you mean 'stacking'?), colr"``)."""
    valid = list(names)
    return ", ".join(f"{name}{suggestion(name, valid)}" for name in unknown)

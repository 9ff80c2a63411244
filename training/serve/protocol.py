"""The messages the page sends, checked before anything reads them.

Over a table's websocket the page sends JSON objects, each at most :data:`MAX_MESSAGE`
bytes:

``{"type": "join", "table": ID, "token": TOKEN}``
    take the seat whose join token this is (each seat of a person has its own token);
``{"type": "watch", "table": ID}``
    watch the table (every hand only at a table without people, else what any seat sees
    publicly: no hand at all);
``{"type": "act", "action": ID, "decision": N}``
    the seat's decision: an action id of the legal list it was sent, for the decision
    numbered ``N`` (the ``decisions`` count of the view it answers: a stale or repeated
    message, a double click, is refused instead of playing twice).

Anything else (not JSON, not an object, a key given twice, an unknown type, a missing, extra
or mistyped field, a number out of range) is refused with ``{"type": "error", "error": "..."}`` naming what is
wrong and what is allowed, and nothing changes. :class:`ProtocolError` carries that line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from uno_env.files import DUPLICATE_ALLOWED, DuplicateKeyError, unique_keys

MAX_MESSAGE = 2048
"""Largest message a page may send, in bytes (every valid message is far smaller)."""
MAX_ID = 64
"""Longest table id or token accepted."""
MESSAGE_FIELDS: dict[str, dict[str, type]] = {
    "join": {"table": str, "token": str},
    "watch": {"table": str},
    "act": {"action": int, "decision": int},
}
"""Each message type and its fields with their types (every field is required)."""


class ProtocolError(ValueError):
    """A message that is not one of :data:`MESSAGE_FIELDS` (the text says why, on one line)."""


@dataclass(frozen=True)
class Message:
    """A checked message: its type and its fields."""

    type: str
    fields: dict[str, Any]


def parse_message(raw: str | bytes) -> Message:
    """Check a raw websocket message; :class:`ProtocolError` says what is wrong."""
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE:
        raise ProtocolError(f"message of {size:,} bytes; at most {MAX_MESSAGE} are read")
    try:
        data = json.loads(raw, object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        raise ProtocolError(f"{exc}; allowed: {DUPLICATE_ALLOWED}") from None
    except (ValueError, RecursionError):
        raise ProtocolError('not JSON: send a JSON object such as {"type": "act", ...}') from None
    if not isinstance(data, dict):
        raise ProtocolError(f"expected a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_FIELDS:
        shown = kind if isinstance(kind, str) and len(kind) <= 20 else type(kind).__name__
        raise ProtocolError(f"unknown message type {shown!r}; known: {', '.join(MESSAGE_FIELDS)}")
    wanted = MESSAGE_FIELDS[kind]
    given = set(data) - {"type"}
    if given != set(wanted):
        missing = sorted(set(wanted) - given)
        extra = sorted(given - set(wanted))
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown field(s) {', '.join(k[:20] for k in extra[:5])}"] if extra else []
        )
        a_kind = f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"  # an act message, a join message
        raise ProtocolError(
            f"{kind}: {'; '.join(parts)}; {a_kind} message has {', '.join(wanted) or 'no fields'}"
        )
    fields: dict[str, Any] = {}
    for name, kind_type in wanted.items():
        value = data[name]
        if kind_type is int:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
                raise ProtocolError(f"{kind}: {name} must be an integer 0..2147483647")
        elif not isinstance(value, str) or not 0 < len(value) <= MAX_ID or not value.isascii():
            raise ProtocolError(f"{kind}: {name} must be a text of 1..{MAX_ID} ASCII characters")
        fields[name] = value
    return Message(kind, fields)

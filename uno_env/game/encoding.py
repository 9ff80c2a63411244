"""The observation: one flat float32 vector per player, seat-relative, with named slices.

Every environment (AEC, single-agent, vector) encodes a game the same way, with one
compiled function, :func:`encode`. The vector is *seat-relative*: "relative seat k" is the
player k places clockwise (E-DIR-1) from the observer, so relative seat 0 is the observer.
Its layout is a table of named slices (:data:`FIELDS`) that depends only on the deck
family (``uno``: 56 faces, ``french``: 54 faces) and :data:`uno_env.engine.layout.MAX_PLAYERS`,
never on the rule switches or the number of players: a policy trained on one preset can be
evaluated on any other preset of the same deck family, and at any player count (seats
beyond the table read as absent).

Only public information and the observer's own cards are encoded: opponents' cards, the
order and content of the draw pile, the card an opponent just drew and whether a pending
Wild Draw Four was a bluff (U-WD4-2) never appear. The discard pile is public memory:
every card played since the last reshuffle (U-DRAW-4) lies in it, so its per-face counts
are the cards played since then.

The observation also carries what opponents' plays showed about their hands, the public
evidence a player who remembers the game has (obs-v3): a seat that drew with nothing to play
(U-DRAW-3) or whose Wild Draw Four was found legal (U-WD4-2) is *proven* to have held no card
of those faces (the ``void_*`` fields); one that drew by choice or laid a Wild Draw Four
(U-WD4-1) *implies* it (``hint_*``, wrong if it bluffed). A record's faces are written as
the colours and the ranks it covers whole (every record of the presets' rules is such a
union), with its slack: the cards gained since, less those of its faces laid since. The
engine keeps these records for the search (:mod:`uno_env.styles.search` samples hidden
hands consistent with them); here they are encoded so a network can use them too.

Versioning: fields are only ever *appended* to the table, and every change bumps
:data:`OBS_VERSION` (:data:`FIELDS_OF_VERSION` says how many fields each version had).
Checkpoints record the version they were trained on; an older version's vector is a prefix
of today's, so a network trained on it still plays, reading that prefix. The env ids'
``-vN`` (:data:`uno_env.envs.ENV_VERSION`) versions the game played, which an observation
change does not alter.

``describe(obs)`` turns a vector back into text for people; ``layout_table(deck)`` lists
the slices (name, start, size, meaning) and ``layout_markdown()`` writes the docs' table
from them (``python -m uno_env.game.encoding`` prints it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..compiler.jit import njit
from ..engine import cards
from ..engine import layout as L
from ..engine.bits import lowest_bit
from ..engine.cards import DeckFamily
from ..engine.engine import wrap_seat
from ..versions import OBS_VERSION as OBS_VERSION  # re-exported: the encoder's version
from .position import PHASE_NAMES

FACES = -1
"""Size marker in the table: one slot per card face of the deck family (``k * FACES``: k blocks)."""

OPPONENTS = L.MAX_PLAYERS - 1
HAND_SIZE_SCALE = 10.0
DRAW_PILE_SCALE = 100.0
PENALTY_SCALE = 10.0
SCORE_HIGH = 10_000.0  # points / target stays below (target + 128 cards x 50 points) / target


@dataclass(frozen=True)
class ObsField:
    """One named slice of the observation vector."""

    name: str
    size: int
    low: float
    high: float
    meaning: str
    start: int = 0

    @property
    def stop(self) -> int:
        """End (exclusive) of the slice."""
        return self.start + self.size


_TABLE: list[tuple[str, int, float, float, str]] = []


def _field(name: str, size: int, low: float, high: float, meaning: str) -> int:
    """Append a field to the table; its id is its position (used by the compiled encoder)."""
    _TABLE.append((name, size, low, high, meaning))
    return len(_TABLE) - 1


# The table: append only (and bump OBS_VERSION). Ids are read by the compiled encoder.
HAND = _field("hand", FACES, 0.0, L.MAX_CARDS, "copies of each face in your hand")
TOP_CARD = _field("top_card", FACES, 0.0, 1.0, "one-hot: the face on top of the discard pile")
COLOUR = _field(
    "colour",
    L.NUM_COLOURS,
    0.0,
    1.0,
    "one-hot: the active colour/suit (none while a starting wild awaits it)",
)
PHASE = _field(
    "phase", L.PHASE_SLOTS, 0.0, 1.0, "one-hot: the decision asked now (slot = phase code, see Phase)"
)
DRAWN_CARD = _field(
    "drawn_card", FACES, 0.0, 1.0, "one-hot: the card you just drew and may play (phase drawn; you only)"
)
PENDING = _field(
    "pending", 1, 0.0, L.MAX_CARDS / PENALTY_SCALE,
    "cards the target of a pending penalty draws / 10 (the target: to_move in phases challenge, answer)",
)  # fmt: skip
PENDING_FROM = _field(
    "pending_from", L.MAX_PLAYERS, 0.0, 1.0, "one-hot relative seat that sent the pending penalty"
)
COLOUR_BEFORE = _field(
    "colour_before", L.NUM_COLOURS, 0.0, 1.0, "one-hot: the colour before a pending Wild Draw Four (U-WD4-2)"
)
DIRECTION = _field("direction", 1, -1.0, 1.0, "+1 clockwise, -1 counter-clockwise (E-DIR-1)")
TO_MOVE = _field("to_move", L.MAX_PLAYERS, 0.0, 1.0, "one-hot relative seat that must decide now")
SEATED = _field("seated", OPPONENTS, 0.0, 1.0, "relative seats 1..9: 1 if that seat is at the table")
HAND_SIZES = _field(
    "hand_sizes", OPPONENTS, 0.0, L.MAX_CARDS / HAND_SIZE_SCALE, "relative seats 1..9: cards held / 10"
)
CALLED = _field("called", OPPONENTS, 0.0, 1.0, "relative seats 1..9: 1 while their UNO call stands (U-UNO-1)")
OWN_CALLED = _field("own_called", 1, 0.0, 1.0, "1 while your own UNO call stands (U-UNO-1)")
DISCARD = _field(
    "discard", FACES, 0.0, L.MAX_CARDS, "copies of each face in the discard pile (public memory)"
)
DRAW_PILE = _field("draw_pile", 1, 0.0, L.MAX_CARDS / DRAW_PILE_SCALE, "cards in the draw pile / 100")
SCORES = _field(
    "scores", L.MAX_PLAYERS, 0.0, SCORE_HIGH, "relative seats 0..9: match points / target (U-SCORE-1..3)"
)
DECISIONS = _field(
    "decisions", 1, 0.0, 1.0,
    "decisions so far that every seat knows of (not the let-go answers to out-of-turn windows, H-JUMP-1, "
    "H-ZEROSEE-1) / the decision limit (E-END-1)",
)  # fmt: skip
PENDING_TURNS = _field(
    "pending_turns",
    1,
    0.0,
    L.MAX_CARDS / PENALTY_SCALE,
    "turns the target of a pending penalty sits out / 10",
)
CHALLENGEABLE = _field("challengeable", 1, 0.0, 1.0, "1 if the pending penalty may be challenged (U-WD4-2)")
SIT_OUT = _field(
    "sit_out",
    L.MAX_PLAYERS,
    0.0,
    L.MAX_CARDS / PENALTY_SCALE,
    "relative seats 0..9: turns still to sit out / 10",
)
FINISHED = _field(
    "finished", L.MAX_PLAYERS, 0.0, 1.0, "relative seats 0..9: 1 once the player left (MC-END-1)"
)
ACTOR = _field(
    "actor", L.MAX_PLAYERS, 0.0, 1.0,
    "one-hot relative seat whose play is being resolved (mid-play phases; not the cube's choices, H-CUBE-1)",
)  # fmt: skip
PLAY_COUNT = _field(
    "play_count",
    1,
    0.0,
    L.MAX_CARDS / PENALTY_SCALE,
    "cards laid in the play being made / 10 (mid-play phases but jump and the cube's choices)",
)
RUN_STEP = _field(
    "run_step", 1, -1.0, 1.0,
    "direction of a same-colour run: +1 up, -1 down, 0 unknown (H-SEQ-1; as play_count)",
)  # fmt: skip
TARGET_REASON = _field(
    "target_reason",
    4,
    0.0,
    1.0,
    "one-hot why a seat is chosen (phase target): swap (H-SEVEN-1/H-ZERO-1), give (H-TWO-1), cube",
)
GIVE = _field(
    "give", L.MAX_PLAYERS, 0.0, L.MAX_CARDS / PENALTY_SCALE,
    "phase give: cards still to give / 10 at the receiver's relative seat (H-TWO-1)",
)  # fmt: skip
WINDOW_FROM = _field(
    "window_from", L.MAX_PLAYERS, 0.0, 1.0, "one-hot relative seat whose card opened an out-of-turn window"
)
REVEALED = _field(
    "revealed", OPPONENTS * FACES, 0.0, L.MAX_CARDS,
    "relative seats 1..9 x faces: a hand you have seen (H-ZEROSEE-1) or passed to that seat (H-SEVEN-1, "
    "H-ZERO-1), as it is now, until it gains a card you did not see (a draw; a card another gives, H-TWO-1)",
)  # fmt: skip
CUBE = _field(
    "cube", 12, 0.0, 1.0,
    "the Uno cube's roll awaiting its roller's choice (H-CUBE-1): one-hot action die "
    "(+2, +4, skip, discard, blank, blank), then one-hot target die",
)  # fmt: skip


# obs-v3: what opponents' plays showed about their hands (the search's evidence, public). A
# record's faces are written as the colours and the ranks it covers whole: a record is "a
# colour, a number and the wilds", a few inputs instead of twenty. Every record the rules of
# the presets make is such a union (checked over random games of every preset); a face outside
# a whole colour or rank would need a per-opponent row of faces, which would double the vector
# that every environment step writes, so it is left out (the position notation has it).
def _record_fields(kind: str, known: str, why: str, below_zero: str) -> int:
    """Append the three fields of one kind of record (colours, ranks, slack); return the id of
    the first (the others follow it)."""
    first = _field(
        f"{kind}_colours", OPPONENTS * L.NUM_COLOURS, 0.0, 1.0,
        f"relative seats 1..9 x colours: 1 if {known} the seat held no card of the colour ({why})",
    )  # fmt: skip
    _field(
        f"{kind}_ranks", OPPONENTS * L.NUM_RANKS, 0.0, 1.0,
        f"relative seats 1..9 x ranks (numbers, symbols, wilds): 1 if {known} it held none of the rank",
    )  # fmt: skip
    _field(
        f"{kind}_slack", OPPONENTS, -L.MAX_CARDS / HAND_SIZE_SCALE, L.MAX_CARDS / HAND_SIZE_SCALE,
        "relative seats 1..9: cards gained since the record, less those of its faces laid since / 10 "
        f"(it holds at most that many of them; 0 where there is no record{below_zero})",
    )  # fmt: skip
    return first


VOID_COLOURS = _record_fields(
    "void",
    "the rules proved",
    "it drew with nothing to play, U-DRAW-3; its Wild Draw Four was found legal, U-WD4-2",
    "",
)
HINT_COLOURS = _record_fields(
    "hint",
    "its play implied",
    "it drew by choice, U-DRAW-3; it laid a Wild Draw Four, U-WD4-1; unless it bluffed",
    "; below 0: a bluff came out",
)
NUM_FIELDS = len(_TABLE)
FIELDS_OF_VERSION = {2: VOID_COLOURS, 3: NUM_FIELDS}
"""How many fields of the table each observation version has. Fields are only appended, so
an older version's vector is a prefix of this one: a network trained on it reads the first
``obs_layout(deck, version).size`` values (:func:`spec_version`)."""


@dataclass(frozen=True)
class ObsLayout:
    """The observation layout of one deck family: fields with offsets, size and bounds."""

    deck: DeckFamily
    num_faces: int
    fields: tuple[ObsField, ...]
    size: int
    offsets: np.ndarray  # int64 start of each field, indexed by field id (for the encoder)
    low: np.ndarray
    high: np.ndarray

    def field(self, name: str) -> ObsField:
        """The field called ``name``; an unknown name lists the valid ones."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"no observation field {name!r}; fields: {', '.join(f.name for f in self.fields)}")

    def slice(self, name: str) -> slice:
        """The slice of the vector holding field ``name``."""
        f = self.field(name)
        return slice(f.start, f.stop)


@lru_cache(maxsize=8)
def obs_layout(deck: DeckFamily = "uno", version: int = OBS_VERSION) -> ObsLayout:
    """The observation layout of a deck family (``"uno"`` or ``"french"``); an older
    ``version`` (:data:`FIELDS_OF_VERSION`) gives the prefix that version's vectors had."""
    if deck not in cards.NUM_FACES:
        raise ValueError(f"unknown deck family {deck!r}; expected 'uno' or 'french'")
    if version not in FIELDS_OF_VERSION:
        known = ", ".join(str(v) for v in FIELDS_OF_VERSION)
        raise ValueError(f"unknown observation version {version!r}; known: {known}")
    nf = cards.NUM_FACES[deck]
    fields = []
    start = 0
    for name, size, low, high, meaning in _TABLE[: FIELDS_OF_VERSION[version]]:
        width = nf * (size // FACES) if size < 0 else size
        fields.append(ObsField(name, width, low, high, meaning, start))
        start += width
    offsets = np.array([f.start for f in fields], dtype=np.int64)
    low_arr = np.zeros(start, dtype=np.float32)
    high_arr = np.zeros(start, dtype=np.float32)
    for f in fields:
        low_arr[f.start : f.stop] = f.low
        high_arr[f.start : f.stop] = f.high
    for arr in (offsets, low_arr, high_arr):
        arr.setflags(write=False)
    return ObsLayout(deck, nf, tuple(fields), start, offsets, low_arr, high_arr)


def spec_version(spec: object) -> int | None:
    """The observation version an ``obs-vN`` spec names, if this installation can feed it
    (its vectors are a prefix of today's, :data:`FIELDS_OF_VERSION`); otherwise ``None``."""
    if not isinstance(spec, str) or not spec.startswith("obs-v") or not spec[5:].isdigit():
        return None
    version = int(spec[5:])
    return version if version in FIELDS_OF_VERSION else None


def readable_specs() -> str:
    """The observation specs this installation feeds, for messages (``'obs-v2' or 'obs-v3'``)."""
    return " or ".join(repr(f"obs-v{v}") for v in FIELDS_OF_VERSION)


def layout_table(deck: DeckFamily = "uno") -> list[tuple[str, int, int, str]]:
    """Every field as ``(name, start, size, meaning)``, in vector order."""
    return [(f.name, f.start, f.size, f.meaning) for f in obs_layout(deck).fields]


def layout_markdown() -> str:
    """The observation table of the docs (``docs/environments/index.md``), generated from the layout.

    One row per field with its slice in the Uno and the French layouts, then the total sizes.
    """
    uno, french = obs_layout("uno"), obs_layout("french")
    lines = ["| field | Uno slice | French slice | meaning |", "|---|---|---|---|"]
    for a, b in zip(uno.fields, french.fields, strict=True):
        meaning = a.meaning.replace("|", "/")
        lines.append(f"| `{a.name}` | {a.start}:{a.stop} | {b.start}:{b.stop} | {meaning} |")
    lines.append(
        f"| **size** | {uno.size} | {french.size} | `observation_space.shape`: Uno {uno.num_faces} faces, "
        f"French {french.num_faces} |"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------- the compiled encoder
@njit(cache=True)
def encode(state: np.ndarray, spec: np.ndarray, seat: int, offsets: np.ndarray, out: np.ndarray) -> None:
    """Write ``seat``'s observation of ``state`` into ``out`` (float32, the layout's size, or
    the size of an older version's prefix, :data:`FIELDS_OF_VERSION`: then the fields beyond
    it are not computed, which is what a network of that version reads)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    n = state[L.S_NPLAYERS]
    nf = spec[L.SP_NUM_FACES]
    base = L.HANDS + seat * L.MAX_FACES
    o = offsets[HAND]
    held = state[L.HELD + seat]  # only the faces held: the rest is already zero
    while held != 0:
        face = lowest_bit(held)
        out[o + face] = state[base + face]
        held &= held - 1
    ndiscard = state[L.S_NDISCARD]
    if ndiscard > 0:
        out[offsets[TOP_CARD] + state[L.DISCARD_PILE + ndiscard - 1]] = 1.0
    o = offsets[DISCARD]
    for i in range(ndiscard):
        out[o + state[L.DISCARD_PILE + i]] += 1.0
    colour = state[L.S_COLOUR]
    if 0 <= colour < L.NUM_COLOURS:
        out[offsets[COLOUR] + colour] = 1.0
    phase = state[L.S_PHASE]
    out[offsets[PHASE] + phase] = 1.0
    current = state[L.S_CURRENT]
    if phase == L.PH_PLAY_DRAWN and current == seat and state[L.S_DRAWN] >= 0:
        out[offsets[DRAWN_CARD] + state[L.S_DRAWN]] = 1.0
    if state[L.S_PENDING] > 0 or state[L.S_PENDING_SKIP] > 0:
        out[offsets[PENDING]] = state[L.S_PENDING] / PENALTY_SCALE
        sender = state[L.S_PENDING_FROM]
        if sender >= 0:
            out[offsets[PENDING_FROM] + wrap_seat(sender - seat, n)] = 1.0
        before = state[L.S_COLOUR_BEFORE]
        if 0 <= before < L.NUM_COLOURS:
            out[offsets[COLOUR_BEFORE] + before] = 1.0
    out[offsets[DIRECTION]] = state[L.S_DIRECTION]
    if current >= 0:
        out[offsets[TO_MOVE] + wrap_seat(current - seat, n)] = 1.0
    o_seated = offsets[SEATED]
    o_sizes = offsets[HAND_SIZES]
    o_called = offsets[CALLED]
    for k in range(1, n):
        other = wrap_seat(seat + k, n)
        out[o_seated + k - 1] = 1.0
        out[o_sizes + k - 1] = state[L.HAND_SIZE + other] / HAND_SIZE_SCALE
        out[o_called + k - 1] = state[L.CALLED + other]
    out[offsets[OWN_CALLED]] = state[L.CALLED + seat]
    out[offsets[DRAW_PILE]] = state[L.S_NDRAW] / DRAW_PILE_SCALE
    o = offsets[SCORES]
    target = spec[L.SP_TARGET]
    for k in range(n):
        out[o + k] = state[L.SCORE + wrap_seat(seat + k, n)] / target
    # a let-go answer would tell that its seat held a card to lay (a window asks only those)
    known = state[L.S_DECISIONS] - state[L.S_LETGO]
    out[offsets[DECISIONS]] = min(1.0, known / spec[L.SP_MAX_DECISIONS])
    out[offsets[PENDING_TURNS]] = state[L.S_PENDING_SKIP] / PENALTY_SCALE
    out[offsets[CHALLENGEABLE]] = state[L.S_CHALLENGEABLE]
    o_sit = offsets[SIT_OUT]
    o_fin = offsets[FINISHED]
    for k in range(n):
        other = wrap_seat(seat + k, n)
        out[o_sit + k] = state[L.SITOUT + other] / PENALTY_SCALE
        out[o_fin + k] = 1.0 if state[L.FINISHED + other] > 0 else 0.0
    # the Uno cube's choices (H-CUBE-1) are no play: the play fields hold what the last play left
    cube = (phase == L.PH_CHOOSE_TARGET and state[L.S_TARGET_REASON] == L.TR_CUBE) or (
        phase == L.PH_CHOOSE_COLOUR and state[L.S_AFTER_CHOICE] == L.AC_CUBE
    )
    if _is_midplay(phase):
        actor = state[L.S_ACTOR]
        if 0 <= actor < n and not cube:
            out[offsets[ACTOR] + wrap_seat(actor - seat, n)] = 1.0
        if not cube and phase != L.PH_JUMP_IN:  # a jump-in window follows a play that is over
            out[offsets[PLAY_COUNT]] = state[L.S_PLAY_COUNT] / PENALTY_SCALE
            out[offsets[RUN_STEP]] = state[L.S_RUN_STEP]
        if phase == L.PH_CHOOSE_TARGET:
            out[offsets[TARGET_REASON] + state[L.S_TARGET_REASON]] = 1.0
        target = state[L.S_TARGET]
        if phase == L.PH_GIVE and 0 <= target < n:
            out[offsets[GIVE] + wrap_seat(target - seat, n)] = state[L.S_GIVE_LEFT] / PENALTY_SCALE
        opener = state[L.S_WINDOW_FROM]
        if (phase == L.PH_JUMP_IN or phase == L.PH_BLOCK) and 0 <= opener < n:
            out[offsets[WINDOW_FROM] + wrap_seat(opener - seat, n)] = 1.0
    if cube:
        out[offsets[CUBE] + state[L.S_CUBE_ACTION]] = 1.0
        out[offsets[CUBE] + 6 + state[L.S_CUBE_FACE]] = 1.0
    o = offsets[REVEALED]
    for k in range(1, n):
        other = wrap_seat(seat + k, n)
        if state[L.SEEN + seat * L.MAX_PLAYERS + other] == state[L.HAND_VERSION + other] + 1:
            base = L.HANDS + other * L.MAX_FACES
            row = o + (k - 1) * nf
            for face in range(nf):
                out[row + face] = state[base + face]
    if out.shape[0] <= offsets[VOID_COLOURS]:
        return  # an obs-v2 prefix
    for first, record in ((VOID_COLOURS, L.VOID_FACES), (HINT_COLOURS, L.HINT_FACES)):
        # the record's three fields follow each other in the table: colours, ranks, slack
        o_colours, o_ranks, o_slack = offsets[first], offsets[first + 1], offsets[first + 2]
        for k in range(1, n):
            other = wrap_seat(seat + k, n)
            bits = state[record + other]
            if bits == 0:
                continue
            # beyond a full hand's worth, a count constrains nothing more (bounded for the space)
            slack = min(max(state[record + L.RECORD_SLACK + other], -L.MAX_CARDS), L.MAX_CARDS)
            out[o_slack + k - 1] = slack / HAND_SIZE_SCALE
            for c in range(L.NUM_COLOURS):
                faces = spec[L.COLOUR_FACES + c]
                if faces != 0 and (bits & faces) == faces:
                    out[o_colours + (k - 1) * L.NUM_COLOURS + c] = 1.0
            for r in range(L.NUM_RANKS):
                faces = spec[L.RANK_FACES + r]
                if faces != 0 and (bits & faces) == faces:
                    out[o_ranks + (k - 1) * L.NUM_RANKS + r] = 1.0


@njit(cache=True, internal=True)
def _is_midplay(phase: int) -> bool:
    """Phases inside the resolution of a play, where the play's own fields mean something."""
    return (
        phase == L.PH_CHOOSE_COLOUR
        or phase == L.PH_CONTINUE
        or phase == L.PH_CHOOSE_TARGET
        or phase == L.PH_GIVE
        or phase == L.PH_JUMP_IN
        or phase == L.PH_BLOCK
    )


def observe_state(state: np.ndarray, spec: np.ndarray, seat: int, deck: DeckFamily) -> np.ndarray:
    """``seat``'s observation of a raw game state (a new float32 array)."""
    lay = obs_layout(deck)
    out = np.empty(lay.size, dtype=np.float32)
    encode(state, spec, seat, lay.offsets, out)
    return out


# ---------------------------------------------------------------- for people
def _deck_of_size(size: int) -> DeckFamily:
    for deck in ("uno", "french"):
        if obs_layout(deck).size == size:
            return deck
    sizes = ", ".join(f"{d}: {obs_layout(d).size}" for d in ("uno", "french"))
    raise ValueError(f"an observation has {size} values, which fits no deck family ({sizes})")


def _faces_text(values: np.ndarray, deck: DeckFamily) -> str:
    parts = []
    for face in np.flatnonzero(values):
        count = round(float(values[face]))
        token = cards.format_face(int(face), deck)
        parts.append(token if count == 1 else f"{token}x{count}")
    return " ".join(parts) or "-"


def _one_hot_text(values: np.ndarray, names: list[str]) -> str:
    hot = np.flatnonzero(values)
    return " ".join(names[i] for i in hot) or "-"


def describe(obs: np.ndarray | dict[str, np.ndarray], deck: DeckFamily | None = None) -> str:
    """The observation as text, one named slice per line (``print(describe(obs))``).

    ``obs`` is an observation vector or a ``{"observation", "action_mask"}`` dict; the deck
    family is inferred from its size unless given.
    """
    if isinstance(obs, dict):
        obs = obs["observation"]
    vec = np.asarray(obs, dtype=np.float32)
    if vec.ndim != 1:
        raise ValueError(f"describe takes one observation vector, got shape {vec.shape}")
    deck = deck or _deck_of_size(vec.shape[0])
    lay = obs_layout(deck)
    if vec.shape[0] != lay.size:
        raise ValueError(f"a {deck} observation has {lay.size} values, got {vec.shape[0]}")
    colours = list(cards.COLOUR_LETTERS[deck])
    phases = [PHASE_NAMES.get(i, f"phase{i}") for i in range(L.PHASE_SLOTS)]
    rel = [f"+{k}" if k else "you" for k in range(L.MAX_PLAYERS)]
    lines = []
    for f in lay.fields:
        v = vec[f.start : f.stop]
        if f.size == lay.num_faces:
            text = _faces_text(v, deck)
        elif f.name == "challengeable" or f.name == "own_called":
            text = "yes" if v[0] else "no"
        elif f.name in ("colour", "colour_before"):
            text = _one_hot_text(v, colours)
        elif f.name == "phase":
            text = _one_hot_text(v, phases)
        elif f.name in ("pending_from", "to_move", "actor", "window_from"):
            text = _one_hot_text(v, rel)
        elif f.name in ("sit_out", "give"):
            text = (
                " ".join(f"{rel[k]}:{round(float(v[k]) * PENALTY_SCALE)}" for k in np.flatnonzero(v)) or "-"
            )
        elif f.name == "finished":
            text = _one_hot_text(v, rel)
        elif f.name == "target_reason":
            text = _one_hot_text(v, ["swap", "give", "cube", "reason3"])
        elif f.name == "revealed":
            rows = v.reshape(OPPONENTS, lay.num_faces)
            text = "; ".join(
                f"+{k + 1}: {_faces_text(rows[k], deck)}" for k in range(OPPONENTS) if rows[k].any()
            )
            text = text or "-"
        elif f.name in ("void_colours", "hint_colours", "void_ranks", "hint_ranks"):
            names = list(cards.COLOUR_LETTERS[deck]) if "colours" in f.name else list(cards.RANK_TOKENS[deck])
            names += [f"rank{i}" for i in range(len(names), L.NUM_RANKS)]
            rows = v.reshape(OPPONENTS, -1)
            text = "; ".join(
                f"+{k + 1}: {_one_hot_text(rows[k], names)}" for k in range(OPPONENTS) if rows[k].any()
            )
            text = text or "-"
        elif f.name in ("void_slack", "hint_slack"):
            slacks = [f"+{k + 1}:{round(float(v[k]) * HAND_SIZE_SCALE)}" for k in np.flatnonzero(v)]
            text = " ".join(slacks) or "-"
        elif f.name in ("seated", "called"):
            text = " ".join(f"+{k + 1}" for k in np.flatnonzero(v)) or "-"
        elif f.name == "hand_sizes":
            seated = vec[lay.slice("seated")]
            text = " ".join(
                f"+{k + 1}:{round(float(v[k]) * HAND_SIZE_SCALE)}" for k in np.flatnonzero(seated)
            )
        elif f.name in ("pending", "pending_turns", "play_count"):
            text = str(round(float(v[0]) * PENALTY_SCALE))
        elif f.name == "draw_pile":
            text = str(round(float(v[0]) * DRAW_PILE_SCALE))
        elif f.name == "direction":
            text = "clockwise" if v[0] > 0 else "counter-clockwise"
        else:
            text = " ".join(f"{x:g}" for x in v)
        lines.append(f"{f.name:<14}[{f.start:>3}:{f.stop:<3}] {text}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(layout_markdown())

"""Game records: any game as a compact JSON object, one per line (JSON Lines), replayed exactly.

A game is fixed by its rules, player count, seed and the decisions taken (E-SEED-1: the
seed fixes every chance event), so a record stores only those, plus optional notes::

    {"format": "uno-env-record/1", "env_version": 0, "rules": "<str(RuleSet)>",
     "preset": "uno", "num_players": 4, "seed": 7, "actions": [12, 3, 60, ...],
     "agents": ["human", "greedy", "random", "bluffer"], "source": "play",
     "outcome": {"winner": 2, "ranking": [2, 0, 3, 1], ...},
     "final_position": "<position notation at the end>", "digest": "sha256:..."}

``rules`` is the canonical one-line rules string (``str(rules)``, read back with
:meth:`RuleSet.parse`); ``preset`` names it for people and, when given, must be the preset
those rules are. ``actions`` are action ids of the deck family's table
(:mod:`uno_env.engine.actions`). ``agents`` (who sat where), ``source`` and ``extra`` are free
notes. ``outcome``, ``final_position`` and ``digest`` are what a replay is verified
against: ``digest`` is the SHA-256 of the game's defining fields and its result
(:meth:`GameRecord.game_digest`: env version, rules, players, seed, actions, outcome, final
position), so a record edited after it was written no longer verifies, even when the edit
does not change the game (a rule that never came into play, such as the Uno penalty).

**Verification** (:func:`check_replay`): the replay must reach the recorded outcome and final
position, the preset must name the rules, and the digest must match. A record without
outcome, final position or digest (a game recorded before its end, or written by hand)
cannot be verified: :func:`check_replay` raises :class:`IncompleteRecordError` unless called
with ``partial=True``, in which case only the legality of the recorded actions from the
seed was checked (``uno-env replay`` says so and exits with code 3 unless
``--allow-unverified``).

Writing: :func:`record_game` (from a :class:`~uno_env.Game`'s history),
:func:`uno_env.sim.records.record_simulated` (games of :func:`uno_env.simulate`, re-played through ``Game``
with the same compiled styles and the same agent generator, so they are exactly the batch
games), :func:`save_records` / :func:`append_records`. Reading: :func:`load_records`
(every malformed input, including bytes that are not UTF-8, nesting too deep to parse and
integers too long to read, becomes one :class:`RecordError` line naming the file, the line
and what is wrong), :func:`replay` (the game after each action) and :func:`replay_game`.

A record from another environment version (:data:`~uno_env.versions.ENV_VERSION`)
is refused: the engine may have changed what the same actions do.

**Match traces** (:mod:`agents.trace`) are records files whose games are preceded by one
line per decision (``"format": "uno-env-trace/1"``: the decision's view, legal moves, the
raw answers, the parsed action, retries and time); :func:`load_records` reads their game
records and passes over those lines, so ``uno-env replay`` replays a trace.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import files
from ..engine.rules import PRESETS, RuleError, RuleSet
from ..versions import ENV_VERSION, RECORD_FORMAT
from .facade import Game, IllegalActionError, Outcome

_REQUIRED = ("format", "env_version", "rules", "num_players", "seed", "actions")
_OPTIONAL = ("preset", "agents", "source", "outcome", "final_position", "extra", "digest")
_DIGEST_PREFIX = "sha256:"
TRACE_FORMAT = "uno-env-trace/1"
"""The format of a match trace's decision lines (:mod:`agents.trace`); :func:`load_records` passes
over them."""
_MESSAGE_LIMIT = 400
"""Longest error message :func:`load_records` gives (a huge value is cut, never echoed whole)."""


class RecordError(ValueError):
    """A record that cannot be read or replayed (malformed, other env version, unknown rules)."""


class ReplayMismatchError(AssertionError):
    """A replay that does not end as its record says (outcome, final position, preset or digest differ)."""


class IncompleteRecordError(RecordError):
    """A record without the outcome, final position or digest a replay is verified against."""


@dataclass(frozen=True)
class GameRecord:
    """One recorded game (see the module docstring for the JSON form)."""

    rules: str
    num_players: int
    seed: int
    actions: tuple[int, ...]
    env_version: int = ENV_VERSION
    preset: str | None = None
    agents: tuple[str, ...] | None = None
    source: str | None = None
    outcome: Outcome | None = None
    final_position: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    digest: str | None = None
    """The digest the record was written with (``None``: none); see :meth:`game_digest`."""
    origin: str | None = field(default=None, compare=False)
    """Where the record was read (``"<file>, line <n>"``), for messages; not part of the record."""
    trace: tuple[dict[str, Any], ...] = field(default=(), compare=False, repr=False)
    """In a match trace (:mod:`agents.trace`), the decision lines that came before this record
    in its file (this game's decisions, as :func:`load_records` read them); not part of the record."""

    def game_digest(self) -> str:
        """``sha256:<hex>`` of the fields that fix the game and its result.

        Covers the env version, rules, player count, seed, actions, outcome and final
        position (not the free notes ``preset``, ``agents``, ``source``, ``extra``).
        """
        fields = {
            "env_version": self.env_version,
            "rules": self.rules,
            "num_players": self.num_players,
            "seed": self.seed,
            "actions": list(self.actions),
            "outcome": None if self.outcome is None else outcome_to_dict(self.outcome),
            "final_position": self.final_position,
        }
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        return _DIGEST_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def ruleset(self) -> RuleSet:
        """The rule set of the game (raises :class:`RecordError` if the rules string is unknown)."""
        try:
            return RuleSet.parse(self.rules)
        except RuleError as exc:
            raise RecordError(f"the record's rules string is not a rule set of this version: {exc}") from None

    def new_game(self) -> Game:
        """The game as dealt, before the first action."""
        if self.env_version != ENV_VERSION:
            raise RecordError(
                f"the record was written by env version {self.env_version}, this is env version "
                f"{ENV_VERSION}: the same actions may play differently; replay it with that version"
            )
        return Game(self.ruleset(), self.num_players, seed=self.seed)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the record (optional fields left out when empty)."""
        out: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "env_version": self.env_version,
            "rules": self.rules,
            "preset": self.preset,
            "num_players": self.num_players,
            "seed": self.seed,
            "actions": list(self.actions),
        }
        if self.agents is not None:
            out["agents"] = list(self.agents)
        if self.source is not None:
            out["source"] = self.source
        if self.outcome is not None:
            out["outcome"] = outcome_to_dict(self.outcome)
        if self.final_position is not None:
            out["final_position"] = self.final_position
        if self.extra:
            out["extra"] = self.extra
        # a record read from a file keeps its own digest (an edited record stays unverifiable)
        out["digest"] = self.digest if self.digest is not None else self.game_digest()
        if out["preset"] is None:
            del out["preset"]
        return out

    def to_json(self) -> str:
        """The record as one line of JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any, where: str = "record") -> GameRecord:
        """Read a record object; :class:`RecordError` names ``where`` and what is wrong."""
        if not isinstance(data, Mapping):
            raise RecordError(f"{where}: expected a JSON object, got {type(data).__name__}")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise RecordError(f"{where}: missing field(s) {', '.join(missing)}; a record needs {_REQUIRED}")
        unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
        if unknown:
            raise RecordError(
                f"{where}: unknown field(s) {', '.join(unknown)}; allowed: {_REQUIRED + _OPTIONAL}"
            )
        if data["format"] != RECORD_FORMAT:
            raise RecordError(f"{where}: format {data['format']!r} is not {RECORD_FORMAT!r}")
        for key in ("env_version", "num_players", "seed"):
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise RecordError(f"{where}: {key} must be an integer, got {value!r}")
        if not 0 <= data["seed"] < 2**63:
            raise RecordError(f"{where}: seed must be in 0..2**63-1, got {data['seed']}")
        if data["env_version"] != ENV_VERSION:
            raise RecordError(
                f"{where}: recorded with env version {data['env_version']}, this is env version "
                f"{ENV_VERSION}; the same actions may play differently, so it is not replayed"
            )
        if not isinstance(data["rules"], str):
            raise RecordError(f"{where}: rules must be the one-line rules string, got {data['rules']!r}")
        try:
            ruleset = RuleSet.parse(data["rules"])
            ruleset.check_players(data["num_players"])
        except RuleError as exc:
            raise RecordError(f"{where}: unknown rules: {exc}") from None
        acts = data["actions"]
        if not isinstance(acts, list) or any(isinstance(a, bool) or not isinstance(a, int) for a in acts):
            raise RecordError(f"{where}: actions must be a list of integer action ids")
        bad = [a for a in acts if not 0 <= a < ruleset.num_actions]
        if bad:
            raise RecordError(
                f"{where}: action id {bad[0]} is outside the {ruleset.deck_family} action table "
                f"0..{ruleset.num_actions - 1}"
            )
        agents = data.get("agents")
        if agents is not None and (
            not isinstance(agents, list)
            or len(agents) != data["num_players"]
            or not all(isinstance(a, str) for a in agents)
        ):
            raise RecordError(f"{where}: agents must list {data['num_players']} names, one per seat")
        outcome = None
        if data.get("outcome") is not None:
            outcome = outcome_from_dict(data["outcome"], where)
            seats = data["num_players"]
            # read unreplayed by uno-env results: a winner no seat holds counted as a loss for all
            if outcome.winner is not None and not 0 <= outcome.winner < seats:
                raise RecordError(
                    f"{where}: outcome winner {outcome.winner} is not a seat of the {seats} players; "
                    f"allowed: 0..{seats - 1} or null"
                )
        for key in ("preset", "source", "final_position", "digest"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise RecordError(f"{where}: {key} must be a string, got {data[key]!r}")
        extra = data.get("extra") or {}
        if not isinstance(extra, dict):
            raise RecordError(f"{where}: extra must be a JSON object")
        return cls(
            rules=data["rules"],
            num_players=data["num_players"],
            seed=data["seed"],
            actions=tuple(acts),
            env_version=data["env_version"],
            preset=data.get("preset"),
            agents=None if agents is None else tuple(agents),
            source=data.get("source"),
            outcome=outcome,
            final_position=data.get("final_position"),
            extra=extra,
            digest=data.get("digest"),
            origin=where,
        )


def outcome_to_dict(outcome: Outcome) -> dict[str, Any]:
    """An :class:`~uno_env.Outcome` as a JSON object (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(outcome).items()}


def outcome_from_dict(data: Any, where: str = "outcome") -> Outcome:
    """Read an outcome object back; :class:`RecordError` names what is wrong."""
    names = [f.name for f in dataclasses.fields(Outcome)]
    if isinstance(data, Mapping) and "turns" not in data:  # written before turns were counted
        data = {**data, "turns": -1}
    if not isinstance(data, Mapping) or sorted(data) != sorted(names):
        raise RecordError(f"{where}: outcome must be an object with exactly the fields {', '.join(names)}")

    def integer(key: str) -> int:
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise RecordError(f"{where}: outcome {key} must be an integer, got {value!r}")
        return value

    def integers(key: str) -> tuple[int, ...]:
        value = data[key]
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise RecordError(f"{where}: outcome {key} must be a list of integers, got {value!r}")
        return tuple(value)

    if not isinstance(data["reason"], str) or not isinstance(data["truncated"], bool):
        raise RecordError(f"{where}: outcome reason must be a string and truncated true/false")
    return Outcome(
        winner=None if data["winner"] is None else integer("winner"),
        ranking=integers("ranking"),
        scores=integers("scores"),
        round_points=integers("round_points"),
        reason=data["reason"],
        truncated=data["truncated"],
        rounds=integer("rounds"),
        decisions=integer("decisions"),
        turns=integer("turns"),
    )


# ------------------------------------------------------------------ writing
def record_game(
    game: Game,
    agents: Sequence[str] | None = None,
    source: str | None = "game",
    extra: Mapping[str, Any] | None = None,
) -> GameRecord:
    """The record of ``game`` so far, from its :attr:`~uno_env.Game.history`.

    ``agents`` names who sat at each seat. The outcome and final position are stored when
    the game is over. The record is checked by replaying it; a game built with
    :meth:`Game.from_position` cannot be recorded (its deal is not the seed's): a
    :class:`RecordError` says so.
    """
    if agents is not None and len(agents) != game.num_players:
        raise ValueError(f"agents lists {len(agents)} names for {game.num_players} seats")
    record = GameRecord(
        rules=str(game.rules),
        num_players=game.num_players,
        seed=game.seed,
        actions=tuple(action for _, action in game.history),
        preset=game.rules.preset_name(),
        agents=None if agents is None else tuple(agents),
        source=source,
        outcome=game.outcome(),
        final_position=game.position() if game.is_over() else None,
        extra=dict(extra or {}),
    )
    record = dataclasses.replace(record, digest=record.game_digest())
    # the record must deal and play to this very position (not so for Game.from_position)
    replayed = Game(game.rules, game.num_players, seed=game.seed)
    replays = True
    try:
        for action in record.actions:
            replayed.step(action)
    except IllegalActionError:
        replays = False
    if not replays or replayed.position() != game.position():
        raise RecordError(
            "the game does not replay from its seed and history: only games dealt from a seed "
            "(Game(rules, n, seed), not Game.from_position) can be recorded"
        )
    return record


def save_records(path: str | Path, records: Iterable[GameRecord]) -> int:
    """Write ``records`` to ``path`` (JSON Lines, replacing the file); return how many."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(record.to_json() + "\n")
            count += 1
    return count


def append_records(path: str | Path, records: GameRecord | Iterable[GameRecord]) -> int:
    """Append ``records`` (one or many) to ``path``, creating it; return how many were written."""
    items = [records] if isinstance(records, GameRecord) else list(records)
    with Path(path).open("a", encoding="utf-8") as handle:
        for record in items:
            handle.write(record.to_json() + "\n")
    return len(items)


def load_records(path: str | Path) -> list[GameRecord]:
    """Every record of a JSON Lines file (blank lines skipped).

    Raises :class:`RecordError` with one line naming the file, the line and the problem for
    a line that is not UTF-8, not JSON (including nesting too deep and integers too long to
    parse), not a record, from another env version or with unknown rules, and for a file
    that cannot be read, is not a regular file (a FIFO, a device, also through a link), is
    larger than :data:`uno_env.files.RECORD_FILE_LIMIT` or has a line longer than
    :data:`uno_env.files.RECORD_LINE_LIMIT` (:func:`uno_env.files.read_lines`);
    :class:`uno_env.files.MissingFileError` (a FileNotFoundError) for a missing file.
    """
    path = Path(path)
    return parse_records(files.read_lines(path, "record file", error=RecordError), f"{path}")


def parse_records(lines: Iterable[tuple[int, bytes]], source: str) -> list[GameRecord]:
    """Every record of numbered JSON lines (``(1, b'{...}')``, blank lines skipped), as
    :func:`load_records` reads a file; errors name ``source`` and the line (``source`` is what
    the reader knows the text as: a file's path, or ``"the uploaded record"`` for text a page
    sent, whose server-side copy is nobody's business)."""
    records = []
    decisions: list[dict[str, Any]] = []  # a trace's decision lines, until their game's record
    for number, raw in lines:
        where = f"{source}, line {number}"
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(f"{where}: not UTF-8 text (byte {exc.start + 1} of the line)") from None
        if not line.strip():
            continue
        try:
            data = json.loads(line, object_pairs_hook=files.unique_keys)
        except files.DuplicateKeyError as exc:
            raise RecordError(f"{where}: not a record ({exc}; allowed: {files.DUPLICATE_ALLOWED})") from None
        except json.JSONDecodeError as exc:
            raise RecordError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise RecordError(f"{where}: not a record (JSON nested too deeply to read)") from None
        except ValueError as exc:  # an integer too long to convert, for one
            raise RecordError(one_line(f"{where}: not JSON ({exc})")) from None
        if isinstance(data, dict) and data.get("format") == TRACE_FORMAT:
            decisions.append(data)  # a decision of a match trace: its game's record follows
            continue
        try:
            record = GameRecord.from_dict(data, where)
            records.append(dataclasses.replace(record, trace=tuple(decisions)) if decisions else record)
            decisions = []
        except RecordError as exc:
            raise RecordError(one_line(str(exc))) from None
        except (TypeError, OverflowError, RecursionError) as exc:  # defence in depth
            raise RecordError(one_line(f"{where}: not a record ({exc})")) from None
    if not records:
        raise RecordError(f"{source}: no records in it")
    return records


def one_line(message: str, limit: int = _MESSAGE_LIMIT) -> str:
    """``message`` on one line, cut to ``limit`` characters (a huge value is never echoed whole)."""
    text = " ".join(message.split())
    if len(text) <= limit:
        return text
    return f"{text[: limit - 40]}... ({len(text):,} characters in all)"


# ------------------------------------------------------------------ replaying
def replay(record: GameRecord) -> Iterator[tuple[Game, int | None]]:
    """The game as dealt (with action None), then after each recorded action (with that action).

    The same :class:`~uno_env.Game` object is yielded each time, advanced in place; clone it
    to keep a step. An action that is not legal where the record plays it raises
    :class:`ReplayMismatchError` naming the step.
    """
    game = record.new_game()
    yield game, None
    for step, action in enumerate(record.actions):
        if game.is_over():
            raise ReplayMismatchError(
                f"the record goes on after the game ended: action {step} of {len(record.actions)}"
            )
        try:
            game.step(action)
        except IllegalActionError as exc:
            raise ReplayMismatchError(f"action {step} of the record does not replay: {exc}") from None
        yield game, action


def replay_game(record: GameRecord, check: bool = True, *, partial: bool = False) -> Game:
    """Replay the whole record and return the final game.

    With ``check`` (default) the replay is verified (:func:`check_replay`; ``partial`` accepts
    a record that cannot be verified).
    """
    steps = replay(record)
    game, _ = next(steps)
    for _ in steps:
        pass
    if check:
        check_replay(record, game, partial=partial)
    return game


def missing_checks(record: GameRecord) -> list[str]:
    """What ``record`` lacks to be verified: ``outcome``, ``final_position``, ``digest`` (or nothing)."""
    return [
        name
        for name, value in (
            ("outcome", record.outcome),
            ("final_position", record.final_position),
            ("digest", record.digest),
        )
        if value is None
    ]


def check_replay(record: GameRecord, game: Game, *, partial: bool = False) -> None:
    """Verify ``game`` (``record`` replayed to its last action) against the record.

    Raises :class:`ReplayMismatchError` when the outcome or the final position differ from
    the recorded ones, the preset does not name the rules, or the digest does not match the
    record's fields (it was edited after it was written). Raises
    :class:`IncompleteRecordError` when the record lacks any of outcome, final position and
    digest, unless ``partial``: then only what it has is checked.
    """
    replayed = game.outcome()
    if replayed is not None and record.outcome is not None and record.outcome.turns == -1:
        replayed = dataclasses.replace(replayed, turns=-1)  # an older record: turns not recorded
    if record.outcome is not None and replayed != record.outcome:
        raise ReplayMismatchError(
            "the replay ends differently from the record: recorded "
            f"{record.outcome}, replayed {game.outcome()}"
        )
    if record.final_position is not None and game.position() != record.final_position:
        raise ReplayMismatchError(
            "the replay's final position differs from the record: recorded "
            f"{record.final_position!r}, replayed {game.position()!r}"
        )
    if record.preset is not None and record.preset != game.rules.preset_name():
        detail = ""
        if record.preset in PRESETS:
            changed = game.rules.differences(PRESETS[record.preset])
            detail = ": its rules differ in " + ", ".join(c.replace("(other:", "(preset:") for c in changed)
        raise ReplayMismatchError(
            f"the record names preset {record.preset!r}, but its rules are not that preset{detail}"
        )
    if record.digest is not None and record.digest != record.game_digest():
        raise ReplayMismatchError(
            "the record was changed after it was written: its digest does not match its rules, "
            "players, seed, actions, outcome and final position (the replay itself may agree: "
            "an edit that does not change the game, such as a rule never used, is still an edit)"
        )
    missing = missing_checks(record)
    if missing and not partial:
        raise IncompleteRecordError(
            f"the record has no {', '.join(missing)}, so the replay cannot be verified: only that its "
            f"{len(record.actions)} actions are legal from its seed was checked"
            + ("" if game.is_over() else " (and the game is not over after them)")
        )

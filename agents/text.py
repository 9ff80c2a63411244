"""A decision as structured data and as plain text, and the parser of answers in words.

- :func:`decision_json`: the decision as a JSON-ready dict, schema :data:`VIEW_FORMAT`
  (``docs/own-agents.md`` lists every key): the rules in force, the table (own hand, top card,
  colour, hand sizes, pile sizes, pending penalty, calls, scores), the question (phase and its
  typed details) and the legal moves (id, notation, words), plus the public history. One
  schema for every rule family; the deck family (``uno``: ``R7``, ``WD4``; ``french``:
  ``7H``, ``QS``) says how cards are written. Built from a :class:`~uno_env.styles.view.PublicView`
  only, so it holds nothing the player to move may not know.
- :func:`decision_prompt`: the same in plain words for a language model: the rules in short,
  the situation, the legal moves in the project's notation, and how to answer.
- :func:`parse_answer`: a move from an answer in words: notation (``R7``, ``colour G``,
  ``draw``), card names (``red 7``, ``Wild Draw Four``, ``7 of hearts``), any case and
  spacing, a sentence around it (``I play red 7.``), JSON (``{"move": "R7"}``). An illegal,
  unreadable or ambiguous answer raises :class:`AnswerError`, whose message is the re-ask
  text; :func:`ask` runs the retry budget.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from uno_env.engine import actions, cards
from uno_env.engine.rules import PRESETS, RuleSet, rule_fields
from uno_env.game.facade import Phase
from uno_env.styles.public import HIDDEN
from uno_env.styles.view import PublicView

VIEW_FORMAT = "uno-env-decision/1"
"""Schema version of :func:`decision_json` (bumped when a key changes meaning or goes away)."""

KEY_RULES = ("draw", "drawn_card", "draw_when_playable", "wd4_bluff", "call", "stacking", "end", "match")
"""Rule fields every prompt states, whatever the preset (the ones that change a move's worth)."""

PHASE_QUESTIONS: dict[Phase, str] = {
    Phase.PLAY: "your turn: play a card that matches the top card or the colour in play, or draw",
    Phase.CHOOSE_COLOUR: "name the colour (suit) to play on after your wild card",
    Phase.PLAY_DRAWN: "you drew a card: play it, or keep it (pass)",
    Phase.CHALLENGE: "a Wild Draw Four was played on you: challenge it, or accept the penalty",
    Phase.ANSWER: "a penalty is pending on you: answer it with a card if the rules allow, or accept it",
    Phase.CONTINUE: "lay another card of the same play, or stop (pass)",
    Phase.CHOOSE_TARGET: "pick a player (k seats clockwise from you)",
    Phase.GIVE: "pick a card to give away",
    Phase.JUMP_IN: "out of turn: jump in with the identical card, or pass",
    Phase.BLOCK: "out of turn: block the look at the hands with a 0, or pass",
    Phase.OVER: "the game is over",
}


class AnswerError(ValueError):
    """An answer that names no legal move; the message is what to tell the player (the re-ask)."""


# ================================================================ the structured view
def rules_summary(rules: RuleSet | None) -> dict[str, Any]:
    """The rules in force in short: the nearest preset, the fields that differ from it, and
    the key rules (:data:`KEY_RULES`) with their values and one-line meanings."""
    if rules is None:
        return {"preset": None, "differs": {}, "key_rules": {}, "text": None}
    docs = {f["name"]: f for f in rule_fields()}
    nearest, differs = _nearest_preset(rules)
    key = {name: _field(rules, name, docs) for name in KEY_RULES}
    return {
        "preset": rules.preset_name(),
        "nearest_preset": nearest,
        "differs": {name: _field(rules, name, docs) for name in differs},
        "key_rules": key,
        "text": str(rules),
    }


def _field(rules: RuleSet, name: str, docs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"value": _value(getattr(rules, name)), "rule": docs[name]["rule"], "meaning": docs[name]["doc"]}


def _nearest_preset(rules: RuleSet) -> tuple[str, list[str]]:
    best: tuple[str, list[str]] | None = None
    for name, preset in PRESETS.items():
        differs = [
            f.name for f in dataclasses.fields(RuleSet) if getattr(preset, f.name) != getattr(rules, f.name)
        ]
        if best is None or len(differs) < len(best[1]):
            best = (name, differs)
    assert best is not None
    return best


def _value(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return value


def card_text(card: cards.Card) -> dict[str, str]:
    """A card as ``{"card": notation, "name": words}``."""
    return {"card": str(card), "name": card.name}


def move_words(view: PublicView, action: int) -> str:
    """A legal move in plain words (``play red 7``, ``name the colour green``, ``draw a card``)."""
    kind, value = actions.action_kind(action, view.deck)
    deck = view.deck
    if kind == actions.ActionKind.CARD:
        verb = "give" if view.phase == Phase.GIVE else "play"
        return f"{verb} {cards.Card(action, deck).name}"
    if kind == actions.ActionKind.COLOUR:
        return f"name the {'colour' if deck == 'uno' else 'suit'} {cards.COLOUR_NAMES[deck][value]}"
    if kind == actions.ActionKind.TARGET:
        seat = (view.current_player + value) % view.num_players
        return f"pick seat {seat} ({value} clockwise from you)"
    return {
        actions.ActionKind.DRAW: "draw a card",
        actions.ActionKind.PASS: "pass (keep the drawn card, stop, or let the chance go)",
        actions.ActionKind.CALL: "call UNO" if deck == "uno" else "call your last card",
        actions.ActionKind.CHALLENGE: "challenge the Wild Draw Four",
        actions.ActionKind.ACCEPT: "accept the pending penalty",
    }[kind]


def decision_json(view: PublicView, *, history: int | None = None) -> dict[str, Any]:
    """The decision of the player to move as JSON-ready data (schema :data:`VIEW_FORMAT`).

    ``history``: how many of the last public decisions to include (None: all).
    """
    decision = view.decision()
    deck = view.deck
    colour = view.active_colour
    legal = view.legal_actions()
    log = view.public_history()
    if history is not None:
        log = log[-history:] if history > 0 else []
    return {
        "format": VIEW_FORMAT,
        "deck": deck,
        "rules": rules_summary(view.rules),
        "players": view.num_players,
        "seat": view.current_player,
        "direction": "clockwise" if view.direction > 0 else "counter-clockwise",
        "phase": decision.phase.name.lower(),
        "question": PHASE_QUESTIONS[decision.phase],
        "hand": [card_text(c) for c in view.hand()],
        "top_card": card_text(view.top_card),
        "colour": None
        if colour < 0
        else {"letter": cards.COLOUR_LETTERS[deck][colour], "name": cards.COLOUR_NAMES[deck][colour]},
        "hand_sizes": view.hand_sizes(),
        "seen_hands": [
            {"seat": seat, "hand": [card_text(c) for c in hand]} for seat, hand in view.seen_hands().items()
        ],
        "draw_pile": view.draw_pile_size,
        "discard_pile": len(view.discard_pile()),
        "pending": {
            "cards": decision.pending_cards,
            "turns": decision.pending_turns,
            "from": decision.pending_from if decision.penalty_pending else None,
        },
        "drawn": None if decision.drawn is None else card_text(decision.drawn),
        "target_reason": None if decision.target_reason is None else decision.target_reason.name.lower(),
        "give_to": decision.give_to,
        "give_left": decision.give_left,
        "called": view.called(),
        "scores": view.scores(),
        "legal": [{"id": a, "move": view.describe_action(a), "words": move_words(view, a)} for a in legal],
        "history": [
            {"seat": seat, "move": None if action == HIDDEN else view.describe_action(action)}
            for seat, action in log
        ],
        "decisions": view.decisions,
    }  # fmt: skip


# ================================================================ the prompt
ANSWER_HELP = (
    'Answer with exactly one legal move, written as in the list (for example "R7", "colour G" or '
    '"draw"); words such as "play red 7" are understood too.'
)


def decision_prompt(view: PublicView, *, history: int = 12) -> str:
    """The decision in plain words for a language model: rules, situation, legal moves, how to answer."""
    data = decision_json(view, history=history)
    rules = data["rules"]
    lines = [
        f"You are playing a shedding card game of the Uno family as seat {data['seat']} of {data['players']}."
    ]
    if rules["text"] is not None:
        name = rules["preset"] or f"{rules['nearest_preset']} with changes"
        lines.append(f"Rules: {name}. In short:")
        for field, info in {**rules["key_rules"], **rules["differs"]}.items():
            lines.append(f"- {field} = {_show(info['value'])}: {info['meaning']}")
    lines.append("Situation:")
    lines.append(f"- Your hand: {' '.join(c['card'] for c in data['hand'])} ({len(data['hand'])} cards)")
    colour = data["colour"]
    lines.append(
        f"- Top card: {data['top_card']['card']} ({data['top_card']['name']}); "
        + (f"colour in play: {colour['name']} ({colour['letter']})" if colour else "no colour named yet")
    )
    sizes = ", ".join(
        f"seat {s}{' (you)' if s == data['seat'] else ''}: {n}" for s, n in enumerate(data["hand_sizes"])
    )
    lines.append(f"- Cards held: {sizes}; draw pile: {data['draw_pile']}; play goes {data['direction']}")
    for seen in data["seen_hands"]:
        lines.append(
            f"- You have seen seat {seen['seat']}'s hand: {' '.join(c['card'] for c in seen['hand'])}"
        )
    pending = data["pending"]
    if pending["from"] is not None:
        lines.append(
            f"- Pending on you from seat {pending['from']}: draw {pending['cards']}, "
            f"skip {pending['turns']} turns"
        )
    if data["drawn"] is not None:
        lines.append(f"- You just drew: {data['drawn']['card']} ({data['drawn']['name']})")
    if data["history"]:
        moves = "; ".join(f"seat {h['seat']}: {h['move'] or 'a hidden card'}" for h in data["history"])
        lines.append(f"- Last moves (oldest first): {moves}")
    lines.append(f"Decision: {data['question']}.")
    lines.append("Legal moves: " + "; ".join(f"{m['move']} ({m['words']})" for m in data["legal"]))
    lines.append(ANSWER_HELP)
    return "\n".join(lines)  # fmt: skip


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value)) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# ================================================================ reading an answer
_PUNCTUATION = re.compile(r"[^\w+#]+")
_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}  # fmt: skip


def _normal(text: str) -> str:
    words = _PUNCTUATION.sub(" ", text.lower()).split()
    return " ".join(_NUMBER_WORDS.get(w, w) for w in words)


def move_names(view: PublicView, action: int) -> list[str]:
    """The normalised phrases an answer may use for a move: its notation, its words, the
    card's name with and without a verb, colour names."""
    deck = view.deck
    notation = view.describe_action(action)
    names = {_normal(notation), _normal(notation).replace(" ", ""), _normal(move_words(view, action))}
    kind, value = actions.action_kind(action, deck)
    if kind == actions.ActionKind.CARD:
        card = cards.Card(action, deck)
        name = _normal(card.name)
        names |= {name, f"play {name}", f"give {name}", f"lay {name}"}
        names.add(name.replace("draw 4", "draw four").replace("draw four", "draw 4"))
        names.add(name.replace("draw 2", "draw two").replace("draw two", "draw 2"))
        names.add(name.replace("wild draw 4", "wd4").replace("wild draw four", "wd4"))
    elif kind == actions.ActionKind.COLOUR:
        colour = cards.COLOUR_NAMES[deck][value]
        names |= {colour, f"colour {colour}", f"color {colour}", f"suit {colour}", f"choose {colour}"}
    elif kind == actions.ActionKind.TARGET:
        seat = (view.current_player + value) % view.num_players
        names |= {f"seat {seat}", f"player {seat}", f"target {value}", f"+{value}"}
    elif kind == actions.ActionKind.DRAW:
        names |= {"draw", "draw a card", "draw card", "draw one"}
    elif kind == actions.ActionKind.PASS:
        names |= {"pass", "keep", "keep it", "stop", "no"}
    elif kind == actions.ActionKind.CALL:
        names |= {"uno", "call uno", "say uno", "call", "mau", "macao"}
    elif kind == actions.ActionKind.CHALLENGE:
        names |= {"challenge", "challenge it"}
    elif kind == actions.ActionKind.ACCEPT:
        names |= {"accept", "accept it", "take it", "draw the penalty"}
    return sorted(n for n in names if n)


def parse_answer(answer: str, view: PublicView) -> int:
    """The legal move an answer names (see the module docstring); :class:`AnswerError` with
    the re-ask message when it names none, an illegal one, or several."""
    legal = view.legal_actions()
    if not legal:
        raise AnswerError("the game is over: there is nothing to decide")
    text = answer if isinstance(answer, str) else str(answer)
    text, action_id = _from_json(text)
    if action_id is not None:
        if action_id in legal:
            return action_id
        raise AnswerError(f"action {action_id} is not a legal move now. {_legal_list(view, legal)}")
    normal = _normal(text)
    if not normal:
        raise AnswerError(f"the answer was empty. {_legal_list(view, legal)}")
    names = {action: move_names(view, action) for action in legal}
    exact = [a for a, forms in names.items() if normal in forms]
    if not exact:  # "r 7", "W D4": the notation with spaces
        compact = normal.replace(" ", "")
        exact = [a for a, forms in names.items() if compact in {f.replace(" ", "") for f in forms}]
    if len(exact) == 1:
        return exact[0]
    # a phrase inside a sentence: the longest legal name that appears as whole words
    padded = f" {normal} "
    found: dict[int, int] = {}
    for action, forms in names.items():
        for form in forms:
            if f" {form} " in padded:
                found[action] = max(found.get(action, 0), len(form))
    if found:
        best = max(found.values())
        winners = [a for a, n in found.items() if n == best]
        if len(winners) == 1:
            return winners[0]
        moves = ", ".join(view.describe_action(a) for a in winners)
        raise AnswerError(f"{_quote(text)} could mean {moves}. {_legal_list(view, legal)}")
    illegal = _named_illegal(text, view)
    if illegal is not None:
        raise AnswerError(f"{illegal} is not a legal move now. {_legal_list(view, legal)}")
    raise AnswerError(f"{_quote(text)} names no legal move. {_legal_list(view, legal)}")


def _from_json(text: str) -> tuple[str, int | None]:
    """The move of a JSON answer: ``{"move": "R7"}`` (its text) or ``{"action": 12}`` (an id);
    any other answer as it is."""
    stripped = text.strip().strip("`").strip().removeprefix("json").strip()
    if not stripped.startswith("{"):
        return text, None
    try:
        data = json.loads(stripped)
    except (ValueError, RecursionError):  # the parser recurses once per level of nesting
        return text, None
    if isinstance(data, dict):
        action = data.get("action")
        if isinstance(action, int) and not isinstance(action, bool):
            return text, action
        for key in ("move", "action", "answer"):
            if key in data:
                return str(data[key]), None
    return text, None


def _named_illegal(text: str, view: PublicView) -> str | None:
    for token in text.replace(",", " ").split():
        try:
            action = actions.parse_action(token.strip(".!?\"'`()"), view.deck)
        except (ValueError, TypeError):
            continue
        return view.describe_action(action)
    return None


def _legal_list(view: PublicView, legal: list[int]) -> str:
    return "Answer with exactly one of: " + ", ".join(view.describe_action(a) for a in legal) + "."


def _quote(text: str, limit: int = 80) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= limit else one[: limit - 3] + "...")


@dataclass
class Asked:
    """What :func:`ask` got: the move, every raw answer, the re-ask messages and whether the
    budget ran out (then ``action`` is the fallback)."""

    action: int
    answers: list[str]
    errors: list[str]
    fallback: bool

    @property
    def retries(self) -> int:
        """Answers after the first."""
        return max(0, len(self.answers) - 1)


def ask(
    view: PublicView,
    answer: Callable[[str, str | None], str],
    *,
    retries: int = 2,
    fallback: Callable[[list[int]], int] | None = None,
    prompt: str | None = None,
) -> Asked:
    """Put the decision to ``answer(prompt, reask)`` until it names a legal move, at most
    ``1 + retries`` times; ``reask`` is None the first time, then the :class:`AnswerError`
    message. When the budget runs out, ``fallback(legal)`` picks the move (default: the first
    legal one) and :attr:`Asked.fallback` is set."""
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    question = decision_prompt(view) if prompt is None else prompt
    answers: list[str] = []
    errors: list[str] = []
    reask: str | None = None
    for _ in range(retries + 1):
        raw = answer(question, reask)
        answers.append(raw)
        try:
            return Asked(parse_answer(raw, view), answers, errors, False)
        except AnswerError as exc:
            reask = str(exc)
            errors.append(reask)
    legal = view.legal_actions()
    return Asked(legal[0] if fallback is None else fallback(legal), answers, errors, True)

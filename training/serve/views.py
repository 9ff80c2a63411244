"""What a seat may see: the one function that turns a game into a seat's (or a spectator's) message.

Everything the web table sends about a game goes through :func:`seat_view` and
:func:`public_event`. A seat's view holds the public state (the discard pile, the active
colour or suit, the direction, every hand's size, standing calls, scores, players who left,
turns to sit out, the pending penalty and who sent it, the decision asked and of whom) and
what that seat alone knows: its own hand, hands it has looked at and that have not changed
since (H-ZEROSEE-1), the card it just drew (U-DRAW-1) and, when it is to decide, its legal
actions (:func:`controls`). Never in a seat's view: the other hands, the order of the draw
pile, the seed, the chance generator, whether a pending Wild Draw Four was a bluff
(U-WD4-2), and the other seats' legal actions (they would show their cards). Once the game is over every
hand is shown, as the hands are laid down for the scoring (U-SCORE-1). In an
out-of-turn window (jump-in, H-JUMP-1; a block of the look, H-ZEROSEE-1) the engine asks
only the seats that hold a card to lay, so that a window is open at all says that someone
holds one: a seat not asked sees the game as it goes on once every seat asked before it
lets the chance go (:func:`let_windows_go`), with its decision count not counting the
others' let-go answers (:func:`visible_decisions`), exactly what it sees when nobody holds
such a card; a move it makes there waits at the table until the window closes
(:class:`training.serve.tables.Table`). A spectator (``seat=None``: replays and tables
without people) sees every hand.

The controls are derived from the engine's typed decision (:meth:`uno_env.Game.decision`)
and the action table (:func:`uno_env.engine.actions.action_kind`): one entry per legal action with
its kind, so the page needs no list of phases to offer a choice.

Rules used for the wording: U-DRAW-1 (play or keep the drawn card), U-WD4-2 (challenge),
U-UNO-1, MM-CALL-1, MC-CALL-1 (the call), H-STACK-1 (answering a penalty), MC-FOUR-1 (sitting
out), H-SEVEN-1, H-ZERO-1, H-TWO-1, H-CUBE-1 (picking a seat), H-MULTI-1 (laying more cards),
H-JUMP-1, H-ZEROSEE-1 (out-of-turn windows).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.text import decision_json
from uno_env import Game, Phase
from uno_env.engine.actions import ActionKind, action_kind
from uno_env.engine.cards import COLOUR_LETTERS, COLOUR_NAMES, DeckFamily, face_name, format_face
from uno_env.engine.phases import PHASES
from uno_env.game.facade import Decision, TargetReason
from uno_env.styles.view import PublicView

VIEW_FORMAT = "uno-env-seat-view/1"
"""The version of the view's JSON form (a change of a field's meaning changes it)."""
DECISION_HISTORY = 24
"""How many of the last public decisions the agents' JSON view of a seat's decision lists."""
RECENT_DISCARDS = 8
"""How many of the top discards a view lists (the whole pile is public; its count is sent)."""
WINDOW_PHASES = tuple(info.phase for info in PHASES.values() if info.out_of_turn)
"""Phases that ask seats out of turn, only those holding a card to lay."""


def card_json(face: int, deck: DeckFamily) -> dict[str, Any]:
    """A card face as the page draws it: id, notation, long name, colour or suit (-1: none)."""
    colour = face // 13 if face < 52 else -1
    return {"id": face, "text": format_face(face, deck), "name": face_name(face, deck), "colour": colour}


def _public_fields(game: Game) -> dict[str, str]:
    """The public per-seat fields of the game's position line (turns to sit out, leaving
    order, round); the rest of the line, which names hidden cards, is not read."""
    wanted = ("sitout", "finished", "round")
    out: dict[str, str] = {}
    for part in game.position().split(";"):
        key, _, value = part.strip().partition("=")
        if key in wanted:
            out[key] = value.strip()
    return out


def _per_seat(text: str | None, n: int) -> list[int]:
    return [int(v) for v in text.split()] if text else [0] * n


def seat_name(seat: int, viewer: int | None, names: Sequence[str]) -> str:
    """``you`` for the viewer's own seat, else ``seat 2 (greedy)``."""
    if viewer is not None and seat == viewer:
        return "you"
    return f"seat {seat} ({names[seat]})"


def penalty_words(decision: Decision) -> str:
    """The pending penalty in words: ``draw 4 cards``, ``sit out 1 turn`` or both."""
    parts = []
    if decision.pending_cards:
        parts.append(f"draw {decision.pending_cards} card{'s' if decision.pending_cards != 1 else ''}")
    if decision.pending_turns:
        parts.append(f"sit out {decision.pending_turns} turn{'s' if decision.pending_turns != 1 else ''}")
    return " and ".join(parts) or "a penalty"


TARGET_WORDS = {
    TargetReason.SWAP: "swap hands with",
    TargetReason.GIVE: "give cards to",
    TargetReason.CUBE: "hit with the cube",
}


def question(game: Game, seat: int, names: Sequence[str]) -> str:
    """The question the decision puts to ``seat`` (which must be the seat to decide)."""
    decision = game.decision()
    phase = decision.phase
    deck = game.deck
    colour_word = "colour" if deck == "uno" else "suit"
    sender = seat_name(decision.pending_from, seat, names) if decision.pending_from >= 0 else "someone"
    if phase == Phase.PLAY:
        if decision.penalty_pending:
            return f"{penalty_words(decision).capitalize()} from {sender} is on you: answer it or accept it."
        if decision.can_call:
            return (
                f"Your turn: play a card or draw (call {game.rules.call_name} first if your play "
                "leaves you one card)."
            )
        return "Your turn: play a highlighted card or draw."
    if phase == Phase.CHOOSE_COLOUR:
        return f"Name the {colour_word}."
    if phase == Phase.PLAY_DRAWN:
        drawn = f"{decision.drawn}" if decision.drawn is not None else "a card"
        return f"You drew {drawn}: play it, or keep it."
    if phase == Phase.CHALLENGE:
        return (
            f"{sender.capitalize()} laid a Wild Draw Four on you ({decision.pending_cards} cards): "
            "challenge it, accept it, or answer it if you can."
        )
    if phase == Phase.ANSWER:
        return f"{penalty_words(decision).capitalize()} from {sender} is on you: answer it or accept it."
    if phase == Phase.CONTINUE:
        return "Lay another card of the same play, or stop."
    if phase == Phase.CHOOSE_TARGET:
        reason = decision.target_reason
        return f"Pick the seat to {TARGET_WORDS[reason] if reason is not None else 'target'}."
    if phase == Phase.GIVE:
        target = seat_name(decision.give_to, seat, names) if decision.give_to is not None else "a seat"
        return f"Pick a card to give to {target} ({decision.give_left} to give)."
    if phase == Phase.JUMP_IN:
        return f"Out of turn: jump in with your identical {game.top_card}, or let it go."
    if phase == Phase.BLOCK:
        return "Out of turn: block the look at the hands with a 0, or let it go."
    return f"Decide ({phase.name.lower()})."


def controls(game: Game, seat: int) -> list[dict[str, Any]]:
    """One entry per legal action of ``seat`` (the seat to decide): the action id, its kind
    (``card``, ``colour``, ``target``, ``draw``, ``pass``, ``call``, ``challenge``, ``accept``),
    its notation and a label for the button, and the card, colour or seat it names."""
    decision = game.decision()
    phase = decision.phase
    deck = game.deck
    n = game.num_players
    out = []
    for action in game.legal_actions():
        kind, value = action_kind(action, deck)
        item: dict[str, Any] = {
            "action": action,
            "kind": kind.name.lower(),
            "text": game.describe_action(action),
        }
        if kind == ActionKind.CARD:
            verb = {Phase.GIVE: "give", Phase.JUMP_IN: "jump in with", Phase.BLOCK: "block with"}.get(
                phase, "play"
            )
            item["card"] = card_json(value, deck)
            item["label"] = f"{verb} {format_face(value, deck)}"
        elif kind == ActionKind.COLOUR:
            item["colour"] = value
            item["label"] = COLOUR_NAMES[deck][value]
        elif kind == ActionKind.TARGET:
            target = (seat + value) % n
            item["target"] = target
            item["label"] = f"seat {target} ({game.hand_sizes()[target]} cards)"
        elif kind == ActionKind.PASS:
            item["label"] = {Phase.PLAY_DRAWN: "keep it", Phase.CONTINUE: "stop"}.get(
                phase, "let it go" if phase in WINDOW_PHASES else "pass"
            )
        elif kind == ActionKind.ACCEPT:
            item["label"] = f"accept ({penalty_words(decision)})"
        elif kind == ActionKind.CALL:
            item["label"] = f"call {game.rules.call_name}"
        else:
            item["label"] = game.describe_action(action)
        out.append(item)
    return out


def let_windows_go(game: Game, seat: int | None) -> Game:
    """The game as ``seat`` may picture it: while an out-of-turn window (:data:`WINDOW_PHASES`)
    asks another seat, a copy in which every seat asked before ``seat`` lets the chance go
    (``seat`` itself is then asked, or the game goes on); else ``game`` itself. The engine asks
    only the seats holding a card to lay, so the open window itself is private to them: what
    it would have looked like without any such card is all the other seats may see
    (:meth:`uno_env.Game.as_seen_by`, with its exceptions). ``None`` (a spectator) sees the
    game as it is."""
    return game if seat is None else game.as_seen_by(seat)


def visible_decisions(game: Game, seat: int | None) -> int:
    """The decision count ``seat`` sees (and answers with): the game's, without the other seats'
    let-go answers to out-of-turn windows (whom a window asked is private, see
    :func:`let_windows_go`). A spectator (``None``) sees the game's own count."""
    if seat is None:
        return game.decisions
    deck = game.deck
    unseen = sum(
        1
        for who, action, phase in game.log
        if phase in WINDOW_PHASES and who != seat and action_kind(action, deck)[0] == ActionKind.PASS
    )
    return game.decisions - unseen


def seat_view(game: Game, seat: int | None, names: Sequence[str]) -> dict[str, Any]:
    """What ``seat`` may see of ``game`` now (``None``: a spectator, who sees every hand;
    ``-1``: a watcher of a table with people, who sees what is public and no hand).

    ``names`` labels the seats (``human``, ``greedy``, ...). See the module docstring for
    what is in it and what never is.
    """
    now = game
    game = let_windows_go(game, seat)
    n = game.num_players
    deck = game.deck
    rules = game.rules
    decision = game.decision()
    over = game.is_over()
    public = _public_fields(game)
    spectator = seat is None
    to_move = -1 if over else decision.seat
    mine = seat is not None and seat >= 0 and to_move == seat
    # at the end every hand is laid down and counted (U-SCORE-1); before, a seat sees its hand
    # and the hands it has looked at, the public observer (-1) none
    # (a look that the pictured game makes past a block window, H-ZEROSEE-1, has not happened
    # yet: only hands seen in the game as it is now, and unchanged in the picture, are shown)
    own = (
        set()
        if seat is None or seat < 0
        else {seat, *(set(game.hands_seen(seat)) & set(now.hands_seen(seat)))}
    )
    shown = set(range(n)) if seat is None or over else own
    discard = game.discard_pile()
    view: dict[str, Any] = {
        "format": VIEW_FORMAT,
        "seat": seat,
        "players": n,
        "names": list(names),
        "preset": rules.preset_name(),
        "deck": deck,
        "call_name": rules.call_name,
        "colour_letters": COLOUR_LETTERS[deck],
        "colour_names": list(COLOUR_NAMES[deck]),
        "top": card_json(discard[-1].face, deck) if discard else None,
        "discard_recent": [card_json(c.face, deck) for c in discard[-RECENT_DISCARDS:]],
        "discard_count": len(discard),
        "colour": game.active_colour,
        "direction": game.direction,
        "draw_pile": game.draw_pile_size,
        "hand_sizes": game.hand_sizes(),
        "hands": {str(s): [card_json(c.face, deck) for c in game.hand(s)] for s in sorted(shown)},
        "called": game.called(),
        "scores": game.scores(),
        "finished": _per_seat(public.get("finished"), n),
        "sit_out": _per_seat(public.get("sitout"), n),
        "round": int(public.get("round", "0")),
        "decisions": visible_decisions(game, seat),
        "over": over,
        "to_move": to_move,
        "phase": decision.phase.name.lower(),
        "pending_cards": decision.pending_cards,
        "pending_turns": decision.pending_turns,
        "pending_from": decision.pending_from,
        "target_reason": None if decision.target_reason is None else decision.target_reason.name.lower(),
        "give_to": decision.give_to,
        "give_left": decision.give_left,
        "drawn": card_json(decision.drawn.face, deck)
        if decision.drawn is not None and (mine or spectator)
        else None,
        "question": question(game, seat, names) if mine and seat is not None else None,
        "legal": controls(game, seat) if mine and seat is not None else [],
        # the seat's own decision as agents get it (agents.text, schema uno-env-decision/1):
        # a script playing a seat over the websocket reads what an out-of-process agent reads
        # (a game pictured past a window keeps only the looks that have happened)
        "decision": decision_json(PublicView.of(game).forgetting_looks(own), history=DECISION_HISTORY)
        if mine
        else None,
        "outcome": None,
    }
    outcome = game.outcome()
    if outcome is not None:
        view["outcome"] = {
            "winner": outcome.winner,
            "ranking": list(outcome.ranking),
            "scores": list(outcome.scores),
            "round_points": list(outcome.round_points),
            "reason": outcome.reason,
            "truncated": outcome.truncated,
            "decisions": outcome.decisions,
        }
    return view


def public_event(
    before: Decision, actor: int, action: int, game: Game, observer: int | None, names: Sequence[str]
) -> dict[str, Any] | None:
    """What ``observer`` learns from ``actor``'s ``action`` taken at decision ``before``
    (``game`` is the game after it; ``None`` observer: a spectator, who learns everything).

    ``None`` when the observer learns nothing: another seat letting an out-of-turn window go
    (whom the window asked is hidden, :data:`WINDOW_PHASES`). A card given away (H-TWO-1) is
    named only to the giver and the receiver; a draw never names the card.
    """
    deck = game.deck
    n = game.num_players
    kind, value = action_kind(action, deck)
    phase = before.phase
    involved = observer is None or observer == actor
    if phase in WINDOW_PHASES and kind == ActionKind.PASS and not involved:
        return None
    who = seat_name(actor, observer, names)
    event: dict[str, Any] = {"seat": actor, "phase": phase.name.lower(), "kind": kind.name.lower()}
    if kind == ActionKind.CARD:
        if phase == Phase.GIVE:
            receiver = before.give_to if before.give_to is not None else -1
            event["to"] = receiver
            if involved or observer == receiver:
                event["card"] = card_json(value, deck)
                text = f"{who} gives {format_face(value, deck)} to {seat_name(receiver, observer, names)}"
            else:
                text = f"{who} gives a card to {seat_name(receiver, observer, names)}"
        else:
            event["card"] = card_json(value, deck)
            verb = {Phase.JUMP_IN: "jumps in with", Phase.BLOCK: "blocks the look with"}.get(phase, "plays")
            text = f"{who} {verb} {format_face(value, deck)}"
    elif kind == ActionKind.COLOUR:
        event["colour"] = value
        text = f"{who} names {COLOUR_NAMES[deck][value]}"
    elif kind == ActionKind.TARGET:
        target = (actor + value) % n
        event["target"] = target
        reason = before.target_reason
        text = f"{who} picks {seat_name(target, observer, names)}" + (
            f" to {TARGET_WORDS[reason]}" if reason is not None else ""
        )
    elif kind == ActionKind.PASS:
        text = f"{who} " + (
            "keeps the drawn card"
            if phase == Phase.PLAY_DRAWN
            else "stops"
            if phase == Phase.CONTINUE
            else "lets the out-of-turn chance go"
            if phase in WINDOW_PHASES
            else "passes"
        )
    elif kind == ActionKind.DRAW:
        text = f"{who} draws"
    elif kind == ActionKind.CALL:
        text = f"{who} calls {game.rules.call_name}"
    elif kind == ActionKind.CHALLENGE:
        text = f"{who} challenges the Wild Draw Four"
    else:
        text = f"{who} accepts ({penalty_words(before)})"
    event["text"] = _second_person(text) if observer is not None and observer == actor else text
    return event


def _second_person(text: str) -> str:
    """``you plays R7`` -> ``you play R7`` (the verb after ``you``)."""
    who, _, rest = text.partition(" ")
    verb, _, tail = rest.partition(" ")
    verb = verb[:-2] if verb.endswith("sses") else verb[:-1] if verb.endswith("s") else verb
    return f"{who} {verb} {tail}".rstrip()

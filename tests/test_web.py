"""The web table: what a seat may see, the checked messages, tables, replays and results.

- **No hidden information on the wire** (:func:`test_no_message_to_a_seat_depends_on_hidden_cards`):
  over random games of every preset (and the house rules that move cards between hands:
  H-SEVEN-1, H-ZERO-1, H-TWO-1, H-JUMP-1, H-ZEROSEE-1), every message a table sends to a
  seat's connection is rebuilt from the same position with the other hands and the draw
  pile re-dealt (what that seat cannot see) and must be the same text (until the game ends,
  when the hands are laid down for the scoring, U-SCORE-1); a card given away
  (H-TWO-1) is named only to its giver and receiver; the seed never appears.
- **Every message checked**: unknown, malformed, oversized, out-of-turn, stale and illegal
  messages get a one-line error over a real websocket and the game is unchanged.
- **Controls from the typed decision**: in random games of every preset each legal action
  is one control of a known kind, with the phase's wording (colour and suit, the call, the
  challenge, keep or play the drawn card, seats to swap with or give to, jump-in, sitting
  out).
- The rules of a new table are validated as a rule file's are; bad tables are refused.
- Replays verify their record and give every hand; stored agent views are checked.
- ``uno-env results`` counts people against agents with intervals; ``uno-env serve`` names
  the install line when the web extra is missing.
- A small load run: several tables at once over real websockets, no lost or repeated move,
  every record equal to its seed played in the engine (the 50-table run is
  ``python -m tests.web_load``).
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("websockets")

from starlette.testclient import TestClient

from tests.test_env_encoding import hidden_variant
from tests.web_server import emulate, running_server
from training.serve import protocol
from training.serve.app import make_app
from training.serve.explain import analyse, explained_act
from training.serve.replays import Replay, checked_view, parse_uploaded
from training.serve.seats import build_agent
from training.serve.tables import Connection, Table, TableError, Tables
from training.serve.views import controls, public_event, seat_view, visible_decisions
from uno_env import Game, Phase, PositionError, load_rules
from uno_env.engine.actions import ActionKind, action_kind
from uno_env.game.records import RecordError, load_records, record_game, save_records

# ================================================================ the wire leaks nothing
LEAK_CASES = [
    ("uno", {}, 3),
    ("uno", {"two_gives": True}, 4),  # H-TWO-1: a given card is named to giver and receiver only
    ("uno_house", {"zero_reveals": True}, 4),  # H-SEVEN-1, H-ZERO-1, H-JUMP-1, H-ZEROSEE-1
    ("uno", {"seven_swap": True, "zero_rule": "swap"}, 3),
    ("uno_mario", {}, 3),
    ("mau_mau", {}, 4),
    ("mau_mau_doubling", {}, 3),
    ("macao", {}, 5),
]


class Recorder:
    """A connection's socket that keeps the text of every message it is sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.sent.append(json.dumps(message, separators=(",", ":")))


def _message(view: dict[str, Any], event: dict[str, Any] | None) -> str:
    return json.dumps({"type": "update", "event": event, "view": view}, separators=(",", ":"))


def _redealt(rules: Any, position: str, observer: int, rng: random.Random) -> Game | None:
    try:
        return Game.from_position(rules, hidden_variant(position, observer, rng, rules))
    except PositionError:
        return None  # a few mid-play fields tie cards to hands (H-JUMP-1's penalty copies)


@pytest.mark.parametrize(("preset", "overrides", "n"), LEAK_CASES)
def test_no_message_to_a_seat_depends_on_hidden_cards(preset: str, overrides: dict[str, Any], n: int) -> None:
    rules = load_rules(preset, **overrides)
    rng = random.Random(n * 7 + len(overrides))
    checked = events = given = 0
    for game_number in range(2):
        seed = 1000 * n + game_number
        table = Table("t", rules, n, seed, [None] * n)
        recorders = [Recorder() for _ in range(n)]
        connections = [Connection(recorders[s], s) for s in range(n)]
        for connection in connections:
            asyncio.run(table.attach(connection))
        for step in range(250):
            game = table.game
            if game.is_over():
                break
            position, before, actor = game.position(), game.decision(), game.current_player
            counts = [len(r.sent) for r in recorders]
            action = rng.choice(game.legal_actions())
            asyncio.run(table.act(connections[actor], action, visible_decisions(game, actor)))
            after = table.game.position()
            for observer in range(n):
                new = recorders[observer].sent[counts[observer] :]
                assert len(new) <= 1
                if not new or table.game.is_over():
                    continue  # the last message: the hands are laid down for the scoring (U-SCORE-1)
                variant_after = _redealt(rules, after, observer, rng)
                variant_before = _redealt(rules, position, observer, rng)
                if variant_after is None or variant_before is None:
                    continue
                alternative = action
                if before.phase == Phase.GIVE and observer not in (actor, before.give_to):
                    hand = sorted({c.face for c in variant_before.hand(actor)} - {action})
                    alternative = hand[0] if hand else action
                    given += 1
                # the count of the others' let-go answers to windows, which views leave out
                variant_after.log = list(table.game.log)
                event = public_event(
                    variant_before.decision(), actor, alternative, variant_after, observer, table.names
                )
                rebuilt = _message(seat_view(variant_after, observer, table.names), event)
                assert new[0] == rebuilt, f"seat {observer} after step {step} of seed {seed}"
                checked += 1
                events += event is not None
    assert checked >= 100 and events >= 50
    if overrides.get("two_gives"):
        assert given > 0  # the case that names a given card was met


def _with_hands(position: str, hands: list[list[str]], draw: list[str]) -> str:
    """``position`` with these hands and this draw pile (the other fields kept)."""
    fields = []
    for field in position.split("; "):
        key = field.partition("=")[0]
        if key == "hands":
            field = "hands=" + "/".join(" ".join(hand) for hand in hands)
        elif key == "draw":
            field = "draw=" + " ".join(draw)
        fields.append(field)
    return "; ".join(fields)


def _window_cases(rules: Any) -> tuple[int, int, int, str, str, str]:
    """A seat about to play a numbered card, two ways that the next seat cannot tell apart:
    the third seat holds an identical card (a jump-in window opens, H-JUMP-1) or not (the
    card sits in the draw pile instead). Returns (player, next, holder, card, with, without)."""
    for seed in range(200):
        game = Game(rules, 3, seed=seed)
        if game.phase != Phase.PLAY or game.decision().penalty_pending:
            continue
        position = game.position()
        fields = dict(f.partition("=")[::2] for f in position.split("; "))
        hands = [hand.split() for hand in fields["hands"].split("/")]
        draw = fields["draw"].split()
        player = game.current_player
        following = (player + (1 if fields["dir"] == "+" else -1)) % 3
        holder = 3 - player - following
        for action in game.legal_actions():
            card = game.describe_action(action)
            if not (len(card) == 2 and card[1].isdigit() and card[1] != "0"):
                continue
            if card in hands[following] or hands[player].count(card) > 1 or hands[holder].count(card) > 1:
                continue
            middle = len(draw) // 2  # far from the top, so nobody draws it here
            swap = draw.index(card, middle) if card in draw[middle:] else -1
            if card in hands[holder]:
                with_card = position
                spare = next(i for i in range(middle, len(draw)) if draw[i] != card)
                others = list(draw)
                theirs = list(hands[holder])
                theirs[theirs.index(card)], others[spare] = others[spare], card
                without = _with_hands(position, [*hands[:holder], theirs, *hands[holder + 1 :]], others)
                return player, following, holder, card, with_card, without
            if swap >= 0:
                others = list(draw)
                theirs = list(hands[holder])
                theirs[0], others[swap] = card, theirs[0]
                with_card = _with_hands(position, [*hands[:holder], theirs, *hands[holder + 1 :]], others)
                return player, following, holder, card, with_card, position
    raise AssertionError("no deal with a playable numbered card")


def _window_table(rules: Any, position: str) -> tuple[Table, list[Recorder], list[Connection]]:
    table = Table("t", rules, 3, 1, [None] * 3)
    table.game = Game.from_position(rules, position)
    recorders = [Recorder() for _ in range(4)]
    connections = [Connection(recorders[s], s) for s in range(3)] + [Connection(recorders[3], None)]
    for connection in connections:
        asyncio.run(table.attach(connection))
    return table, recorders, connections


def _last_view(recorder: Recorder) -> dict[str, Any]:
    return dict(json.loads(recorder.sent[-1])["view"])


def test_an_open_window_is_not_seen_by_the_seats_it_does_not_ask() -> None:
    """H-JUMP-1: the engine asks only the seats holding an identical card. The next seat and a
    watcher get the same messages whether the third seat held one (and let it go) or not; the
    next seat's move, made while the window was open, waits and is made when it closes."""
    rules = load_rules("uno", jump_in=True)
    player, following, holder, card, with_card, without = _window_cases(rules)
    sent: dict[str, list[list[str]]] = {}
    logs = {}
    for case, position in (("with", with_card), ("without", without)):
        table, recorders, connections = _window_table(rules, position)
        view = _last_view(recorders[player])
        asyncio.run(table.act(connections[player], table.game.parse_action(card), view["decisions"]))
        assert (table.game.phase == Phase.JUMP_IN) == (case == "with")
        seen = _last_view(recorders[following])
        assert seen["to_move"] == following and seen["phase"] == "play" and seen["legal"]
        before = len(recorders[following].sent)
        asyncio.run(table.act(connections[following], seen["legal"][0]["action"], seen["decisions"]))
        if case == "with":  # the move waits for the window, with no reply
            assert len(recorders[following].sent) == before and table.game.current_player == holder
            asked = _last_view(recorders[holder])
            assert asked["phase"] == "jump_in" and "jump in" in asked["question"]
            let_go = next(i["action"] for i in asked["legal"] if i["kind"] == "pass")
            asyncio.run(table.act(connections[holder], let_go, asked["decisions"]))
        assert table.game.log[-1][:2] == (following, seen["legal"][0]["action"])
        sent[case] = [recorders[following].sent, recorders[3].sent]
        logs[case] = [(s, a) for s, a, _ in table.game.log if s != holder]
    assert sent["with"] == sent["without"]
    assert logs["with"] == logs["without"]


def test_the_agents_views_leave_out_another_seats_let_go_answer() -> None:
    """H-JUMP-1: the JSON view and the prompt of the next seat (agents.text) are the same
    whether the third seat was asked and let the chance go or held no identical card: its
    pass is not in the public history nor in the decision count."""
    from agents.text import decision_json, decision_prompt
    from uno_env.styles.view import PublicView

    rules = load_rules("uno", jump_in=True)
    player, following, holder, card, with_card, without = _window_cases(rules)
    shown = {}
    for case, position in (("with", with_card), ("without", without)):
        game = Game.from_position(rules, position)
        game.step(card)
        if case == "with":
            assert game.current_player == holder and game.phase == Phase.JUMP_IN
            asked = PublicView.of(game)
            game.step(next(a for a in game.legal_actions() if game.describe_action(a) == "pass"))
            assert asked.public_history()[-1] == (player, game.parse_action(card))
        assert game.current_player == following
        view = PublicView.of(game)
        assert [seat for seat, _ in view.public_history()] == [player]
        shown[case] = (decision_json(view), decision_prompt(view), view.decisions)
    assert shown["with"] == shown["without"]


def test_a_move_made_during_a_window_is_dropped_when_someone_jumps_in() -> None:
    rules = load_rules("uno", jump_in=True)
    player, following, holder, card, with_card, _ = _window_cases(rules)
    table, recorders, connections = _window_table(rules, with_card)
    view = _last_view(recorders[player])
    asyncio.run(table.act(connections[player], table.game.parse_action(card), view["decisions"]))
    seen = _last_view(recorders[following])
    asyncio.run(table.act(connections[following], seen["legal"][0]["action"], seen["decisions"]))
    asyncio.run(
        table.act(
            connections[holder], table.game.parse_action(card), _last_view(recorders[holder])["decisions"]
        )
    )
    assert table.waiting == {} and all(s != following for s, _, _ in table.game.log)
    news = json.loads(recorders[following].sent[-1])
    assert (
        news["event"]["kind"] == "card"
        and news["event"]["phase"] == "jump_in"
        and news["event"]["seat"] == holder
    )
    # the stale move is refused with one line if sent again
    with pytest.raises(TableError, match="not the current one"):
        asyncio.run(table.act(connections[following], seen["legal"][0]["action"], seen["decisions"]))


def test_the_leak_probe_sees_a_hidden_card_in_a_message() -> None:
    """The comparison above can fail: a view that showed another hand would differ."""
    game = Game("uno", 3, seed=4)
    rng = random.Random(1)
    variant = Game.from_position("uno", hidden_variant(game.position(), 0, rng))
    names = ["a", "b", "c"]
    assert seat_view(game, 0, names) == seat_view(variant, 0, names)
    assert seat_view(game, None, names) != seat_view(variant, None, names)  # the spectator's shows all


def test_a_seat_sees_its_hand_and_legal_moves_only() -> None:
    game = Game("uno", 3, seed=918_273_645)
    names = ["human", "greedy", "greedy"]
    mover = game.current_player
    other = (mover + 1) % 3
    mine, theirs, public = (
        seat_view(game, mover, names),
        seat_view(game, other, names),
        seat_view(game, -1, names),
    )
    assert (
        list(mine["hands"]) == [str(mover)]
        and list(theirs["hands"]) == [str(other)]
        and public["hands"] == {}
    )
    assert {c["action"] for c in mine["legal"]} == set(game.legal_actions())
    assert theirs["legal"] == [] and public["legal"] == [] and theirs["question"] is None
    # the mover's decision as agents read it (agents.text): its own hand and legal moves only
    decision = mine["decision"]
    assert decision["format"] == "uno-env-decision/1" and decision["seat"] == mover
    assert [m["id"] for m in decision["legal"]] == game.legal_actions()
    assert sorted(c["card"] for c in decision["hand"]) == sorted(str(c) for c in game.hand(mover))
    assert theirs["decision"] is None and public["decision"] is None
    text = json.dumps(theirs)
    assert "seed" not in text and str(game.seed) not in text


# ================================================================ controls from the decision
CONTROL_CASES = [
    ("uno", {}, 4),
    ("uno_house", {"zero_reveals": True, "two_gives": True, "multi_play": "identical"}, 4),
    ("uno_mario", {}, 3),
    ("mau_mau", {}, 4),
    ("mau_mau_doubling", {}, 2),
    ("macao", {}, 4),
    ("uno", {"wd4_bluff": "challenge", "cube": True, "eight_again": True}, 3),
]
KINDS = {"card", "colour", "target", "draw", "pass", "call", "challenge", "accept"}


@pytest.mark.parametrize(("preset", "overrides", "n"), CONTROL_CASES)
def test_every_legal_action_is_one_control_with_the_phase_s_words(
    preset: str, overrides: dict[str, Any], n: int
) -> None:
    rules = load_rules(preset, **overrides)
    rng = random.Random(5)
    phases: set[str] = set()
    names = ["human"] * n
    for seed in range(4):
        game = Game(rules, n, seed=seed)
        for _ in range(600):
            if game.is_over():
                break
            seat = game.current_player
            items = controls(game, seat)
            assert sorted(i["action"] for i in items) == game.legal_actions()
            assert {i["kind"] for i in items} <= KINDS and all(i["label"] for i in items)
            view = seat_view(game, seat, names)
            assert view["question"] and view["legal"] == items
            phase = game.phase
            phases.add(phase.name)
            kinds = {i["kind"] for i in items}
            if phase == Phase.CHOOSE_COLOUR:
                assert kinds == {"colour"}
                assert {i["label"] for i in items} <= set(view["colour_names"])
            if phase == Phase.CHALLENGE:
                assert {"challenge", "accept"} <= kinds and "challenge" in view["question"]
            if phase == Phase.PLAY_DRAWN:
                assert [i["label"] for i in items if i["kind"] == "pass"] in (["keep it"], [])
            if phase == Phase.CHOOSE_TARGET:
                assert kinds == {"target"} and all(i["target"] != seat for i in items)
            if phase == Phase.JUMP_IN:
                assert "jump in" in view["question"] and "let it go" in [i["label"] for i in items]
            if phase == Phase.ANSWER and game.decision().pending_turns:
                assert any("sit out" in i["label"] for i in items)  # MC-FOUR-1
            if kinds & {"call"}:
                assert any(i["label"] == f"call {rules.call_name}" for i in items)
            game.step(rng.choice(game.legal_actions()))
    assert "PLAY" in phases
    if preset == "mau_mau":
        assert "CHOOSE_COLOUR" in phases  # the Jack's suit choice (MM-JACK-1)
    if preset == "uno_house":
        assert {"CHOOSE_TARGET", "JUMP_IN", "GIVE"} <= phases
    if preset == "macao":
        assert "ANSWER" in phases


# ================================================================ messages over a real websocket
def test_bad_messages_get_an_error_and_change_nothing(tmp_path: Path) -> None:
    import websockets.sync.client as client

    with running_server(tmp_path / "games.jsonl", fixed_seeds=True) as (url, tables):
        app_url = url.replace("http://", "ws://") + "/ws"
        made = tables.create(load_rules("uno"), 3, ["human", "human", "greedy"], seed=9)
        table = tables.get(made.id)
        with client.connect(app_url) as ws:

            def ask(message: str | bytes) -> dict[str, Any]:
                ws.send(message)
                answer: dict[str, Any] = json.loads(ws.recv(timeout=30))
                return answer

            assert (
                "join a seat first" in ask(json.dumps({"type": "act", "action": 1, "decision": 0}))["error"]
            )
            assert "unknown message type" in ask(json.dumps({"type": "eval", "code": "1"}))["error"]
            assert "not JSON" in ask("{nope")["error"]
            assert "expected a JSON object" in ask("[1, 2]")["error"]
            assert (
                "at most 2048"
                in ask(json.dumps({"type": "join", "table": "x" * 5000, "token": "y"}))["error"]
            )
            assert (
                "not one of this table's seats"
                in ask(json.dumps({"type": "join", "table": made.id, "token": "forged"}))["error"]
            )
            welcome = ask(json.dumps({"type": "join", "table": made.id, "token": made.tokens[0]}))
            assert welcome["type"] == "welcome" and welcome["view"]["seat"] == 0
            while True:  # let the agents move until it is a person's decision
                if table.game.current_player in (0, 1):
                    break
                ws.recv(timeout=30)
            position = table.game.position()
            decisions = table.game.decisions
            bad = [
                ({"type": "act", "action": 1}, "missing decision"),
                ({"type": "act", "action": "R7", "decision": decisions}, "action must be an integer"),
                ({"type": "act", "action": True, "decision": decisions}, "action must be an integer"),
                ({"type": "act", "action": 1, "decision": decisions, "x": 1}, "unknown field"),
                ({"type": "act", "action": 5, "decision": decisions + 1}, "not the current one"),
                ({"type": "join", "table": made.id, "token": made.tokens[1]}, "already sits at a table"),
            ]
            if table.game.current_player == 0:
                illegal = next(a for a in range(74) if a not in table.game.legal_actions())
                bad.append(({"type": "act", "action": illegal, "decision": decisions}, "is not legal now"))
            else:
                bad.append(
                    ({"type": "act", "action": table.game.legal_actions()[0], "decision": decisions},
                     "not your decision")
                )  # fmt: skip
            for message, words in bad:
                answer = ask(json.dumps(message))
                assert answer["type"] == "error" and words in answer["error"], (message, answer)
                assert "\n" not in answer["error"] and "hands=" not in answer["error"]
            assert table.game.position() == position and table.game.decisions == decisions


def test_a_watcher_of_a_table_with_people_sees_no_hand(tmp_path: Path) -> None:
    import websockets.sync.client as client

    with running_server(tmp_path / "games.jsonl", fixed_seeds=True) as (url, tables):
        made = tables.create(load_rules("uno"), 2, ["human", "greedy"], seed=3)
        with client.connect(url.replace("http://", "ws://") + "/ws") as ws:
            ws.send(json.dumps({"type": "watch", "table": made.id}))
            welcome = json.loads(ws.recv(timeout=30))
            assert welcome["view"]["hands"] == {} and welcome["view"]["legal"] == []
            ws.send(json.dumps({"type": "act", "action": 1, "decision": 0}))
            assert "watcher cannot play" in json.loads(ws.recv(timeout=30))["error"]


# ================================================================ new tables
def test_new_tables_are_validated_like_rule_files(tmp_path: Path) -> None:
    app, tables = make_app(records=tmp_path / "g.jsonl", max_tables=2)
    web = TestClient(app)
    setup = web.get("/api/setup").json()
    assert {f["name"] for f in setup["fields"]} >= {"seven_swap", "stacking", "jump_in", "draw"}
    assert setup["presets"]["uno_house"]["seven_swap"] is True
    assert "search" in {a["id"] for a in setup["agents"]}
    assert next(a for a in setup["agents"] if a["id"] == "oracle")["cheats"]

    def refused(body: Any) -> str:
        answer = web.post("/api/tables", json=body)
        assert answer.status_code == 400
        return str(answer.json()["error"])

    base = {"preset": "uno", "rules": {}, "players": 2, "seats": ["human", "greedy"]}
    assert "must be true or false" in refused({**base, "rules": {"seven_swap": "yes"}})
    assert "unknown rule key(s) sven_swap" in refused({**base, "rules": {"sven_swap": True}})
    assert "must be one of" in refused({**base, "rules": {"draw": "lots"}})
    assert "preset must be one of" in refused({**base, "preset": "poker"})
    assert "outside this variant's range" in refused({**base, "players": 11, "seats": ["human"] * 11})
    assert "is not 'human' nor an agent" in refused({**base, "seats": ["human", "/etc/passwd"]})
    assert "is not 'human' nor an agent" in refused({**base, "seats": ["human", "module:attr"]})
    assert "seats lists 3 entries" in refused({**base, "seats": ["human", "greedy", "greedy"]})
    assert "fixed-seeds" in refused({**base, "seed": 4})
    assert "unknown field(s) code" in refused({**base, "code": "x"})
    assert "cannot play these rules" in refused(
        {**base, "seats": ["human", "distilled_uno_4p"], "preset": "macao"}
    )
    assert "not JSON" in web.post("/api/tables", content=b"{").json()["error"]
    ok = web.post("/api/tables", json={**base, "rules": {"seven_swap": True}})
    assert ok.status_code == 200 and list(ok.json()["tokens"]) == ["0"]
    assert tables.get(ok.json()["table"]).game.rules.seven_swap
    web.post("/api/tables", json=base)
    assert "most tables" in refused(base)


# ================================================================ agents and what they saw
@pytest.mark.parametrize(
    "name", ["search:sims=200", "oracle:sims=100", "distilled_uno_2p", "random_legal", "greedy"]
)
def test_the_agent_view_comes_with_the_agent_s_own_action(name: str) -> None:
    rules = load_rules("uno")
    game = Game(rules, 2, seed=21)
    first, second = build_agent(name, rules, 2, 5), build_agent(name, rules, 2, 5)
    kinds = set()
    for _ in range(40):
        if game.is_over():
            break
        action, view = explained_act(first, game)
        assert action == second.act(None, game.legal_mask(), game)
        kinds.add(view["kind"])
        if view["kind"] != "choice":
            assert view["actions"] == game.legal_actions() and len(view["values"]) == len(view["actions"])
        game.step(action)
    expected = {
        "search": "visits",
        "oracle": "visits",
        "distilled_uno_2p": "probabilities",
        "random_legal": "probabilities",
    }
    assert expected.get(name.split(":")[0], "choice") in kinds


def test_a_record_written_elsewhere_is_analysed_from_the_agent_names() -> None:
    game = Game("uno", 2, seed=3)
    while len(game.legal_actions()) < 3:
        game.step(game.legal_actions()[0])
    view = analyse("search:sims=100", game, seed=1)
    assert view is not None and view["kind"] == "visits" and view["reanalysed"]
    assert analyse("human", game, seed=1) is None
    assert analyse("distilled_uno_2p", game, seed=1)["kind"] == "probabilities"  # type: ignore[index]


# ================================================================ replays and records
def _web_record(seed: int = 2) -> Any:
    rules = load_rules("uno")
    game, _ = emulate(rules, ["human", "search", "greedy"], seed)
    return record_game(
        game, ["human", "search", "greedy"], source="web", extra={"agent_views": [None] * len(game.history)}
    )


def test_a_replay_verifies_its_record_and_shows_every_hand() -> None:
    from training.serve.explain import HandModel

    record = _web_record()
    replay = Replay("r", record, HandModel())
    summary = replay.summary()
    assert summary["verified"].startswith("verified") and len(summary["frames"]) == len(record.actions) + 1
    assert all(len(f["view"]["hands"]) == 3 for f in summary["frames"])
    replay._thread.join(timeout=60)
    chart = replay.chart_so_far()
    assert chart["done"] == chart["total"] == len(record.actions) + 1
    assert chart["values"][-1] == [1.0 if s == record.outcome.winner else 0.0 for s in range(3)]
    assert all(abs(sum(v) - 1.0) < 1e-3 for v in chart["values"][:-1])
    edited = type(record)(**{**record.__dict__, "seed": record.seed, "digest": "sha256:" + "0" * 64})
    assert "does not replay as recorded" in Replay("e", edited, HandModel()).verified


def test_a_trace_replays_with_each_decisions_line(tmp_path: Path) -> None:
    """A match trace's game replays with, beside each decision, its trace line: the JSON view
    shown, the answers, the move; a line that is not the game's decision is not shown, long
    text is cut, and the page reads it through the server."""
    from agents.match import play_deals
    from agents.trace import TraceWriter
    from training.serve.explain import HandModel

    trace = tmp_path / "trace.jsonl"
    with TraceWriter(trace) as writer:
        play_deals("uno", ["greedy", "random_legal"], [3, 4], trace=writer)
    records = load_records(trace)
    assert len(records) == 2 and all(len(r.trace) == len(r.actions) for r in records)
    record = records[1]
    replay = Replay("r", record, HandModel())
    assert replay.summary()["traced"] == list(range(len(record.actions)))
    game = record.new_game()
    for step, action in enumerate(record.actions):
        seen = replay.agent_view(step)
        assert seen is not None
        line = seen["trace"]
        assert line["move"] == game.describe_action(action) and line["move"] in line["legal"]
        assert line["agent"].split(":")[0] == ["greedy", "random_legal"][game.current_player]
        shown = json.loads(line["view"])
        assert shown["format"] == "uno-env-decision/1" and shown["seat"] == game.current_player
        game.step(action)
    # edited by hand: a line for another move is not shown, a long answer is cut
    lines = trace.read_text(encoding="utf-8").splitlines()
    parsed = [json.loads(text) for text in lines]
    at = [i for i, line in enumerate(parsed) if line.get("format") == "uno-env-trace/1" and line["game"] == 1]
    wrong, long = json.loads(lines[at[0]]), json.loads(lines[at[1]])
    wrong["action"] = next(a for a in range(200) if a != wrong["action"])
    long["answers"] = ["x" * 50_000]
    lines[at[0]], lines[at[1]] = json.dumps(wrong), json.dumps(long)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    replay = Replay("e", load_records(edited)[1], HandModel())
    assert 0 not in replay.trace and "trace" not in (replay.agent_view(0) or {})
    assert len(replay.agent_view(1)["trace"]["answers"][0]) < 4_100  # type: ignore[index]
    # through the server: the listing holds the trace's games, the agent view its line
    app, _ = make_app(replay_files=[trace], estimator=HandModel())
    with TestClient(app) as client:
        listing = client.get("/api/records").json()["records"]
        assert len(listing) == 2
        opened = client.post("/api/replays", json={"id": 1}).json()
        assert opened["traced"] == list(range(len(record.actions)))
        step = client.get(f"/api/replays/{opened['replay']}/agent/0").json()
        assert step["view"]["trace"]["move"] == record.new_game().describe_action(record.actions[0])


def test_stored_agent_views_are_checked_and_uploads_bounded(tmp_path: Path) -> None:
    assert (
        checked_view({"kind": "visits", "actions": [1, 2], "values": [3, 4], "means": [0.1, 0.2]}) is not None
    )
    assert checked_view({"kind": "script", "actions": [1]}) is None
    assert checked_view({"kind": "probabilities", "actions": [1, 2], "values": ["<img>", 1]}) is None
    assert checked_view({"kind": "probabilities", "actions": [1, 2], "values": [1]}) is None
    with pytest.raises(RecordError, match="not JSON"):
        parse_uploaded("{nope")
    with pytest.raises(RecordError, match="at most"):
        parse_uploaded("x" * 2_000_000)
    record = _web_record()
    assert parse_uploaded(record.to_json()).actions == record.actions


@pytest.mark.parametrize(
    ("text", "problem"),
    [("{nope", r"the uploaded record, line 1: not JSON"),
     ('{"a": 1}', r"the uploaded record, line 1: "),
     ("\n\n", r"the uploaded record: no records in it"),
     ("\ud800", r"the uploaded record, line 1: not UTF-8")],
    ids=["not JSON", "not a record", "empty", "lone surrogate"],
)  # fmt: skip
def test_a_bad_upload_names_the_uploaded_record_not_a_server_path(text: str, problem: str) -> None:
    """The page showed '/tmp/tmpXXXX/uploaded.jsonl, line 1: ...' (the server's temporary
    copy), e.g. '/tmp/tmpyi0_r744/uploaded.jsonl, line 1: not JSON'."""
    with pytest.raises(RecordError, match=problem) as exc:
        parse_uploaded(text)
    assert tempfile.gettempdir() not in str(exc.value) and "uploaded.jsonl" not in str(exc.value)


def test_browser_games_are_records_that_uno_env_replay_reads(tmp_path: Path) -> None:
    from training.cli import main

    path = tmp_path / "games.jsonl"
    save_records(path, [_web_record()])
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["replay", str(path), "--quiet"]) == 0
    assert "verified" in out.getvalue()


def test_results_count_people_against_agents_with_intervals(tmp_path: Path) -> None:
    from training.cli import main

    rules = load_rules("uno")
    records = []
    for seed in range(6):
        game, _ = emulate(rules, ["human", "greedy"], seed)
        records.append(record_game(game, ["human", "greedy"], source="web"))
    game, _ = emulate(rules, ["greedy", "blocker"], 0)
    records.append(record_game(game, ["greedy", "blocker"], source="web"))  # no person: left out
    path = tmp_path / "games.jsonl"
    save_records(path, records)
    wins = sum(1 for r in records[:6] if r.outcome is not None and r.outcome.winner == 0)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["results", str(path)]) == 0
    text = out.getvalue()
    assert "6 game(s) with people and agents among 7 record(s)" in text
    row = next(line for line in text.splitlines() if line.startswith("| greedy, 2 players"))
    assert f"| 6 | {wins} | {wins / 6:.1%} [" in row and "50.0%" in row
    unreadable = ((tmp_path / "missing.jsonl", "the file does not exist"), (tmp_path, "is a directory"))
    for given, problem in unreadable:
        err = io.StringIO()
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            assert main(["results", str(path), str(given)]) == 2
        assert f"record file {given}: " in err.getvalue() and problem in err.getvalue()


def test_serve_names_the_install_line_when_the_web_extra_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    from training.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    assert main(["serve"]) == 2
    assert "pip install 'uno-env[web]'" in capsys.readouterr().err


def test_serve_refuses_bad_options(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from training.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert main(["serve", "--replay", str(tmp_path / "none.jsonl")]) == 2
    assert (
        main(["serve", "--agent", "greedy=bluffer", "--port", "0", "--records", str(tmp_path / "g.jsonl")])
        == 2
    )
    err = capsys.readouterr().err
    assert "--port must be 0..65535" in err and "does not exist" in err and "already taken" in err


def test_an_operators_agent_may_not_take_a_style_alias_as_its_name() -> None:
    """--agent random=FILE.py:NAME was accepted: its games were recorded as played by 'random',
    which every other tool reads as the style random_legal."""
    from training.serve.seats import default_catalogue

    with pytest.raises(ValueError, match=r"--agent 'random=greedy': the name 'random' is already taken"):
        default_catalogue(["random=greedy"])
    assert default_catalogue(["mine=greedy"])["mine"].spec == "greedy"


# ================================================================ several tables at once
def test_several_tables_at_once_lose_no_move_and_match_the_engine(tmp_path: Path) -> None:
    from tests import web_load

    records = tmp_path / "games.jsonl"
    with running_server(records, fixed_seeds=True, agents=[web_load.SEARCH_AGENT]) as (url, _):
        result = asyncio.run(web_load.run_load(url, tables=6, seed=500, timeout=300))
    assert web_load.check(result, records, 500) == []
    assert len(load_records(records)) == 6
    assert sum(p.acknowledged for p in result["people"].values()) > 30


def test_the_table_refuses_a_move_for_another_seat() -> None:
    table = Table("t", load_rules("uno"), 2, 1, [None, None])
    mover = table.game.current_player
    other = Connection(Recorder(), 1 - mover)
    asyncio.run(table.attach(other))
    with pytest.raises(TableError, match="not your decision"):
        asyncio.run(table.act(other, table.game.legal_actions()[0], table.game.decisions))
    first, second = Connection(Recorder(), mover), Connection(Recorder(), mover)
    asyncio.run(table.attach(first))
    asyncio.run(table.attach(second))  # the seat joined again from another browser
    with pytest.raises(TableError, match="joined from elsewhere"):
        asyncio.run(table.act(first, table.game.legal_actions()[0], table.game.decisions))
    asyncio.run(table.act(second, table.game.legal_actions()[0], table.game.decisions))
    tables = Tables({}, None, max_tables=1)
    with pytest.raises(TableError, match="not 'human' nor an agent"):
        tables.create(load_rules("uno"), 2, ["human", "nobody"])
    with pytest.raises(protocol.ProtocolError, match="unknown message type"):
        protocol.parse_message(json.dumps({"type": 5}))


def test_a_message_missing_a_field_names_its_fields() -> None:
    """A message without one of its fields said "a act message has action, decision": the article
    fits the message type."""
    with pytest.raises(
        protocol.ProtocolError, match=r"^act: missing decision; an act message has action, decision$"
    ):
        protocol.parse_message(json.dumps({"type": "act", "action": 1}))
    with pytest.raises(
        protocol.ProtocolError, match=r"^join: missing token; a join message has table, token$"
    ):
        protocol.parse_message(json.dumps({"type": "join", "table": "t"}))


def test_an_agents_let_go_answer_makes_no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a pace between agents' moves, an agent's letting an out-of-turn chance go (H-JUMP-1)
    is not followed by a pause: the other seats would see the table wait for a window they are
    not told of. Every other agent move is."""
    from training.serve.seats import CatalogueEntry

    pauses: list[float] = []
    real_sleep = asyncio.sleep

    async def counted(seconds: float) -> None:
        pauses.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(asyncio, "sleep", counted)
    rules = load_rules("uno", jump_in=True)
    greedy = CatalogueEntry("greedy", "greedy", "plays its best card")
    chooser = CatalogueEntry("random_legal", "random_legal", "uniform over the legal actions")
    seen = 0
    for seed in range(4):
        table = Table("t", rules, 3, seed, [greedy, chooser, greedy], pace=0.5)
        asyncio.run(table.run_agents())
        assert table.game.is_over()
        lets_go = sum(
            1 for _, action, phase in table.game.log if phase in (Phase.JUMP_IN, Phase.BLOCK) and
            action_kind(action, table.game.deck)[0] == ActionKind.PASS
        )  # fmt: skip
        assert len(pauses) == len(table.game.log) - lets_go
        seen += lets_go
        pauses.clear()
    assert seen > 0


def test_an_operators_agent_that_fails_stops_the_table_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent of ``--agent`` that raises, answers no legal move or breaks its protocol stops
    the game: every connection is told which seat failed (not the agent's error, which may name
    that seat's legal moves), the operator's log gets the error, moves are refused, no record
    is written and a ``cmd:`` agent's program is stopped."""
    from training.serve.seats import CatalogueEntry

    faulty = Path(__file__).parent / "user_agents" / "faulty_agents.py"
    garbage = tmp_path / "garbage.py"
    garbage.write_text(
        "import json, sys\nfor line in sys.stdin:\n"
        "    print(json.dumps({'action': 999} if 'act' in line else {}), flush=True)\n"
    )
    cases = [
        (f"{faulty}:Raises", "its act() raised RuntimeError: agent exploded"),
        (f"{faulty}:Nothing", "answered None (a NoneType), not an action id"),
        (f"cmd:{sys.executable} {garbage}", "chose action 999, which is not legal here"),
    ]
    for spec, logged in cases:
        entry = CatalogueEntry("mine", spec, "the operator's agent")
        saved: list[Any] = []
        table = Table("t", load_rules("uno"), 2, 4, [None, entry], on_record=saved.append)
        person, watcher = Recorder(), Recorder()
        seat = Connection(person, 0)
        asyncio.run(table.attach(seat))
        asyncio.run(table.attach(Connection(watcher, None)))
        if table.failed is None:  # the person moves first: the agent fails on its turn
            asyncio.run(table.act(seat, table.game.legal_actions()[0], table.game.decisions))
        stopped = "the game stopped: the agent at seat 1 (mine) failed"
        for recorder in (person, watcher):
            last = json.loads(recorder.sent[-1])
            assert last["type"] == "error" and last["error"].startswith(stopped), last
            assert "legal" not in last["error"] and "exploded" not in last["error"]
        log = capsys.readouterr().err
        assert logged in log and len(log.strip().splitlines()) == 1, log
        with pytest.raises(TableError, match="the game stopped"):
            asyncio.run(table.act(seat, table.game.legal_actions()[0], table.game.decisions))
        assert not saved and not table.game.is_over()
        process = getattr(table.agents[1], "_proc", "none")
        assert process is None or process == "none"  # a cmd: agent's program was stopped


def test_serve_refuses_files_it_could_not_use(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--replay a file that is not a record file, or a folder without any, and --records a file
    that is not one (each finished game would be appended to it) or a path below a file: one
    line before the server starts. The page left such a --replay file out without a word; the
    games were appended to any --records file, which then no longer loaded; a path below a file
    stopped in a traceback."""
    from training.cli import main

    notes = tmp_path / "notes.jsonl"
    notes.write_text("my notes\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv, message in (
        (
            ["--replay", str(notes)],
            f"--replay {notes} is not a record file the page can replay: {notes}, line 1",
        ),
        (["--replay", str(empty)], f"--replay {empty} is a folder without record files"),
        (["--records", str(notes)], f"--records {notes} is not a record file to append to"),
        # a path below a file: the folder was made before the check, a FileExistsError traceback
        (["--records", str(notes / "games.jsonl")], f"--records {notes / 'games.jsonl'}: {notes} is a file"),
    ):
        assert main(["serve", "--port", "0", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("uno-env: error: ") and message in err and err.count("\n") == 1, err
    assert notes.read_text() == "my notes\n"


def test_a_table_refuses_a_network_trained_for_another_game_unless_the_server_allows_it() -> None:
    """The page seated ``ppo_uno_2p`` at a 4-player table, or at house rules, without a word
    (build_agent checked the deck family only); ``serve --allow-rules-mismatch`` seats it."""
    rules = load_rules("uno")
    for spec in ("ppo_uno_2p", "search:sims=2,net=ppo_uno_2p"):
        with pytest.raises(
            ValueError, match=r"trained for 2 players, the game has 4.*serve --allow-rules-mismatch"
        ):
            build_agent(spec, rules, 4, 1)
        assert build_agent(spec, rules, 4, 1, allow_rules_mismatch=True) is not None
    with pytest.raises(ValueError, match=r"trained on other rules \(stacking="):
        build_agent("ppo_uno_2p", load_rules("uno_house"), 2, 1)
    app, _ = make_app(records=None)
    body = {"preset": "uno", "rules": {}, "players": 4, "seats": ["human", "ppo_uno_2p", "greedy", "greedy"]}
    answer = TestClient(app).post("/api/tables", json=body)
    assert answer.status_code == 400 and "trained for 2 players" in answer.json()["error"]
    app, _ = make_app(records=None, allow_rules_mismatch=True)
    assert TestClient(app).post("/api/tables", json=body).status_code == 200


def test_opening_a_listed_record_when_there_are_none_says_so() -> None:
    """With no recorded games, ``{"id": 0}`` was refused as "id must be a record of the list,
    0..-1"; the refusal now says there are none and what to send instead."""
    app, _ = make_app(records=None)
    answer = TestClient(app).post("/api/replays", json={"id": 0})
    assert answer.status_code == 400
    assert answer.json()["error"] == (
        'this server has no recorded games to open; send {"text": "<record line>"} to replay one'
    )


def test_watchers_filling_a_table_do_not_keep_a_person_from_their_seat(tmp_path: Path) -> None:
    """Anyone with a table's id may watch it. The connection limit counted the seats and the
    watchers together, so 24 watchers made the table refuse its own people: joining with a
    seat's token got "this table has its most connections". The limit is on watchers; a seat
    has at most one connection (a new one replaces the old)."""
    import websockets.sync.client as client

    from training.serve.app import MAX_WATCHERS_PER_TABLE

    with running_server(tmp_path / "games.jsonl", fixed_seeds=True) as (url, tables):
        made = tables.create(load_rules("uno"), 2, ["human", "greedy"], seed=6)
        ws_url = url.replace("http://", "ws://") + "/ws"
        watchers = [client.connect(ws_url) for _ in range(MAX_WATCHERS_PER_TABLE + 1)]
        try:
            answers = []
            for ws in watchers:
                ws.send(json.dumps({"type": "watch", "table": made.id}))
                answers.append(json.loads(ws.recv(timeout=30)))
            assert [a["type"] for a in answers[:-1]] == ["welcome"] * MAX_WATCHERS_PER_TABLE
            assert answers[-1] == {
                "type": "error",
                "error": f"this table has its most watchers ({MAX_WATCHERS_PER_TABLE}); "
                "a seat's link still joins",
            }
            with client.connect(ws_url) as person:
                person.send(json.dumps({"type": "join", "table": made.id, "token": made.tokens[0]}))
                welcome = json.loads(person.recv(timeout=30))
                assert welcome["type"] == "welcome" and welcome["view"]["seat"] == 0
        finally:
            for ws in watchers:
                ws.close()


def test_a_record_that_cannot_be_written_does_not_break_the_game_s_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The record file checked at the start can fail later (a full disk, a folder removed or
    put in its place). The write's OSError escaped the last move: the mover's socket closed
    without an answer and the other connections never got the game's end. Now every
    connection gets the final view and the operator's log gets one line with the record, so
    the game is not lost."""
    blocked = tmp_path / "games.jsonl"
    blocked.mkdir()  # the record file's path is a folder now: appending raises IsADirectoryError
    tables = Tables({}, blocked, fixed_seeds=True)
    table = tables.create(load_rules("uno"), 2, ["human", "human"], seed=11)
    recorders = [Recorder(), Recorder()]
    seats = [Connection(recorders[s], s) for s in range(2)]
    watcher = Recorder()
    for connection in [*seats, Connection(watcher, None)]:
        asyncio.run(table.attach(connection))
    chooser = random.Random(0)
    while not table.game.is_over():
        mover = table.game.current_player
        asyncio.run(table.act(seats[mover], chooser.choice(table.game.legal_actions()), table.game.decisions))
    for recorder in [*recorders, watcher]:
        last = json.loads(recorder.sent[-1])
        assert last["type"] == "update" and last["view"]["over"], last
    log = capsys.readouterr().err.strip().splitlines()
    assert len(log) == 1 and "Is a directory" in log[0]
    assert log[0].startswith(f"uno-env serve: cannot append the record of table {table.id} to {blocked}: ")
    assert table.record is not None and log[0].endswith(table.record.to_json())


def test_building_a_replay_does_not_stop_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay was built on the server's event loop: a truncated 10,000-decision game of
    random play (a 30 KB record) held every table and request for 19 s and took 1 GB, and
    longer records longer still (a 60,000-decision one ran past ten minutes). Replays are
    now built in a worker thread, one at a time, up to MAX_REPLAY_DECISIONS decisions; a
    dropped replay stops computing its win chances, and the kept ones hold at most
    MAX_KEPT_DECISIONS decisions in all."""
    import threading
    import time
    import urllib.request

    from training.serve import replays as replays_module
    from training.serve.explain import HandModel
    from training.serve.replays import Replays

    record = _web_record()
    built = replays_module.Replay.__init__

    def slow_build(self: Replay, *args: Any) -> None:
        time.sleep(3)  # a long game's build, holding the thread it runs in
        built(self, *args)

    monkeypatch.setattr(replays_module.Replay, "__init__", slow_build)
    with running_server(None, estimator=HandModel()) as (url, _):

        def post() -> None:
            body = json.dumps({"text": record.to_json()}).encode()
            request = urllib.request.Request(url + "/api/replays", data=body, method="POST")
            with urllib.request.urlopen(request, timeout=60) as answer:
                assert json.loads(answer.read())["verified"].startswith("verified")

        opening = threading.Thread(target=post)
        opening.start()
        time.sleep(0.5)
        started = time.monotonic()
        with urllib.request.urlopen(url + "/api/setup", timeout=60) as answer:
            assert answer.status == 200
        assert time.monotonic() - started < 2.0  # the setup request did not wait for the replay
        opening.join()
    monkeypatch.setattr(replays_module.Replay, "__init__", built)

    monkeypatch.setattr(replays_module, "MAX_REPLAY_DECISIONS", len(record.actions) - 1)
    with pytest.raises(RecordError, match=rf"a game of {len(record.actions)} decisions; a replay here holds"):
        Replay("r", record, HandModel())
    monkeypatch.setattr(replays_module, "MAX_REPLAY_DECISIONS", len(record.actions))

    class Slow(HandModel):
        def estimate(self, game: Game, step: int) -> list[float]:
            time.sleep(0.05)
            return super().estimate(game, step)

    monkeypatch.setattr(replays_module, "MAX_KEPT_DECISIONS", 2 * len(record.actions))
    kept = Replays(Slow())
    opened = [kept.open(record) for _ in range(3)]
    assert list(kept.replays) == [opened[1].id, opened[2].id]  # two games' decisions fit
    opened[0]._thread.join(timeout=5)
    assert not opened[0]._thread.is_alive() and len(opened[0].chart) < len(opened[0].games)
    for replay in opened[1:]:
        replay.close()


def test_ctrl_c_stops_a_server_whose_agents_play_on_alone(tmp_path: Path) -> None:
    """A table of agents alone plays on after its watcher left. Ctrl-C waited for that game to
    end (with a slow program, for good); a second Ctrl-C then ended the server with a
    CancelledError traceback. Then the agents stopped after the decision in hand, but a
    decision longer than the server's grace period (a slow program, a loaded machine) still
    ended in uvicorn's "ERROR: Cancel 1 running task(s)". Now the decision in hand is dropped
    and the server exits at once, its agent programs with it: each decision here takes 3 s,
    longer than the grace period."""
    import os
    import signal
    import subprocess
    import time

    import httpx
    from websockets.sync.client import connect

    agent = Path(__file__).parent / "user_agents" / "protocol_agent.py"
    slow = f"slow=cmd:{sys.executable} {agent} --sleep 3"
    server = subprocess.Popen(
        [sys.executable, "-m", "training.serve.cli", "--port", "0",
         "--records", str(tmp_path / "games.jsonl"), "--agent", slow],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ),
    )  # fmt: skip
    try:
        assert server.stdout is not None
        url = ""
        for line in server.stdout:
            if "http://" in line:
                url = line.split("http://", 1)[1].split("/", 1)[0]
                break
        assert url, "the server did not start"
        body = {"preset": "uno", "rules": {}, "players": 2, "seats": ["slow", "slow"]}
        made = httpx.post(f"http://{url}/api/tables", json=body).json()
        with connect(f"ws://{url}/ws") as ws:
            ws.send(json.dumps({"type": "watch", "table": made["table"]}))
            assert json.loads(ws.recv())["type"] == "welcome"
        time.sleep(1.0)  # the agents play on, nobody watching
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=15)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 0
    assert "Traceback" not in output and "CancelledError" not in output and "ERROR" not in output, output
    programs = subprocess.run(["pgrep", "-f", f"{agent} --sleep 3"], capture_output=True, text=True).stdout
    assert programs == ""

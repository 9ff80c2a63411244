"""Agents outside the process and in words: the structured (JSON) and text views of a decision
and their leak test, the answer parser, out-of-process agents speaking the JSON-lines
protocol, the OpenAI-compatible chat adapter against a scripted endpoint on 127.0.0.1, the
benchmark protocol, and match traces that ``uno-env replay`` reads."""

from __future__ import annotations

import json
import random
import re
import socketserver
import sys
import threading
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import uno_env
from agents.benchmark import benchmark, format_report
from agents.llm import ChatAgent
from agents.process import ProcessAgent, ProtocolError
from agents.spec import AgentSpecError, parse_agent
from agents.text import AnswerError, ask, decision_json, decision_prompt, parse_answer
from agents.trace import read_trace
from tests.test_env_encoding import LEAK_CASES, hidden_variant
from uno_env import Game
from uno_env.game.records import load_records, replay_game
from uno_env.styles.view import PublicView

HERE = Path(__file__).parent / "user_agents"
PROTOCOL_AGENT = f"{sys.executable} {HERE / 'protocol_agent.py'}"


def view_at(text: str, preset: str = "uno", **overrides: Any) -> PublicView:
    game = Game.from_position(preset, text, **overrides)
    return PublicView(game.state, game.compiled.spec, game.rules)


POSITION = (
    "hands=R1 R7 G7 W/G3 G4 B3/B9 B1; discard=R5; draw=B2 G9 Y7 Y1; colour=R; seat=0; dir=+; phase=play"
)


# ---------------------------------------------------------------- the views
def test_the_json_view_holds_the_decision() -> None:
    data = decision_json(view_at(POSITION))
    assert data["format"] == "uno-env-decision/1" and data["deck"] == "uno"
    assert [c["card"] for c in data["hand"]] == ["R1", "R7", "G7", "W"]
    assert data["top_card"] == {"card": "R5", "name": "red 5"}
    assert data["colour"] == {"letter": "R", "name": "red"}
    assert data["hand_sizes"] == [4, 3, 2] and data["draw_pile"] == 4 and data["phase"] == "play"
    assert [m["move"] for m in data["legal"]] == ["R1", "R7", "W", "draw"]
    assert data["legal"][1] == {"id": 7, "move": "R7", "words": "play red 7"}
    assert data["rules"]["preset"] == "uno" and data["rules"]["key_rules"]["draw"]["rule"].startswith("U-")
    json.dumps(data)  # JSON-ready


def test_the_prompt_states_rules_situation_and_legal_moves() -> None:
    house = view_at(POSITION, "uno", stacking=("D2/D2",))
    text = decision_prompt(house)
    assert "Rules: uno with changes" in text and "stacking = D2/D2" in text
    assert (
        "Your hand: R1 R7 G7 W (4 cards)" in text and "Top card: R5 (red 5); colour in play: red (R)" in text
    )
    assert "Legal moves: R1 (play red 1); R7 (play red 7); W (play Wild); draw (draw a card)" in text
    hands = "hands=7H 9S/QS 2C/3S 4S/5S 6S; discard=7C; draw=3D 4D"
    french = view_at(f"{hands}; colour=C; seat=0; dir=+; phase=play", "mau_mau")
    assert "7H (play 7 of hearts)" in decision_prompt(french)


@pytest.mark.parametrize(("preset", "overrides", "n"), LEAK_CASES)
def test_the_text_and_json_views_leak_no_hidden_information(
    preset: str, overrides: dict[str, object], n: int
) -> None:
    """Redealing everything the player to move cannot see leaves both views identical."""
    rng = random.Random(n)
    game = Game(preset, n, seed=n, **overrides)
    checked = 0
    for step in range(600):
        if game.is_over():
            break
        if step % 13 == 0:
            position = game.position()
            mover = game.current_player
            same = Game.from_position(preset, position, **overrides)
            redealt = hidden_variant(position, mover, rng, same.rules)
            variant = Game.from_position(preset, redealt, **overrides)
            a = PublicView(same.state, same.compiled.spec, same.rules)
            b = PublicView(variant.state, variant.compiled.spec, variant.rules)
            assert decision_json(a) == decision_json(b)
            assert decision_prompt(a) == decision_prompt(b)
            checked += 1
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
    assert checked >= 3


def test_the_leak_probe_sees_a_public_change() -> None:
    bigger = view_at(POSITION.replace("G3 G4 B3/", "G3 G4 B3 B4/"))
    assert decision_json(view_at(POSITION)) != decision_json(bigger)


def test_a_card_given_is_hidden_from_the_others_in_the_history() -> None:
    from uno_env.engine.actions import action_kind

    game = Game("uno_house", 3, seed=4, two_gives=True)
    rng = random.Random(1)
    while not game.is_over() and not any(p == uno_env.Phase.GIVE for _, _, p in game.log):
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
    if not any(p == uno_env.Phase.GIVE for _, _, p in game.log):
        pytest.skip("no card was given in this game")
    index = next(i for i, (_, _, p) in enumerate(game.log) if p == uno_env.Phase.GIVE)
    giver = game.log[index][0]
    view = PublicView.of(game)
    shown = view.public_history()[index]
    if view.current_player == giver:
        assert shown == (giver, game.log[index][1])
    else:
        receiver = next(
            (giver + action_kind(a)[1]) % 3
            for s, a, p in reversed(game.log[:index])
            if p == uno_env.Phase.CHOOSE_TARGET
        )
        assert shown[1] == (game.log[index][1] if view.current_player == receiver else -1)


def test_scripted_agents_and_typed_view_read_the_same_game() -> None:
    game = Game("uno", 3, seed=11)
    for _ in range(9):
        game.step(game.legal_actions()[0])
    view = PublicView.of(game)
    assert view.hand() == game.hand(game.current_player)
    assert (view.top_card, view.active_colour, view.phase) == (game.top_card, game.active_colour, game.phase)
    assert view.decision() == game.decision() and view.hand_sizes() == game.hand_sizes()
    assert view.legal_actions() == game.legal_actions() and view.scores() == game.scores()
    assert [a for _, a in view.public_history()] == [a for _, a in game.history]


# ---------------------------------------------------------------- the parser
@pytest.mark.parametrize(
    ("answer", "move"),
    [
        ("R7", "R7"),
        ("r7", "R7"),
        ("  r 7 ", "R7"),
        ("play red 7", "R7"),
        ("I play the Red Seven.", "R7"),
        ("**R7**", "R7"),
        ('{"move": "R1"}', "R1"),
        ('```json\n{"action": 1}\n```', "R1"),
        ("wild", "W"),
        ("Play the Wild card", "W"),
        ("draw", "draw"),
        ("I will draw a card", "draw"),
        ("DRAW", "draw"),
    ],
)
def test_answers_in_notation_names_and_sentences(answer: str, move: str) -> None:
    view = view_at(POSITION)
    assert view.describe_action(parse_answer(answer, view)) == move


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("G7", r"G7 is not a legal move now\. Answer with exactly one of: R1, R7, W, draw\."),
        ("play purple 3", r"'play purple 3' names no legal move\. Answer with exactly one of: R1, R7"),
        ("", "the answer was empty"),
        ("R1 or R7", "could mean R1, R7"),
        # JSON nested deeper than the parser recurses (it raised RecursionError)
        ('{"move": ' + "[" * 100_000 + "]" * 100_000 + "}", "names no legal move"),
    ],
)
def test_bad_answers_get_a_clear_reask(answer: str, message: str) -> None:
    with pytest.raises(AnswerError, match=message):
        parse_answer(answer, view_at(POSITION))


def test_colour_targets_and_calls() -> None:
    colour = view_at("hands=R1 G3/B9 B1; discard=R5 W; draw=B2 G9; colour=-; seat=0; dir=+; phase=colour")
    assert colour.describe_action(parse_answer("green", colour)) == "colour G"
    assert colour.describe_action(parse_answer("I choose Blue!", colour)) == "colour B"
    assert colour.describe_action(parse_answer("colour y", colour)) == "colour Y"


def test_the_retry_budget() -> None:
    view = view_at(POSITION)
    answers = iter(["banana", "G7", "R7"])
    asked = ask(view, lambda prompt, reask: next(answers), retries=2)
    assert (asked.action, asked.retries, asked.fallback, len(asked.errors)) == (7, 2, False, 2)
    asked = ask(view, lambda prompt, reask: "banana", retries=1)
    assert asked.fallback and asked.action == 1 and len(asked.answers) == 2
    seen: list[str | None] = []
    ask(view, lambda prompt, reask: seen.append(reask) or "x", retries=1)
    assert seen[0] is None and "names no legal move" in str(seen[1])


# ---------------------------------------------------------------- out-of-process agents
def test_an_out_of_process_agent_plays_like_the_same_logic_in_process(tmp_path: Path) -> None:
    from training.tournament import run_tournament

    common = {"games": 6, "seed": 5, "batch_games": 3, "progress": False}
    inside = run_tournament("uno", 2, [f"{HERE / 'seeded_agent.py'}:Seeded", "blocker"], out=tmp_path / "a",
                            executor="serial", **common)  # fmt: skip
    outside = run_tournament(
        "uno", 2, [f"cmd:{PROTOCOL_AGENT}", "blocker"], out=tmp_path / "b", workers=2, **common
    )
    words = run_tournament("uno", 2, [f"cmd:{PROTOCOL_AGENT} --move", "blocker"], out=tmp_path / "c",
                           executor="serial", **common)  # fmt: skip
    columns = ["deal", "winner_seat", "length", "turns", "ranking_seats", "score_0", "score_1"]
    for other in (outside, words):
        assert other.games[columns].equals(inside.games[columns])


CHATTY_AGENT = """
import json, sys
acts = 0
for line in sys.stdin:
    message = json.loads(line)
    acts += message["type"] == "act"
    if acts == 4:  # the fourth decision: leaves with a last word on standard error
        sys.stderr.write("the end of my log")
        sys.exit(5)
    sys.stderr.write("thinking " * 20000 + "\\n")  # 180 kB a message: more than a pipe holds
    sys.stderr.flush()
    print(json.dumps({"action": message["legal"][0]} if message["type"] == "act" else {}), flush=True)
"""


def test_a_program_writing_much_to_standard_error_still_answers() -> None:
    """Its standard error is read while the tools wait for its answer, so a full pipe never
    blocks it; the end of it still names what went wrong when it exits."""
    game = Game("uno", 2, seed=3)
    agent = ProcessAgent([sys.executable, "-c", CHATTY_AGENT], timeout=10)
    for _ in range(3):
        action = agent.act(None, game.legal_mask(), PublicView.of(game))
        assert action == game.legal_actions()[0]
        game.step(action)
    with pytest.raises(
        ProtocolError, match=r"(?s)exited .code 5. .*its standard error ends: .*the end of my log$"
    ):
        agent.act(None, game.legal_mask(), PublicView.of(game))
    agent.close()


STRING_ID_AGENT = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "close":
        break
    reply = {"action": str(message["legal"][0])} if message["type"] == "act" else {}
    print(json.dumps(reply), flush=True)
"""


def test_an_action_id_that_is_not_a_json_integer_is_named_as_such() -> None:
    """``{"action": "26"}`` said "chose action '26', which is not legal here; legal: [26, ...]":
    the id was legal, its type was wrong; the message now says so."""
    game = Game("uno", 2, seed=1)
    legal = game.legal_actions()
    agent = ProcessAgent([sys.executable, "-c", STRING_ID_AGENT], timeout=10)
    expected = re.escape(
        f"answered action '{legal[0]}' (a JSON string), not an action id: an integer, one of"
    )
    with pytest.raises(ProtocolError, match=expected):
        agent.act(None, game.legal_mask(), PublicView.of(game))
    agent.close()


DEEP_ANSWER_AGENT = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "close":
        break
    print("[" * 100_000 + "]" * 100_000 if message["type"] == "act" else "{}", flush=True)
"""


def test_an_answer_nested_too_deeply_for_the_json_parser_is_a_protocol_error() -> None:
    """An answer line of 100,000 nested arrays (under the line limit) made Python's JSON parser
    raise RecursionError, which escaped as the agent's own failure; it is a line that is not JSON."""
    game = Game("uno", 2, seed=1)
    agent = ProcessAgent([sys.executable, "-c", DEEP_ANSWER_AGENT], timeout=10)
    not_json = r"answered the 'act' message with a line that is not JSON: '\[\[\["
    with pytest.raises(ProtocolError, match=not_json):
        agent.act(None, game.legal_mask(), PublicView.of(game))
    agent.close()


def test_protocol_errors_are_one_line_and_name_the_agent() -> None:
    agent = ProcessAgent(f"{PROTOCOL_AGENT} --bad")
    game = Game("uno", 2, seed=1)
    with pytest.raises(ProtocolError, match=r"chose action \d+, which is not legal here"):
        agent.act(None, game.legal_mask(), PublicView.of(game))
    agent.close()
    gone = ProcessAgent([sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"])
    with pytest.raises(ProtocolError, match=r"exited .code 3. before answering the 'hello' message.*boom"):
        gone.act(None, game.legal_mask(), PublicView.of(game))
    silent = ProcessAgent([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    with pytest.raises(ProtocolError, match=r"did not answer the 'hello' message within 0\.5 s"):
        silent.act(None, game.legal_mask(), PublicView.of(game))
    silent.close()
    # its standard output closed, the program still running: a ProtocolError, not subprocess's TimeoutExpired
    closed = ProcessAgent([sys.executable, "-c", "import os, time; os.close(1); time.sleep(30)"], timeout=0.5)
    with pytest.raises(
        ProtocolError, match=r"closed its standard output before answering the 'hello' message"
    ):
        closed.act(None, game.legal_mask(), PublicView.of(game))
    closed.close()
    with pytest.raises(AgentSpecError, match="names nothing after 'cmd:'"):
        parse_agent("cmd:   ")


TWO_LINES_AGENT = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "close":
        break
    reply = json.dumps({"action": message["legal"][-1]} if message["type"] == "act" else {})
    print(reply if message["type"] != "act" else reply + "\\n" + reply, flush=True)
"""


def test_a_program_that_answers_with_two_lines_is_a_protocol_error() -> None:
    """The second line of an answer was read as the answer to the next message: the program's
    answers ran one behind, each decision played the move chosen for the one before (an error
    only when that move happened to be illegal now); now the extra line is the error."""
    game = Game("uno", 2, seed=1)
    agent = ProcessAgent([sys.executable, "-c", TWO_LINES_AGENT], timeout=10)
    action = agent.act(None, game.legal_mask(), PublicView.of(game))
    assert action == game.legal_actions()[-1]
    game.step(action)
    with pytest.raises(
        ProtocolError,
        match=r"wrote more than one line in answer to the 'act' message \(then b'\{\"action\": ",
    ):
        agent.act(None, game.legal_mask(), PublicView.of(game))
    agent.close()


CRASHES = (
    r"exited \(code 4\) (after answering the 'act' message, )?before (answering )?the 'act' message"
    r".*crashed after 2 moves"
)
"""The error of ``protocol_agent.py --exit-after 2``: it exits after its answer, and a tool notices
before its next message, or while waiting for the answer to it (when the exit comes later)."""


def test_a_program_that_exits_mid_game_is_a_protocol_error_not_a_silent_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that exits between two messages was started again without a word, and the
    fresh copy got the game's next decision; now every tool stops with a ProtocolError naming
    the program, its exit code and the end of its standard error. After close() (the end of a
    match) the program starts again on purpose."""
    import io

    from training.cli import main
    from uno_env.envs.common import OpponentError

    command = f"{PROTOCOL_AGENT} --exit-after 2"
    agent = ProcessAgent(command)
    game = Game("uno", 2, seed=1)
    agent.reset(7)
    for _ in range(2):
        agent.act(None, game.legal_mask(), PublicView.of(game))
    assert agent._proc is not None and agent._proc.wait(timeout=10) == 4
    between = r"exited \(code 4\) after answering the 'act' message, before the 'act' message"
    with pytest.raises(ProtocolError, match=rf"agent cmd:.*protocol_agent\.py --exit-after 2 {between}"):
        agent.act(None, game.legal_mask(), PublicView.of(game))
    with pytest.raises(ProtocolError, match=r"exited \(code 4\).*before the 'reset' message"):
        agent.reset(8)  # still an error: nothing restarts it behind the tool's back
    agent.close()
    agent.reset(9)  # closed on purpose: a new program, a new match
    assert agent.act(None, game.legal_mask(), PublicView.of(game)) in np.flatnonzero(game.legal_mask())
    agent.close()
    # the tools: a tournament, a game against the program, the env's opponents
    spec = f"cmd:{command}"
    argv = ["tournament", "--agents", f"{spec},greedy", "--games", "2", "--workers", "1", "--quiet",
            "--out", str(tmp_path / "t")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(CRASHES, err[0]), err
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 3000))
    assert main(["play", "--players", "2", "--vs", spec, "--seed", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(CRASHES, err[0]), err
    env = uno_env.SingleAgentEnv("uno", 2, opponents=ProcessAgent(command))
    with pytest.raises(OpponentError, match=rf"ProtocolError: .*{CRASHES}"):
        env.reset(seed=1)
        for _ in range(400):
            _, _, done, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            if done or truncated:
                env.reset()
    env.close()


# ---------------------------------------------------------------- language models
class ScriptedModel(BaseHTTPRequestHandler):
    """A chat-completion endpoint with a script instead of a model: the first answer of a
    decision is wrong every third time (an illegal card, then nonsense), the right one names
    the first legal move in words."""

    calls: list[dict[str, Any]] = []  # noqa: RUF012 (the test reads the requests)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ScriptedModel.calls.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        last = body["messages"][-1]["content"]
        legal = re.search(r"Legal moves: (.*)", body["messages"][1]["content"])
        assert legal is not None
        first = legal.group(1).split(";")[0]
        words = first[first.index("(") + 1 : first.rindex(")")]
        n = len(ScriptedModel.calls)
        if "Answer with exactly one of" in last or n % 3:
            content = f"I will {words}."
        else:
            content = "I play the purple 12" if n % 2 else "hmm"
        message = {"role": "assistant", "content": content}
        prompt_tokens = len(" ".join(m["content"] for m in body["messages"]).split())
        reply = {
            "id": f"c{n}",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5},
        }
        self.answer(200, json.dumps(reply).encode())

    def answer(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        """Send ``data`` as a JSON response with ``status`` and the extra ``headers``."""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


@pytest.fixture()
def endpoint() -> Iterator[str]:
    ScriptedModel.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_the_chat_adapter_speaks_the_openai_format_and_counts(
    endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNO_TEST_KEY", "sk-local")
    agent = parse_agent(f"llm:model=scripted,base_url={endpoint},key_env=UNO_TEST_KEY,retries=2").make(seed=3)
    assert isinstance(agent, ChatAgent)
    view = view_at(POSITION)
    for _ in range(6):
        assert agent.act(None, view.legal_mask(), view) == 1  # the first legal move, R1
    call = ScriptedModel.calls[0]
    assert call["path"] == "/v1/chat/completions" and call["auth"] == "Bearer sk-local"
    assert call["body"]["model"] == "scripted" and call["body"]["messages"][0]["role"] == "system"
    stats = agent.stats()
    assert stats["decisions"] == 6 and stats["answers"] == len(ScriptedModel.calls) > 6
    assert stats["illegal_answer_rate"] == stats["illegal_answers"] / stats["answers"] > 0
    assert stats["prompt_tokens_per_decision"] > 100 and stats["completion_tokens"] == 5 * stats["answers"]
    assert agent.last_exchange["answers"][-1].startswith("I will play red 1")


class _Response:
    """A canned HTTP response body for ``urllib.request.urlopen``."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def __enter__(self) -> _Response:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self, limit: int) -> bytes:
        return self.body[:limit]


def _chat_reply(usage: object) -> bytes:
    message = {"role": "assistant", "content": "R1"}
    return json.dumps({"choices": [{"message": message}], "usage": usage}).encode()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # nested deeper than Python's JSON parser recurses: it raised RecursionError
        (b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "the response is not a chat completion"),
        # token counts that are not counts: int() raised ValueError / OverflowError, or cut 2.9 to 2
        (_chat_reply({"prompt_tokens": "many", "completion_tokens": 1}), r"usage\.prompt_tokens is 'many'"),
        (
            b'{"choices": [{"message": {"content": "R1"}}], "usage": {"completion_tokens": 1e999}}',
            r"usage\.completion_tokens is inf",
        ),
        (_chat_reply({"prompt_tokens": 2.9}), r"usage\.prompt_tokens is 2\.9, not a token count"),
        (_chat_reply({"prompt_tokens": -3}), r"usage\.prompt_tokens is -3, not a token count"),
    ],
)
def test_a_malformed_chat_response_is_a_chat_error(
    body: bytes, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.llm import ChatError

    monkeypatch.setattr("agents.llm.urllib.request.urlopen", lambda request, timeout: _Response(body))
    agent = ChatAgent("scripted", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ChatError, match=message):
        agent.complete([{"role": "user", "content": "move?"}])


def test_a_chat_response_without_usage_counts_no_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    for usage in (None, {}, {"prompt_tokens": None, "completion_tokens": 4}):
        body = _chat_reply(usage)
        canned = _Response(body)
        monkeypatch.setattr("agents.llm.urllib.request.urlopen", lambda request, timeout, r=canned: r)
        agent = ChatAgent("scripted", base_url="http://127.0.0.1:9/v1")
        text, tokens = agent.complete([{"role": "user", "content": "move?"}])
        completion = 4 if usage and usage.get("completion_tokens") else 0
        assert (text, tokens) == ("R1", {"prompt_tokens": 0, "completion_tokens": completion})


class RawReply(socketserver.BaseRequestHandler):
    """Reads one HTTP request and writes :attr:`reply` as it is (bytes that need not be HTTP),
    then closes; ``{auth}`` in the reply is the request's Authorization header, echoed, and
    ``{length}`` the length of the body after the headers."""

    reply = b""

    def handle(self) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            request += self.request.recv(65536)
        head, _, body = request.partition(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
        while len(body) < length:
            body += self.request.recv(65536)
        auth = re.search(rb"Authorization: ([^\r]*)", head)
        reply = self.reply.replace(b"{auth}", auth.group(1) if auth else b"")
        length = str(len(reply.partition(b"\r\n\r\n")[2])).encode()
        self.request.sendall(reply.replace(b"{length}", length))


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (b"garbage garbage\r\n\r\n", r"answered a broken HTTP response \(BadStatusLine: garbage garbage"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n",
            r"answered a broken HTTP response \(IncompleteRead",
        ),
        (
            b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 70_000 + b"\r\nContent-Length: 2\r\n\r\n{}",
            r"answered a broken HTTP response \(LineTooLong",
        ),
        # an endpoint that echoes the key it was sent: the error blanks it out
        (
            b"HTTP/1.1 401 Unauthorized\r\nContent-Length: {length}\r\n\r\n" + b" " * 380 + b"bad key {auth}",
            r"answered HTTP 401: +bad key Bearer \[the",
        ),
        (
            b'HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n{"echo": "' + b"-" * 170 + b'{auth}"}',
            r"the response is not a chat completion: b'\{\"echo\": \"-+Bearer \[the",
        ),
    ],
)
def test_a_broken_http_answer_is_a_chat_error_that_never_shows_the_key(
    reply: bytes, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A status line, header or chunk that is not HTTP raised http.client's BadStatusLine,
    IncompleteRead or LineTooLong from inside the adapter (the tools reported "its act() raised
    BadStatusLine ... (at .../http/client.py:...)"); and an endpoint's error text was shown with
    the API key in it when the endpoint echoed the header."""
    from agents.llm import ChatError

    monkeypatch.setenv("UNO_TEST_KEY", "sk-do-not-print-me")
    RawReply.reply = reply
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), RawReply)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        agent = ChatAgent("m", base_url=url, key_env="UNO_TEST_KEY", timeout=10)
        with pytest.raises(ChatError, match=message) as caught:
            agent.complete([{"role": "user", "content": "move?"}])
        assert "sk-do-not-print-me" not in str(caught.value)
    finally:
        server.shutdown()
        server.server_close()


def test_a_model_that_never_answers_a_legal_move_is_warned_of_not_silent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only ``uno-env benchmark`` counted fallbacks: a tournament, evaluation, a game or a web
    table with a model that never named a legal move played the first legal move at every
    decision without a word. The agent's first fallback is now a FallbackWarning."""
    from agents.llm import FallbackWarning

    agent = ChatAgent("m", base_url="http://127.0.0.1:9/v1", retries=1)
    monkeypatch.setattr(
        agent, "complete", lambda messages: ("banana", {"prompt_tokens": 0, "completion_tokens": 0})
    )
    view = view_at(POSITION)
    expected = r"2 answer\(s\) named no legal move \(the last: 'banana'\); played the first legal move, R1"
    with pytest.warns(FallbackWarning, match=expected):
        assert agent.act(None, view.legal_mask(), view) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # its first fallback only
        assert agent.act(None, view.legal_mask(), view) == 1
    assert agent.stats()["fallbacks"] == 2


def test_nothing_is_sent_unless_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNO_ENV_LLM_BASE_URL", raising=False)
    with pytest.raises(
        ValueError, match=r"no endpoint for model 'm'.*nothing is sent anywhere unless configured"
    ):
        parse_agent("llm:model=m").make()
    with pytest.raises(AgentSpecError, match="has no option 'colour'"):
        parse_agent("llm:model=m,colour=red")
    with pytest.raises(AgentSpecError, match="needs model=NAME"):
        parse_agent("llm:base_url=http://127.0.0.1:1")


def test_the_benchmark_protocol_with_a_language_model_and_its_trace(endpoint: str, tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    spec = f"llm:model=scripted,base_url={endpoint},retries=1"
    report = benchmark(spec, "greedy", "uno", 2, deals=3, seed=20, trace=trace)
    assert report["games"] == 6 and report["deals"] == 3
    assert 0 <= report["win_low"] <= report["win_rate"] <= report["win_high"] <= 1
    answers = report["answers"]
    assert answers["decisions"] == report["decisions"] > 0
    assert 0 < answers["illegal_answer_rate"] < 1 and answers["prompt_tokens_per_decision"] > 0
    assert report["seconds_per_decision"] > 0
    assert "illegal" in format_report(report)
    # the trace: every decision, then each game's record, which replays and verifies
    decisions = read_trace(trace)
    mine = [d for d in decisions if d["agent"] == spec]
    assert len(mine) == report["decisions"]
    assert any(d["retries"] > 0 and d["reasks"] for d in mine)
    assert all(d["move"] in d["legal"] and d["view"]["format"] == "uno-env-decision/1" for d in decisions)
    records = load_records(trace)
    assert len(records) == 6
    for record in records:
        replay_game(record)
    from training.replay import main as replay_main

    assert replay_main([str(trace), "--quiet", "--game", "-1"]) == 0


@pytest.mark.parametrize("retries", [1, 0])
def test_the_benchmark_gives_the_answer_rates_with_intervals_by_deal(
    endpoint: str, tmp_path: Path, retries: int
) -> None:
    """The illegal-answer and fallback rates were printed and written without intervals; each
    interval is checked against the statistics helper on the per-deal counts of the trace (the
    deal is the unit, as for the win rate: the agent's games of one deal share its cards). With
    one retry the scripted model's wrong first answers are re-asked; with none they fall back."""
    import contextlib

    from agents.llm import FallbackWarning
    from uno_env.stats import grouped_ratio

    trace = tmp_path / "trace.jsonl"
    spec = f"llm:model=scripted,base_url={endpoint},retries={retries}"
    with pytest.warns(FallbackWarning) if retries == 0 else contextlib.nullcontext():
        report = benchmark(spec, "greedy", "uno", 2, deals=3, seed=40, trace=trace)
    counts = np.zeros((3, 4))  # per deal: answers, illegal answers, decisions, fallbacks
    for line in read_trace(trace):
        if line["agent"] == spec:
            counts[line["seed"] - 40] += [len(line["answers"]), len(line["reasks"]), 1, line["fallback"]]
    answers = report["answers"]
    assert counts.sum(axis=0).tolist() == [
        answers[k] for k in ("answers", "illegal_answers", "decisions", "fallbacks")
    ]
    illegal = grouped_ratio(counts[:, 1], counts[:, 0])
    fallback = grouped_ratio(counts[:, 3], counts[:, 2])
    assert answers["illegal_answer_rate"] == pytest.approx(illegal.value) and illegal.value > 0
    assert (answers["illegal_answer_low"], answers["illegal_answer_high"]) == pytest.approx(
        illegal.proportion_interval()
    )
    assert answers["fallback_rate"] == pytest.approx(fallback.value) and (fallback.value > 0) == (
        retries == 0
    )
    assert (answers["fallback_low"], answers["fallback_high"]) == pytest.approx(
        fallback.proportion_interval()
    )
    low, high = (f"{answers[k]:.1%}" for k in ("illegal_answer_low", "illegal_answer_high"))
    assert f"illegal {answers['illegal_answer_rate']:.1%} [{low}, {high}]" in format_report(report)


def test_the_benchmark_of_an_out_of_process_agent_equals_the_same_logic_in_process() -> None:
    a = benchmark(f"cmd:{PROTOCOL_AGENT}", "blocker", "uno", 3, deals=2, seed=9)
    b = benchmark(f"{HERE / 'seeded_agent.py'}:Seeded", "blocker", "uno", 3, deals=2, seed=9)
    assert (a["wins"], a["decisions"], a["truncated"]) == (b["wins"], b["decisions"], b["truncated"])
    assert np.isfinite(a["seconds_per_decision"])


class BusyModel(ScriptedModel):
    """An endpoint that answers HTTP 429 (with ``Retry-After: 0``, or none) :attr:`busy` times,
    then a chat completion naming R1."""

    busy = 0
    retry_after: str | None = "0"
    requests = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        BusyModel.requests += 1
        if BusyModel.requests <= BusyModel.busy:
            wait = {} if BusyModel.retry_after is None else {"Retry-After": BusyModel.retry_after}
            self.answer(429, b'{"error": {"message": "rate limited"}}', wait)
        else:
            self.answer(200, _chat_reply({"prompt_tokens": 3, "completion_tokens": 1}))


def test_a_busy_endpoint_is_asked_again_after_the_wait_it_names() -> None:
    """HTTP 429 (a rate limit) ended the run at the first one; it is now asked again after
    the endpoint's Retry-After, at most busy_retries times, and the waits are counted."""
    from agents.llm import ChatError, busy_wait

    server = ThreadingHTTPServer(("127.0.0.1", 0), BusyModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        BusyModel.busy, BusyModel.requests = 2, 0
        agent = parse_agent(f"llm:model=m,base_url={url}").make(seed=1)
        assert isinstance(agent, ChatAgent)
        assert agent.complete([{"role": "user", "content": "move?"}])[0] == "R1"
        assert BusyModel.requests == 3 and agent.stats()["busy_waits"] == 2

        BusyModel.busy, BusyModel.requests = 10, 0
        agent = parse_agent(f"llm:model=m,base_url={url},busy_retries=1").make(seed=1)
        with pytest.raises(ChatError, match=r"HTTP 429 \(asked again 1 times: option busy_retries\)"):
            agent.complete([{"role": "user", "content": "move?"}])
        assert BusyModel.requests == 2
    finally:
        server.shutdown()
        server.server_close()
    # the wait: the endpoint's seconds, else 1, 2, 4 ... s; never above the timeout option
    assert busy_wait("7", 0, 60.0) == 7.0 and busy_wait("7", 0, 5.0) == 5.0
    assert busy_wait(None, 0, 60.0) == 1.0 and busy_wait(None, 2, 60.0) == 4.0
    assert busy_wait("Wed, 21 Oct 2015 07:28:00 GMT", 1, 60.0) == 2.0 and busy_wait("-3", 0, 60.0) == 1.0
    with pytest.raises(ValueError, match="option busy_retries is -1; allowed: an integer 0 or more"):
        parse_agent(f"llm:model=m,base_url={url},busy_retries=-1").make(seed=1)

"""The web table in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

- A person plays a whole game of official Uno against three agents by clicking: only the
  legal moves are clickable (the page's clickable actions are exactly the server's legal
  list at every decision), and the game's record equals the same seed played in the engine
  with the same choices.
- A Seven-O swap (H-SEVEN-1) and a Wild Draw Four challenge (U-WD4-2) are made through the
  page, and their effect shows.
- A replay is stepped forwards and back, the agents' reasons show, and the win-chance chart
  is drawn for every step; a match trace's game shows each decision's trace line.

``UNO_ENV_SCREENSHOT_DIR=docs`` writes the documentation's screenshots (``web-play.png``,
``web-replay.png``) from these runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web_server import CHROMIUM, CHROMIUM_ARGS, choose, emulate, running_server
from uno_env import load_rules
from uno_env.game.records import load_records, replay_game

pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")
if not Path(CHROMIUM).exists():
    pytest.skip(
        f"{CHROMIUM} is not installed (apt-get install chromium; .ci/run does)", allow_module_level=True
    )

from playwright.sync_api import Page, sync_playwright

SHOTS = os.environ.get("UNO_ENV_SCREENSHOT_DIR")
OPTIONS = (
    "els => els.map(e => ({action: Number(e.dataset.action), kind: e.dataset.kind, "
    "card: e.dataset.card || null}))"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    records = tmp_path_factory.mktemp("web") / "games.jsonl"
    with running_server(records, fixed_seeds=True) as (url, _):
        yield url, records


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 860})
    yield context.new_page()
    context.close()


def new_table(
    page: Page, url: str, preset: str, seats: list[str], seed: int, switches: dict[str, bool]
) -> None:
    """Fill the page's new-table form and deal (the switches through the rule-field inputs)."""
    page.goto(url + "/?fast#/")
    page.wait_for_selector("#create")
    page.select_option("#preset", preset)
    page.fill("#players", str(len(seats)))
    page.dispatch_event("#players", "change")
    for seat, name in enumerate(seats):
        page.select_option(f"[data-seat='{seat}']", name)
    page.click("details summary")
    for field, on in switches.items():
        page.set_checked(f"[data-field='{field}']", on)
    page.fill("#seed", str(seed))
    page.click("#create")
    page.wait_for_selector("#table")


def wait_for_decision(page: Page) -> list[dict[str, Any]] | None:
    """The clickable actions when the person must decide (None once the game is over),
    checked against the server's legal list of the view the page holds."""
    page.wait_for_function(
        "() => !table.busy && table.view && (table.view.over || table.view.legal.length > 0)", timeout=60_000
    )
    if page.evaluate("table.view.over"):
        return None
    options: list[dict[str, Any]] = page.eval_on_selector_all("[data-action]", OPTIONS)
    legal = sorted(item["action"] for item in page.evaluate("table.view.legal"))
    assert sorted({o["action"] for o in options}) == legal  # nothing else clickable, every legal move is
    dim = page.eval_on_selector_all("#hand .card.dim", "els => els.filter(e => e.dataset.action).length")
    assert dim == 0
    return options


def click(page: Page, action: int) -> None:
    """Click the control of ``action`` and wait until the decision has moved on."""
    before = page.evaluate("table.view.decisions")
    page.locator(f"[data-action='{action}']").first.click()
    page.wait_for_function(f"() => table.view.decisions > {before}", timeout=60_000)
    assert page.text_content("#table-error") in ("", None)


def test_a_person_plays_a_whole_game_by_clicking(server: tuple[str, Path], page: Page) -> None:
    url, records = server
    seats = ["human", "greedy", "search", "distilled_uno_4p"]
    new_table(page, url, "uno", seats, seed=1, switches={})
    clicks = 0
    while (options := wait_for_decision(page)) is not None:
        if clicks == 3 and SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "web-play.png"))
        click(page, choose(options))
        clicks += 1
    assert page.is_visible("#outcome")
    expected, asked = emulate(load_rules("uno"), seats, seed=1)
    assert clicks == len(asked) > 10
    record = load_records(records)[-1]
    assert record.source == "web" and list(record.agents or []) == seats
    assert [a for _, a in expected.history] == list(record.actions)
    assert replay_game(record).outcome() == expected.outcome()


def test_a_seven_o_swap_through_the_page(server: tuple[str, Path], page: Page) -> None:
    """H-SEVEN-1: the person plays a 7, picks a seat on the page, and holds that seat's hand."""
    url, _ = server
    new_table(page, url, "uno", ["human", "greedy", "random_playable"], seed=0, switches={"seven_swap": True})
    while True:
        options = wait_for_decision(page)
        assert options is not None, "the game ended before the person could swap"
        targets = [o for o in options if o["kind"] == "target"]
        if targets:
            break
        click(page, choose(options, "seven"))
    assert "swap hands with" in page.text_content("#question")
    target_seat = int(page.get_attribute(".seat.target", "data-seat") or -1)
    their_size = page.evaluate(f"table.view.hand_sizes[{target_seat}]")
    my_size = page.evaluate("table.view.hand_sizes[0]")
    page.evaluate(  # keep every message from here on, to read the view sent with the swap
        "() => { window.seen = []; const shown = socket.onmessage; "
        "socket.onmessage = (e) => { window.seen.push(JSON.parse(e.data)); shown(e); }; }"
    )
    page.click(f".seat[data-seat='{target_seat}']")
    mine = "m => m.event && m.event.seat === 0 && m.event.kind === 'target'"
    page.wait_for_function(f"() => window.seen.some({mine})")
    swap = page.evaluate(f"window.seen.find({mine})")
    assert "you pick" in swap["event"]["text"] and "to swap hands with" in swap["event"]["text"]
    assert swap["event"]["target"] == target_seat
    assert len(swap["view"]["hands"]["0"]) == their_size
    assert swap["view"]["hand_sizes"][target_seat] == my_size


def test_a_wild_draw_four_challenge_through_the_page(server: tuple[str, Path], page: Page) -> None:
    """U-WD4-2: the person challenges a Wild Draw Four with the page's button; then either
    its player draws 4 (a bluff) or the person draws 4 + 2."""
    url, _ = server
    new_table(page, url, "uno", ["human", "bluffer", "bluffer"], seed=0, switches={})
    while True:
        options = wait_for_decision(page)
        assert options is not None, "the game ended before a Wild Draw Four came"
        if any(o["kind"] == "challenge" for o in options):
            break
        click(page, choose(options, "challenge"))
    sender = page.evaluate("table.view.pending_from")
    sizes = page.evaluate("table.view.hand_sizes")
    assert "challenge" in page.text_content("#question")
    page.evaluate(
        "() => { window.seen = []; const shown = socket.onmessage; "
        "socket.onmessage = (e) => { window.seen.push(JSON.parse(e.data)); shown(e); }; }"
    )
    page.click("button[data-kind='challenge']")
    mine = "m => m.event && m.event.seat === 0 && m.event.kind === 'challenge'"
    page.wait_for_function(f"() => window.seen.some({mine})")
    answer = page.evaluate(f"window.seen.find({mine})")
    assert answer["event"]["text"] == "you challenge the Wild Draw Four"
    after = answer["view"]["hand_sizes"]
    assert after[0] == sizes[0] + 6 or after[sender] == sizes[sender] + 4


def test_a_replay_is_stepped_through_with_its_chart(server: tuple[str, Path], page: Page) -> None:
    url, records = server
    if not records.exists():  # run alone: play a game first
        test_a_person_plays_a_whole_game_by_clicking(server, page)
    page.goto(url + "/?fast#/")
    page.wait_for_selector("[data-record]")
    page.locator("[data-record]").first.click()
    page.wait_for_selector("#step-label")
    frames = page.evaluate("replay.data.frames.length")
    assert "verified" in page.text_content("#verified")
    for step in range(1, 9):
        page.click("#forward")
        assert page.text_content("#step-label") == f"step {step} of {frames - 1}"
    first_events = page.text_content("#event")
    page.click("#back")
    page.click("#back")
    assert page.text_content("#step-label") == f"step 6 of {frames - 1}"
    assert page.text_content("#event") != first_events
    page.wait_for_function(
        "() => document.querySelector('#chart') && "
        f"+document.querySelector('#chart').dataset.points === {frames}",
        timeout=120_000,
    )
    assert page.locator("#chart .seat-line").count() == page.evaluate("replay.data.players")
    # some decision of the game was made by the search or the network: its bars show
    for _ in range(frames - 7):
        page.click("#forward")
        page.wait_for_function("() => !document.querySelector('#agent-view').textContent.includes('...')")
        if page.locator("#agent-view .bar").count() > 0:
            break
    assert page.locator("#agent-view .bar").count() >= 2
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "web-replay.png"), full_page=True)


def test_a_match_trace_is_replayed_with_each_decisions_line(tmp_path: Path, page: Page) -> None:
    """A trace (agents.trace) given with --replay: its game steps in the page, and beside a
    decision the trace's line shows, the JSON view the agent was shown among it."""
    from agents.match import play_deals
    from agents.trace import TraceWriter
    from training.serve.explain import HandModel

    trace = tmp_path / "trace.jsonl"
    with TraceWriter(trace) as writer:
        play_deals("uno", ["greedy", "random_legal"], [5], trace=writer)
    (record,) = load_records(trace)
    first_move = record.new_game().describe_action(record.actions[0])
    with running_server(None, replay_files=[trace], estimator=HandModel()) as (url, _):
        page.goto(url + "/?fast#/")
        page.wait_for_selector("[data-record]")
        page.locator("[data-record]").first.click()
        page.wait_for_selector("#step-label")
        page.wait_for_selector("#trace")
        text = page.text_content("#trace") or ""
        assert f"played {first_move}" in text and "legal:" in text
        page.click("#trace summary")
        shown = page.text_content("#trace pre") or ""
        assert '"uno-env-decision/1"' in shown


def test_two_people_at_one_table_each_see_only_their_own_hand(server: tuple[str, Path], browser: Any) -> None:
    """Two browsers, one seat each (the second joins by the invite link): each page holds its
    own hand only, and each plays its own decisions until the game ends."""
    url, _ = server
    first = browser.new_context(viewport={"width": 1200, "height": 860}).new_page()
    second = browser.new_context(viewport={"width": 1200, "height": 860}).new_page()
    try:
        new_table(first, url, "uno", ["human", "greedy", "human"], seed=4, switches={})
        first.wait_for_function("() => table.view !== null")
        link = first.get_attribute("[data-invite='2']", "value")
        assert link is not None and "#/table/" in link
        second.goto(link.replace("/#/", "/?fast#/"))
        second.wait_for_function("() => table.view !== null")
        pages = {0: first, 2: second}
        moves = {0: 0, 2: 0}
        while True:
            view = first.evaluate("table.view")
            if view["over"]:
                break
            for seat, page in pages.items():
                own = page.evaluate("Object.keys(table.view.hands)")
                assert own == [str(seat)] or page.evaluate("table.view.over")
            seat = next(
                (s for s, p in pages.items() if p.evaluate("!table.busy && table.view.legal.length > 0")),
                None,
            )
            if seat is None:
                first.wait_for_timeout(50)
                continue
            options = pages[seat].eval_on_selector_all("[data-action]", OPTIONS)
            click(pages[seat], choose(options))
            moves[seat] += 1
        second.wait_for_function("() => table.view.over")
        assert moves[0] > 3 and moves[2] > 3
        assert second.is_visible("#outcome") and first.is_visible("#outcome")
    finally:
        first.context.close()
        second.context.close()


def test_a_table_of_agents_is_watched_with_every_hand(server: tuple[str, Path], page: Page) -> None:
    url, _ = server
    new_table(page, url, "uno", ["greedy", "blocker"], seed=2, switches={})
    page.wait_for_function("() => table.view && table.view.over", timeout=60_000)
    assert page.evaluate("Object.keys(table.view.hands).length") == 2
    assert page.evaluate("table.log.length") > 10 and page.is_visible("#outcome")

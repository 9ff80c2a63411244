"""The public history and decision count of a view, read through the digest its log's owner keeps.

A view is built afresh at every decision; :class:`~uno_env.styles.public.HistoryDigest` lets
``public_history()`` and ``decisions`` read only the log entries added since the same viewer's
last read. These tests hold it to the whole-log walk's answers (the card one player gives
another hidden from the others, H-TWO-1; another seat's let-go answer to an out-of-turn window
left out, H-JUMP-1, H-ZEROSEE-1) over random games of every preset, count the entries it
examines over a long game, and check that a digest never answers for another log (a clone, a
reset, a log truncated or replaced).
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import uno_env
from uno_env import Game
from uno_env.engine import cards
from uno_env.engine import layout as L
from uno_env.engine.actions import ActionKind, action_kind
from uno_env.engine.rules import PRESETS
from uno_env.styles import public
from uno_env.styles import view as view_module
from uno_env.styles.public import HIDDEN
from uno_env.styles.view import PublicView, visible_last_actions

Entry = tuple[int, int, int]


def walked(log: Sequence[Entry], viewer: int, deck: cards.DeckFamily, players: int) -> tuple[list[Any], int]:
    """The public history of ``log`` for ``viewer`` and the let-go answers left out of it, by
    walking the whole log (what each read did before the digest)."""
    history: list[tuple[int, int]] = []
    passes, receiver = 0, -1
    for seat, action, phase in log:
        let_go = phase in (L.PH_JUMP_IN, L.PH_BLOCK) and action_kind(action, deck)[0] == ActionKind.PASS
        if let_go and seat != viewer:
            passes += 1  # H-JUMP-1, H-ZEROSEE-1: another seat's let-go answer is not known
            continue
        if phase == L.PH_CHOOSE_TARGET:
            receiver = (seat + action_kind(action, deck)[1]) % players
        hidden = phase == L.PH_GIVE and viewer not in (seat, receiver)  # H-TWO-1
        history.append((seat, HIDDEN if hidden else action))
    return history, passes


def as_viewer(view: PublicView, viewer: int) -> PublicView:
    """``view`` read by ``viewer`` (-1: nobody to move, as once the game is over): the same
    log and digest, the state's seat to move changed."""
    state = view.state.copy()
    state[L.S_CURRENT] = viewer
    return replace(view, state=state)


def expect(view: PublicView, log: Sequence[Entry], viewer: int, game: Game) -> None:
    """``view``'s history and decision count are the walk's over ``log``."""
    history, passes = walked(log, viewer, game.deck, game.num_players)
    assert view.public_history() == history
    assert view.decisions == int(view.state[L.S_DECISIONS]) - passes


CASES = [
    *(
        (name, {}, players, 1)
        for name, rules in PRESETS.items()
        for players in range(max(2, rules.min_players), max(4, rules.min_players) + 1)
    ),
    *(("uno_house", {"two_gives": True}, players, seed) for players in (3, 4) for seed in (2, 3)),
    ("uno_house", {"two_gives": True}, 2, 2),
    ("uno", {"two_gives": True, "jump_in": True, "zero_reveals": True}, 3, 4),
    ("uno", {"two_gives": True, "jump_in": True, "zero_reveals": True}, 4, 5),
]
"""Every preset at 2-4 players (from its least), and games where cards are given (H-TWO-1) and out-of-turn
windows let go (H-JUMP-1 in ``uno_house``; H-ZEROSEE-1's block)."""

DECISIONS = 200
"""Decisions read per game (the walk each read is checked against costs the whole log)."""


def test_every_viewer_at_every_decision_reads_what_the_whole_log_walk_reads() -> None:
    """Random games of every preset: at each decision, the view of every seat (and of nobody,
    -1) and the public view of the seat to move give the walk's history and count; views kept
    from earlier decisions still give theirs once the log has grown; the list handed out is
    the caller's to change. Cards given and let-go answers do occur."""
    hidden = let_go = 0
    for name, overrides, players, seed in CASES:
        game = Game(name, players, seed=seed, **overrides)
        chooser = random.Random(seed)
        kept: list[tuple[PublicView, list[Any], int]] = []
        for decision in range(DECISIONS):
            view = PublicView.of(game)
            log = list(game.log)
            for viewer in [-1, *range(players)]:
                expect(as_viewer(view, viewer), log, viewer, game)
            mover = game.current_player
            seen = view.public()
            expect(seen, log, mover, game)
            for viewer in range(players):  # the mover's public log read by another: what it shows
                assert seen.log is not None
                expect(as_viewer(seen, viewer), list(seen.log), viewer, game)
            history = seen.public_history()
            history.append((0, 0))  # the caller's own list: the next read is not changed by it
            assert seen.public_history() == walked(log, mover, game.deck, players)[0]
            if decision % 7 == 3:
                kept.append((seen, walked(log, mover, game.deck, players)[0], seen.decisions))
            if game.is_over():
                break
            game.step(chooser.choice(game.legal_actions()))
        for view, history, count in kept:  # the log grew since: a view reads its own length
            assert view.public_history() == history and view.decisions == count
        for viewer in range(players):
            shown = walked(game.log, viewer, game.deck, players)[0]
            hidden += sum(1 for _, action in shown if action == HIDDEN)
        let_go += sum(
            1
            for _, action, phase in game.log
            if phase in (L.PH_JUMP_IN, L.PH_BLOCK) and action_kind(action, game.deck)[0] == ActionKind.PASS
        )
    assert hidden > 10 and let_go > 10


class Counting:
    """Counts the log entries :func:`uno_env.styles.public.unseen_by` is asked about (the
    digest and the whole-log walk both ask once per entry they examine)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = public.unseen_by

        def unseen_by(entry: Entry, viewer: int, deck: cards.DeckFamily) -> bool:
            self.calls += 1
            return original(entry, viewer, deck)

        monkeypatch.setattr(public, "unseen_by", unseen_by)


def game_views(decisions: int) -> Iterator[PublicView]:
    """The public views of a first-legal 4-player ``uno_house`` game (it runs to the decision
    limit) at each of its first ``decisions`` decisions."""
    game = Game("uno_house", 4, seed=1)
    for _ in range(decisions):
        yield PublicView.of(game).public()
        game.step(game.legal_actions()[0])


def aec_views(decisions: int) -> Iterator[PublicView]:
    """The same game in the AEC env: every seat's view."""
    env = uno_env.envs.raw_env("uno_house", 4)
    env.reset(seed=1)
    for _ in range(decisions):
        yield env.public_view()
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def single_views(decisions: int) -> Iterator[PublicView]:
    """The learner's views in the single-agent env (its log holds the compiled opponents'
    moves too), game after game."""
    env = uno_env.SingleAgentEnv("uno_house", 4, opponents="random_legal", seat=0)
    env.reset(seed=1)
    for _ in range(decisions):
        yield env.public_view()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            env.reset()


def vector_views(decisions: int) -> Iterator[PublicView]:
    """The learner's views in the vector env (one row, reset automatically)."""
    venv = uno_env.VectorEnv(1, "uno_house", 4, opponents="random_legal", seat=0, public_views=True)
    venv.reset(seed=1)
    for _ in range(decisions):
        yield venv.public_view(0)
        venv.step(np.array([np.flatnonzero(venv.action_masks()[0])[0]]))


@pytest.mark.parametrize(
    "views", [game_views, aec_views, single_views, vector_views], ids=["game", "aec", "single", "vector"]
)
def test_reading_the_history_at_every_decision_examines_each_log_entry_once_per_viewer(
    monkeypatch: pytest.MonkeyPatch, views: Callable[[int], Iterator[PublicView]]
) -> None:
    """An agent reading the public history and the decision count at each of its decisions:
    every view the package builds (a game's, each environment's) reads each log entry once
    per viewer (4 seats here), not the whole log at each read (~1,000,000 entries for the
    game's 1,000 decisions)."""
    counting = Counting(monkeypatch)
    entries = length = 0  # the entries of the games read, the current game's so far
    for view in views(1000):
        left_out = view.log_length - len(view.public_history())  # other seats' let-go answers
        assert view.decisions == int(view.state[L.S_DECISIONS]) - left_out  # the count leaves them out too
        if view.log_length < length:  # a new game
            entries += length
        length = view.log_length
    entries += length
    # the work is seen (each entry examined at least once), and bounded
    assert 999 <= entries <= counting.calls <= 4 * entries


def test_a_digest_answers_only_for_its_own_log() -> None:
    """A clone, a log truncated (and grown again otherwise), a log replaced, a view pickled:
    each view reads its own log, as the walk does."""
    game = Game("uno_house", 3, seed=6, two_gives=True)
    chooser = random.Random(6)
    for _ in range(60):
        PublicView.of(game).public_history()
        game.step(chooser.choice(game.legal_actions()))
    other = game.clone()  # a log of its own, so a digest of its own
    assert PublicView.of(other).history_digest is not PublicView.of(game).history_digest
    for _ in range(30):
        other.step(chooser.choice(other.legal_actions()))
        for seat in range(3):
            expect(as_viewer(PublicView.of(other), seat), other.log, seat, other)
            expect(as_viewer(PublicView.of(game), seat), game.log, seat, game)
    stranger = Game("uno_house", 3, seed=7, two_gives=True)  # entries another game logged
    for _ in range(90):
        stranger.step(chooser.choice(stranger.legal_actions()))
    # truncated below what was read, then grown past it with other entries
    del game.log[40:]
    expect(as_viewer(PublicView.of(game), 1), game.log, 1, game)
    game.log.extend(stranger.log[40:70])
    expect(as_viewer(PublicView.of(game), 1), game.log, 1, game)
    # back to the length read, another entry where the last one read was
    del game.log[65:]
    game.log.extend(other.log[65:70])
    view = PublicView.of(game)
    expect(as_viewer(view, 1), game.log, 1, game)
    # a view given another log keeps the digest of its own, which does not answer for it
    swapped = replace(view, log=stranger.log, log_length=len(stranger.log))
    expect(as_viewer(swapped, 1), stranger.log, 1, game)
    # a read that fails part-way (an entry that is not one) leaves nothing half read
    game.log.extend([*stranger.log[70:80], (0, 1)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="unpack"):
        as_viewer(PublicView.of(game), 0).public_history()
    game.log.pop()
    expect(as_viewer(PublicView.of(game), 0), game.log, 0, game)
    game.log = list(other.log[:20])  # replaced
    assert PublicView.of(game).history_digest is not view.history_digest
    expect(as_viewer(PublicView.of(game), 2), game.log, 2, game)
    restored = pickle.loads(pickle.dumps(view))
    assert restored.history_digest is not None and restored.history_digest.reads(restored.log)
    assert restored.public_history() == view.public_history()
    copied = copy.deepcopy(view)
    assert copied.history_digest is not None and copied.history_digest.reads(copied.log)
    assert copied.public_history() == view.public_history()


def test_the_digest_an_agent_is_handed_answers_for_its_seat_alone() -> None:
    """The public view's digest reads the game's log for the player to move and no one else
    (another seat's part shows the cards given to that seat, H-TWO-1), copied or not."""
    game = Game("uno_house", 3, seed=8, two_gives=True)
    chooser = random.Random(8)
    for _ in range(80):
        game.step(chooser.choice(game.legal_actions()))
    seat = game.current_player
    seen = PublicView.of(game).public()
    for handed in (seen, pickle.loads(pickle.dumps(seen))):
        digest = handed.history_digest
        assert digest is not None
        assert digest.read(seat, handed.log_length, game.deck, 3) is not None
        for other in (-1, *(s for s in range(3) if s != seat)):
            assert digest.read(other, handed.log_length, game.deck, 3) is None
        expect(handed, game.log, seat, game)
    complete = PublicView.of(game).history_digest
    assert complete is not None and complete.read((seat + 1) % 3, len(game.log), game.deck, 3) is not None


def test_a_reset_env_reads_its_new_game_only() -> None:
    """The AEC and single-agent envs: after a reset the views read the new game's log, with a
    digest of its own, never the last game's entries."""
    env = uno_env.envs.raw_env("uno_house", 3, two_gives=True)
    single = uno_env.SingleAgentEnv("uno_house", 3, opponents="random_legal", seat=0)
    rng = np.random.default_rng(3)
    logs: list[Any] = []  # each game's log, for the envs' owners' digests
    for seed in (1, 2, 3):
        env.reset(seed=seed)
        single.reset(seed=seed)
        assert env.public_view().public_history() == [] and env.public_view().decisions == 0
        for _ in range(40):
            if not env.agents:
                break
            view = env.public_view()
            log = list(env._log)
            expect(view, log, view.seat, Game("uno_house", 3))
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        digest = env.public_view().history_digest
        assert digest is not None and digest.reads(env._log) and not any(digest.reads(log) for log in logs)
        logs.append(env._log)
        for _ in range(20):
            mine = single.public_view()
            log = single._public_log.entries(0)
            assert mine.history_digest is not None and mine.history_digest.reads(log)
            assert not any(mine.history_digest.reads(old) for old in logs)
            assert mine.public_history() == walked(log, 0, "uno", 3)[0]
            _, _, terminated, truncated, _ = single.step(int(np.flatnonzero(single.action_masks())[0]))
            if terminated or truncated:
                break
        logs.append(log)


def walked_last_actions(log: Sequence[Entry], viewer: int, deck: cards.DeckFamily, players: int) -> list[Any]:
    """Each seat's last decision in ``log`` as ``viewer`` may know it, by walking the whole log
    forward (what :func:`~uno_env.styles.view.visible_last_actions` did before it read back)."""
    last: list[Any] = [None] * players
    receiver = -1
    for seat, action, phase in log:
        let_go = phase in (L.PH_JUMP_IN, L.PH_BLOCK) and action_kind(action, deck)[0] == ActionKind.PASS
        if let_go and seat != viewer:
            continue  # H-JUMP-1, H-ZEROSEE-1: another seat's let-go answer is not known
        if phase == L.PH_CHOOSE_TARGET:
            receiver = (seat + action_kind(action, deck)[1]) % players
        last[seat] = HIDDEN if phase == L.PH_GIVE and viewer not in (seat, receiver) else action  # H-TWO-1
    return last


def test_the_pictures_last_actions_are_the_whole_log_walks_and_read_only_the_newest_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The AEC env's picture of a seat (``render_seat``) shows each seat's last decision as that
    seat may know it (a card given between two others hidden, H-TWO-1; another seat's let-go
    answer left out, H-JUMP-1, H-ZEROSEE-1): the whole-log walk's answer for every viewer at
    every decision of the random games, read from the newest entry back until every seat has
    one, so a picture drawn at each step of a long game does not read the whole game again."""
    for name, overrides, players, seed in CASES:
        game = Game(name, players, seed=seed, **overrides)
        chooser = random.Random(seed)
        for _ in range(DECISIONS):
            log = list(game.log)
            for viewer in range(players):
                expected = walked_last_actions(log, viewer, game.deck, players)
                assert visible_last_actions(log, viewer, game.deck, players) == expected
            if game.is_over():
                break
            game.step(chooser.choice(game.legal_actions()))
    counting = Counting(monkeypatch)
    monkeypatch.setattr(view_module, "unseen_by", public.unseen_by)
    pictures = 0
    for view in game_views(1000):  # a first-legal 4-player game: everybody acts every few decisions
        assert view.log is not None
        visible_last_actions(list(view.log), 0, view.deck, 4)
        pictures += 1
    assert pictures == 1000 and counting.calls < 20 * pictures  # not the ~500,000 of whole-log reads

"""The win-chance estimate (:mod:`uno_env.sim.winprob`) and its place in the web table.

- The features of a seat at a position built by hand are exactly what its cards and place say
  (U-MATCH-1 for the playable count, U-D2-1 for a pending penalty, MC-FOUR-1 for sit-outs).
- Traced games are the batch simulator's games (same winners, lengths, first movers) and record
  one position per decision of the round until a player leaves (MC-END-1: the first out won).
- The conditional logit recovers the weights it was simulated with; the Brier score, the
  reliability table and the trajectory measures are exact on small hand-made cases.
- Model files are read through a bounded, header-checked path; the web table's ``calibrated``
  estimate sums to one, is deterministic and answers a finished round with its winner.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from uno_env import Game, simulate
from uno_env.sim import winprob


def position(text: str, rules: str = "uno", seed: int = 0) -> Game:
    return Game.from_position(rules, text, seed=seed)


def test_features_read_the_cards_and_the_turn_order() -> None:
    """Seat 0 to move with a wild, a Draw Two, a Skip and two playable reds (U-MATCH-1 on R5)."""
    game = position(
        "hands=R3 R7 RD2 W BS/G1 G2; discard=R5; draw=B1 B2 G7 Y4; colour=R; seat=0; dir=+; phase=play"
    )
    features = winprob.position_features(game.state, game.compiled.spec)
    assert features is not None
    by_name = [dict(zip(winprob.FEATURES, row, strict=True)) for row in features]
    me, other = by_name
    assert me["log_cards"] == pytest.approx(math.log(5)) and me["one_card"] == 0 and me["two_cards"] == 0
    assert me["wilds"] == 1 and me["draw_cards"] == 1 and me["action_cards"] == 1
    assert me["colours"] == 2  # red and blue (the wild has no colour)
    assert me["playable"] == 4  # R3, R7, RD2 and the wild match R5; the blue Skip does not
    assert me["to_move"] == 1 and me["next_to_move"] == 0 and me["penalty"] == 0
    assert other["two_cards"] == 1 and other["to_move"] == 0 and other["next_to_move"] == 1
    assert other["playable"] == 0 and other["colours"] == 1


def test_a_pending_penalty_counts_for_the_player_who_must_answer_it() -> None:
    """U-D2-1 with stacking (H-STACK-1): seat 1 must answer a Draw Two of 2 cards."""
    game = position(
        "hands=R3 R7/G1 GD2 B4; discard=RD2; draw=B1 B2 G7 Y4; colour=R; seat=1; dir=+; phase=answer; "
        "pending=2; from=0",
        rules="uno_house",
    )
    features = winprob.position_features(game.state, game.compiled.spec)
    assert features is not None
    penalty = winprob.FEATURES.index("penalty")
    assert features[1, penalty] == pytest.approx(math.log1p(2)) and features[0, penalty] == 0


def test_traced_games_are_the_batch_simulators_games() -> None:
    seats = ["blocker", "random_playable", "search:sims=4"]
    seeds = np.arange(40, 52)
    trace = winprob.trace("uno", 3, seeds, seats)
    batch = simulate("uno", 3, len(seeds), seed=40, policies=seats, full_engine=True)
    assert np.array_equal(trace.winner, batch.winner)
    assert np.array_equal(trace.results.length, batch.length)
    assert np.array_equal(trace.results.first_mover, batch.first_mover)
    # one position per decision: every decision of a single round is recorded
    counts = np.bincount(trace.position_game, minlength=len(seeds))
    assert np.array_equal(counts, batch.length)


def test_macao_traces_stop_when_the_first_player_leaves() -> None:
    """MC-END-1: the round goes on after a player leaves, but its winner is known then."""
    trace = winprob.trace("macao", 3, np.arange(8), ["greedy"] * 3)
    counts = np.bincount(trace.position_game, minlength=8)
    assert (counts < trace.results.length).all() and (counts > 0).all()


def test_the_fit_recovers_the_weights_it_was_simulated_with() -> None:
    rng = np.random.default_rng(3)
    truth = np.zeros(winprob.NUM_FEATURES)
    truth[0], truth[3], truth[8] = -1.5, 0.8, 0.3
    x = rng.normal(size=(20_000, 3, winprob.NUM_FEATURES))
    p = winprob.WinModel(tuple(truth)).probabilities(x)
    winners = (rng.random(20_000)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    fitted = winprob.fit_win_model(x, winners, ridge=1e-6)
    assert np.allclose(fitted.weights, truth, atol=0.06)


def test_brier_reliability_and_trajectory_measures_by_hand() -> None:
    # two games of two seats: game 0 won by seat 1 after trailing, game 1 won by seat 0 throughout
    probs = np.array([[0.8, 0.2], [0.6, 0.4], [0.3, 0.7], [0.05, 0.95], [0.6, 0.4], [0.95, 0.05]])
    game = np.array([0, 0, 0, 0, 1, 1])
    winners = np.array([1, 0])
    sums, counts = winprob.brier_per_game(probs, game, winners, 2)
    assert counts.tolist() == [4, 2]
    assert sums[0] == pytest.approx(2 * (0.8**2 + 0.6**2 + 0.3**2 + 0.05**2))
    measures = winprob.game_measures(probs, game, winners, 2)
    assert measures["lead_changes"].tolist() == [1.0, 0.0]
    assert measures["winner_low"].tolist() == pytest.approx([0.2, 0.6])
    assert measures["comeback"].tolist() == [0.0, 0.0]
    # game 0: the winner's chance reaches 0.95 at the last decision (3 of 4 before), game 1 at its second
    assert measures["decided_at"].tolist() == pytest.approx([0.75, 0.5])
    assert measures["drama"][0] == pytest.approx((0.6 + 0.2 + 0 + 0) / 4)
    table = winprob.reliability_counts(probs, game, winners)
    assert table[:, 0].sum() == 12 and table[:, 2].sum() == 6
    assert table[8, 0] == 1 and table[8, 2] == 0  # the 0.8 prediction of game 0's loser


def test_model_files_are_checked_before_they_are_used(tmp_path: Path) -> None:
    good = tmp_path / "models.json"
    model = winprob.WinModel(tuple(round(0.1 * k, 6) for k in range(winprob.NUM_FEATURES)))
    winprob.save_models(good, {winprob.model_key("uno", 2): {"model": model.to_dict(), "fitted_on": "test"}})
    book = winprob.ModelBook.load(good)
    assert book.model_for("uno", 2) == (model, winprob.model_key("uno", 2))
    with pytest.raises(ValueError, match="cover 2 players, not 4"):
        book.model_for("uno", 4)
    bad = tmp_path / "bad.json"
    bad.write_text('{"models": {}}', encoding="utf-8")
    with pytest.raises(ValueError, match="is not a win-chance model file"):
        winprob.load_models(bad)
    big = tmp_path / "big.json"
    big.write_bytes(b"{" + b" " * winprob.MAX_MODEL_BYTES + b"}")
    with pytest.raises(ValueError, match="larger than"):
        winprob.load_models(big)
    broken = json.loads(good.read_text(encoding="utf-8"))
    broken["models"]["uno|2"] = {"model": {"features": list(winprob.FEATURES), "weights": [1.0]}}
    good.write_text(json.dumps({"format": winprob.MODEL_FORMAT, **broken}), encoding="utf-8")
    with pytest.raises(ValueError, match="weights must be"):
        winprob.load_models(good)


def test_the_web_tables_calibrated_estimate() -> None:
    pytest.importorskip("starlette")
    from training.serve.explain import Calibrated, make_estimator

    estimator = make_estimator("calibrated")
    assert isinstance(estimator, Calibrated)
    game = Game("uno", 3, seed=5)
    first = estimator.estimate(game, 0)
    assert sum(first) == pytest.approx(1.0, abs=1e-3) and first == estimator.estimate(game, 7)
    from agents import ScriptedAgent

    player = ScriptedAgent("greedy", seed=1)
    while not game.is_over():
        game.step(player.act(None, game.legal_mask(), game))
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is not None
    assert estimator.estimate(game, 9) == [1.0 if s == outcome.winner else 0.0 for s in range(3)]
    with pytest.raises(ValueError, match="cannot read win-chance model file"):
        make_estimator("calibrated:/nonexistent/winprob.json")
    # a bad name lists every form --win-estimate takes, the model file's too
    with pytest.raises(ValueError, match=r"known: search, hands, calibrated, or calibrated:FILE \(an atlas"):
        make_estimator("calibrate")


def test_the_shipped_models_cover_every_player_count_and_publish_refits_them(tmp_path: Path) -> None:
    book = winprob.shipped_models()
    for n in range(2, 11):
        model, key = book.model_for("uno_house", n)
        assert key == f"{winprob.POOLED}|{n}" and model.weights[0] < 0  # more cards: a lower chance
    from training.atlas.publish import pooled_models

    fitted = pooled_models(range(4, 5), games=14)
    assert list(fitted) == [f"{winprob.POOLED}|4"] and "mau_mau" in fitted[f"{winprob.POOLED}|4"]["fitted_on"]
    path = tmp_path / "models.json"
    winprob.save_models(path, fitted)
    assert winprob.ModelBook.load(path).model_for("macao", 4)[1] == f"{winprob.POOLED}|4"


def test_a_network_of_other_rules_is_refused_unless_a_transfer_is_allowed() -> None:
    """trace (and fit_pooled) seated any network as a transfer without a word; now a network
    trained for other rules is refused as in uno_env.simulate (check_fits), naming the
    difference and the keyword that allows it."""
    from uno_env.engine.rules import load_rules
    from uno_env.sim.learned import PolicyGameMismatchError

    swapped = load_rules("uno", seven_swap=True)
    seats = ["distilled_uno_2p", "greedy"]
    with pytest.raises(PolicyGameMismatchError, match=r"seven_swap.*allow_rules_mismatch=True"):
        winprob.trace(swapped, 2, np.arange(3), seats)
    with pytest.raises(PolicyGameMismatchError, match=r"seven_swap.*allow_rules_mismatch=True"):
        winprob.fit_pooled([swapped], 2, 4, seats)
    allowed = winprob.trace(swapped, 2, np.arange(3), seats, allow_rules_mismatch=True)
    batch = simulate(swapped, 2, 3, seed=0, policies=seats, allow_rules_mismatch=True, full_engine=True)
    assert np.array_equal(allowed.winner, batch.winner)
    assert winprob.trace("uno", 2, np.arange(3), seats).winner.shape == (3,)  # its own rules: no refusal

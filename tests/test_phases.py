"""One home per phase: :data:`uno_env.engine.phases.PHASES` is read by every place that needs a phase.

The engine's codes (``layout.PH_*``), :class:`uno_env.Phase`, the position notation, the
renderer's header line and the terminal table's wording come from the table; its entries
name rule IDs of the reference, rule fields and Decision fields that exist, and compiled
functions of the engine.
"""

from __future__ import annotations

import dataclasses

import numba
import pytest

import uno_env
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.phases import NOTATION, PHASES, Phase
from uno_env.engine.rules import RuleSet
from uno_env.envs.render import PHASE_TASKS
from uno_env.game import position, reference
from uno_env.game.facade import Decision


def test_every_phase_has_one_entry_and_a_distinct_word() -> None:
    assert list(PHASES) == list(Phase)
    assert len(set(NOTATION.values())) == len(Phase)
    assert all(info.phase == phase for phase, info in PHASES.items())
    assert len(Phase) <= L.PHASE_SLOTS  # the observation's one-hot has room


def test_the_engine_codes_and_the_public_enum_are_the_table_s() -> None:
    for phase in Phase:
        assert getattr(L, f"PH_{phase.name}") == int(phase)
    assert len(Phase) == L.NUM_PHASES
    assert uno_env.Phase is Phase


def test_the_notation_the_renderer_and_the_position_checks_read_the_table() -> None:
    assert position.PHASE_NAMES == NOTATION
    assert {info.notation: int(p) for p, info in PHASES.items()} == position.PHASE_CODES
    assert tuple(int(p) for p, info in PHASES.items() if info.midplay) == position.MIDPLAY_PHASES
    assert {int(p): info.task for p, info in PHASES.items() if p != Phase.OVER} == PHASE_TASKS


def test_the_entries_name_real_rules_fields_and_compiled_functions() -> None:
    defined = set(reference.reference().rules)
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    decision = {f.name for f in dataclasses.fields(Decision)}
    for phase, info in PHASES.items():
        assert set(info.rules) <= defined, phase
        assert set(info.needs) <= fields, phase
        assert set(info.decision) <= decision - {"phase", "seat", "can_call"}, phase
        assert all(name in info.needs_text for name in info.needs), phase
        for name in (info.mask, info.apply):  # compiled functions of the engine (plain ones uncompiled)
            function = getattr(engine, name)
            assert callable(function), (phase, name)
            assert hasattr(function, "py_func") or numba.config.DISABLE_JIT, (phase, name)


@pytest.mark.parametrize("phase", [p for p, info in PHASES.items() if info.needs])
def test_a_phase_that_needs_a_rule_is_refused_in_a_position_without_it(phase: Phase) -> None:
    """The position reader takes the rule fields a phase needs from the table."""
    game = uno_env.Game("uno", 2, seed=0)
    text = game.position().replace("phase=play", f"phase={PHASES[phase].notation}")
    with pytest.raises(uno_env.PositionError, match=f"phase={PHASES[phase].notation} needs the rule"):
        uno_env.Game.from_position("uno", text)

"""Golden playthroughs: seeded random games of every preset must replay their transcripts.

A transcript records the rule set, every position and every decision (see
:mod:`tests.golden.regenerate`). Any change of behaviour (a rule, the deal, the generator,
the notation) shows up here as a diff; when the change is intended, regenerate the files
and review the diff like code.
"""

from __future__ import annotations

import difflib

import pytest

from tests.golden import regenerate
from tests.golden.regenerate import GOLDEN_DIR, REGENERATE_COMMAND, Case

DIFF_LINES = 40


@pytest.mark.parametrize("case", regenerate.cases(), ids=lambda c: c.file_name)
def test_golden_playthrough(case: Case) -> None:
    path = GOLDEN_DIR / case.file_name
    assert path.exists(), f"missing golden file {path.name}; run `{REGENERATE_COMMAND}` from the repo root"
    expected = path.read_text(encoding="utf-8")
    actual = regenerate.transcript(case)
    if actual != expected:
        diff = list(
            difflib.unified_diff(
                expected.splitlines(),
                actual.splitlines(),
                fromfile=f"golden/{path.name}",
                tofile="this engine",
                lineterm="",
                n=2,
            )
        )
        excerpt = "\n".join(line[:300] for line in diff[:DIFF_LINES])
        more = f"\n... ({len(diff) - DIFF_LINES} more diff lines)" if len(diff) > DIFF_LINES else ""
        pytest.fail(
            f"{path.name} no longer matches the engine:\n{excerpt}{more}\n"
            f"If the change is intended, run `{REGENERATE_COMMAND}` from the repo root and review the diff.",
            pytrace=False,
        )


def test_no_stale_golden_files() -> None:
    stale = [p.name for p in regenerate.stale_files()]
    assert not stale, f"golden files no case produces: {stale}; run `{REGENERATE_COMMAND}`"


def test_cases_cover_every_preset() -> None:
    import uno_env

    covered = {case.preset for case in regenerate.cases()}
    assert covered == set(uno_env.PRESETS)


def test_transcript_shape() -> None:
    case = regenerate.cases()[0]
    lines = regenerate.transcript(case).splitlines()
    assert lines[3].startswith("rules: ")
    assert lines[4].startswith("1. hands=")
    assert lines[5].startswith("   seat ")
    assert lines[-2].startswith("final: hands=")
    assert lines[-1].startswith(("outcome: ", "stopped: "))
    decisions = sum(1 for line in lines if line.startswith("   seat "))
    assert decisions <= regenerate.MAX_DECISIONS
    if lines[-1].startswith("stopped: "):
        assert decisions == regenerate.MAX_DECISIONS

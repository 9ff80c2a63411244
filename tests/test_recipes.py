"""The recipes of ``docs/architecture.md`` ("Where to add things"), done in a copy of the project.

Each recipe is written here as the edits a contributor makes, by hand, in the order the doc
lists them. The test applies them to a temporary copy of the project (code, tests, docs),
regenerates what the project generates (``make rules-doc``, ``make styles-doc``, the golden
transcripts), counts the files and edit sites that changed, runs the tests that cover the
addition in the copy (uncompiled: ``NUMBA_DISABLE_JIT=1``) and requires that the doc's tables
and counts are the ones this run measures:

- a boolean house-rule switch ("H-FIVE-1: playing a 5 reverses", :data:`SWITCH`): its scenario
  test passes, the rule reference, option and fast-path tests take it from the field
  metadata, and no golden transcript changes;
- a scripted play style ("lowball: its lowest-scoring card first", :data:`STYLE`): its
  behaviour test and every test run for each scripted style pass, the registry, the style
  table of ``docs/agents.md`` and the dispatcher see it, and the study's default field does
  not change.

``python -m tests.test_recipes`` prints the counts of both recipes.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from training.study.spec import DEFAULT_FIELD
from uno_env.engine import layout as L
from uno_env.styles.registry import NUM_POLICIES

REPO_ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE_DOC = REPO_ROOT / "docs" / "architecture.md"
COPIED = (
    *("uno_env", "agents", "training", "tests", "benchmarks", "examples", "notebooks", "docs"),
    *("README.md", "Makefile", "pyproject.toml", "conftest.py"),
)
"""What the copy holds: the project's code, tests, docs and settings."""


@dataclass(frozen=True)
class Edit:
    """One hand edit: ``text`` goes before the first ``anchor`` in ``path`` (or replaces it)."""

    path: str
    anchor: str
    text: str
    replace: bool = False
    at_end: bool = False

    def apply(self, root: Path) -> None:
        """Make the edit in the copy at ``root``; a missing anchor fails with the edit named."""
        target = root / self.path
        old = target.read_text(encoding="utf-8")
        if self.at_end:
            target.write_text(old.rstrip("\n") + "\n" + self.text, encoding="utf-8")
            return
        assert self.anchor in old, f"the recipe's anchor is gone from {self.path}: {self.anchor!r}"
        new = self.text if self.replace else self.text + self.anchor
        target.write_text(old.replace(self.anchor, new, 1), encoding="utf-8")


def _free_spec_slot() -> int:
    used = [value for name, value in vars(L).items() if name.startswith("SP_") and isinstance(value, int)]
    slot = max(used) + 1
    assert slot < L.NUM_SP_PARAMS, "no spec slot left: NUM_SP_PARAMS must grow"
    return slot


SWITCH = (
    Edit(
        "uno_env/engine/rules.py",
        "    no_finish_on_action: bool = _rule(",
        "    five_reverses: bool = _rule(\n"
        '        False,\n        "H-FIVE-1",\n        "playing a 5 reverses the direction of play",\n'
        f'        slot=L.declare_spec_slot("SP_FIVE_REVERSES", {_free_spec_slot()}),\n'
        "        features=(O.STAGED, O.NUMBER_EFFECT),\n    )\n",
    ),
    Edit(
        "uno_env/engine/engine.py",
        "    if number == 7 and spec[L.SP_SEVEN_SWAP] == 1",
        "    if number == 5 and spec[L.SP_FIVE_REVERSES] == 1:\n"
        "        state[L.S_DIRECTION] = -state[L.S_DIRECTION]\n",
    ),
    Edit(
        "uno_env/engine/engine.py",
        "        or (number == 8 and spec[L.SP_EIGHT_AGAIN] == 1)",
        "        or (number == 5 and spec[L.SP_FIVE_REVERSES] == 1)\n",
    ),
    Edit(
        "uno_env/engine/engine.py", "H-TWO-1, H-NOFINISH-1,", "H-TWO-1, H-FIVE-1, H-NOFINISH-1,", replace=True
    ),
    Edit(
        "uno_env/game/rule_reference.toml",
        '[[rule]]\nid = "H-NOFINISH-1"',
        '[[rule]]\nid = "H-FIVE-1"\ntitle = "The 5 reverses"\n'
        'text = """Option: a player who lays a 5 reverses the direction of play, as a Reverse does."""\n'
        'sources = ["uno_wiki"]\nfields = ["five_reverses"]\npresets = []\n\n',
    ),
    Edit(
        "tests/test_rules_house.py",
        "",
        "\n\n# ================================================================ H-FIVE-1\n"
        "def test_H_FIVE_1_a_five_reverses_the_direction_of_play() -> None:\n"
        '    """H-FIVE-1: after a 5 the turn passes the other way; without the switch it does not."""\n'
        '    hands = "G4 G7/Y1 Y2/B1 B2/G5 G6"\n'
        '    start = f"hands=R5 {hands}; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play"\n'
        '    game = play(at(start, five_reverses=True), "R5")\n'
        '    after = f"hands={hands}; discard=R4 R5; {FILL}; colour=R; seat={{}}; dir={{}}; phase=play"\n'
        '    assert_position(game, after.format(3, "-"))\n'
        '    assert_position(play(at(start), "R5"), after.format(1, "+"))\n',
        at_end=True,
    ),
)
"""The boolean switch recipe: the field with its spec slot, the rule, its number in the plain
plays' check and its ID in the engine's list, the reference entry and the scenario test."""

STYLE = (
    Edit("uno_env/styles/scripted.py", "\nDOUBT_DEFAULT = ", f"POLICY_LOWBALL = {NUM_POLICIES}\n"),
    Edit(
        "uno_env/styles/scripted.py",
        "@njit(cache=True, internal=True)\ndef card_score(",
        "@njit(cache=True, internal=True)\n"
        "def lowball_card(state: np.ndarray, spec: np.ndarray, seat: int, face: int) -> int:\n"
        '    """Lowball: its lowest-scoring card first, keeping the costly ones. Never bluffs."""\n'
        "    if is_bluff(state, spec, seat, face):\n        return NEVER\n"
        "    return 1000 - spec[L.F_POINTS + face]\n\n\n",
    ),
    Edit(
        "uno_env/styles/scripted.py",
        "    if policy == POLICY_CAUTIOUS:\n        return cautious_card(",
        "    if policy == POLICY_LOWBALL:\n        return lowball_card(state, spec, seat, face)\n",
    ),
    Edit(
        "uno_env/styles/scripted.py",
        ')\n"""The scripted styles\' registry entries',
        "    Style(\n"
        '        "lowball",\n        POLICY_LOWBALL,\n'
        '        "lowball: its lowest-scoring card first",\n'
        '        "Plays its lowest-scoring card, keeping wilds and action cards for later; draws only "\n'
        '        "when nothing is playable. " + _CALL_COLOUR + " Challenges on evidence.",\n'
        "        (_doubt(DOUBT_DEFAULT),),\n    ),\n",
    ),
    Edit(
        "tests/test_agents_styles.py",
        "",
        "\n\ndef test_lowball_plays_its_lowest_scoring_card() -> None:\n"
        '    """U-SCORE-1 points: 2 before 9 before a Skip; a wild last; greedy plays the other end."""\n'
        '    assert at(play_position("R2 R9 RS Y3/G1 G2 G3"), "lowball") == "R2"\n'
        '    assert at(play_position("R9 RS W/G1 G2 G3"), "lowball") == "R9"\n'
        '    assert at(play_position("R2 R9 RS Y3/G1 G2 G3"), "greedy") == "RS"\n',
        at_end=True,
    ),
)
"""The play style recipe: its code, its card score, its branch in ``card_score``, its registry
entry, and its behaviour test."""

GENERATORS = (
    [
        sys.executable,
        "-m",
        "uno_env.game.reference",
        "docs/rules.md",
        "docs/rule-switches.md.in",
        "docs/rule-switches.md",
    ],
    [sys.executable, "-m", "uno_env.styles.doc", "docs/agents.md"],
    [sys.executable, "-m", "tests.golden.regenerate"],
)
"""What the project regenerates: ``make rules-doc``, ``make styles-doc`` and the goldens."""

SWITCH_TESTS = (
    "tests/test_rules_house.py::test_H_FIVE_1_a_five_reverses_the_direction_of_play",
    "tests/test_rule_reference.py",
    "tests/test_options.py",
    "tests/test_fast_path.py::test_every_field_plays_the_same_on_the_fast_paths_as_on_the_general_ones[five_reverses]",
)
STYLE_TESTS = ("tests/test_agents_styles.py", "-k", "lowball", "tests/test_styles_package.py")
STYLE_CHECK = r"""
import json
import numpy as np
from uno_env import simulate
from uno_env.styles.registry import POLICIES, STYLES, parse_policy
from training.study.spec import DEFAULT_FIELD
results = simulate("uno", 4, 20, seed=3, policies=["lowball", "greedy", "lowball", "greedy"])
print(json.dumps({"code": STYLES["lowball"].code, "in_policies": "lowball" in POLICIES,
                  "field": list(DEFAULT_FIELD), "games": int((np.asarray(results.winner) >= 0).sum())}))
"""


@dataclass(frozen=True)
class Count:
    """What a recipe changed in the copy."""

    hand_edited: dict[str, int]  # file -> edit sites
    regenerated: list[str]

    @property
    def sites(self) -> int:
        """Edit sites in all hand-edited files."""
        return sum(self.hand_edited.values())

    @property
    def goldens(self) -> list[str]:
        """Regenerated golden transcripts."""
        return [p for p in self.regenerated if p.startswith("tests/golden/")]


def make_copy(root: Path) -> Path:
    """A copy of the project's code, tests, docs and settings under ``root``."""
    ignore = shutil.ignore_patterns("__pycache__", "_compiled", "*.pyc", ".pytest_cache")
    for name in COPIED:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=ignore)
        else:
            shutil.copy2(source, root / name)
    return root


def _files(root: Path) -> dict[str, str]:
    out = {}
    for name in COPIED:
        base = root / name
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in paths:
            if "__pycache__" in path.parts or path.suffix == ".pyc" or ".pytest_cache" in path.parts:
                continue
            try:
                out[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                out[path.relative_to(root).as_posix()] = path.read_bytes().hex()
    return out


def edit_sites(old: str, new: str) -> int:
    """Contiguous changed blocks of lines between two versions of a file."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return sum(1 for tag, *_ in matcher.get_opcodes() if tag != "equal")


def _environment(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_CACHE"))}
    env.update(
        PYTHONPATH=str(root),
        NUMBA_DISABLE_JIT="1",  # the copy is not compiled: the same engine, run as Python
        UNO_ENV_CACHE_DIR=str(root / ".cache"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def run_in(root: Path, *command: str) -> str:
    """Run ``command`` in the copy; its stdout, or a failure with its output."""
    done = subprocess.run(
        list(command),
        cwd=root,
        env=_environment(root),
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    assert done.returncode == 0, (
        f"{' '.join(command[:4])} failed in the copy:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def do_recipe(root: Path, recipe: tuple[Edit, ...]) -> Count:
    """Apply ``recipe`` to the copy at ``root``, regenerate, and count what changed."""
    before = _files(root)
    for edit in recipe:
        edit.apply(root)
    edited = _files(root)
    for command in GENERATORS:
        run_in(root, *command)
    after = _files(root)
    hand = {
        path: edit_sites(before[path], edited[path]) for path in edited if edited[path] != before.get(path)
    }
    regenerated = sorted(p for p in after if after[p] != edited.get(p))
    return Count(hand, regenerated)


def run_pytest(root: Path, *args: str) -> str:
    """Run pytest in the copy (its own tests and conftest), quietly."""
    return run_in(
        root, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args
    )


# ------------------------------------------------------------------ the doc's tables
def documented(section: str) -> tuple[list[str], str]:
    """The file column of a recipe's table in docs/architecture.md and the line under it."""
    text = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    start = text.index(f"### {section}")
    body = text[start : text.index("\n### ", start + 1)]
    files = re.findall(r"^\| \d+ \| `([^`]+)` \|", body, flags=re.MULTILINE)
    summary = body[body.index("\n\n", body.index("| --- |")) :].strip()
    return files, summary


def check_documented(section: str, count: Count, summary_pattern: str) -> None:
    """The doc's table lists one row per measured site, and its summary states the counts."""
    files, summary = documented(section)
    expected = [path for path, sites in count.hand_edited.items() for _ in range(sites)]
    assert sorted(files) == sorted(expected), (
        f"docs/architecture.md '{section}' lists {files}, the run edited {expected}"
    )
    assert re.match(summary_pattern, summary), f"docs/architecture.md '{section}' says: {summary[:200]!r}"


def test_a_switch_takes_the_documented_files_and_no_golden(tmp_path: Path) -> None:
    root = make_copy(tmp_path / "copy")
    count = do_recipe(root, SWITCH)
    assert count.goldens == []
    assert count.regenerated == ["docs/rule-switches.md", "docs/rules.md"]
    source = [p for p in count.hand_edited if not p.startswith("tests/")]
    assert len(count.hand_edited) <= 4 and len(count.hand_edited) == len(source) + 1  # the test included
    run_pytest(root, *SWITCH_TESTS)
    check_documented(
        "A simple house-rule switch",
        count,
        rf"\*\*{len(source)} files plus the scenario test, {count.sites} edit sites in all; "
        r"regenerated: `docs/rules.md` and `docs/rule-switches.md`, no golden transcript\*\*",
    )


def test_a_style_takes_one_file_plus_its_test(tmp_path: Path) -> None:
    root = make_copy(tmp_path / "copy")
    count = do_recipe(root, STYLE)
    assert sorted(count.hand_edited) == ["tests/test_agents_styles.py", "uno_env/styles/scripted.py"]
    assert count.regenerated == ["docs/agents.md"]
    run_pytest(root, *STYLE_TESTS)
    seen = json.loads(run_in(root, sys.executable, "-c", STYLE_CHECK).strip().splitlines()[-1])
    assert seen == {"code": NUM_POLICIES, "in_policies": True, "field": list(DEFAULT_FIELD), "games": 20}
    check_documented(
        "A play style",
        count,
        rf"\*\*1 file plus its test, {count.sites - 1} edit sites plus the test; "
        r"regenerated: the style table of `docs/agents.md`\*\*",
    )


def test_a_spec_slot_declared_beside_its_field_is_a_layout_constant() -> None:
    """``layout.declare_spec_slot`` (the recipe's slot) makes a constant of the layout module that
    compiled code reads as any other, and refuses a name or a slot in use."""
    import numba

    slot = _free_spec_slot()
    try:
        assert L.declare_spec_slot("SP_RECIPE_CHECK", slot) == slot

        @numba.njit
        def read(spec: np.ndarray) -> int:
            return int(spec[L.SP_RECIPE_CHECK])

        assert read(np.arange(L.NUM_SP_PARAMS, dtype=np.int64)) == slot
        with pytest.raises(ValueError, match="declared twice"):
            L.declare_spec_slot("SP_RECIPE_CHECK", slot + 1)
        with pytest.raises(ValueError, match=f"spec slot {slot} for SP_OTHER is SP_RECIPE_CHECK's"):
            L.declare_spec_slot("SP_OTHER", slot)
        with pytest.raises(ValueError, match="outside"):
            L.declare_spec_slot("SP_OTHER", L.NUM_SP_PARAMS)
        with pytest.raises(ValueError, match="name is SP_"):
            L.declare_spec_slot("five", slot + 1)
    finally:
        vars(L).pop("SP_RECIPE_CHECK", None)
    with pytest.raises(AttributeError, match="declares its slot"):
        _ = L.SP_RECIPE_CHECK


def test_the_counts_see_a_missing_edit(tmp_path: Path) -> None:
    """The counting can fail: a recipe without its reference entry edits one file fewer, and
    then the rule reference test in the copy refuses the uncited, undocumented field."""
    root = make_copy(tmp_path / "copy")
    without_reference = tuple(e for e in SWITCH if not e.path.endswith(".toml"))
    count = do_recipe(root, without_reference)
    assert "uno_env/game/rule_reference.toml" not in count.hand_edited
    with pytest.raises(AssertionError, match="failed in the copy"):
        run_pytest(root, "tests/test_rule_reference.py")
    assert edit_sites("a\nb\nc\n", "a\nB\nc\nd\n") == 2


def main() -> int:
    """Do both recipes in temporary copies and print their counts."""
    for name, recipe in (("switch", SWITCH), ("style", STYLE)):
        with tempfile.TemporaryDirectory() as folder:
            count = do_recipe(make_copy(Path(folder)), recipe)
            print(
                f"{name}: {len(count.hand_edited)} hand-edited files, {count.sites} edit sites:",
                count.hand_edited,
            )
            print(f"  regenerated: {count.regenerated or 'nothing'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def test_every_layout_name_the_code_reads_exists() -> None:
    """The layout module's ``__getattr__`` (for the slots declared beside their fields) makes
    the type checker accept any ``L.NAME``; this finds a misspelt one instead, in every module
    that imports the layout as ``L``."""
    import ast

    import uno_env  # noqa: F401  (declares the fields' spec slots)

    root = Path(__file__).resolve().parent.parent
    missing = []
    checked = 0
    for folder in ("uno_env", "agents", "training", "benchmarks", "tests", "examples"):
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            aliases = {
                alias.asname or alias.name
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom)
                for alias in node.names
                if alias.name == "layout" and (node.module or "").split(".")[-1] in ("engine", "")
            }
            for node in ast.walk(tree):
                name = node.value if isinstance(node, ast.Attribute) else None
                if isinstance(node, ast.Attribute) and isinstance(name, ast.Name) and name.id in aliases:
                    checked += 1
                    # the slot test above declares SP_RECIPE_CHECK and removes it
                    if not hasattr(L, node.attr) and node.attr != "SP_RECIPE_CHECK":
                        missing.append(f"{path.relative_to(root)}:{node.lineno}: L.{node.attr}")
    assert checked > 1000 and missing == []

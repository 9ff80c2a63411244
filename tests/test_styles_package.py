"""The styles package: one home per concept, parameter slots that do not alias, one rollout,
and the documented style table matching the registry.

- every parameter name has one slot and no two names share one (a style reading the wrong
  name's slot would silently read another style's value);
- style codes are ``0 .. NUM_POLICIES - 1``, each once, and a rollout style's stored value is
  its code;
- the Monte-Carlo sampler, the search and the search's spectator estimate all play on through
  :func:`uno_env.styles.rollout.rollout` (no other loop in the package plays a game on with a
  style);
- the style table of ``docs/agents.md`` is generated from the registry (``make styles-doc``,
  :mod:`uno_env.styles.doc`) and current; the search's parameter line lists its defaults; the
  home and development pages count its rows.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from uno_env.styles import doc
from uno_env.styles import params as P
from uno_env.styles.registry import NUM_POLICIES, STYLES, canonical_policy, parse_policy
from uno_env.styles.search import ROLLOUT_NET, ROLLOUT_STYLES

REPO_ROOT = Path(__file__).resolve().parent.parent
STYLES_DIR = REPO_ROOT / "uno_env" / "styles"


def _slot_constants() -> dict[str, int]:
    return {name: value for name, value in vars(P).items() if re.fullmatch(r"P_[A-Z_]+", name)}


def test_parameter_slots_do_not_alias() -> None:
    slots = _slot_constants()
    assert len(slots) >= 16
    assert len(set(slots.values())) == len(slots), f"two slot names share a number: {slots}"
    assert all(0 <= value < P.NUM_POLICY_PARAMS for value in slots.values())


def test_every_style_parameter_uses_its_names_one_slot() -> None:
    """Across every style, a parameter name has one slot and a slot one name; the slot is the
    ``P_<NAME>`` constant of :mod:`uno_env.styles.params`."""
    by_name: dict[str, set[int]] = {}
    by_slot: dict[int, set[str]] = {}
    for style in STYLES.values():
        names = [p.name for p in style.params]
        assert len(names) == len(set(names)), style.name
        for p in style.params:
            by_name.setdefault(p.name, set()).add(p.slot)
            by_slot.setdefault(p.slot, set()).add(p.name)
            assert p.slot == getattr(P, f"P_{p.name.upper()}"), (style.name, p.name)
    assert all(len(s) == 1 for s in by_name.values()), by_name
    assert all(len(s) == 1 for s in by_slot.values()), by_slot


def test_a_parameter_lands_in_its_own_slot_only() -> None:
    """Parsed text sets the named slot and leaves every other slot at -1 (the default)."""
    for style in STYLES.values():
        for p in style.params:
            if p.network or p.guided:  # the guided search's parameters need a network file
                continue
            _, values = parse_policy(f"{style.name}:{p.name}={p.decode(p.default if p.default >= 0 else 0)}")
            others = [i for i in range(P.NUM_POLICY_PARAMS) if i not in {q.slot for q in style.params}]
            assert all(values[i] == -1 for i in others), (style.name, p.name)


def test_style_codes_are_dense_and_rollout_values_are_codes() -> None:
    codes = sorted(style.code for style in STYLES.values())
    assert codes == list(range(NUM_POLICIES))
    for value, name in enumerate(ROLLOUT_STYLES):
        assert STYLES[name].code == value
    assert len(ROLLOUT_STYLES) == ROLLOUT_NET and ROLLOUT_NET not in {
        s.code for s in STYLES.values() if s.name in ROLLOUT_STYLES
    }


def _functions_playing_on(path: Path) -> list[str]:
    """Functions of a module with a loop that both asks the engine for legal actions and applies one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            for loop in (n for n in ast.walk(node) if isinstance(n, ast.While | ast.For)):
                calls = {
                    c.func.attr
                    for c in ast.walk(loop)
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                }
                if {"fill_mask", "apply_action"} <= calls:
                    found.append(node.name)
                    break
    return found


def test_one_rollout_in_the_styles_package() -> None:
    players = {path.name: _functions_playing_on(path) for path in sorted(STYLES_DIR.glob("*.py"))}
    assert {name: found for name, found in players.items() if found} == {"rollout.py": ["rollout"]}
    rollouts = [
        (path.name, node.name)
        for path in sorted(STYLES_DIR.glob("*.py"))
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef) and node.name == "rollout"
    ]
    assert rollouts == [("rollout.py", "rollout")]


def test_the_probe_finds_a_play_on_loop() -> None:
    assert _functions_playing_on(STYLES_DIR / "rollout.py") == ["rollout"]


# ------------------------------------------------------------------ the documented table
AGENTS_DOC = REPO_ROOT / "docs" / "agents.md"


def _table_rows(table: str) -> dict[str, list[str]]:
    """A markdown table's rows by the style name of their first cell."""
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.match(r"`(\w+)`", cells[0])
        if match:
            rows[match.group(1)] = cells
    return rows


def test_docs_agents_md_holds_the_current_style_table() -> None:
    """The page's style table is the registry's rendering (``make styles-doc`` rewrites it)."""
    text = AGENTS_DOC.read_text(encoding="utf-8")
    assert doc.render_page(text) == text, "docs/agents.md's style table is stale: run make styles-doc"


def test_the_style_table_lists_every_style_with_its_parameters() -> None:
    rows = _table_rows(doc.style_table())
    assert list(rows) == [name for name in STYLES if name not in doc.OWN_SECTION]
    assert rows["hoarder"][2] == "`doubt` (0.5), `threat` (2), `limit` (10)"
    assert rows["random_legal"][0] == "`random_legal` (also `random`)"
    for name, cells in rows.items():
        assert cells[2] == doc.parameters_text(STYLES[name]), name


def test_a_stale_style_table_is_seen() -> None:
    """The staleness check can fail: a changed default or a missing row differs."""
    text = AGENTS_DOC.read_text(encoding="utf-8")
    assert doc.render_page(text.replace("`threat` (2), `limit` (10)", "`threat` (3), `limit` (10)")) == text
    without_row = (
        "\n".join(line for line in text.splitlines() if not line.startswith("| `cautious` |")) + "\n"
    )
    assert doc.render_page(without_row) != without_row
    with pytest.raises(ValueError, match="no generated style table"):
        doc.render_page("# a page\n")


def test_the_measured_tables_name_only_registry_styles() -> None:
    """The round-robin tables (measured, not generated) may lag a new style, never name a
    style that does not exist."""
    text = AGENTS_DOC.read_text(encoding="utf-8")
    measured = text[text.index(doc.END) :]
    measured = measured[: measured.index("\n## ")]  # the section of the styles
    names = set(re.findall(r"^\| `(\w+)` \|", measured, flags=re.MULTILINE))
    assert {"greedy", "monte_carlo"} <= names
    assert names <= set(STYLES)


def test_the_documented_search_defaults_are_the_registry() -> None:
    text = re.sub(r"\s+", "", AGENTS_DOC.read_text(encoding="utf-8"))  # the line breaks of the text
    assert f"Parameters:`{canonical_policy('search')}`(thedefaults;" in text


NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")


@pytest.mark.parametrize(
    ("page", "pattern"), [("index.md", r"(\w+) \[play styles\]"), ("development.md", r"(\w+) play styles")]
)
def test_the_pages_count_the_styles_of_the_style_table(page: str, pattern: str) -> None:
    """The home page and the development status count the rows of the style table (they said
    nine, one fewer than the table lists: ``random_playable`` was left out)."""
    text = " ".join((REPO_ROOT / "docs" / page).read_text(encoding="utf-8").split())
    found = re.search(pattern, text)
    assert found, f"docs/{page} no longer counts the play styles"
    rows = len([name for name in STYLES if name not in doc.OWN_SECTION])
    assert rows < len(NUMBERS), f"{rows} styles: spell more numbers in NUMBERS"
    assert found[1].lower() == NUMBERS[rows], (page, found[1], rows)

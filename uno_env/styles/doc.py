"""The style table of ``docs/agents.md``, generated from the registry (``make styles-doc``).

The table lists every compiled style of :data:`~uno_env.styles.registry.STYLES` in registry
order (but the search agents, which have a section of their own): its name and older names,
its idea (:attr:`Style.idea`) and its parameters with their defaults. It is written between
two marker lines of the page, so the page's own text stays hand-written, and
``tests/test_styles_package.py`` checks that the page holds the current rendering. A style
added to a style module therefore changes no hand-written page: ``make styles-doc`` rewrites
the table. The measured strength of the styles stays in the page's round-robin tables, which
come from ``benchmarks/round_robin.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from .params import STYLE_ALIASES, Style
from .registry import STYLES

BEGIN = "<!-- the style table: generated from uno_env.styles.registry by `make styles-doc`; do not edit -->"
"""The line above the generated table."""
END = "<!-- end of the generated style table -->"
"""The line below the generated table."""
OWN_SECTION = ("search", "oracle")
"""Styles documented in a section of their own (their parameters do not fit a table cell)."""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def parameters_text(style: Style) -> str:
    """The parameters column: each parameter's name and its default, as users write it."""
    if not style.params:
        return "–"
    return ", ".join(f"`{p.name}` ({p.decode(p.default)})" for p in style.params)


def style_table() -> str:
    """The markdown table of the styles (without the marker lines)."""
    older: dict[str, list[str]] = {}
    for alias, name in STYLE_ALIASES.items():
        older.setdefault(name, []).append(alias)
    lines = ["| style | idea | parameters (default) |", "| --- | --- | --- |"]
    for name, style in STYLES.items():
        if name in OWN_SECTION:
            continue
        label = f"`{name}`"
        if name in older:
            label += " (also " + ", ".join(f"`{a}`" for a in older[name]) + ")"
        lines.append(f"| {label} | {_cell(style.idea)} | {parameters_text(style)} |")
    return "\n".join(lines) + "\n"


def render_page(text: str) -> str:
    """``text`` (a page holding the two marker lines) with the current table between them;
    ValueError when the page lacks them."""
    start = text.find(BEGIN + "\n")
    end = text.find(END, start + 1)
    if start < 0 or end < 0:
        raise ValueError(f"the page has no generated style table: it needs the lines {BEGIN!r} and {END!r}")
    return text[: start + len(BEGIN) + 1] + style_table() + text[end:]


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the style table of each page named (``python -m uno_env.styles.doc docs/agents.md``)."""
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print("usage: python -m uno_env.styles.doc PAGE.md ...", file=sys.stderr)
        return 2
    for name in paths:
        path = Path(name)
        old = path.read_text(encoding="utf-8")
        new = render_page(old)
        if new != old:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote the style table of {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

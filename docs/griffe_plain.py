"""Docstrings for the site: Sphinx markup read as Markdown.

The project's docstrings use a few Sphinx constructs (``:class:`~uno_env.Game``` roles,
``text::`` before an indented literal block, ``..`` directives) that Markdown does not know.
This griffe extension rewrites them when mkdocstrings loads the packages, so the API pages
show code spans and code blocks instead of raw markup; the sources stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|obj|exc|const):`(~?)([^`]+)`")
LITERAL_INTRO = re.compile(r"(?m)^(.*\S)\s*::$")
BARE_LITERAL = re.compile(r"(?m)^\s*::\s*$")


BORDER = re.compile(r"^ *=+(?: +=+)+ *$")
DOUBLE_BACKTICKS = re.compile(r"``([^`]+)``")


def _columns(border: str) -> list[tuple[int, int]]:
    """The character spans of a simple table's columns, read from its ``===  ===`` border."""
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _cells(line: str, columns: list[tuple[int, int]]) -> list[str]:
    """One row cut at the columns (the last column runs to the end of the line)."""
    starts = [start for start, _ in columns] + [len(line) + 1]
    return [line[starts[k] : starts[k + 1]].strip().replace("|", "\\|") for k in range(len(columns))]


def simple_tables(text: str) -> str:
    """reST simple tables (``====`` borders, an optional header between the first two) to
    Markdown pipe tables; a table without a header gets an empty one."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not BORDER.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        columns = _columns(lines[i])
        borders = [j for j in range(i + 1, len(lines)) if BORDER.match(lines[j])]
        if not borders:
            out.append(lines[i])
            i += 1
            continue
        header: list[str] = []
        first = borders[0]
        body_end = first
        if len(borders) > 1 and first - i == 2:  # border, header, border, rows, border
            header = _cells(lines[i + 1], columns)
            body_end = borders[1]
            start = first + 1
        else:
            start = i + 1
        if not header:
            header = [""] * len(columns)
        rows = [_cells(line, columns) for line in lines[start:body_end] if line.strip()]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "|".join(" --- " for _ in columns) + "|")
        out.extend("| " + " | ".join(row) + " |" for row in rows)
        i = body_end + 1
    return "\n".join(out)


def plain(text: str) -> str:
    """Sphinx roles to code spans, ``text::`` to ``text:``; a lone ``::`` line is dropped;
    simple tables become Markdown tables."""
    text = simple_tables(text)
    text = ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)
    text = BARE_LITERAL.sub("", text)
    return LITERAL_INTRO.sub(r"\1:", text)


class SphinxToMarkdown(griffe.Extension):
    """Rewrite every docstring of every loaded object with :func:`plain`."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)

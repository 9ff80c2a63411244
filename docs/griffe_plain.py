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


def plain(text: str) -> str:
    """Sphinx roles to code spans, ``text::`` to ``text:``; a lone ``::`` line is dropped."""
    text = ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)
    text = BARE_LITERAL.sub("", text)
    return LITERAL_INTRO.sub(r"\1:", text)


class SphinxToMarkdown(griffe.Extension):
    """Rewrite every docstring of every loaded object with :func:`plain`."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)

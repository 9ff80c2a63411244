"""The rule reference: every rule ID the project cites, what it means, where it comes from.

The entries live in ``rule_reference.toml`` next to this module (one ``[[rule]]`` per ID:
title, the rule in the project's words, its source documents, the :class:`~uno_env.RuleSet`
fields that configure it, the presets where it is in force, and the choices the sources
left open). :func:`explain` formats one entry for the terminal (``uno-env rules --explain
ID``); :func:`markdown` renders the whole reference as ``docs/rules.md``
(``python -m uno_env.game.reference docs/rules.md``, ``make rules-doc``).

Rule IDs look like ``U-WD4-2`` or ``MC-FOUR-1`` (a family prefix, a name, a number);
``MD-NOTE`` is the one ID without a number. :func:`cited_ids` finds the IDs a text cites,
expanding the short forms ``U-DRAW-1..4`` and ``U-START-1/2``.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import re
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ..engine.rules import PRESETS, RuleError, RuleSet, format_rule_value, rule_fields

RULE_ID = re.compile(r"\b(?:[A-Z]{1,2}-[A-Z0-9]+-[0-9]+|MD-NOTE)\b(?!\][+*?{])")
"""A rule ID anywhere in a text (not a regular expression's character range such as ``A-Z0-9]+``)."""

_RULE_ID_RANGE = re.compile(r"\b([A-Z]{1,2}-[A-Z0-9]+-)([0-9]+)(?:\.\.|/)([0-9]+)\b")


@dataclass(frozen=True)
class Source:
    """One of the source documents the rules come from."""

    key: str
    name: str
    about: str


@dataclass(frozen=True)
class Family:
    """A group of rules sharing an ID prefix (``U``, ``H``, ``M``, ``MM``, ``MD``, ``MC``, ``E``)."""

    prefix: str
    title: str
    about: str


@dataclass(frozen=True)
class RuleEntry:
    """One rule of the reference."""

    id: str
    title: str
    text: str
    sources: tuple[str, ...]
    fields: tuple[str, ...]
    presets: tuple[str, ...]
    open: str = ""

    @property
    def prefix(self) -> str:
        """The family prefix of the ID (``MC`` for ``MC-FOUR-1``)."""
        return self.id.split("-", 1)[0]


@dataclass(frozen=True)
class Reference:
    """The whole reference: sources, families and rules in catalogue order."""

    sources: dict[str, Source]
    families: tuple[Family, ...]
    rules: dict[str, RuleEntry]


def _paragraph(text: str) -> str:
    """A TOML text block as one paragraph (line breaks inside it are only layout)."""
    return " ".join(text.split())


@lru_cache(maxsize=1)
def reference() -> Reference:
    """The parsed rule reference (read once)."""
    raw = tomllib.loads(resources.files(__package__).joinpath("rule_reference.toml").read_text("utf-8"))
    sources = {
        key: Source(key, entry["name"], _paragraph(entry["about"])) for key, entry in raw["sources"].items()
    }
    families = tuple(Family(f["prefix"], f["title"], _paragraph(f["about"])) for f in raw["family"])
    rules: dict[str, RuleEntry] = {}
    for entry in raw["rule"]:
        rule = RuleEntry(
            id=entry["id"],
            title=entry["title"],
            text=_paragraph(entry["text"]),
            sources=tuple(entry["sources"]),
            fields=tuple(entry["fields"]),
            presets=tuple(entry["presets"]),
            open=_paragraph(entry.get("open", "")),
        )
        if rule.id in rules:
            raise RuleError(f"rule reference defines {rule.id} twice")
        rules[rule.id] = rule
    return Reference(sources, families, rules)


def rule_ids() -> list[str]:
    """Every rule ID of the reference, in reference order."""
    return list(reference().rules)


def find_rule(rule_id: str) -> RuleEntry:
    """The entry of ``rule_id`` (any letter case); an unknown ID lists the closest ones."""
    rules = reference().rules
    key = rule_id.strip().upper()
    if key in rules:
        return rules[key]
    close = difflib.get_close_matches(key, list(rules), n=6, cutoff=0.6)
    close += [r for r in rules if key and r.startswith(key) and r not in close]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    families = ", ".join(f"{f.prefix}-" for f in reference().families)
    raise RuleError(
        f"unknown rule ID {rule_id!r}{hint} (IDs start with {families}; `uno-env rules --explain all` "
        "lists them)"
    )


def cited_ids(text: str) -> set[str]:
    """The rule IDs ``text`` cites, with ``U-DRAW-1..4`` and ``U-START-1/2`` expanded."""
    found = set(RULE_ID.findall(text))
    for stem, first, last in _RULE_ID_RANGE.findall(text):
        found.update(f"{stem}{n}" for n in range(int(first), int(last) + 1))
    return found


# ---------------------------------------------------------------- a switch in words
_CHOICE_ITEM = re.compile(r"'([A-Za-z0-9_]+)':\s*")
_TRAILING_NOTE = re.compile(r"\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$")
_ONLY_IDS = re.compile(r"\s*\((?:[A-Z]{1,2}-[A-Z0-9]+-[0-9]+(?:,\s*)?)+\)")


@dataclass(frozen=True)
class SettingWords:
    """One rule switch at one value, in words: the rule's title from the rule reference and
    what the value does, from the field's documentation (:func:`setting_words`)."""

    field: str
    value: Any
    rule_id: str
    """The rule the value plays: the ID its option cites in the field's documentation, else
    the field's own rule."""
    title: str
    """The title of :attr:`rule_id` in the rule reference."""
    meaning: str
    """What the value does, in the words of the field's documentation."""

    @property
    def value_text(self) -> str:
        """The value as the rules string writes it: ``true``, ``until_playable``, ``D2/D2,WD4/WD4``."""
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        if isinstance(self.value, tuple | list):
            return ",".join(self.value)
        return str(self.value)

    @property
    def assignment(self) -> str:
        """``field=value``, as ``uno-env rules`` and ``--set`` write it."""
        return f"{self.field}={self.value_text}"

    @property
    def value_words(self) -> str:
        """The value for a reader: ``on``/``off`` for a switch, words for an option or a list."""
        if isinstance(self.value, bool):
            return "on" if self.value else "off"
        if isinstance(self.value, tuple | list):
            return ", ".join(self.value) if self.value else "none"
        if isinstance(self.value, str):
            return self.value.replace("_", " ") if self.value else "none"
        return str(self.value)

    own_rule: bool = False
    """Whether the value's option cites a rule of its own (``draw=until_playable``: U-DRAW-2)."""
    sole_field: bool = False
    """Whether the field is the only one of its rule (the title then names the switch)."""

    @property
    def name(self) -> str:
        """A short name: the rule's title and the value when the title names the switch (the
        field is its rule's only one, or the option cites a rule of its own: ``The 7 swaps
        hands: on``, ``Drawing until a card fits: until playable``), else what the value does
        (``a playable drawn card: must be played``)."""
        if self.own_rule or self.sole_field:
            return f"{self.title}: {self.value_words}"
        return self.meaning


def _choice_meanings(doc: str) -> tuple[str, dict[str, str]]:
    """The lead text and each option's text of a documentation in the form
    ``[lead: ]'option': what it does (IDs); 'option': ...``."""
    items = list(_CHOICE_ITEM.finditer(doc))
    if not items:
        return doc, {}
    lead = doc[: items[0].start()].strip().rstrip(":").strip()
    texts = {}
    for item, following in zip(items, [*items[1:], None], strict=True):
        end = following.start() if following is not None else len(doc)
        texts[item.group(1)] = doc[item.end() : end].strip().rstrip(";").strip()
    return lead, texts


PRESET_TITLES = {
    "uno": "Official Uno",
    "uno_house": "Uno with the house rules most tables play (stacking, Seven-O, jump-in)",
    "uno_mario": "Uno Super Mario (Super Star and customizable wild cards)",
    "mau_mau": "Mau-Mau",
    "mau_mau_doubling": "Mau-Mau with doubling sevens",
    "macao": "Romanian Macao",
}
"""Each preset named in words, for reports (the rule reference names the games by source)."""


def setting_words(field_name: str, value: Any) -> SettingWords:
    """The switch ``field_name`` at ``value`` in words, derived from the field's metadata and
    the rule reference (never kept by hand per field): its rule ID and title, and what the
    value does. An unknown field raises a :class:`~uno_env.RuleError` listing the fields."""
    info = _field_info()
    if field_name not in info:
        raise RuleError(f"unknown rule field {field_name!r}; fields: {', '.join(info)}")
    f = info[field_name]
    doc, rule_id = f["doc"], f["rule"]
    own_rule = False
    if f["choices"]:
        lead, texts = _choice_meanings(doc)
        text = texts.get(str(value))
        if text is None:
            raise RuleError(
                f"rule {field_name}: the documentation does not describe the option {value!r} "
                "(write each option as 'option': what it does)"
            )
        cited = RULE_ID.findall(text)
        own_rule = bool(cited) and cited[0] != rule_id
        rule_id = cited[0] if cited else rule_id
        text = _ONLY_IDS.sub("", text).strip()
        meaning = f"{lead}: {text}" if lead else text
    elif f["type"] == "boolean":
        meaning = f"{doc}: {'yes' if value else 'no'}"
    elif f["type"] == "list":
        values = ", ".join(value) if value else "none"
        meaning = f"{values}; {_TRAILING_NOTE.sub('', doc).strip()}"
    else:
        meaning = f"{doc}: {value if value != '' else 'none'}"
    rule = find_rule(rule_id)
    return SettingWords(
        field_name,
        value,
        rule_id,
        rule.title,
        meaning,
        own_rule=own_rule,
        sole_field=rule.fields == (field_name,),
    )


def switches_words(switches: Any) -> list[SettingWords]:
    """Several switches in words: a mapping or pairs of field and value, or a rules-string
    fragment such as ``"draw=until_playable seven_swap=true"`` (values as ``str(rules)``
    writes them)."""
    if isinstance(switches, str):
        items = dict(part.partition("=")[::2] for part in switches.split())
        unknown = sorted(set(items) - {f.name for f in dataclasses.fields(RuleSet)})
        if unknown:
            raise RuleError(f"unknown rule field(s) {', '.join(unknown)}")
        parsed = RuleSet.parse(" ".join(f"{k}={v}" for k, v in items.items()))  # the rest at defaults
        return [setting_words(k, getattr(parsed, k)) for k in items]
    pairs = switches.items() if hasattr(switches, "items") else switches
    return [setting_words(k, v) for k, v in pairs]


# ---------------------------------------------------------------- the terminal form
def _field_info() -> dict[str, dict[str, Any]]:
    return {f["name"]: f for f in rule_fields()}


def explain(rule_id: str, width: int = 88) -> str:
    """One rule for the terminal: its text, sources, fields (with their values in each
    preset) and the choices left open."""
    rule = find_rule(rule_id)
    ref = reference()
    family = next(f for f in ref.families if f.prefix == rule.prefix)

    def para(text: str, indent: str = "  ") -> str:
        return textwrap.fill(
            text, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )

    lines = [f"{rule.id}: {rule.title} ({family.title})", "", para(rule.text), ""]
    sources = "; ".join(ref.sources[s].name for s in rule.sources) or "none (an engine guarantee)"
    lines.append(f"sources: {sources}")
    lines.append(f"in force in: {', '.join(rule.presets) if rule.presets else 'no preset (an option)'}")
    if rule.fields:
        info = _field_info()
        lines += ["", "fields:"]
        for name in rule.fields:
            f = info[name]
            lines.append(f"  {name}: {f['allowed']}; default {f['default']}")
            lines.append(para(f["doc"], "    "))
        lines += ["", "values in the presets:"]
        for name in rule.fields:
            groups: dict[str, list[str]] = {}
            for preset_name, rules in PRESETS.items():
                groups.setdefault(format_rule_value(getattr(rules, name)), []).append(preset_name)
            if len(groups) == 1:
                text = f"{name} = {next(iter(groups))} in every preset"
            else:
                text = f"{name}: " + "; ".join(f"{', '.join(p)} {v}" for v, p in groups.items())
            lines.append(
                textwrap.fill(
                    text, width, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False
                )
            )
    if rule.open:
        lines += ["", "left open by the sources, and the choice made:", para(rule.open)]
    return "\n".join(lines)


def explain_index() -> str:
    """Every rule ID with its title, by family."""
    ref = reference()
    lines: list[str] = []
    for family in ref.families:
        lines.append(f"{family.title}:")
        for rule in ref.rules.values():
            if rule.prefix == family.prefix:
                lines.append(f"  {rule.id:<15} {rule.title}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the document
def _anchor(rule_id: str) -> str:
    return rule_id.lower()


def markdown() -> str:
    """The whole reference as Markdown (``docs/rules.md``)."""
    ref = reference()
    info = _field_info()
    out = [
        "# Rule reference",
        "",
        "<!-- generated from uno_env/game/rule_reference.toml by `make rules-doc`; edit that file -->",
        "",
        "Every rule the project plays has an ID (`U-WD4-2`, `MC-FOUR-1`, ...); code, tests and",
        "rule files cite these IDs. Each entry gives the rule as the engine plays it, the source",
        "documents it comes from, the `RuleSet` fields that configure it, the presets where it is",
        "in force, and, where the sources were silent, ambiguous or disagreed, the choice made.",
        "Where sources disagree, each reading is an option of the rule set and the preset takes",
        "one. `uno-env rules --explain ID` prints one entry with the field values of every preset;",
        "`uno-env rules --fields` lists every field with its type and allowed values.",
        "",
        "## Sources",
        "",
        "| source | what it is |",
        "| --- | --- |",
    ]
    out += [f"| {s.name} | {s.about} |" for s in ref.sources.values()]
    out += [
        "",
        "## Presets",
        "",
        "| preset | sources | deck | players | hand |",
        "| --- | --- | --- | --- | --- |",
    ]
    preset_sources = {
        "uno": "Uno and Mau-Mau, Uno wiki, Uno Super Mario (official parts)",
        "uno_house": "Uno and Mau-Mau, Uno wiki (optional rules)",
        "uno_mario": "Uno Super Mario",
        "mau_mau": "Uno and Mau-Mau (the Mau-Mau part)",
        "mau_mau_doubling": "Mau-Mau with doubling sevens",
        "macao": "Macao",
    }
    for name, rules in PRESETS.items():
        out.append(
            f"| `{name}` | {preset_sources[name]} | {_deck_text(rules)} | "
            f"{rules.min_players}–{rules.max_players} | {rules.hand_size} |"
        )
    out += ["", "## Contents", ""]
    for family in ref.families:
        ids = [r.id for r in ref.rules.values() if r.prefix == family.prefix]
        links = ", ".join(f"[{i}](#{_anchor(i)})" for i in ids)
        out.append(f"- **{family.title}**: {links}")
    for family in ref.families:
        out += ["", f"## {family.title}", "", family.about]
        for rule in ref.rules.values():
            if rule.prefix != family.prefix:
                continue
            out += ["", f'<a id="{_anchor(rule.id)}"></a>', "", f"### {rule.id}: {rule.title}"]
            out += ["", rule.text, ""]
            sources = ", ".join(ref.sources[s].name for s in rule.sources) or "none: an engine guarantee"
            out.append(f"- **Sources:** {sources}")
            if rule.fields:
                fields = ", ".join(f"`{name}` ({info[name]['allowed']})" for name in rule.fields)
                out.append(f"- **Fields:** {fields}")
            else:
                out.append("- **Fields:** none (always in force where it applies)")
            presets = ", ".join(f"`{p}`" for p in rule.presets) or "none (an option)"
            out.append(f"- **In force in:** {presets}")
            if rule.open:
                out.append(f"- **Left open:** {rule.open}")
    return "\n".join(out) + "\n"


def _deck_text(rules: RuleSet) -> str:
    if rules.deck == "uno":
        if not rules.super_stars + rules.custom_wilds:
            return "Uno 108"
        return f"Uno 108 + {rules.super_stars} Super Star + {rules.custom_wilds} customizable"
    copies = f"{rules.decks} × " if rules.decks > 1 else ""
    more = f", one more above {rules.extra_deck_above} players" if rules.extra_deck_above else ""
    return f"{copies}French 52{more}"


# ---------------------------------------------------------------- the switches page
SWITCHES_TEMPLATE = "docs/rule-switches.md.in"
"""The hand-written parts of ``docs/rule-switches.md`` (how a turn works, the open choices);
the table of switches is generated into it at the line ``<!-- switches -->``."""
SWITCHES_MARK = "<!-- switches -->"


def switches_table() -> str:
    """Every rule field with its rule ID, what it sets, its allowed values and default
    (``docs/rule-switches.md``, "Switches and presets"); computed from the field metadata.
    The presets' values follow in the page's own table, which names them in words."""
    out = [
        "| field | rule | what it sets | allowed (default) |",
        "| --- | --- | --- | --- |",
    ]
    for f in rule_fields():
        allowed = f["allowed"].replace("|", "/")
        out.append(
            f"| `{f['name']}` | {f['rule']} | {f['doc'].replace('|', '/')} | {allowed} ({f['default']}) |"
        )
    return "\n".join(out)


def switches_markdown(template: str) -> str:
    """``docs/rule-switches.md``: the template with the generated table of switches."""
    if template.count(SWITCHES_MARK) != 1:
        raise ValueError(f"the template must hold {SWITCHES_MARK} once")
    note = "<!-- generated by `make rules-doc` from docs/rule-switches.md.in and the RuleSet fields -->"
    page = template.replace(SWITCHES_MARK, switches_table())
    if page.startswith("---\n"):  # front matter (the site's page settings) stays first
        end = page.index("\n---\n", 4) + len("\n---\n")
        return page[:end] + "\n" + note + "\n" + page[end:]
    return note + "\n\n" + page


def main(argv: list[str] | None = None) -> int:
    """``python -m uno_env.game.reference [RULES_MD [TEMPLATE SWITCHES_MD]]`` (``make rules-doc``).

    Writes the rule reference to RULES_MD (to stdout without it) and, given a template and a page,
    the switches page; a template without the page to write is refused, not ignored.
    """

    parser = argparse.ArgumentParser(
        prog="python -m uno_env.game.reference",
        description="Regenerate docs/rules.md and docs/rule-switches.md.",
    )
    parser.add_argument("rules_md", nargs="?", help="where to write the rule reference (default: stdout)")
    parser.add_argument("template", nargs="?", help="the switches page's template (docs/rule-switches.md.in)")
    parser.add_argument("switches_md", nargs="?", help="where to write the switches page")
    args = parser.parse_args(argv)
    if args.template is not None and args.switches_md is None:
        parser.error(f"the template {args.template!r} needs the switches page to write after it")
    text = markdown()
    if args.rules_md is None:
        sys.stdout.write(text)
    else:
        with open(args.rules_md, "w", encoding="utf-8") as handle:
            handle.write(text)
    if args.template is not None:
        with open(args.template, encoding="utf-8") as handle:
            page = switches_markdown(handle.read())
        with open(args.switches_md, "w", encoding="utf-8") as handle:
            handle.write(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

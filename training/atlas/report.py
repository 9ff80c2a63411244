"""The atlas' files and report: ``atlas.csv`` (+ ``.parquet``), ``effects.csv``,
``calibration.csv``, ``agreement.csv``, the plots and ``report.md``.

:func:`assemble` (run at the end of ``uno-env atlas``, or by ``uno-env atlas --report DIR``)
reads the batch files (:func:`training.atlas.batches.load_batches`), computes the tables
(:mod:`training.atlas.stats`), draws the plots (:mod:`training.atlas.plots`) and writes the
Markdown report. The rules are named in words with the study's wording
(:func:`training.study.report.variation_words`: the rule's title and ID from the rule
reference, the field and what its value does).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from training.runner import write_frame
from training.study.report import variation_assignment, variation_name, variation_words
from training.study.stats import FDR
from uno_env.game.reference import PRESET_TITLES
from uno_env.sim.winprob import WinModel, model_key, save_models

from .batches import load_batches
from .planning import TRACED
from .plots import plot_atlas
from .spec import AA_COPY, COIN_FLIP, AtlasSpec, load_spec
from .stats import (
    AGREEMENT_COLUMNS,
    CALIBRATION_COLUMNS,
    EFFECT_COLUMNS,
    FAMILY,
    LEVEL_COLUMNS,
    MEASURE_BY_NAME,
    MEASURES,
    agreement_rows,
    calibration_rows,
    effect_rows,
    is_finding,
    level_rows,
    merge,
    reliability_table,
    reversals,
)

if TYPE_CHECKING:
    import pandas as pd

COMMAND = "uno-env atlas"


def assemble(out: Path) -> dict[str, pd.DataFrame]:
    """Write every table, the plots and ``report.md`` of a finished atlas folder; return the tables."""
    import pandas as pd

    spec, batches = load_batches(out)
    cells = merge(spec, batches)
    fits = {(b["variant"], int(b["players"]), b["kind"]): b for b in batches if b.get("stage") == "fit"}
    tables = {
        "atlas": pd.DataFrame(level_rows(spec, cells), columns=list(LEVEL_COLUMNS)),
        "effects": pd.DataFrame(effect_rows(spec, cells), columns=list(EFFECT_COLUMNS)),
        "calibration": pd.DataFrame(calibration_rows(spec, cells, fits), columns=list(CALIBRATION_COLUMNS)),
    }
    for frame in tables.values():  # the report reads what the files hold (six decimals)
        floats = frame.select_dtypes("float").columns
        frame[floats] = frame[floats].round(6)
    tables["agreement"] = pd.DataFrame(
        agreement_rows(spec, tables["effects"].to_dict("records")), columns=list(AGREEMENT_COLUMNS)
    )
    reliability = {
        (n, play): reliability_table(spec, cells, n, play)
        for n in spec.players
        for play in ("strong", "scripted")
    }
    write_frame(tables["atlas"], out / "atlas")
    for name in ("effects", "calibration", "agreement"):
        write_frame(tables[name], out / name, parquet=False)
    names = variant_names(spec)
    save_models(out / "winprob.json", cell_models(spec, batches))
    plot_atlas(spec, tables, reliability, names, out)
    (out / "report.md").write_text(report_text(spec, tables, reliability, names, out), encoding="utf-8")
    return tables


def cell_models(spec: AtlasSpec, batches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The fitted strong-play win-chance model of every cell whose variant is a rule set (the
    controls left out), as model-file entries (``uno-env serve --win-estimate calibrated:FILE``)."""
    rules = {v.id: v for v in spec.variants() if v.kind != "control"}
    out: dict[str, Any] = {}
    for batch in batches:
        if batch.get("stage") != "fit" or batch["kind"] != "strong" or batch["variant"] not in rules:
            continue
        variant = rules[batch["variant"]]
        out[model_key(variant.rules, int(batch["players"]))] = {
            "model": WinModel(tuple(float(w) for w in batch["weights"])).to_dict(),
            "fitted_on": (
                f"{batch['games']} games of {spec.strong} at every seat ({variant.id}), "
                f"atlas {spec.name!r} seed {spec.seed}"
            ),
        }
    return out


# ================================================================ names and numbers
def variant_names(spec: AtlasSpec) -> dict[str, tuple[str, str]]:
    """Each variant in words and its fields: ``("Jump-in: on", "jump_in=true")``."""
    words = variation_words(spec)  # type: ignore[arg-type]
    out: dict[str, tuple[str, str]] = {}
    for variant in spec.variants():
        if variant.kind == "preset":
            out[variant.id] = (PRESET_TITLES.get(variant.id, variant.id), f"preset {variant.id}")
        elif variant.kind == "switch":
            w = words[variant.variation]
            out[variant.id] = (variation_name(w), variation_assignment(w))
        elif variant.kind == "pair":
            a, b = variant.variation.split("+")
            w = [*words[a], *words[b]]
            out[variant.id] = (variation_name(w), variation_assignment(w))
        elif variant.id == COIN_FLIP:
            out[variant.id] = ("Coin-flip control: the winner is drawn from the deal", "control")
        elif variant.id == AA_COPY:
            out[variant.id] = (
                f"A/A copy: {PRESET_TITLES.get(spec.base, spec.base)} on other deals",
                "control",
            )
    return out


def rule_ids(spec: AtlasSpec, variant_id: str) -> str:
    """The rule IDs a switch or pair variant plays (``H-STACK-1``), or ``""``."""
    words = variation_words(spec)  # type: ignore[arg-type]
    for variant in spec.variants():
        if variant.id == variant_id and variant.kind in ("switch", "pair"):
            labels = variant.variation.split("+")
            return ", ".join(dict.fromkeys(w.rule_id for label in labels for w in words[label]))
    return ""


def fmt_value(measure: str, value: float) -> str:
    """A level as the report writes it: rates and shares in percent, the rest as numbers."""
    if not math.isfinite(value):
        return "n/a"
    m = MEASURE_BY_NAME.get(measure)
    if (m is not None and m.rate) or measure.startswith(("seat_", "field:", "baseline:")):
        return f"{value * 100:.1f}%"
    return f"{value:.2f}" if m is not None and m.name in ("luck", "lead_changes") else f"{value:.1f}"


def fmt_level(row: Mapping[str, Any]) -> str:
    """``52.3% [50.1, 54.4]``."""
    m = MEASURE_BY_NAME.get(row["measure"])
    scale = (
        100
        if (m is not None and m.rate) or str(row["measure"]).startswith(("seat_", "field:", "baseline:"))
        else 1
    )
    digits = 2 if m is not None and m.name in ("luck", "lead_changes") else 1
    lo, hi = row["lo"] * scale, row["hi"] * scale
    return f"{fmt_value(row['measure'], row['value'])} [{lo:.{digits}f}, {hi:.{digits}f}]"


def fmt_change(effect: Mapping[str, Any], interval: bool = True) -> str:
    """A change with its false-coverage interval: ``+3.1 pp [+1.2, +5.0]``."""
    m = MEASURE_BY_NAME[effect["measure"]]
    scale, unit = (100, " pp") if m.rate else (1, "" if m.unit in ("per game",) else f" {m.unit}")
    digits = 2 if m.name in ("lead_changes",) else 1
    text = f"{effect['change'] * scale:+.{digits}f}{unit}"
    if interval:
        text += f" [{effect['lo'] * scale:+.{digits}f}, {effect['hi'] * scale:+.{digits}f}]"
    return text


# ================================================================ the answer in words
QUESTIONS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "Which rules reward skill",
        (
            (
                "skill_vs_baseline",
                "the strong player wins more against `{baseline}` players",
                "the strong player wins less against `{baseline}` players",
            ),
            (
                "skill_vs_field",
                "the strong player wins more against the scripted field",
                "the strong player wins less against the scripted field",
            ),
            ("deal_share", "the cards decide more of the outcome", "the cards decide less of the outcome"),
        ),
    ),
    (
        "Which make games longer",
        (
            ("turns_mean", "games are longer", "games are shorter"),
            ("turns_sd", "the length varies more", "the length varies less"),
        ),
    ),
    (
        "Which make games closer",
        (
            ("decided_at", "the winner is settled later", "the winner is settled earlier"),
            ("lead_changes", "the lead changes hands more often", "the lead changes hands less often"),
        ),
    ),
    (
        "Which make games more dramatic",
        (
            (
                "drama",
                "the eventual winner trails by more along the way",
                "the eventual winner trails by less along the way",
            ),
            (
                "winner_low",
                "comebacks are shallower (the winner's lowest chance is higher)",
                "comebacks are deeper (the winner's lowest chance is lower)",
            ),
        ),
    ),
    (
        "What the hidden cards are worth, and who gains from moving first",
        (
            ("hidden_info", "seeing every hand is worth more", "seeing every hand is worth less"),
            ("first_mover", "the first mover wins more", "the first mover wins less"),
        ),
    ),
)
"""The report's questions: per question, the strong-play measures that answer it, with the
words for a rise and a fall."""


def answer_lines(
    spec: AtlasSpec, effects: Sequence[Mapping[str, Any]], names: Mapping[str, tuple[str, str]]
) -> list[str]:
    """The plain-language answer: per question, each rule with a finding under strong play
    (detected by Benjamini-Hochberg over the whole family and replicated on fresh deals), the
    direction in words with the change and its false-coverage interval, largest first."""
    found = [
        e
        for e in effects
        if e["play"] == "strong" and is_finding(e, spec.replicate) and e["kind"] != "control"
    ]
    level = effects[0]["level"] if effects else 1 - FDR
    kind = "detected and replicated on fresh deals" if spec.replicate else "detected"
    lines = [
        "## The answer",
        "",
        f"Under strong play (`{spec.strong}` at every seat, or alone against the others), the rules "
        "compared with "
        f"{PRESET_TITLES.get(spec.base, spec.base)} (`{spec.base}`). Only findings are listed: changes "
        f"{kind} "
        f"(Benjamini-Hochberg at a {FDR:.0%} false discovery rate over all {len(effects)} effects of the "
        "atlas); in "
        f"brackets the false-coverage-rate interval (level {level:.2%}). Rates in percentage points (pp).",
        "",
    ]
    for title, measures in QUESTIONS:
        items = []
        for name, up, down in measures:
            mine = sorted((e for e in found if e["measure"] == name), key=lambda e: -abs(e["change"]))
            for e in mine:
                words, fields = names.get(e["variant"], (e["variant"], ""))
                ids = rule_ids(spec, e["variant"])
                where = f"{ids}, `{fields}`" if ids else f"`{fields}`"
                direction = (up if e["change"] > 0 else down).replace("{baseline}", spec.baseline)
                items.append(f"- {words} ({where}), {e['players']} players: {direction}, {fmt_change(e)}.")
        lines += [f"**{title}?**", ""]
        lines += items or ["- No rule changes this detectably under strong play."]
        lines.append("")
    return lines


# ================================================================ the report
def report_text(
    spec: AtlasSpec,
    tables: Mapping[str, pd.DataFrame],
    reliability: Mapping[tuple[int, str], Any],
    names: Mapping[str, tuple[str, str]],
    out: Path,
) -> str:
    """The Markdown report (see :mod:`training.atlas` for its sections)."""
    levels = tables["atlas"]
    effects = tables["effects"].to_dict("records")
    calibration = tables["calibration"]
    agreement = tables["agreement"]
    detected = [e for e in effects if e["detected"]]
    replicated = [e for e in detected if e["replicated"] == "yes"]
    lines = [f"# Balance atlas `{spec.name}`", ""]
    lines += answer_lines(spec, effects, names)
    lines += control_lines(spec, levels, effects)
    lines += ["## Each rule set under strong play", ""]
    lines += level_tables(spec, levels, "strong", names)
    lines += ["## The same rule sets under scripted play", ""]
    lines += level_tables(spec, levels, "scripted", names)
    lines += ladder_lines(spec, levels, names)
    lines += agreement_lines(spec, agreement, effects, names)
    lines += calibration_lines(spec, calibration, reliability)
    lines += [
        "## Design",
        "",
        f"Seed {spec.seed}; players {', '.join(map(str, spec.players))}; {len(spec.cells())} cells (a "
        "variant at a "
        "player count it allows); deal sets: "
        f"{'the primary deals and a replication on fresh deals' if spec.replicate else 'one'}. "
        "Deals per deal set and cell: "
        + ", ".join(f"{k} {spec.deal_count(k):,}" for k in ("baseline", "field", "strong", "scripted"))
        + f"; each win-chance model is fitted on {spec.deal_count('fit'):,} games of strong play (and "
        f"{3 * spec.deal_count('fit'):,} of scripted play) on deals of their own.",
        "",
        "Players and budgets per measure:",
        "",
        f"- the strong player `{spec.strong}`: skill depth (alone against `{spec.baseline}` players, and "
        "alone "
        "against the field), the table of equals (it at every seat: first mover, seats, length, win-chance "
        "trajectories);",
        f"- the oracle `{spec.oracle}` (the same search with every hand in view; it cheats): alone against "
        "the field, "
        "for the value of the hidden cards (its win rate minus the strong player's, on the same deals)"
        if spec.oracle
        else '- no oracle (oracle = "")',
        f"- the field: {', '.join(f'`{a}`' for a in spec.field)}; the scripted table seats a rotation of "
        "them "
        f"(deal d: rotation d mod {len(spec.field)}); "
        + (
            f"a rung alone against the field meets one rotation a deal (the deal set in {len(spec.field)} "
            "equal runs of consecutive deals, one per rotation), in every seat;"
            if spec.field_rotations == "one"
            else "a rung alone against the field meets every rotation on every deal, in every seat;"
        ),
        f"- the baseline `{spec.baseline}` (the literature's random player); below it "
        + (", ".join(f"`{a}`" for a in spec.ladder) or "nothing")
        + "; learned players: "
        + (
            "every shipped exported policy trained on the cell's rules and player count"
            if spec.learned == "auto"
            else f"`{spec.learned}`"
            if spec.learned
            else "none"
        )
        + (f", and the sweep `{spec.sweep}`'s player where it trained one" if spec.sweep else "")
        + ".",
        "",
        "## Method",
        "",
        "The deal is the unit: every deal is replayed at many tables and in every variant, so its games "
        "are not "
        "independent. Each measure is a smooth function of per-deal totals; its level pools both deal sets "
        "and its change against the base is paired by deal, both with delete-one-deal jackknife errors "
        "(Student-t on deals - 1 degrees of freedom; win rates get the Wilson interval at the effective "
        "sample "
        "size). The *deal share* splits the duplicate outcomes of each focal player alone against "
        f"`{spec.baseline}` players (every seat, same deals) by an analysis of variance into the cards "
        "(each deal and seat: what those cards win, whoever holds them), the players and the rest, with the "
        "cards' component estimated by the method of moments (so chance in the play does not count as "
        "cards); "
        "Jaffe's luck (the baseline players' win rate at those tables over the fair share) is given beside "
        "it. "
        "The win chances along a game come from a conditional logit on each seat's cards and place in the "
        "turn order, fitted per cell and kind of play on games of their own and applied to the measured "
        "games "
        "(held out); a change against the base reads both cells' games with the base rules' model, one "
        "yardstick on both sides, so it holds no difference between two fitted models; *decided at* is "
        "the share of the game's decisions made before the eventual winner's "
        "chance "
        f"stays at or above {90}%, *drama* the mean gap between the leader's chance and the eventual "
        "winner's.",
        "",
        f"Error control: Benjamini-Hochberg at {FDR:.0%} over the {len(effects)} effects (every change of "
        f"{', '.join(sorted({m for m, _ in FAMILY}))} against the base, per play, variant and player "
        "count, the "
        f"A/A copy included). **{len(detected)} detected**, **{len(replicated)} replicated** on the fresh "
        "deals "
        "(same sign, detected again by Benjamini-Hochberg over the detected effects). Only replicated "
        "effects are "
        "findings.",
        "",
        "## Files and figures",
        "",
        "Every figure comes from the command that made this folder (`spec.toml` holds its spec): "
        f"`{COMMAND} THIS_FOLDER/spec.toml --out DIR` plays it again and writes the same tables (the same "
        f"seeds, on any machine and any number of processes); `{COMMAND} --report THIS_FOLDER` writes this "
        "report again from the batch files.",
        "",
        "- `atlas.csv`: every level with its 95% interval; `effects.csv`: the family with detection and "
        "replication; "
        "`calibration.csv`: the win-chance models' held-out Brier scores; `agreement.csv`: strong against "
        "scripted play; "
        "`winprob.json`: each cell's fitted strong-play model (`uno-env serve --win-estimate "
        "calibrated:FILE`).",
        "- `heatmap.png`: variants x measures (the changes against the base); `ladder.png`: each rung's "
        "win rate "
        "against the field; `reliability.png`: the win-chance models' reliability curves; "
        "`strong_vs_scripted.png`: "
        "each rule's effect under both plays.",
        "",
    ]
    return "\n".join(lines)


def _level(levels: pd.DataFrame, variant: str, n: int, play: str, measure: str) -> Mapping[str, Any] | None:
    rows = levels[
        (levels["variant"] == variant)
        & (levels["players"] == n)
        & (levels["play"] == play)
        & (levels["measure"] == measure)
    ]
    return None if rows.empty else rows.iloc[0].to_dict()


def control_lines(spec: AtlasSpec, levels: pd.DataFrame, effects: Sequence[Mapping[str, Any]]) -> list[str]:
    """The controls: the coin flip's skill depth and deal share, the A/A copy's detections, and
    known directions with their intervals."""
    lines = ["## Controls", ""]
    if not spec.controls:
        return [*lines, "Controls are off in this spec (`controls = false`).", ""]
    for n in spec.players:
        skill = _level(levels, COIN_FLIP, n, "strong", "skill_vs_baseline")
        share = _level(levels, COIN_FLIP, n, "strong", "deal_share")
        if skill is None or share is None:
            continue
        lines.append(
            f"- **Coin flip, {n} players** (the winner drawn from the deal, whatever is played): the "
            "strong player "
            f"wins {fmt_level(skill)} against `{spec.baseline}` players (fair share {1 / n:.1%}); the deal "
            "decides "
            f"{fmt_level(share)} of the outcome."
        )
    aa = [e for e in effects if e["variant"] == AA_COPY]
    if aa:
        hits = [e for e in aa if e["detected"]]
        found = [e for e in hits if is_finding(e, spec.replicate)]
        lines.append(
            f"- **A/A copy** ({PRESET_TITLES.get(spec.base, spec.base)} on other deals): {len(hits)} of "
            f"its {len(aa)} "
            f"effects detected, {len(found)} of them replicated"
            + (
                ": "
                + "; ".join(
                    f"{e['measure']} ({e['play']}, {e['players']} players) {fmt_change(e)}" for e in hits
                )
                if hits
                else "."
            )
        )
    for variant, measure, play, sign, why in KNOWN_DIRECTIONS:
        for e in effects:
            if e["variant"].endswith(f"+{variant}") and e["measure"] == measure and e["play"] == play:
                verdict = (
                    "confirmed"
                    if is_finding(e, spec.replicate) and (e["change"] > 0) == (sign > 0)
                    else "not confirmed"
                )
                lines.append(
                    f"- **Known direction** ({why}), {e['players']} players, {e['play']} play: "
                    f"{fmt_change(e)}{_fresh(e)}: {verdict}."
                )
    return [*lines, ""]


def _fresh(effect: Mapping[str, Any]) -> str:
    """The same change on the fresh deals with its 95% interval (empty without replication)."""
    if not math.isfinite(float(effect.get("rep_change", math.nan))):
        return ""
    again = {**effect, "change": effect["rep_change"], "lo": effect["rep_lo"], "hi": effect["rep_hi"]}
    return f", fresh deals {fmt_change(again)}"


KNOWN_DIRECTIONS: tuple[tuple[str, str, str, int, str], ...] = (
    (
        "zero_reveals",
        "hidden_info",
        "strong",
        -1,
        "the oracle's edge shrinks when a played 0 shows every hand",
    ),
    ("multi_identical", "turns_mean", "strong", -1, "laying identical cards together shortens games"),
    ("multi_identical", "turns_mean", "scripted", -1, "laying identical cards together shortens games"),
    ("hand_size_10", "turns_mean", "strong", 1, "ten cards dealt instead of seven lengthen games"),
    ("hand_size_10", "turns_mean", "scripted", 1, "ten cards dealt instead of seven lengthen games"),
)
"""Directions the rules imply (variation label, measure, play, expected sign, why): the report
says whether the atlas confirms each (a finding in that direction)."""


def level_tables(
    spec: AtlasSpec, levels: pd.DataFrame, play: str, names: Mapping[str, tuple[str, str]]
) -> list[str]:
    """One table per player count: every variant's levels of the play's measures."""
    measures = [m for m in MEASURES if play in m.plays and m.name not in ("player_share",)]
    lines = []
    for n in spec.players:
        lines += [
            f"{n} players ({'`' + spec.strong + '`' if play == 'strong' else 'the scripted field'}):",
            "",
        ]
        head = ["rule set", *[m.name for m in measures], "turns p90"]
        lines += ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
        for variant, count in spec.cells():
            if count != n:
                continue
            cells = []
            for m in measures:
                row = _level(levels, variant.id, n, play, m.name)
                cells.append(fmt_level(row) if row else "")
            p90 = _level(levels, variant.id, n, play, "turns_p90")
            cells.append(f"{p90['value']:.0f} [{p90['lo']:.0f}, {p90['hi']:.0f}]" if p90 else "")
            lines.append(f"| {names[variant.id][0]} (`{names[variant.id][1]}`) | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "Measures: "
        + "; ".join(f"*{m.name}*: {m.text}" for m in measures)
        + "; *turns p90*: the 90th percentile of "
        "the length (distribution-free interval).",
        "",
    ]
    return lines


def ladder_lines(spec: AtlasSpec, levels: pd.DataFrame, names: Mapping[str, tuple[str, str]]) -> list[str]:
    """The skill ladder of the base rules: each rung's win rate against the field and the baseline."""
    lines = ["## The skill ladder", ""]
    for n in spec.players:
        part = levels[
            (levels["variant"] == spec.base) & (levels["players"] == n) & (levels["play"] == "ladder")
        ]
        if part.empty:
            continue
        lines += [
            f"{names[spec.base][0]}, {n} players (fair share {1 / n:.1%}):",
            "",
            "| player | role | against the field | against the baseline |",
            "| --- | --- | ---: | ---: |",
        ]
        rungs = list(dict.fromkeys(m.split(":", 1)[1] for m in part["measure"]))
        for agent in rungs:
            field = _level(levels, spec.base, n, "ladder", f"field:{agent}")
            base = _level(levels, spec.base, n, "ladder", f"baseline:{agent}")
            role = (field or base or {}).get("unit", "")
            lines.append(
                f"| `{agent}` | {role} | {fmt_level(field) if field else ''} | "
                f"{fmt_level(base) if base else ('(the baseline)' if agent == spec.baseline else '')} |"
            )
        lines.append("")
    return [*lines, "Every variant's ladder is in `atlas.csv` (play `ladder`) and `ladder.png`.", ""]


def agreement_lines(
    spec: AtlasSpec,
    agreement: pd.DataFrame,
    effects: Sequence[Mapping[str, Any]],
    names: Mapping[str, tuple[str, str]],
) -> list[str]:
    """Strong against scripted play: the rank correlations and every replicated reversal."""
    lines = [
        "## Strong against scripted play",
        "",
        "Spearman's rank correlation, over the rule variants, of each measure's change against the base "
        "under "
        "scripted play (the field) and under strong play (95% interval, Fisher z). Near 1: the rules move "
        "the "
        "measure the same way whoever plays; near 0 or below: strong play reorders them.",
        "",
        "| measure | players | variants | rank correlation [95%] |",
        "| --- | ---: | ---: | ---: |",
    ]
    for row in agreement.to_dict("records"):
        players = "all" if int(row["players"]) == 0 else str(int(row["players"]))
        rho = "n/a" if not math.isfinite(row["rho"]) else f"{row['rho']:+.2f}"
        interval = "" if not math.isfinite(row["lo"]) else f" [{row['lo']:+.2f}, {row['hi']:+.2f}]"
        lines.append(f"| {row['measure']} | {players} | {int(row['pairs'])} | {rho}{interval} |")
    found = reversals(spec, effects)
    lines += ["", "Reversals (a finding under both plays, opposite signs):", ""]
    if not found:
        lines.append(
            "- none: no rule's replicated effect under scripted play turns around under strong play."
        )
    for scripted, strong in found:
        lines.append(
            f"- {names[scripted['variant']][0]} (`{names[scripted['variant']][1]}`), {scripted['players']} "
            "players, "
            f"{scripted['measure']}: scripted {fmt_change(scripted)}, strong {fmt_change(strong)}."
        )
    return [*lines, ""]


def calibration_lines(
    spec: AtlasSpec, calibration: pd.DataFrame, reliability: Mapping[tuple[int, str], Any]
) -> list[str]:
    """The win-chance estimate's calibration on held-out games: Brier scores and reliability."""
    lines = [
        "## The win-chance estimate",
        "",
        "Brier score per decision (sum over the seats of (chance - won)^2; 0 is perfect, the fair-share "
        "guess "
        "scores 1 - 1/n) on the measured games, which the model never saw, with intervals grouped by game; "
        "the "
        "search's hand model (hand sizes, wild cards, the mover) is the reference. Skill: 1 - model / hand "
        "model.",
        "",
        "| play | players | cells | positions | Brier, model (median cell) | hand model | fair share | "
        "skill over the hand model, range over cells |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for play in ("strong", "scripted"):
        for n in spec.players:
            part = calibration[
                (calibration["play"] == play)
                & (calibration["players"] == n)
                & (calibration["variant"] != COIN_FLIP)
            ]
            if part.empty:
                continue
            lines.append(
                f"| {play} | {n} | {len(part)} | {int(part['positions'].sum()):,} | "
                f"{part['brier'].median():.4f} | "
                f"{part['brier_hand'].median():.4f} | {part['brier_fair'].median():.4f} | "
                f"{part['skill_score'].min():+.3f} to {part['skill_score'].max():+.3f} |"
            )
    lines += [
        "",
        "Reliability (every seat of every decision of every cell, pooled; predicted against observed):",
        "",
    ]
    for (n, play), table in reliability.items():
        rows = [(int(c), s / c, w / c) for c, s, w in table if c > 0]
        if rows:
            lines.append(
                f"- {play}, {n} players: "
                + ", ".join(f"{p:.2f}->{o:.2f}" for _, p, o in rows)
                + f" ({sum(c for c, _, _ in rows):,} predictions)"
            )
    return [*lines, "", "Per cell: `calibration.csv`; curves: `reliability.png`.", ""]


def published_traced(spec: AtlasSpec) -> tuple[str, ...]:
    """The traced kinds (for documentation)."""
    return TRACED


__all__ = ["answer_lines", "assemble", "report_text", "variant_names"]


def load(out: Path) -> AtlasSpec:
    """The spec of an atlas folder."""
    return load_spec(out / "spec.toml")

"""The house-rules study's files and report: ``results.csv`` (+ ``.parquet``), ``effects.csv``,
the plots and ``report.md``.

:func:`assemble` (run at the end of ``uno-env study``) reads ``batches/*.json`` through
:func:`training.study.batches.load_batches`, computes the tables (:mod:`training.study.stats`),
draws the plots (:mod:`training.study.plots`) and writes the Markdown report.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.spec import parse_agent
from training import transfer as transfer_matrix  # the module: the transfer matrix reads the study's spec
from training.runner import write_frame
from uno_env.game.reference import SettingWords, setting_words
from uno_env.styles.registry import POLICY_DOCS

from .batches import load_batches
from .load import load_spec
from .planning import deals_per_seating, first_deal, kind_seatings, seatings
from .plots import plot_study, style_label
from .spec import LEARNED, StudySpec, is_checkpoint
from .stats import COLUMNS, EFFECT_COLUMNS, FDR, MEASURES, PERCENT_MEASURES, cell_rows, effect_rows

if TYPE_CHECKING:
    import pandas as pd


def results_frame(out: Path) -> pd.DataFrame:
    """The tidy results of a finished study folder as a pandas DataFrame."""
    import pandas as pd

    batches = load_batches(out)  # every planned batch, of this design (SpecError otherwise)
    spec = load_spec(out / "spec.toml")
    return pd.DataFrame(cell_rows(spec, batches), columns=list(COLUMNS))


def assemble(out: Path) -> pd.DataFrame:
    """Write ``results.csv`` (and ``.parquet``), ``effects.csv``, the plots and ``report.md``;
    return the results table."""
    import pandas as pd

    frame = results_frame(out)
    spec = load_spec(out / "spec.toml")
    effects = pd.DataFrame(effect_rows(spec, frame.to_dict("records")), columns=list(EFFECT_COLUMNS))
    # the report and plots read the numbers effects.csv holds (six decimals), so a reader of the
    # file, and a report regenerated from it, sees exactly what the report says
    floats = effects.select_dtypes("float").columns
    effects[floats] = effects[floats].round(6)
    write_frame(frame, out / "results")
    write_frame(effects, out / "effects", parquet=False)
    plot_study(frame, effects, out, variation_labels(spec))
    (out / "report.md").write_text(report_text(spec, frame, effects), encoding="utf-8")
    return frame


# ================================================================ the report
def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _fmt_change(effect: Mapping[str, Any]) -> str:
    """A change with its FCR interval (detected) or what the interval still allows."""
    scale = 100 if effect["measure"] in PERCENT_MEASURES else 1
    change, lo, hi = effect["change"] * scale, effect["lo"] * scale, effect["hi"] * scale
    if effect["detected"]:
        text = f"**{change:+.1f}** [{lo:+.1f}, {hi:+.1f}]"
        if effect["replicated"] == "yes":
            text += " R"
        elif effect["replicated"] == "no":
            text += " (not replicated)"
        return text
    if lo == hi == 0:
        return "0 (identical)"
    return f"{change:+.1f} (within ±{max(abs(lo), abs(hi)):.1f})"


def variation_words(spec: StudySpec) -> dict[str, list[SettingWords]]:
    """Each variation's switches in words (rule title, ID, what the value does), from the rule
    reference and the field metadata (:func:`uno_env.game.reference.setting_words`)."""
    return {label: [setting_words(k, v) for k, v in switches] for label, switches in spec.variations}


def variation_name(words: list[SettingWords]) -> str:
    """A variation named in words: its switches' short names joined by `` + ``."""
    return " + ".join(w.name[:1].upper() + w.name[1:] for w in words)


def variation_assignment(words: list[SettingWords]) -> str:
    """A variation as ``field=value`` pairs (``stacking=D2/D2,WD4/WD4 seven_swap=true``)."""
    return " ".join(w.assignment for w in words)


def variation_labels(spec: StudySpec) -> dict[str, tuple[str, str]]:
    """Each variation's name in words and its fields, for tables and plots:
    ``("Jump-in: on", "jump_in=true")``."""
    return {
        label: (variation_name(words), variation_assignment(words))
        for label, words in variation_words(spec).items()
    }


def _cells(spec: StudySpec) -> dict[str, str]:
    """Each variation as a Markdown table cell: the words, the fields beside in code type."""
    return {label: f"{name} (`{fields}`)" for label, (name, fields) in variation_labels(spec).items()}


def _signed(value: float) -> str:
    return f"{value:+.1f}"


def _interval(e: Mapping[str, Any], scale: float) -> str:
    return f"[{_signed(e['lo'] * scale)}, {_signed(e['hi'] * scale)}]"


def _style_changes(found: list[dict[str, Any]]) -> str:
    """``hoarder gains 19.4 pp [+17.1, +21.7], cautious 7.4 [+5.7, +9.2]; bluffer loses 5.8
    [-6.5, -5.0], ...``: the gains first, then the losses, each largest first; the interval is
    of the change."""
    gains = sorted((e for e in found if e["change"] > 0), key=lambda e: -e["change"])
    losses = sorted((e for e in found if e["change"] < 0), key=lambda e: e["change"])
    parts = []
    for group, verb in ((gains, "gains"), (losses, "loses")):
        items = [
            f"`{style_label(e['style'])}` {verb + ' ' if k == 0 else ''}{abs(e['change']) * 100:.1f}"
            f"{' pp' if k == 0 else ''} {_interval(e, 100)}"
            for k, e in enumerate(group)
        ]
        if items:
            parts.append(", ".join(items))
    return "; ".join(parts)


def _count_sentences(found: list[dict[str, Any]], spec: StudySpec) -> list[str]:
    """The sentences of one variation at one player count: win rates against the field and
    against the reference, game length, the first mover."""
    by = {m: [e for e in found if e["measure"] == m] for m in MEASURES}
    sentences = []
    if by["win_rate"]:
        sentences.append("against the field, " + _style_changes(by["win_rate"]))
    if by["vs_reference"]:
        sentences.append(f"alone against `{spec.reference}` players, " + _style_changes(by["vs_reference"]))
    length = []
    for e in by["turns"] + by["decisions"]:
        unit = "turns" if e["measure"] == "turns" else "decisions"
        direction = "longer" if e["change"] > 0 else "shorter"
        length.append(f"{abs(e['change']):.1f} {unit} {direction} {_interval(e, 1)}")
    if length:
        sentences.append("games are " + " and ".join(length))
    for e in by["first_mover"]:
        direction = "gains" if e["change"] > 0 else "loses"
        sentences.append(f"the first mover {direction} {abs(e['change']) * 100:.1f} pp {_interval(e, 100)}")
    return sentences


def answer_lines(spec: StudySpec, effects: list[dict[str, Any]]) -> list[str]:
    """The report's opening: the answer in plain language, one short paragraph per rule
    variation with a finding (a detected effect that replicated on fresh deals, or a detected
    one when the study does not replicate), largest change first: the switch in words with its
    rule ID and field, then per player count which styles gain or lose and by how much, with
    the interval, and what happens to the game length and the first mover."""
    replicating = bool(spec.replicate)
    findings = [e for e in effects if e["detected"] and (e["replicated"] == "yes" or not replicating)]
    words = variation_words(spec)
    level = effects[0]["level"] if effects else 1 - FDR
    kind = "a detected effect that replicated on fresh deals" if replicating else "a detected effect"
    reference = (
        f"; *alone against `{spec.reference}` players*: the same change with the style alone at a table of "
        f"`{spec.reference}` players, apart from the other styles"
        if spec.reference
        else ""
    )
    intro = (
        f"One paragraph per rule switch with a finding ({kind}; Benjamini-Hochberg, false discovery rate "
        f"{FDR:.0%}, over all {len(effects)} effects), largest first. *Against the field*: the win rate "
        "against all the study's styles, every style in every seat equally often, so one style's gain is "
        f"the others' loss{reference}. Changes against the base rules are in percentage points (pp) of "
        "win rate, or in turns and decisions per game; in brackets the change's false-coverage-rate "
        f"interval (level {level:.2%})."
    )
    lines = ["## The answer", "", intro, ""]
    by_variant: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in findings:
        by_variant.setdefault((e["base"], e["variation"]), []).append(e)

    def weight(key: tuple[str, str]) -> float:
        rates = [abs(e["change"]) for e in by_variant[key] if e["measure"] in PERCENT_MEASURES]
        return max(rates, default=0.0)

    for key in sorted(by_variant, key=lambda k: -weight(k)):
        base, label = key
        switch = words[label]
        rules = "; ".join(
            f"{w.rule_id}, `{w.assignment}`"
            + ("" if w.meaning.lower() == w.name.lower() else f": {w.meaning}")
            for w in switch
        )
        on = f" on `{base}`" if len(spec.bases) > 1 else ""
        text = f"**{variation_name(switch)}**{on} ({rules})."
        for n in spec.players:
            found = [e for e in by_variant[key] if int(e["players"]) == n]
            if found:
                text += f" **At {n} players**, " + "; ".join(_count_sentences(found, spec)) + "."
        lines += [text, ""]
    quiet = []
    for label in words:
        own = [e for e in effects if e["variation"] == label]
        if own and not any(k[1] == label for k in by_variant):
            same = all(e["lo"] == e["hi"] == 0 for e in own)
            quiet.append(
                f"{variation_name(words[label])} (`{variation_assignment(words[label])}`"
                + ("; its games are exactly the base's)" if same else ")")
            )
    if not by_variant:
        lines += ["No finding: no effect was detected" + (" and replicated." if replicating else "."), ""]
    if quiet:
        lines += ["No finding: " + "; ".join(quiet) + ".", ""]
    return lines


OWN_AGENTS = {
    "policy": "an exported policy (plain weights)",
    "python": "a Python agent (a file's or a module's)",
    "process": "an out-of-process agent (a program speaking the agent protocol)",
    "llm": "a language model (a chat endpoint)",
}
"""How the report describes an agent that is not a compiled style, by its spec's kind."""


def style_line(style: str) -> str:
    """One line naming a style: its description, or what a checkpoint is."""

    if is_checkpoint(style):
        return f"`{style}`: a learned policy (MaskablePPO checkpoint)"
    if style == LEARNED:
        return f"`{style}`: the policy the sweep trained for the cell's own rules and player count"
    try:
        kind = parse_agent(style).kind
    except ValueError:
        kind = "style"
    if kind in OWN_AGENTS:
        return f"`{style}`: {OWN_AGENTS[kind]}"
    name, _, params = style.partition(":")
    if name not in POLICY_DOCS:
        return f"`{style}`: an agent whose file or module is not found here"
    extra = f" (parameters {params})" if params else ""
    return f"`{style}`: {POLICY_DOCS[name]}{extra}"


def report_text(spec: StudySpec, frame: pd.DataFrame, effects: pd.DataFrame) -> str:
    """The Markdown report: styles, design, method, then per base and player count the base
    rates, the changes against the base (field, fixed reference, lengths, first mover) with
    detection and replication, and the findings (replicated effects)."""
    primary = frame[frame["replica"] == 0]
    cells = primary.drop_duplicates(["variant", "players"])
    all_effects = effects.to_dict("records")
    detected = [e for e in all_effects if e["detected"]]
    replicated = [e for e in detected if e["replicated"] == "yes"]
    level = all_effects[0]["level"] if all_effects else 1 - FDR
    lines = [f"# House-rules study `{spec.name}`", ""]
    lines += answer_lines(spec, all_effects)
    lines += ["## Styles", ""]
    lines += [f"- {style_line(s)}" for s in spec.styles]
    if spec.reference and spec.reference not in spec.styles:
        lines.append(f"- {style_line(spec.reference)} (the reference field only)")
    lines += ["", "## Design", ""]
    lines.append(
        f"Seed {spec.seed}; bases {', '.join(spec.bases)}; players {', '.join(map(str, spec.players))}; "
        f"about {spec.games:,} games per cell against the field (every deal replayed at every seating: "
        f"{_describe(spec)}); {int(cells['games'].sum()):,} field games on the primary deals; env version "
        f"v{primary['env_version'].iloc[0]}."
    )
    lines += ["", "Seat-games per style and cell (every style holds as many seats):", ""]
    for n in spec.players:
        part = primary[(primary["players"] == n) & (primary["variation"] == "")]
        row = part.iloc[0]
        ref = ""
        if spec.reference:
            focal = int(part["ref_seat_games"].max())
            ref = f"; {focal:,} against the reference field (each style but `{spec.reference}`)"
        lines.append(f"- {n} players: {int(row['seat_games']):,} against the field{ref}.")
    if spec.replicate:
        lines += [
            "",
            "Replication: the whole design is played again on fresh deals "
            + ", ".join(
                f"{first_deal(spec, n, 1):,}-{first_deal(spec, n, 1) + deals_per_seating(spec, n) - 1:,} at "
                f"{n} players"
                for n in spec.players
            )
            + f" (seeds {spec.seed} + deal; primary deals from 0).",
        ]
    lines += ["", "## Method", ""]
    lines.append(
        "Each style's win rate is measured against the field of all the study's styles, every style in "
        "every seat equally often, on the same deals in every variant"
        + (
            f", and against a fixed reference field: alone at a table of `{spec.reference}` players, in "
            "every seat"
            if spec.reference
            else ""
        )
        + ". The deal is the unit: every deal is replayed at many seatings and in every variant, so its "
        "games are not independent. Rates and means are ratios of per-deal totals with cluster-robust "
        "standard errors over the deals (Student-t, deals - 1 degrees of freedom; Wilson at the effective "
        "sample size for rates), 95% unless said otherwise. Changes against the base are paired by deal."
    )
    lines += [
        "",
        f"Error control: Benjamini-Hochberg at a false discovery rate of {FDR:.0%} over all "
        f"{len(all_effects)} effects below (each style's win rate against the field"
        + (" and against the reference" if spec.reference else "")
        + ", mean turns and decisions per game, and the first mover's win rate, per variation and player "
        f"count). **{len(detected)} detected.** Changes are shown with their false-coverage-rate "
        f"intervals (Benjamini-Yekutieli) at level {level:.2%}, which exclude 0 exactly for the detected "
        'effects (**bold**); a change not detected shows what its interval still allows ("within ±x").',
    ]
    if spec.replicate:
        lines += [
            "",
            f"Replication: {len(replicated)} of the {len(detected)} detected effects replicated on the fresh "
            "deals (same sign, detected again by Benjamini-Hochberg at 5% over the detected effects; marked "
            "R). Only replicated effects are called findings.",
        ]
    lines += [
        "",
        "Zero-sum: every game has one winner and every style holds as many seats, so in each row the "
        "changes against the field sum to zero (column *sum*, up to truncated games): one style's gain is "
        "the others' loss. The fixed-reference view measures each style apart from the others.",
        "",
        "Lengths: *turns* count the times a player entered the play phase (to play or draw from their "
        "hand); *decisions* count every choice (colours, play-or-keep, challenges, answers included). "
        "The first mover is the seat that made the first decision (the dealer is drawn each deal). Rates "
        "are in percent, their changes in percentage points (pp).",
        "",
    ]
    by_cell: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for e in all_effects:
        by_cell.setdefault((e["variant"], e["players"]), []).append(e)
    lines += summary_tables(spec, primary, by_cell)
    names = _cells(spec)
    for base in dict.fromkeys(primary["base"]):
        for n in spec.players:
            lines += _cell_section(
                spec, primary[(primary["base"] == base) & (primary["players"] == n)], by_cell, names
            )
    if spec.sweep:
        lines += transfer_matrix.study_skill_lines(spec, primary)
    lines += [
        "Plots: `winrate_change.png` (the field changes as a heat map on one colour scale; n.d.: not "
        "detected, `?` detected but not replicated, identical: the variant plays exactly the base's games), "
        "`game_length.png` (turns per game, mean and quantiles per variant). Tables: "
        "`results.csv` (levels and 95% changes per deal set, cell and style), `effects.csv` (the family "
        "of effects with p-values, detection and replication).",
        "",
    ]
    return "\n".join(lines)


def _compact(effect: Mapping[str, Any] | None) -> str:
    """A change in a summary cell: **bold** a finding (detected, and replicated when a
    replication ran), ``+1.3?`` detected but not replicated, ``(±1.1)`` not detected (what its
    interval still allows)."""
    if effect is None:
        return ""
    scale = 100 if effect["measure"] in PERCENT_MEASURES else 1
    change = effect["change"] * scale
    if not effect["detected"]:
        bound = max(abs(effect["lo"]), abs(effect["hi"])) * scale
        return "(0)" if bound == 0 else f"(±{bound:.1f})"
    return f"{change:+.1f}?" if effect["replicated"] == "no" else f"**{change:+.1f}**"


def summary_tables(
    spec: StudySpec, primary: pd.DataFrame, by_cell: Mapping[tuple[str, int], list[dict[str, Any]]]
) -> list[str]:
    """Compact tables of every change (the findings section of ``docs/study.md`` is copied from them)."""
    finding = "detected and replicated" if spec.replicate else "detected"
    names = _cells(spec)
    lines = [
        "## Summary",
        "",
        "Win-rate change against the field per switch, in percentage points; **bold**: a finding "
        f"({finding}); "
        + ("`?`: detected but not replicated; " if spec.replicate else "")
        + "(±x): not detected, the change is within ±x (false-coverage interval). Last columns: the change "
        "of the mean game length in turns, and of the first mover's win rate.",
        "",
    ]
    for base in dict.fromkeys(primary["base"]):
        for n in spec.players:
            part = primary[(primary["base"] == base) & (primary["players"] == n)]
            r0 = part[part["variation"] == ""].iloc[0]
            styles = list(dict.fromkeys(part["style"]))
            rates = ", ".join(
                f"`{style_label(r['style'])}` {_pct(r['win_rate'])}"
                for _, r in part[part["variation"] == ""].iterrows()
            )
            lines += [
                f"{n} players ({base}: {r0['turns_mean']:.1f} turns, {r0['length_mean']:.1f} decisions per "
                f"game; first mover {_pct(r0['first_mover_win_rate'])}; win rates {rates}):",
                "",
                "| rule switch | "
                + " | ".join(f"`{style_label(s)}`" for s in styles)
                + " | turns | first mover |",
                "| --- |" + " ---: |" * (len(styles) + 2),
            ]
            varied = part[part["variation"] != ""]
            for label in dict.fromkeys(varied["variation"]):
                row = varied[varied["variation"] == label].iloc[0]
                effects = by_cell.get((row["variant"], n), [])

                def pick(measure: str, style: str = "", effects: list[dict[str, Any]] = effects) -> Any:
                    return next((e for e in effects if e["measure"] == measure and e["style"] == style), None)

                cells = [_compact(pick("win_rate", s)) for s in styles]
                cells += [_compact(pick("turns")), _compact(pick("first_mover"))]
                lines.append(f"| {names[label]} | " + " | ".join(cells) + " |")
            lines.append("")
    return lines


def _describe(spec: StudySpec) -> str:
    parts = []
    for n in spec.players:
        text = (
            f"{len(seatings(spec.styles, n))} seatings x {deals_per_seating(spec, n):,} deals at {n} players"
        )
        if spec.reference:
            text += f" (+{len(kind_seatings(spec, 'reference', n))} reference seatings)"
        parts.append(text)
    return ", ".join(parts)


def _cell_section(
    spec: StudySpec,
    part: pd.DataFrame,
    by_cell: Mapping[tuple[str, int], list[dict[str, Any]]],
    names: Mapping[str, str],
) -> list[str]:
    base_rows = part[part["variation"] == ""]
    r0 = base_rows.iloc[0]
    n = int(r0["players"])
    seat_rates = [float(x) for x in str(r0["seat_win_rates"]).split(";")]
    seat_lo = [float(x) for x in str(r0["seat_win_lo"]).split(";")]
    seat_hi = [float(x) for x in str(r0["seat_win_hi"]).split(";")]
    lines = [
        f"## {r0['base']}, {n} players",
        "",
        f"Base rules: {r0['turns_mean']:.1f} turns per game [{r0['turns_lo']:.1f}, {r0['turns_hi']:.1f}] "
        f"(median {r0['turns_p50']}, p90 {r0['turns_p90']}); {r0['length_mean']:.1f} decisions "
        f"[{r0['length_lo']:.1f}, {r0['length_hi']:.1f}]; the first mover wins "
        f"{_pct(r0['first_mover_win_rate'])} [{_pct(r0['first_mover_lo'])}, {_pct(r0['first_mover_hi'])}] "
        f"(fair share {1 / n:.1%}); truncated {r0['truncated_rate']:.2%} "
        f"[{r0['truncated_lo']:.2%}, {r0['truncated_hi']:.2%}].",
        "",
        "| seat | " + " | ".join(str(j) for j in range(n)) + " |",
        "| --- |" + " ---: |" * n,
        "| win rate [95%] | "
        + " | ".join(f"{_pct(seat_rates[j])} [{_pct(seat_lo[j])}, {_pct(seat_hi[j])}]" for j in range(n))
        + " |",
        "",
        "| style | seat-games | win rate vs field [95%] |"
        + (f" vs `{spec.reference}` field [95%] |" if spec.reference else "")
        + " mean rank [95%] | points/game [95%] |",
        "| --- | ---: | --- |" + (" --- |" if spec.reference else "") + " --- | --- |",
    ]
    for _, r in base_rows.iterrows():
        ref = ""
        if spec.reference:
            ref = (
                f" {_pct(r['ref_win_rate'])} [{_pct(r['ref_win_lo'])}, {_pct(r['ref_win_hi'])}] |"
                if r["ref_seat_games"]
                else " (the reference) |"
            )
        lines.append(
            f"| `{r['style']}` | {int(r['seat_games']):,} | {_pct(r['win_rate'])} [{_pct(r['win_lo'])}, "
            f"{_pct(r['win_hi'])}] |{ref} {r['mean_rank']:.2f} [{r['rank_lo']:.2f}, {r['rank_hi']:.2f}] | "
            f"{r['points_per_game']:.1f} [{r['points_lo']:.1f}, {r['points_hi']:.1f}] |"
        )
    varied = part[part["variation"] != ""]
    styles = list(dict.fromkeys(part["style"]))
    labels = list(dict.fromkeys(varied["variation"]))
    variant_of = dict(zip(varied["variation"], varied["variant"], strict=False))

    def effect(label: str, measure: str, style: str = "") -> dict[str, Any] | None:
        for e in by_cell.get((variant_of[label], n), []):
            if e["measure"] == measure and e["style"] == style:
                return e
        return None

    if spec.replicate:
        failed = [
            f"{names[label]}: {_effect_name(e)} {_fmt_change(e)}"
            for label in labels
            for e in by_cell.get((variant_of[label], n), [])
            if e["detected"] and e["replicated"] == "no"
        ]
        if failed:
            lines += [
                "",
                "Detected on the primary deals but not replicated (not findings): " + "; ".join(failed) + ".",
            ]
    if not labels:
        return [*lines, ""]
    lines += [
        "",
        "Win-rate change against the field (percentage points; interval at the false-coverage level):",
        "",
        "| rule switch | " + " | ".join(f"`{style_label(s)}`" for s in styles) + " | sum | first mover |",
        "| --- |" + " ---: |" * (len(styles) + 2),
    ]
    for label in labels:
        rows = varied[varied["variation"] == label].set_index("style")
        cells = []
        for s in styles:
            e = effect(label, "win_rate", s)
            cells.append(_fmt_change(e) if e else "")
        total = float(rows["delta_win_rate"].sum())
        fm = effect(label, "first_mover")
        cells.append(f"{total * 100:+.1f}")
        cells.append(_fmt_change(fm) if fm else "")
        lines.append(f"| {names[label]} | " + " | ".join(cells) + " |")
    if spec.reference:
        focal = [s for s in styles if s != spec.reference]
        lines += [
            "",
            f"Win-rate change against the fixed `{spec.reference}` field (percentage points):",
            "",
            "| rule switch | " + " | ".join(f"`{style_label(s)}`" for s in focal) + " |",
            "| --- |" + " ---: |" * len(focal),
        ]
        for label in labels:
            cells = []
            for s in focal:
                e = effect(label, "vs_reference", s)
                cells.append(_fmt_change(e) if e else "")
            lines.append(f"| {names[label]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Game length against the base (turns and decisions per game):",
        "",
        "| rule switch | turns | change | decisions | change |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for label in labels:
        x = varied[varied["variation"] == label].iloc[0]
        turns, decisions = effect(label, "turns"), effect(label, "decisions")
        lines.append(
            f"| {names[label]} | {x['turns_mean']:.1f} | {_fmt_change(turns) if turns else ''} | "
            f"{x['length_mean']:.1f} | {_fmt_change(decisions) if decisions else ''} |"
        )
    lines.append("")
    return lines


def _effect_name(e: Mapping[str, Any]) -> str:
    return {
        "win_rate": f"`{e['style']}`",
        "vs_reference": f"`{e['style']}` vs the reference",
        "turns": "turns per game",
        "decisions": "decisions per game",
        "first_mover": "the first mover",
    }[e["measure"]]


__all__ = [
    "answer_lines",
    "assemble",
    "report_text",
    "results_frame",
    "style_line",
    "summary_tables",
    "variation_labels",
    "variation_words",
]

"""The atlas' plots: ``heatmap.png``, ``ladder.png``, ``reliability.png`` and ``strong_vs_scripted.png``.

The heat map is variants x measures under strong play, one panel per player count: each cell
is the change against the base rules, coloured on its column's own scale (the measures have
different units) and written out; a change that is not a finding is grey (``n.d.``: not
detected, ``?``: detected but not replicated). Names in words come from the report
(:func:`training.atlas.report.variant_names`), wrapped as the study's plots wrap them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from training.study.plots import NOT_DETECTED, NOT_REPLICATED, axis_label

from .spec import COIN_FLIP, AtlasSpec
from .stats import FAMILY, MEASURE_BY_NAME, is_finding

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

HEAT_MEASURES = tuple(name for name, play in FAMILY if play == "strong")
"""The heat map's columns: every family measure under strong play."""


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def heatmap_figure(
    spec: AtlasSpec, effects: pd.DataFrame, names: Mapping[str, tuple[str, str]]
) -> Figure | None:
    """Variants x measures (strong play): the change against the base per player count."""
    plt = _pyplot()
    strong = effects[effects["play"] == "strong"]
    if strong.empty:
        return None
    variants = list(dict.fromkeys(strong["variant"]))
    fig, axes = plt.subplots(
        1, len(spec.players),
        figsize=(3.6 + 0.9 * len(HEAT_MEASURES) * len(spec.players), 1.6 + 0.42 * len(variants)),
        squeeze=False, layout="constrained",
    )  # fmt: skip
    # every panel has the same rows (the labels are on the first): a variant whose rules do not
    # allow a player count leaves its row blank there
    rows = variants
    blank = False
    for ax, n in zip(axes[0], spec.players, strict=True):
        part = strong[strong["players"] == n]
        blank = blank or len(set(part["variant"])) < len(rows)
        values = np.full((len(rows), len(HEAT_MEASURES)), np.nan)
        marks = np.full(values.shape, "", dtype=object)
        shown = np.zeros(values.shape, dtype=bool)
        for e in part.to_dict("records"):
            if e["measure"] not in HEAT_MEASURES:
                continue
            i, j = rows.index(e["variant"]), HEAT_MEASURES.index(e["measure"])
            scale = 100 if MEASURE_BY_NAME[e["measure"]].rate else 1
            values[i, j] = e["change"] * scale
            if is_finding(e, spec.replicate):
                marks[i, j], shown[i, j] = f"{e['change'] * scale:+.1f}", True
            else:
                marks[i, j] = NOT_REPLICATED if e["detected"] else NOT_DETECTED
        limit = np.nanmax(np.abs(values), axis=0)
        limit = np.where(np.isfinite(limit) & (limit > 0), limit, 1.0)
        scaled = values / limit[None, :]
        ax.imshow(np.zeros_like(values), cmap=_grey(), aspect="auto", vmin=0, vmax=1)
        ax.imshow(np.ma.masked_array(scaled, mask=~shown), cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                ax.text(
                    j,
                    i,
                    marks[i, j],
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="black" if shown[i, j] else "0.4",
                )
        ax.set_xticks(range(len(HEAT_MEASURES)), HEAT_MEASURES, rotation=45, ha="right", fontsize=7)
        ax.set_yticks(
            range(len(rows)),
            [axis_label(*names[v]) for v in rows] if n == spec.players[0] else [],
            fontsize=6,
        )
        ax.set_title(f"{n} players", fontsize=10)
    fig.suptitle(f"Changes against {spec.base} under strong play ({spec.strong})", fontsize=11)
    fig.supxlabel(
        "Coloured: a finding (detected, replicated), each column on its own scale (rates in pp); "
        f"{NOT_DETECTED}: not detected; {NOT_REPLICATED}: detected, not replicated"
        + ("; blank: the rules do not allow that player count." if blank else "."),
        fontsize=7,
    )
    return fig


def _grey() -> Any:
    from matplotlib.colors import ListedColormap

    return ListedColormap(["0.93"])


def ladder_figure(
    spec: AtlasSpec, levels: pd.DataFrame, names: Mapping[str, tuple[str, str]]
) -> Figure | None:
    """Each rung's win rate against the field, per variant (one panel per player count)."""
    plt = _pyplot()
    ladder = levels[(levels["play"] == "ladder") & levels["measure"].str.startswith("field:")]
    if ladder.empty:
        return None
    variants = [v for v in dict.fromkeys(ladder["variant"]) if v != COIN_FLIP]
    fig, axes = plt.subplots(
        1,
        len(spec.players),
        figsize=(4 + 4 * len(spec.players), 1.5 + 0.32 * len(variants)),
        squeeze=False,
        layout="constrained",
    )
    every_rung = list(dict.fromkeys(ladder["measure"]))
    # the ladder has more rungs than matplotlib's ten-colour cycle: each its own colour
    # (tab20's dark shades first, then the light ones, so neighbours differ in hue)
    colours = plt.get_cmap("tab20")([*range(0, 20, 2), *range(1, 20, 2)])
    for ax, n in zip(axes[0], spec.players, strict=True):
        part = ladder[ladder["players"] == n]
        rows = variants  # the same rows in every panel (labelled on the first)
        rungs = list(dict.fromkeys(part["measure"]))
        for k, rung in enumerate(rungs):
            g = every_rung.index(rung)  # colour and marker by rung, the same in every panel
            y, x, lo, hi = [], [], [], []
            for i, v in enumerate(rows):
                r = part[(part["variant"] == v) & (part["measure"] == rung)]
                if r.empty:
                    continue
                y.append(i + (k - len(rungs) / 2) * 0.04)
                x.append(r["value"].iloc[0] * 100)
                lo.append(r["lo"].iloc[0] * 100)
                hi.append(r["hi"].iloc[0] * 100)
            ax.errorbar(
                x,
                y,
                xerr=[np.subtract(x, lo), np.subtract(hi, x)],
                fmt="os^Dv"[g % 5],
                ms=3,
                lw=0.8,
                color=colours[g % len(colours)],
                label=rung.split(":", 1)[1],
            )
        ax.axvline(100 / n, color="0.5", lw=0.8, ls="--")
        ax.set_yticks(
            range(len(rows)), [names[v][0][:40] for v in rows] if n == spec.players[0] else [], fontsize=6
        )
        ax.invert_yaxis()
        ax.set_xlabel("win rate against the field (%), 95% interval", fontsize=8)
        ax.set_title(f"{n} players (dashed: fair share)", fontsize=10)
    # one legend for every panel's rungs (the learned players differ by player count)
    handles: dict[str, Any] = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    axes[0][-1].legend(handles.values(), handles.keys(), fontsize=6, loc="lower right")
    fig.suptitle("The skill ladder per rule set", fontsize=11)
    return fig


def reliability_figure(spec: AtlasSpec, reliability: Mapping[tuple[int, str], np.ndarray]) -> Figure:
    """Predicted against observed win chances, pooled over the cells, per player count and play."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 5), layout="constrained")
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls="--")
    for (n, play), table in reliability.items():
        keep = table[:, 0] > 0
        if not keep.any():
            continue
        ax.plot(
            table[keep, 1] / table[keep, 0],
            table[keep, 2] / table[keep, 0],
            "o-",
            ms=3,
            label=f"{play}, {n} players",
        )
    ax.set_xlabel("predicted win chance (held-out games)")
    ax.set_ylabel("observed share of wins")
    ax.set_title("Reliability of the win-chance estimate", fontsize=10)
    ax.legend(fontsize=7)
    return fig


def agreement_figure(spec: AtlasSpec, effects: pd.DataFrame) -> Figure | None:
    """Each rule's change under scripted play against strong play, one panel per measure."""
    plt = _pyplot()
    both = [name for name, play in FAMILY if play == "scripted"]
    if not both:
        return None
    cols = min(4, len(both))
    rows = math.ceil(len(both) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3 * rows), squeeze=False, layout="constrained")
    for ax, name in zip(axes.ravel(), both, strict=False):
        part = effects[(effects["measure"] == name) & (effects["kind"] != "control")]
        scale = 100 if MEASURE_BY_NAME[name].rate else 1
        for n in spec.players:
            s = part[(part["play"] == "scripted") & (part["players"] == n)].set_index("variant")["change"]
            t = part[(part["play"] == "strong") & (part["players"] == n)].set_index("variant")["change"]
            common = s.index.intersection(t.index)
            ax.plot(s[common] * scale, t[common] * scale, "o", ms=3, label=f"{n} players")
        ax.axhline(0, color="0.7", lw=0.6)
        ax.axvline(0, color="0.7", lw=0.6)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("scripted play", fontsize=7)
        ax.set_ylabel("strong play", fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes.ravel()[len(both) :]:
        ax.set_visible(False)
    axes[0][0].legend(fontsize=6)
    fig.suptitle("Each rule's change against the base under scripted and strong play", fontsize=10)
    return fig


def plot_atlas(
    spec: AtlasSpec,
    tables: Mapping[str, pd.DataFrame],
    reliability: Mapping[tuple[int, str], np.ndarray],
    names: Mapping[str, tuple[str, str]],
    out: Path,
) -> list[Path]:
    """Write the atlas' plots into ``out``; return their paths."""
    plt = _pyplot()
    figures = {
        "heatmap.png": heatmap_figure(spec, tables["effects"], names),
        "ladder.png": ladder_figure(spec, tables["atlas"], names),
        "reliability.png": reliability_figure(spec, reliability),
        "strong_vs_scripted.png": agreement_figure(spec, tables["effects"]),
    }
    written = []
    for name, fig in figures.items():
        if fig is None:
            continue
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        written.append(out / name)
    return written

"""The house-rules study's plots: ``winrate_change.png`` and ``game_length.png``.

Both name each rule variation in words with its fields beside (the report's names,
:func:`training.study.report.variation_labels`), and lay out with matplotlib's constrained
layout so every label lies inside the picture. The heat map draws every panel (base and
player count) on one diverging colour scale, so a colour means the same change in every
panel; a change that was not detected is drawn grey and marked ``n.d.``, one detected but
not replicated keeps its colour and is marked ``?``, and a variant whose games are exactly
the base's (an interval of zero width) is marked ``identical``.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .spec import is_checkpoint
from .stats import FDR

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

NOT_DETECTED = "n.d."
"""The heat map's mark of a change that was not detected."""
NOT_REPLICATED = "?"
"""The heat map's mark of a change detected on the primary deals but not replicated."""
IDENTICAL = "identical"
"""The heat map's mark of a variant that plays exactly the base's games."""
LABEL_WIDTH = 34
"""Characters per line of a variation's name on a plot axis (longer names wrap)."""


def style_label(style: str) -> str:
    """A short label for plots: a checkpoint's folder and file stem (``run/model``, the middle of
    a long one elided to ``...``), else the style."""
    if not is_checkpoint(style):
        return style
    path = Path(style)
    label = f"{path.parent.name}/{path.stem}" if path.parent.name else path.stem
    return label if len(label) <= 22 else f"{label[:8]}...{label[-11:]}"


def cell_mark(effect: Mapping[str, Any], value: float) -> str:
    """What a heat-map cell shows: the change (a finding), the change with ``?`` (detected,
    not replicated), ``n.d.`` (not detected) or ``identical`` (no game changed)."""
    if not effect["detected"]:
        return IDENTICAL if effect["lo"] == effect["hi"] == 0 else NOT_DETECTED
    text = f"{value:+.1f}"
    return text + NOT_REPLICATED if effect["replicated"] == "no" else text


def axis_label(name: str, fields: str) -> str:
    """A variation on a plot axis: its name in words (wrapped), its fields on the last line."""
    return "\n".join([*textwrap.wrap(name, LABEL_WIDTH, break_on_hyphens=False), f"({fields})"])


def colour_limit(values: np.ndarray) -> float:
    """The half-range of the one diverging colour scale: the 95th percentile of the changes'
    sizes rounded up to a whole 5 points (at least 5). Larger changes show the end colour
    (the colour bar's arrows) and their number, so one outlier does not wash out the rest."""
    finite = np.abs(values[np.isfinite(values)])
    typical = float(np.percentile(finite, 95)) if finite.size else 0.0
    return max(5.0, 5.0 * math.ceil(typical / 5.0))


def _labels_for(frame: pd.DataFrame, labels: Mapping[str, tuple[str, str]] | None) -> dict[str, str]:
    """Axis label of every variation label in ``frame`` (``(base)`` for the base)."""
    out = {"": "(base rules)"}
    for label, switches in zip(frame["variation"], frame["switches"], strict=True):
        if label and label not in out:
            name, fields = labels[label] if labels and label in labels else (label, switches)
            out[label] = axis_label(name, fields)
    return out


def study_figures(
    frame: pd.DataFrame, effects: pd.DataFrame, labels: Mapping[str, tuple[str, str]] | None = None
) -> dict[str, Figure]:
    """The study's figures by file name (``winrate_change.png`` when there are variations,
    ``game_length.png``), not yet saved. ``labels`` maps a variation label to its name in words
    and its fields (:func:`training.study.report.variation_labels`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    figures: dict[str, Figure] = {}
    frame = frame[frame["replica"] == 0]
    names = _labels_for(frame, labels)
    panels = [(b, n) for b in frame["base"].unique() for n in sorted(frame["players"].unique())]
    by_key = {
        (e["variant"], int(e["players"]), e["style"]): e
        for e in effects.to_dict("records")
        if e["measure"] == "win_rate"
    }
    varied = frame[frame["variation"] != ""]
    if len(varied):
        grids = []
        for base, n in panels:
            part = varied[(varied["base"] == base) & (varied["players"] == n)]
            rows, cols = list(dict.fromkeys(part["variation"])), list(dict.fromkeys(part["style"]))
            grid = part.pivot(index="variation", columns="style", values="delta_win_rate").reindex(
                index=rows, columns=cols
            )
            variant = part.pivot(index="variation", columns="style", values="variant").reindex(
                index=rows, columns=cols
            )
            grids.append((base, n, grid * 100, variant))
        everything = np.concatenate([g.to_numpy(dtype=float).ravel() for _, _, g, _ in grids])
        limit = colour_limit(everything)
        clipped = bool(np.nanmax(np.abs(everything)) > limit)
        most_rows = max(g.shape[0] for _, _, g, _ in grids)
        most_cols = max(g.shape[1] for _, _, g, _ in grids)
        fig, axes = plt.subplots(
            1,
            len(panels),
            figsize=(3.6 + (0.62 * most_cols + 0.6) * len(panels), 2.2 + 0.5 * most_rows),
            squeeze=False,
            layout="constrained",
        )
        cmap = matplotlib.colormaps["RdBu"]
        grey = ListedColormap(["0.9"])
        image = None
        previous_rows: list[str] | None = None
        for ax, (base, n, grid, variant) in zip(axes[0], grids, strict=True):
            values = grid.to_numpy(dtype=float)
            marks = np.empty(values.shape, dtype=object)
            shown = np.zeros(values.shape, dtype=bool)
            for i in range(values.shape[0]):
                for j in range(values.shape[1]):
                    effect = by_key.get((variant.iat[i, j], int(n), grid.columns[j]))
                    if effect is None:
                        marks[i, j], shown[i, j] = f"{values[i, j]:+.1f}", True
                        continue
                    marks[i, j] = cell_mark(effect, values[i, j])
                    shown[i, j] = bool(effect["detected"])
            ax.imshow(np.zeros_like(values), cmap=grey, aspect="auto")
            image = ax.imshow(
                np.ma.masked_array(values, mask=~shown), cmap=cmap, vmin=-limit, vmax=limit, aspect="auto"
            )
            for i in range(values.shape[0]):
                for j in range(values.shape[1]):
                    strong = shown[i, j] and abs(values[i, j]) > 0.6 * limit
                    ax.text(
                        j,
                        i,
                        marks[i, j],
                        ha="center",
                        va="center",
                        fontsize=7 if shown[i, j] else 6,
                        fontweight="bold" if shown[i, j] else "normal",
                        color="white" if strong else ("black" if shown[i, j] else "0.35"),
                    )
            ax.set_xticks(
                range(grid.shape[1]), [style_label(c) for c in grid.columns], rotation=45, ha="right"
            )
            rows = list(grid.index)
            ax.set_yticks(range(grid.shape[0]), [names[r] for r in rows] if rows != previous_rows else [])
            ax.tick_params(axis="y", labelsize=7)
            previous_rows = rows
            ax.set_title(f"{base}, {n} players", fontsize=10)
        assert image is not None
        bar = fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, extend="both" if clipped else "neither")
        bar.set_label("win-rate change against the field (percentage points)", fontsize=8)
        fig.suptitle("Win-rate change per rule switch, against the base rules", fontsize=11)
        note = (
            f"Coloured: a change detected (Benjamini-Hochberg, FDR {FDR:.0%}); {NOT_REPLICATED}: detected "
            f"but not replicated on fresh deals; grey {NOT_DETECTED}: not detected; {IDENTICAL}: the "
            "variant plays exactly the base's games. One colour scale for every panel"
            + (f"; changes beyond ±{limit:.0f} show its end colours." if clipped else ".")
        )
        width = int(fig.get_figwidth() * 15)  # characters of 7-point text per line, with a margin
        fig.supxlabel("\n".join(textwrap.wrap(note, width)), fontsize=7)
        figures["winrate_change.png"] = fig

    cells = frame.drop_duplicates(["variant", "players"])
    most = max(len(cells[(cells["base"] == b) & (cells["players"] == n)]) for b, n in panels)
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(4.2 + 3.2 * len(panels), 1.6 + 0.5 * most),
        squeeze=False,
        layout="constrained",
    )
    previous: list[str] | None = None
    for ax, (base, n) in zip(axes[0], panels, strict=True):
        part = cells[(cells["base"] == base) & (cells["players"] == n)]
        rows = list(part["variation"])
        y = np.arange(len(part))
        ax.hlines(y, part["turns_p10"], part["turns_p90"], color="0.7", lw=4, label="p10-p90")
        ax.hlines(y, part["turns_p25"], part["turns_p75"], color="0.35", lw=4, label="p25-p75")
        ax.plot(part["turns_mean"], y, "o", color="C3", label="mean")
        ax.set_yticks(y, [names[r] for r in rows] if rows != previous else [])
        ax.tick_params(axis="y", labelsize=7)
        previous = rows
        ax.invert_yaxis()
        ax.set_xlabel("turns per game (a player enters the play phase)", fontsize=8)
        ax.set_title(f"{base}, {n} players: game length", fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
    figures["game_length.png"] = fig
    return figures


def plot_study(
    frame: pd.DataFrame,
    effects: pd.DataFrame,
    out: Path,
    labels: Mapping[str, tuple[str, str]] | None = None,
) -> list[Path]:
    """Write ``winrate_change.png`` (heat map per base and player count, one colour scale)
    and ``game_length.png`` into ``out`` (:func:`study_figures`)."""
    import matplotlib.pyplot as plt

    written = []
    for name, fig in study_figures(frame, effects, labels).items():
        path = out / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


__all__ = [
    "IDENTICAL",
    "NOT_DETECTED",
    "NOT_REPLICATED",
    "cell_mark",
    "plot_study",
    "study_figures",
    "style_label",
]

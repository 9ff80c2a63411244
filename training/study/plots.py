"""The house-rules study's plots: ``winrate_change.png`` and ``game_length.png``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .spec import is_checkpoint
from .stats import FDR

if TYPE_CHECKING:
    import pandas as pd


def style_label(style: str) -> str:
    """A short label for plots: a checkpoint's folder and file stem (``run/model``, the middle of
    a long one elided to ``...``), else the style."""
    if not is_checkpoint(style):
        return style
    path = Path(style)
    label = f"{path.parent.name}/{path.stem}" if path.parent.name else path.stem
    return label if len(label) <= 22 else f"{label[:8]}...{label[-11:]}"


def _mark(effect: Mapping[str, Any]) -> str:
    """``""`` detected (and replicated, when a replication ran), ``"~"`` not detected, ``"?"``
    detected but not replicated."""
    if not effect["detected"]:
        return "~"
    return "?" if effect["replicated"] == "no" else ""


def plot_study(frame: pd.DataFrame, effects: pd.DataFrame, out: Path) -> list[Path]:
    """``winrate_change.png`` (heat map per base and player count) and ``game_length.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    frame = frame[frame["replica"] == 0]
    panels = [(b, n) for b in frame["base"].unique() for n in sorted(frame["players"].unique())]
    marks = {
        (e["variant"], e["players"], e["style"]): _mark(e)
        for e in effects.to_dict("records")
        if e["measure"] == "win_rate"
    }
    varied = frame[frame["variation"] != ""]
    if len(varied):
        fig, axes = plt.subplots(
            1,
            len(panels),
            figsize=(4 + 3.2 * len(panels), 1.5 + 0.45 * varied["variation"].nunique()),
            squeeze=False,
        )
        for ax, (base, n) in zip(axes[0], panels, strict=True):
            part = varied[(varied["base"] == base) & (varied["players"] == n)]
            grid = part.pivot(index="variation", columns="style", values="delta_win_rate") * 100
            variant = part.pivot(index="variation", columns="style", values="variant")
            grid = grid.reindex(
                index=list(dict.fromkeys(part["variation"])), columns=list(dict.fromkeys(part["style"]))
            )
            variant = variant.reindex_like(grid)
            limit = max(1.0, float(np.nanmax(np.abs(grid.to_numpy()))) if grid.size else 1.0)
            image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
            ax.set_xticks(
                range(grid.shape[1]), [style_label(c) for c in grid.columns], rotation=45, ha="right"
            )
            ax.set_yticks(range(grid.shape[0]), grid.index)
            for i in range(grid.shape[0]):
                for j in range(grid.shape[1]):
                    value = grid.iat[i, j]
                    mark = marks.get((variant.iat[i, j], n, grid.columns[j]), "")
                    colour = "white" if abs(value) > 0.6 * limit else "black"
                    ax.text(j, i, f"{mark}{value:+.1f}", ha="center", va="center", fontsize=7, color=colour)
            ax.set_title(f"{base}, {n} players: win rate change (pp)")
            fig.colorbar(image, ax=ax, shrink=0.8)
        fig.text(
            0.01,
            0.01,
            f"~ : not detected (Benjamini-Hochberg, FDR {FDR:.0%}); ? : detected but not replicated",
            fontsize=8,
        )
        fig.tight_layout()
        path = out / "winrate_change.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    cells = frame.drop_duplicates(["variant", "players"])
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4 + 3 * len(panels), 1.5 + 0.4 * cells["variant"].nunique()), squeeze=False
    )
    for ax, (base, n) in zip(axes[0], panels, strict=True):
        part = cells[(cells["base"] == base) & (cells["players"] == n)]
        labels = [v or "(base)" for v in part["variation"]]
        y = np.arange(len(part))
        ax.hlines(y, part["turns_p10"], part["turns_p90"], color="0.7", lw=4, label="p10-p90")
        ax.hlines(y, part["turns_p25"], part["turns_p75"], color="0.35", lw=4, label="p25-p75")
        ax.plot(part["turns_mean"], y, "o", color="C3", label="mean")
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.set_xlabel("turns per game (a player enters the play phase)")
        ax.set_title(f"{base}, {n} players: game length")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path = out / "game_length.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


__all__ = ["plot_study", "style_label"]

"""The stored default study: its report in the documentation and its answer in the README.

``python -m training.study.publish RUN_DIR`` takes a finished run of the default study
(``uno-env study``, seed 0) and

- copies its ``report.md``, ``effects.csv``, ``spec.toml`` and plots into
  ``docs/study-default/`` and writes ``batches.sha256``, the SHA-256 of every batch file
  (results are byte-identical across runs and executors, so any batch replayed from the spec
  must give the same digest);
- writes the answer (the report's opening paragraphs and its styles) between the
  ``<!-- default-study-answer -->`` markers of ``README.md`` and ``docs/study.md``.

``make study-docs`` runs the default study and this. The tests hold the three together
without running the whole study (2.7 million games): the README and ``docs/study.md`` quote
the stored answer exactly; the stored spec is the current default spec; the stored answer is
what the current report code writes from the stored effects; and two batches replayed from
the current spec and engine give their stored digests (:func:`replay_digest`).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

from training.runner import json_file_text

from .load import load_spec
from .planning import plan, task_key
from .play import run_batch

ROOT = Path(__file__).resolve().parents[2]
STORED = ROOT / "docs" / "study-default"
"""Where the default study's report, effects, spec, plots and batch digests are kept."""
QUOTES = (ROOT / "README.md", ROOT / "docs" / "study.md")
"""The pages that quote the default study's answer."""
BEGIN = "<!-- default-study-answer: written by python -m training.study.publish; do not edit -->"
END = "<!-- /default-study-answer -->"
COPIED = ("report.md", "effects.csv", "spec.toml", "winrate_change.png", "game_length.png")
REPLAYED = ("uno__2p__reference0__00000", "uno+no_finish_on_action__4p__reference1__00000")
"""The batches the tests replay (the two smallest of the default study: 12,000 and 7,200 games)."""


def answer_markdown(report: str) -> str:
    """The answer of a study report as the README quotes it: the paragraphs of its "The
    answer" section and its styles, headings left out."""
    start = report.index("## The answer")
    styles = report.index("## Styles", start)
    end = report.index("\n## ", styles + 1)
    answer = report[start + len("## The answer") : styles].strip()
    style_lines = report[styles + len("## Styles") : end].strip()
    return f"{answer}\n\nThe styles:\n\n{style_lines}\n"


def quoted_block(text: str, page: Path) -> str:
    """The text between the answer markers of ``page`` (a ValueError without them)."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"{page} has no {BEGIN} ... {END} block")
    return text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip("\n") + "\n"


def digest(path: Path) -> str:
    """The SHA-256 of a file, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replay_digest(batch_id: str) -> str:
    """The SHA-256 of batch ``batch_id`` of the current default spec, played now, as the study
    writes its file (the result with its seed and design key, sorted JSON)."""

    task = next(t for t in plan(load_spec(None)) if t.id == batch_id)
    result = {**run_batch(task), "seed": task.seed, "key": task_key(task)}
    # exactly the text the study's store writes (one line): a digest of any other layout
    # could never match a published run
    text = json_file_text(result, compact=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stored_digests(folder: Path = STORED) -> dict[str, str]:
    """``batch id -> SHA-256`` from ``batches.sha256``."""
    out = {}
    for line in (folder / "batches.sha256").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            value, name = line.split(maxsplit=1)
            out[Path(name).stem] = value
    return out


def publish(run: Path, folder: Path = STORED, quotes: tuple[Path, ...] = QUOTES) -> None:
    """Store the run ``run`` of the default study in ``folder`` and quote its answer in ``quotes``."""

    if load_spec(run / "spec.toml").to_dict() != load_spec(None).to_dict():
        raise ValueError(f"{run} is not a run of the default study (its spec.toml differs)")
    folder.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        shutil.copyfile(run / name, folder / name)
    batches = sorted((run / "batches").glob("*.json"))
    lines = ["# SHA-256 of every batch file of the default study (training.study.publish)"]
    lines += [f"{digest(path)}  batches/{path.name}" for path in batches]
    (folder / "batches.sha256").write_text("\n".join(lines) + "\n", encoding="utf-8")
    block = answer_markdown((folder / "report.md").read_text(encoding="utf-8"))
    for page in quotes:
        text = page.read_text(encoding="utf-8")
        quoted_block(text, page)  # the markers must be there
        head, tail = text[: text.index(BEGIN) + len(BEGIN)], text[text.index(END) :]
        page.write_text(f"{head}\n{block}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """``python -m training.study.publish RUN_DIR``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(
            "usage: python -m training.study.publish RUN_DIR (a finished run of uno-env study)",
            file=sys.stderr,
        )
        return 2
    publish(Path(args[0]))
    print(f"stored in {STORED}; quoted in {', '.join(str(p) for p in QUOTES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

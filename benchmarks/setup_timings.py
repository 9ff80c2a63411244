"""Set-up timings: ``make demo`` and ``make test`` from a fresh clone, and the quick start.

The one home of the set-up timings the README and ``docs/getting-started.md`` quote. One run

    python benchmarks/setup_timings.py                 # clone HEAD, time both, write the JSON
    python benchmarks/setup_timings.py --targets demo  # only make demo
    python benchmarks/setup_timings.py --table         # print the Markdown table of the JSON

clones the repository at ``--rev`` (default ``HEAD``) into a new folder, points the
compiled-engine cache at a new empty folder (``UNO_ENV_CACHE_DIR``: a cold compile, as on a
new machine; pip's download cache stays as it is) and runs each ``make`` target there,
reading its output line by line as it comes: each command ``make`` echoes starts a phase
(install, compile, the study; ruff, mypy, the docs build, the tests, ...), and the pytest
summaries give the test counts. The machine's load average is sampled every 5 s during the
run. Then the README's quick start runs in the clone's ``.venv``, once with an empty cache
(cold) and once again (warm). Everything goes to ``benchmarks/setup_timings.json``;
:func:`markdown_table` renders it, and the README and the getting-started page hold that
table between ``<!-- setup-timings -->`` markers (``--write`` puts it there; a test keeps
all three equal). A tool run on demand, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "setup_timings.json"
PAGES = (REPO / "README.md", REPO / "docs" / "getting-started.md")
BEGIN = "<!-- setup-timings: written by python benchmarks/setup_timings.py --write; do not edit -->"
END = "<!-- /setup-timings -->"

PHASES: dict[str, tuple[tuple[str, str], ...]] = {
    "demo": (
        (r"^\S*python\S* -m venv ", "`.venv` and the `study` extra"),
        (r"^\.venv/bin/pip install", "`.venv` and the `study` extra"),
        (r"^\.venv/bin/uno-env compile", "compiling the batch simulator and play styles (once per install)"),
        (r"^\.venv/bin/uno-env study", "the default study, 2,683,200 games on 2 workers"),
    ),
    "test": (
        (r"^\S*python\S* -m venv ", "`.venv` with every extra"),
        (r"^\.venv/bin/pip install", "`.venv` with every extra"),
        (r"^\.venv/bin/uno-env compile", "compiling every part of the engine"),
        (r"^\.venv/bin/ruff ", "ruff"),
        (r"^\.venv/bin/mypy", "mypy"),
        (r"^(\w+=\S* )*\.venv/bin/mkdocs build", "the docs build"),
        (r"^\.venv/bin/pytest -n 2 ", "the tests on 2 workers"),
        (r"^NUMBA_DISABLE_JIT=1 ", "the rule scenarios uncompiled"),
        (r"^\.venv/bin/pytest .*--nbmake", "the notebooks"),
    ),
}
"""Per target: (a regular expression matching the command ``make`` echoes, the phase's name).
A phase lasts from its first command to the next phase's first command. The expressions are
anchored at the start of the line: the commands' own output (pip's warnings name packages such
as ``mypy`` and ``ruff``) starts no phase."""

QUICK_START = """
import random
import uno_env
game = uno_env.Game("uno", num_players=4, seed=7)
print(game.position())
game.step(game.legal_actions()[0])
chooser = random.Random(0)
while not game.is_over():
    game.step(chooser.choice(game.legal_actions()))
house = uno_env.load_rules("uno", stacking=("D2/D2", "WD4/WD4"), seven_swap=True)
result = uno_env.simulate(house, num_players=4, num_games=10_000, seed=0, policies="greedy")
print(result.summary())
"""
"""The README's quick start (its printing trimmed): what a new user runs first."""


class LoadSampler:
    """The 1-minute load average every ``every`` seconds while it runs (from ``/proc/loadavg``)."""

    def __init__(self, every: float = 5.0) -> None:
        self.every = every
        self.samples: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._done.wait(self.every):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def summary(self) -> dict[str, float]:
        """Lowest, mean and highest 1-minute load average seen."""
        values = self.samples or [os.getloadavg()[0]]
        return {"min": min(values), "mean": sum(values) / len(values), "max": max(values)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_target(clone: Path, target: str, env: dict[str, str], log: Path) -> dict[str, Any]:
    """``make TARGET`` in ``clone``: wall and CPU seconds, phases, test counts, load, exit code."""
    patterns = [(re.compile(p), name) for p, name in PHASES[target]]
    marks: list[tuple[str, float]] = []
    tests: list[str] = []
    cpu = _children_cpu()
    start = time.perf_counter()
    with LoadSampler() as load, log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            ["make", target],
            cwd=clone,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        assert process.stdout is not None
        for line in process.stdout:
            now = time.perf_counter() - start
            out.write(f"{now:8.1f} {line}")
            out.flush()
            text = line.rstrip("\n")
            for pattern, name in patterns:
                if pattern.search(text) and name not in (m[0] for m in marks):
                    marks.append((name, now))
            if re.search(r"\d+ passed", text):
                tests.append(text.strip("= ").strip())
        code = process.wait()
    seconds = time.perf_counter() - start
    phases = []
    for k, (name, began) in enumerate(marks):
        ended = marks[k + 1][1] if k + 1 < len(marks) else seconds
        phases.append({"name": name, "seconds": round(ended - began, 1)})
    return {
        "target": target,
        "exit": code,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(_children_cpu() - cpu, 1),
        "phases": phases,
        "tests": tests,
        "load": {k: round(v, 1) for k, v in load.summary().items()},
    }


def time_quick_start(python: Path, cache: Path) -> float:
    """Wall seconds of the quick start in a fresh process with the cache folder ``cache``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_"))}
    env["UNO_ENV_CACHE_DIR"] = str(cache)
    start = time.perf_counter()
    subprocess.run([str(python), "-c", QUICK_START], env=env, check=True, capture_output=True, cwd=cache)
    return round(time.perf_counter() - start, 1)


def measure(rev: str, targets: Sequence[str], work: Path) -> dict[str, Any]:
    """Clone ``rev`` into ``work`` and time each target, then the quick start."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    clone = work / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "checkout", "--quiet", commit], cwd=clone, check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_", "VIRTUAL_ENV"))}
    env["UNO_ENV_CACHE_DIR"] = str(work / "cache")  # empty: the engine compiles, as on a new machine
    before = [round(x, 1) for x in os.getloadavg()]
    runs = []
    for target in targets:
        print(
            f"make {target} in {clone} (log: {work / f'make-{target}.log'}) ...", file=sys.stderr, flush=True
        )
        runs.append(run_target(clone, target, env, work / f"make-{target}.log"))
        print(f"make {target}: {runs[-1]['seconds']} s, exit {runs[-1]['exit']}", file=sys.stderr, flush=True)
    quick: dict[str, float] = {}
    python = clone / ".venv" / "bin" / "python"
    if python.exists():
        cache = work / "quick-start-cache"
        cache.mkdir()
        quick = {"cold": time_quick_start(python, cache), "warm": time_quick_start(python, cache)}
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "nice": os.getpriority(os.PRIO_PROCESS, 0),
        },
        "load_before": before,
        "runs": runs,
        "quick_start": quick,
    }


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _load(load: dict[str, float]) -> str:
    return f"load average {load['min']:.0f}-{load['max']:.0f} (mean {load['mean']:.0f})"


def markdown_table(data: dict[str, Any]) -> str:
    """The README's timings table of one measurement."""
    cpus = data["machine"]["cpus"]
    nice = data["machine"].get("nice", 0)
    niced = f" (run at nice {nice}, behind the other jobs)" if nice else ""
    lines = [
        f"From a fresh clone of `{data['commit']}` on {data['date']}{niced}, {cpus} cores shared with other "
        f"jobs (the load average over the run is given: above {cpus} the machine was busy and wall times "
        "stretch); pip's download cache warm, the compiled-engine cache empty (`UNO_ENV_CACHE_DIR` "
        "pointed at a new folder), so the engine compiles. Made by "
        "`python benchmarks/setup_timings.py` (`benchmarks/setup_timings.json`):",
        "",
        "| command | wall time | of which | machine |",
        "| --- | --- | --- | --- |",
    ]
    for run in data["runs"]:
        parts = [f"{p['name']} {_duration(p['seconds'])}" for p in run["phases"]]
        tests = "; ".join(t for t in run["tests"])
        detail = ", ".join(parts) + (f" ({tests})" if tests else "")
        status = "" if run["exit"] == 0 else f" (exit {run['exit']})"
        wall = f"{_duration(run['seconds'])}{status} ({run['cpu_seconds']:,.0f} s of CPU)"
        lines.append(f"| `make {run['target']}` | {wall} | {detail} | {_load(run['load'])} |")
    quick = data.get("quick_start") or {}
    if quick:
        lines.append(
            f"| the quick start, cold (compiles the per-step game and the batch simulator) | "
            f"{_duration(quick['cold'])} | | right after `make {data['runs'][-1]['target']}` |"
        )
        lines.append(f"| the quick start, warm | {quick['warm']} s | | |")
    return "\n".join(lines) + "\n"


def quoted(text: str, page: Path) -> str:
    """The table between the markers of ``page``."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"{page} has no {BEGIN} ... {END} block")
    return text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip("\n") + "\n"


def write_pages(table: str, pages: Sequence[Path] = PAGES) -> None:
    """Put ``table`` between the markers of every page."""
    for page in pages:
        text = page.read_text(encoding="utf-8")
        quoted(text, page)
        head, tail = text[: text.index(BEGIN) + len(BEGIN)], text[text.index(END) :]
        page.write_text(f"{head}\n{table}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="HEAD", help="the revision to clone (default: HEAD)")
    parser.add_argument("--targets", nargs="+", default=["demo", "test"], choices=sorted(PHASES))
    parser.add_argument(
        "--work", type=Path, default=None, help="folder of the clone and logs (default: a new one)"
    )
    parser.add_argument("--table", action="store_true", help="print the table of the stored JSON and stop")
    parser.add_argument(
        "--write", action="store_true", help="write the table into the README and getting-started"
    )
    args = parser.parse_args()
    if not args.table:
        work = args.work or Path(tempfile.mkdtemp(prefix="uno_env-setup-"))
        data = measure(args.rev, args.targets, work)
        RESULTS.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {RESULTS}", file=sys.stderr)
    table = markdown_table(json.loads(RESULTS.read_text(encoding="utf-8")))
    if args.write:
        write_pages(table)
    print(table, end="")


if __name__ == "__main__":
    main()

"""Cold-start table: seconds from a fresh process to the first step, with an empty and a warm cache.

Every row runs in a fresh subprocess with its own compiled-code cache directory
(``UNO_ENV_CACHE_DIR``): first empty (*cold*: everything compiles), then again with the
cache the cold run left (*warm*: the compiled code is loaded). A row has phases timed one
after the other in the same process (``then ...``); the ``study`` row times the whole
``uno-env study --games 1400`` command. Each cell shows wall seconds and, in brackets, the
CPU seconds of the process and its children: on a busy machine the wall time stretches
with the load while the CPU time stays near what a quiet machine takes.

Installations to compare (columns), each a Python interpreter with ``uno_env`` installed:

- ``--python PATH``: an existing environment (e.g. ``/work/main/.venv/bin/python``);
- ``--install REF``: the git revision ``REF`` built into a wheel and installed, with the
  ``study`` extra, into a new virtual environment (kept under ``--venv-root``, one per
  commit, so a second run reuses it). This is what a user's first ``pip install`` gets:
  since the wheel carries the compiled engine (``setup.py``), the wheel's build compiles
  it, and its time is printed under the table;
- ``--install-plain REF``: the same, built with ``UNO_ENV_BUNDLE=0`` (no compiled engine in
  the wheel), which is what an editable or source-tree install, or a platform the wheel's
  code does not fit, gets: the first use compiles.

One command for before and after::

    python benchmarks/cold_start.py --install main --install HEAD
    python benchmarks/cold_start.py --python .venv/bin/python --rows game   # quick look
    python benchmarks/cold_start.py --python .venv/bin/python --profile game

``--profile ROW`` runs the row's phases once, cold, in this interpreter's environment and
prints where the compile time went: per compiled function, its compilations
(specialisations) and the seconds spent compiling it, its callees included and excluded
(numba's ``numba:compile`` events). Progress goes to stderr, the Markdown to stdout. This
is a tool run on demand, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Phase:
    """One timed piece of a row: a label and the Python code it runs."""

    label: str
    code: str


@dataclass(frozen=True)
class Row:
    """Phases run in order in one fresh process, or one shell command (``command``)."""

    name: str
    phases: tuple[Phase, ...] = ()
    command: tuple[str, ...] = ()
    label: str = ""


ROWS: dict[str, Row] = {
    "game": Row(
        "game",
        (
            Phase(
                '`import uno_env; Game("uno", 2, seed=0).step(...)`',
                "import uno_env\ngame = uno_env.Game('uno', 2, seed=0)\ngame.step(game.legal_actions()[0])\n",
            ),
            Phase('then `uno_env.simulate("uno", 2, 10)`', "uno_env.simulate('uno', 2, 10)\n"),
        ),
    ),
    "vector": Row(
        "vector",
        (
            Phase(
                '`VectorEnv(8, "uno", 2)`: reset + one step',
                "import numpy as np\n"
                "import uno_env\n"
                "venv = uno_env.VectorEnv(8, 'uno', 2)\n"
                "obs, info = venv.reset(seed=0)\n"
                "venv.step(np.argmax(info['action_mask'], axis=1))\n",
            ),
            Phase(
                "then the AEC env's first step",
                "aec = uno_env.env('uno', 2)\n"
                "aec.reset(seed=0)\n"
                "mask = aec.observe(aec.agent_selection)['action_mask']\n"
                "aec.step(int(np.argmax(mask)))\n",
            ),
        ),
    ),
    "study": Row(
        "study",
        command=("uno-env", "study", "--games", "1400", "--quiet", "--out", "{tmp}/study"),
        label="`uno-env study --games 1400` (whole command)",
    ),
}

_CHILD = """
import json, sys, time
_times = []
for _code in json.loads(sys.argv[1]):
    _wall, _cpu = time.perf_counter(), time.process_time()
    exec(compile(_code, "<phase>", "exec"))
    _times.append((time.perf_counter() - _wall, time.process_time() - _cpu))
print("COLD_START_TIMES " + json.dumps(_times))
"""


def _without_overrides() -> dict[str, str]:
    """This process's environment without numba's and uno_env's settings."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_"))}


def _clean_env(cache: Path) -> dict[str, str]:
    env = _without_overrides()
    env["UNO_ENV_CACHE_DIR"] = str(cache)
    return env


def run_row(python: Path, row: Row, cache: Path, scratch: Path) -> list[tuple[float, float]]:
    """(wall, cpu) seconds per phase of ``row`` in a fresh process of ``python``, cache in ``cache``."""
    env = _clean_env(cache)
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    if row.command:
        argv = [part.format(tmp=scratch) for part in row.command]
        argv[0] = str(python.parent / argv[0])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, cwd=scratch, env=env, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return [(wall, cpu)]
    codes = json.dumps([phase.code for phase in row.phases])
    # cwd: an empty folder, so a source checkout never shadows the installed package
    done = subprocess.run(
        [str(python), "-c", _CHILD, codes], cwd=scratch, env=env, check=True, capture_output=True, text=True
    )
    for line in done.stdout.splitlines():
        if line.startswith("COLD_START_TIMES "):
            return [tuple(t) for t in json.loads(line.split(" ", 1)[1])]
    raise RuntimeError(f"row {row.name} printed no times:\n{done.stdout}\n{done.stderr}")


BUILDS: list[str] = []
"""One line per wheel built in this run: its revision and the wall seconds the build took."""


def install(ref: str, root: Path, plain: bool = False) -> tuple[str, Path]:
    """A new virtual environment with the wheel of git revision ``ref`` (and the study extra).

    ``plain`` builds the wheel without the compiled engine (``UNO_ENV_BUNDLE=0``).
    """
    sha = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short=10", ref], check=True, capture_output=True, text=True
    ).stdout.strip()
    label = f"{ref} ({sha}{', plain wheel' if plain else ''})"
    venv = root / (f"{sha}-plain" if plain else sha)
    python = venv / "bin" / "python"
    if (venv / ".installed").exists():
        return label, python
    shutil.rmtree(venv, ignore_errors=True)
    with tempfile.TemporaryDirectory() as source:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", source], input=archive.stdout, check=True)
        print(f"building {label} into {venv}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        wheels = Path(source) / "dist"
        pip = [str(python), "-m", "pip", "--quiet"]
        env = _without_overrides()
        if plain:
            env["UNO_ENV_BUNDLE"] = "0"
        start = time.perf_counter()
        subprocess.run([*pip, "wheel", "--no-deps", "-w", str(wheels), source], check=True, env=env)
        BUILDS.append(f"{label}: wheel built in {time.perf_counter() - start:.0f} s")
        wheel = next(wheels.glob("*.whl"))
        subprocess.run([*pip, "install", f"{wheel}[study]"], check=True)
    (venv / ".installed").touch()
    return label, python


def _cell(times: tuple[float, float] | None) -> str:
    if times is None:
        return "–"
    wall, cpu = times
    return f"{wall:.1f} s ({cpu:.1f})"


def table(installs: list[tuple[str, Path]], rows: list[Row], repeat: int) -> str:
    """Run every row cold then warm for every installation; the Markdown table."""
    results: dict[tuple[int, str, int], tuple[tuple[float, float] | None, tuple[float, float] | None]] = {}
    for k, (label, python) in enumerate(installs):
        for row in rows:
            for attempt in range(repeat):
                with tempfile.TemporaryDirectory(prefix="uno_env_cold_") as tmp:
                    scratch = Path(tmp)
                    cache = scratch / "cache"
                    print(f"{label}: {row.name} cold (run {attempt + 1})", file=sys.stderr, flush=True)
                    cold = run_row(python, row, cache, scratch)
                    shutil.rmtree(scratch / "study", ignore_errors=True)
                    print(f"{label}: {row.name} warm", file=sys.stderr, flush=True)
                    warm = run_row(python, row, cache, scratch)
                for p, (c, w) in enumerate(zip(cold, warm, strict=True)):
                    key = (k, row.name, p)
                    best = results.get(key)
                    # the least of the repeats: the run the machine disturbed least
                    if best is None or best[0] is None or c[1] < best[0][1]:
                        results[key] = (c, w)
    header = "| first use |" + "".join(f" {label} cold | {label} warm |" for label, _ in installs)
    lines = [header, "| --- |" + " ---: | ---: |" * len(installs)]
    for row in rows:
        labels = [row.label] if row.command else [phase.label for phase in row.phases]
        for p, text in enumerate(labels):
            cells = "".join(
                f" {_cell(results[(k, row.name, p)][0])} | {_cell(results[(k, row.name, p)][1])} |"
                for k in range(len(installs))
            )
            lines.append(f"| {text} |{cells}")
    return "\n".join(lines)


def _time_stages() -> dict[str, float]:
    """CPU seconds per stage of numba's compiling from now on, each stage without the stages
    nested in it: numba's passes (typing, lowering, ...; a callee's compilation nests in its
    caller's typing) and, inside lowering, LLVM's function passes, module passes (run on a
    function's module with every callee linked in) and machine-code generation."""
    from numba.core import codegen, event

    totals: dict[str, float] = {}
    stack: list[list[float]] = []

    def enter() -> None:
        stack.append([time.process_time(), 0.0])

    def leave(stage: str) -> None:
        start, nested = stack.pop()
        took = time.process_time() - start
        if stack:
            stack[-1][1] += took
        totals[stage] = totals.get(stage, 0.0) + took - nested

    class Passes(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            enter()

        def on_end(self, ev: event.Event) -> None:
            leave(f"numba pass {ev.data['name'].split(' ')[0]}")

    event.register("numba:run_pass", Passes())

    def timed(cls: type, method: str, stage: str) -> None:
        original = getattr(cls, method)

        def wrapper(self: object, *args: object, **kwargs: object) -> object:
            enter()
            try:
                return original(self, *args, **kwargs)
            finally:
                leave(stage)

        setattr(cls, method, wrapper)

    timed(codegen.CPUCodeLibrary, "_optimize_functions", "LLVM function passes")
    timed(codegen.CPUCodeLibrary, "_optimize_final_module", "LLVM module passes (callees linked in)")
    timed(codegen.JITCodeLibrary, "_finalize_specific", "LLVM machine code")
    return totals


def profile(row: Row) -> str:
    """Compile ``row``'s phases cold in this process; per function, what the compilation cost."""
    if row.command:
        raise SystemExit(f"--profile takes a row of Python phases, not {row.name}")
    os.environ["UNO_ENV_CACHE_DIR"] = tempfile.mkdtemp(prefix="uno_env_profile_")
    from numba.core import event

    spans: list[tuple[str, str, float, float]] = []  # name, signature, inclusive, exclusive
    stack: list[list[float]] = []

    class Recorder(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            stack.append([time.process_time(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            start, children = stack.pop()
            took = time.process_time() - start
            if stack:
                stack[-1][1] += took
            func = ev.data["dispatcher"].py_func
            spans.append(
                (f"{func.__module__}.{func.__qualname__}", str(ev.data["args"]), took, took - children)
            )

    event.register("numba:compile", Recorder())
    stages = _time_stages()
    namespace: dict[str, object] = {}
    lines = []
    for phase in row.phases:
        start = time.process_time()
        exec(compile(textwrap.dedent(phase.code), "<phase>", "exec"), namespace)
        lines.append(f"{phase.label}: {time.process_time() - start:.1f} CPU s")
    per_function: dict[str, list[float]] = {}
    signatures: dict[str, set[str]] = {}
    for name, signature, inclusive, exclusive in spans:
        entry = per_function.setdefault(name, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += inclusive
        entry[2] += exclusive
        signatures.setdefault(name, set()).add(signature)
    total = sum(e[2] for e in per_function.values())
    lines += [
        f"{len(per_function)} functions, {len(spans)} compilations, {total:.1f} CPU s compiling",
        "",
        "| function | compilations | CPU s (own) | CPU s (with callees) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, (count, inclusive, exclusive) in sorted(per_function.items(), key=lambda x: -x[1][2])[:40]:
        lines.append(f"| `{name}` | {count:.0f} | {exclusive:.2f} | {inclusive:.2f} |")
    lines += ["", "| stage of compiling | CPU s |", "| --- | ---: |"]
    for stage, seconds in sorted(stages.items(), key=lambda x: -x[1]):
        if seconds >= 0.05:
            lines.append(f"| {stage} | {seconds:.2f} |")
    repeated = {name: sigs for name, sigs in signatures.items() if len(sigs) > 1}
    if repeated:
        lines += ["", "Functions compiled for more than one signature:"]
        for name, sigs in sorted(repeated.items()):
            lines.append(f"- `{name}`: " + "; ".join(sorted(sigs)))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", type=Path, action="append", default=[], help="an installed environment")
    parser.add_argument(
        "--install", action="append", default=[], metavar="REF", help="git revision to build and install"
    )
    parser.add_argument(
        "--install-plain",
        action="append",
        default=[],
        metavar="REF",
        help="git revision to build without the compiled engine in the wheel and install",
    )
    parser.add_argument(
        "--venv-root",
        type=Path,
        default=Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "uno_env-cold-start",
        help="where --install keeps its environments",
    )
    parser.add_argument("--rows", nargs="+", choices=sorted(ROWS), default=list(ROWS))
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell; the table keeps the least CPU")
    parser.add_argument("--profile", choices=sorted(ROWS), help="where one row's compile time goes")
    args = parser.parse_args()
    if args.profile:
        print(profile(ROWS[args.profile]))
        return
    # absolute, not resolved: the rows run from a scratch folder, and a venv's python is a symlink
    installs = [(str(p), p.absolute()) for p in args.python]
    installs += [install(ref, args.venv_root) for ref in args.install]
    installs += [install(ref, args.venv_root, plain=True) for ref in args.install_plain]
    if not installs:
        installs = [("this", Path(sys.executable))]
    print(table(installs, [ROWS[name] for name in args.rows], args.repeat))
    print("\nwall seconds (CPU seconds of the process and its children); cold: empty cache directory")
    for line in BUILDS:
        print(f"\n{line}")


if __name__ == "__main__":
    main()

"""Every code example of the README and the documentation pages runs as written (with tiny sizes).

The README and the pages under ``docs/`` (in the order of the site's navigation,
``mkdocs.yml``) mark each ``python``, ``bash`` and ``toml`` block with an HTML comment on the
line before it, ``readme-test`` in the README and ``doc-test`` in the pages:

- ``<!-- readme-test -->``: run it. A Python block runs in a fresh namespace, from a
  temporary working directory; a ``bash`` block runs each ``uno-env`` and ``python`` command
  in it, in order, in one temporary directory shared by all the documents' commands (so
  ``--record games.jsonl`` feeds the ``replay games.jsonl`` below it, and a training run the
  evaluations of its checkpoint).
- ``<!-- readme-test: continues -->``: a Python block that runs in the namespace of the
  previous Python block of the same document (it uses the ``game`` or ``model`` made there).
- ``<!-- readme-test: file NAME -->``: a TOML or Python block that the commands (and the
  document's Python examples) read as ``NAME``.
- ``<!-- readme-test: output -->``: a ``text`` block that must equal what the Python block
  before it prints (its expected output, as in a doctest).
- ``<!-- readme-test: skip REASON -->``: not run, for the reason given (a cluster address).
- ``<!-- doc-test: cluster -->``: commands for a Ray cluster (``ray start`` on every node);
  ``tests/test_cluster.py`` runs them on a loopback cluster.

Commands keep their options (the few of :data:`SKIPPED_COMMANDS` do not run); sizes shrink
(:data:`TINY`: games, steps, evaluation sizes), paths of runs the documents name by their time
(``runs/uno__ppo__0__<time>``) resolve to the
run an earlier command made, and interactive commands read canned answers. A block
without a marker fails the test, so no new example goes untested.
"""

from __future__ import annotations

import io
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from training.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MARKER = re.compile(r"^<!--\s*(?:readme|doc)-test(?::\s*(?P<how>.*?))?\s*-->$")
FENCE = re.compile(r"^```(?P<lang>\w*)\s*$")

TINY: list[tuple[str, str]] = [
    (r"--games \d[\d_]*", "--games 8"),
    (r"--steps \d[\d_]*", "--steps 64"),
    (r"--eval-every \d[\d_]*", "--eval-every 64"),
    (r"--eval-games \d[\d_]*", "--eval-games 8"),
    (r"--record-games \d+", "--record-games 2"),
    (r"--rounds \d+", "--rounds 1"),
    (r"--deals \d[\d_]*", "--deals 8"),
    (r"--eval-deals \d[\d_]*", "--eval-deals 8"),
    (r"--eval-search-deals \d[\d_]*", "--eval-search-deals 2"),
    (r"search:sims=\d+", "search:sims=20"),
]
"""Option values made tiny in every command (regular expression, replacement)."""

TRAIN_TINY = {
    "--steps": "64",
    "--eval-every": "64",
    "--eval-games": "8",
    "--num-envs": "4",
    "--n-steps": "16",
    "--batch-size": "32",
    "--n-epochs": "1",
    "--snapshot-every": "32",
}
"""Options ``train`` gets where the command does not set them (a 64-step run takes seconds)."""

EXAMPLE_TINY = {
    "--steps": "256",
    "--envs": "2",
    "--n-steps": "64",
    "--batch-size": "32",
    "--eval-games": "4",
    "--max-decisions": "300",
}
"""Options the example scripts get where the command does not set them."""

SKIPPED_COMMANDS = {"--ray-address auto": "needs a running Ray cluster"}
"""Commands that cannot run here (a part of the command line, why)."""

PYTHON_TINY = [
    (
        'MaskablePPO("MlpPolicy", env, seed=0)',
        'MaskablePPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32, n_epochs=1)',
    ),
    ("learn(50_000)", "learn(64)"),
    ("100_000", "1_000"),
]
"""Sizes of the Python examples made tiny (text, replacement)."""


@dataclass(frozen=True)
class Block:
    """A fenced code block of the README and the marker before it."""

    lang: str
    code: str
    line: int
    marker: str | None  # None: no marker; "": run; else the text after "readme-test:"
    path: str = "README.md"

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def documents() -> list[Path]:
    """The README, then the site's pages in navigation order (``mkdocs.yml``)."""
    nav = re.findall(r"^\s*-\s*(?:[^:\n]+:\s*)?([\w/.-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M)
    return [README] + [ROOT / "docs" / page for page in nav]


def readme_blocks(text: str | None = None, path: Path = README) -> list[Block]:
    """A document's fenced blocks, in order, each with its marker."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    name = path.relative_to(ROOT).as_posix()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        previous = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        found = MARKER.match(previous.strip())
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marker = None if found is None else (found.group("how") or "")
        code = "\n".join(lines[i + 1 : end]) + "\n"
        blocks.append(Block(fence.group("lang"), code, i + 1, marker, name))
        i = end + 1
    return blocks


BLOCKS = [block for path in documents() for block in readme_blocks(path=path)]
TESTED = [b for b in BLOCKS if b.lang in ("python", "bash", "toml")]


def test_every_document_is_read() -> None:
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    read = {p.relative_to(ROOT / "docs").as_posix() for p in documents()[1:]}
    assert pages == read, f"pages outside the site's navigation: {sorted(pages - read)}"
    assert len({b.path for b in TESTED}) >= 10


def test_every_example_block_is_marked() -> None:
    unmarked = [f"{b.where} ({b.lang})" for b in TESTED if b.marker is None]
    assert not unmarked, f"blocks without a readme-test / doc-test marker: {unmarked}"
    for block in TESTED:
        allowed = block.marker in ("", "continues", "cluster")
        assert allowed or block.marker.startswith(("file ", "skip ")), block
    for block in BLOCKS:
        if block.marker == "output":
            previous = BLOCKS[BLOCKS.index(block) - 1]
            assert previous.lang == "python" and previous.marker in ("", "continues"), block


def test_the_parser_finds_markers() -> None:
    text = "<!-- readme-test: continues -->\n```python\nx = 1\n```\n\n```bash\nls\n```\n"
    assert readme_blocks(text) == [Block("python", "x = 1\n", 2, "continues"), Block("bash", "ls\n", 6, None)]
    assert readme_blocks("<!-- doc-test: output -->\n```text\n1\n```\n")[0].marker == "output"


# ---------------------------------------------------------------- Python
def python_runs() -> Iterator[list[Block]]:
    """Runs of Python blocks sharing a namespace (a block and the ``continues`` after it)."""
    run: list[Block] = []
    for block in TESTED:
        if block.lang != "python" or (block.marker or "").startswith(("skip", "file ")):
            continue
        if block.marker == "continues" and run and run[-1].path == block.path:
            run.append(block)
            continue
        if run:
            yield run
        run = [block]
    if run:
        yield run


def expected_output(block: Block) -> str | None:
    """The ``output`` block right after ``block``, if any."""
    after = BLOCKS[BLOCKS.index(block) + 1 :]
    return after[0].code if after and after[0].marker == "output" else None


@pytest.mark.parametrize("blocks", list(python_runs()), ids=lambda run: run[0].where)
def test_python_example(
    blocks: list[Block], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if any("sb3_contrib" in b.code or "MaskablePPO" in b.code for b in blocks):
        pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    for block in TESTED:  # the document's files (my_agent.py), importable from the examples
        if (
            block.path == blocks[0].path
            and block.lang == "python"
            and (block.marker or "").startswith("file ")
        ):
            name = block.marker.split(maxsplit=1)[1]
            (tmp_path / name).write_text(block.code, encoding="utf-8")
            monkeypatch.syspath_prepend(str(tmp_path))
            monkeypatch.delitem(sys.modules, Path(name).stem, raising=False)
    namespace: dict[str, Any] = {"__name__": "readme"}
    for block in blocks:
        code = block.code
        for text, tiny in PYTHON_TINY:
            code = code.replace(text, tiny)
        capsys.readouterr()
        exec(compile(code, block.where, "exec"), namespace)
        expected = expected_output(block)
        if expected is not None:
            assert capsys.readouterr().out == expected, f"{block.where} prints other output"


# ---------------------------------------------------------------- commands
def commands(block: Block) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments (on their own line or
    after two spaces) dropped."""
    out: list[str] = []
    pending = ""
    for raw in block.code.splitlines():
        if raw.lstrip().startswith("#"):
            continue
        line = pending + raw.split("  #")[0].rstrip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if line.strip():
            out.append(" ".join(line.split()))
    return out


def tiny(command: str) -> str:
    for pattern, replacement in TINY:
        command = re.sub(pattern, replacement, command)
    extra: dict[str, str] = {}
    if command.startswith("uno-env train") and "--resume" not in command:
        extra = {**TRAIN_TINY, "--no-progress": ""}
    elif command.startswith("python examples/"):
        extra = EXAMPLE_TINY
    elif command.startswith("uno-env study") and "--resume" not in command:
        extra = {"--games": "8"}  # the default spec and my_spec.toml set thousands per cell
    for flag, value in extra.items():
        if flag not in command:
            command += f" {flag} {value}".rstrip()
    return command


def resolve_run_paths(argv: list[str], cwd: Path) -> list[str]:
    """``runs/<name>__<time>/...`` -> the run an earlier command made with that name (a path
    no earlier command made is left as it is: an output)."""

    def resolve(path: str) -> str:
        if not path.startswith("runs/") or (cwd / path).exists():
            return path
        name, _, rest = path[len("runs/") :].partition("/")
        stem = re.sub(r"(<[^>]*>|\d{8}-\d{6})$", "", name)
        runs = sorted(p for p in (cwd / "runs").glob("*") if p.is_dir())
        named = [p for p in runs if p.name.startswith(stem)]  # an output inside it need not exist yet
        match = [p for p in named if rest and (p / rest).exists()] or named
        match = match or [p for p in runs if rest and (p / rest).exists()]
        if not match:
            return path  # an output the command makes (--out runs/my_tournament)
        return f"runs/{match[-1].name}" + (f"/{rest}" if rest else "")

    return [",".join(resolve(part) for part in arg.split(",")) for arg in argv]


def test_commands_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)
    for block in TESTED:
        if block.lang in ("toml", "python") and (block.marker or "").startswith("file "):
            (tmp_path / block.marker.split(maxsplit=1)[1]).write_text(block.code, encoding="utf-8")
    ran = 0
    for block in TESTED:
        if block.lang != "bash" or block.marker != "":
            continue
        for command in commands(block):
            if command.startswith(("make ", "source ")) or any(part in command for part in SKIPPED_COMMANDS):
                continue
            argv = resolve_run_paths(shlex.split(tiny(command)), tmp_path)
            where = f"{block.where}: {command}"
            monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 5000))
            if argv[0] == "uno-env":
                code = main(argv[1:])
            elif argv[:2] == ["python", "-m"] or argv[0] == "python":
                code = run_python(argv[1:], monkeypatch)
            else:
                raise AssertionError(f"{where}: only uno-env and python commands can be tested")
            out = capsys.readouterr()
            assert code == 0, f"{where}\nexit {code}\n{out.err[-3000:]}"
            ran += 1
    assert ran >= 10


def run_python(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """``python -m module ...`` or ``python script.py ...`` in this process."""
    import runpy

    if argv[0] == "-m":
        monkeypatch.setattr(sys, "argv", [argv[1], *argv[2:]])
        target, run = argv[1], runpy.run_module
    else:
        monkeypatch.setattr(sys, "argv", argv)
        target, run = str(ROOT / argv[0]), runpy.run_path
    try:
        run(target, run_name="__main__")
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0

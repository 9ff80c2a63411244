"""Every command checks its optional packages before it starts work.

Each case runs ``uno-env`` in a child process whose import system hides some modules (a
meta-path finder that refuses them, as if the extra were not installed): the command must stop
with exit code 2 before any work (no run folder, no compile, no games), naming the missing
modules and the line to install them (``pip install 'uno-env[study]'``); a ``--resume`` says
that the work in its folder is kept and how to continue. The map of extras to modules is
checked against ``pyproject.toml``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from training.extras import EXTRA_MODULES, merge, require

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys

HIDDEN = set(sys.argv[1].split(","))


class Hide:
    '''Refuses the hidden modules, as when their package is not installed.'''

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Hide())
from training.cli import main

code = main(sys.argv[2:])
loaded = sorted(m for m in HIDDEN if m in sys.modules)
print("LOADED:" + ",".join(loaded), file=sys.stderr)
sys.exit(code)
"""


def run_hidden(hidden: tuple[str, ...], argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ENV_PROGRESS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", CHILD, ",".join(hidden), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


TRAIN = ("torch", "stable_baselines3", "sb3_contrib")
STUDY = ("pandas", "pyarrow", "matplotlib", "openskill")

CASES = [
    ("study", STUDY, ["study", "--games", "100", "--out", "out"], "study"),
    ("study-ray", ("ray",), ["study", "--games", "100", "--executor", "ray", "--out", "out"], "ray"),
    ("study-checkpoint", TRAIN, ["study", "policy.toml", "--out", "out"], "train"),
    ("tournament", ("openskill",), ["tournament", "--games", "10", "--out", "out"], "study"),
    (
        "tournament-checkpoint",
        TRAIN,
        ["tournament", "--agents", "greedy,runs/x/model.zip", "--games", "10", "--out", "out"],
        "train",
    ),
    ("evaluate", TRAIN, ["evaluate", "runs/x/model.zip", "--games", "10"], "train"),
    ("play", TRAIN, ["play", "--vs", "runs/x/model.zip", "--seed", "1"], "train"),
    ("replay", ("imageio", "imageio_ffmpeg"), ["replay", "games.jsonl", "--video", "out.mp4"], "video"),
    ("train", TRAIN, ["train", "--steps", "64", "--runs-dir", "out"], "train"),
    ("train-resume", TRAIN, ["train", "--resume", "out"], "train"),
    ("selfplay", TRAIN, ["selfplay", "--steps", "64"], "train"),
    ("sweep", TRAIN, ["sweep", "--out", "out"], "train"),
    ("sweep-report", ("pandas",), ["sweep", "--report", "out"], "study"),
    ("export", TRAIN, ["export", "runs/x/model.zip", "--out", "x.npz"], "train"),
    ("distill", ("torch",), ["distill", "--games", "10", "--out", "out"], "train"),
    ("expert", ("torch",), ["expert", "--out", "out"], "train"),
    ("serve", ("uvicorn",), ["serve", "--port", "0", "--records", "out/games.jsonl"], "web"),
    ("serve-checkpoint", TRAIN, ["serve", "--port", "0", "--agent", "me=runs/x/model.zip"], "train"),
]


@pytest.mark.parametrize(("hidden", "argv", "extra"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_without_its_extra_a_command_stops_before_any_work(
    hidden: tuple[str, ...], argv: list[str], extra: str, tmp_path: Path
) -> None:
    (tmp_path / "games.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "policy.toml").write_text(
        'name = "p"\nplayers = [2]\nstyles = ["greedy", "runs/x/model.zip"]\n', encoding="utf-8"
    )
    done = run_hidden(hidden, argv, tmp_path)
    assert done.returncode == 2, done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"uno-env: error: uno-env {argv[0]} needs "), first
    assert f"pip install 'uno-env[{extra}]'" in first
    assert f".venv/bin/pip install -e '.[{extra}]'" in first
    assert "Nothing was run" in first
    # before any work: no run folder, no compile, no games, and no hidden module slipped in
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()
    assert "compil" not in done.stderr.lower() and "batches" not in done.stderr
    assert done.stderr.splitlines()[-1] == "LOADED:"
    assert done.stdout == ""


def test_a_resumed_study_says_its_work_is_kept(tmp_path: Path) -> None:
    from training.study import load_spec
    from training.study.run import write_spec

    folder = tmp_path / "runs" / "study__default__0__x"
    folder.mkdir(parents=True)
    write_spec(load_spec(None), folder)
    (folder / "batches").mkdir()
    kept = folder / "batches" / "uno__2p__field0__00000.json"
    kept.write_text("{}", encoding="utf-8")
    done = run_hidden(STUDY, ["study", "--resume", str(folder)], tmp_path)
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert f"the finished work in {folder} is kept" in first
    assert f"uno-env study --resume {folder}" in first
    assert kept.read_text() == "{}"


def test_long_jobs_say_where_work_is_kept_and_how_to_resume(tmp_path: Path) -> None:
    done = run_hidden(STUDY, ["study", "--games", "100", "--out", "out"], tmp_path)
    assert "uno-env study --resume DIR" in done.stderr.splitlines()[0]


def test_commands_without_extras_run_with_every_extra_hidden(tmp_path: Path) -> None:
    hidden = tuple(sorted({m for modules in EXTRA_MODULES.values() for m in modules}))
    done = run_hidden(hidden, ["rules", "--explain", "U-WD4-2"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("U-WD4-2: Bluffing a Wild Draw Four")


def test_the_extras_map_matches_pyproject() -> None:
    """Each module of an extra is installed by one of that extra's requirements (the dev
    environment has every extra), and every extra a command names exists in pyproject."""
    from importlib.metadata import packages_distributions

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    dists = packages_distributions()

    def name(requirement: str) -> str:
        return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")

    for extra, modules in EXTRA_MODULES.items():
        assert extra in extras, extra
        required = {name(r) for r in extras[extra]}
        for module in modules:
            providers = {d.lower().replace("_", "-") for d in dists.get(module, [])}
            assert providers & required, (
                f"{module} is not installed by the {extra} extra ({sorted(required)})"
            )


def test_require_passes_when_installed_and_refuses_unknown_names() -> None:
    require("x", merge({"study": ("pandas", "matplotlib")}, {"train": ("torch", "matplotlib")}))
    with pytest.raises(KeyError, match="not a module of the study extra"):
        require("x", {"study": ("torch",)})
    with pytest.raises(KeyError, match="unknown extra"):
        require("x", {"gpu": ("cuda",)})
    assert merge({"study": ("pandas",)}, {"study": ("pandas", "openskill")}) == {
        "study": ("pandas", "openskill")
    }


def test_getting_started_names_the_extras_make_installs() -> None:
    """docs/getting-started.md lists the extras ``make test`` installs, and names the one it
    leaves out; the Makefile's lists are the truth (the page once left out web and browser)."""
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    makefile = (ROOT / "Makefile").read_text()

    def installed(target: str) -> set[str]:
        found = re.search(rf"\.installed-{target}:.*\n.*pip install --quiet -e '\.\[([\w,]+)\]'", makefile)
        assert found, target
        return set(found[1].split(","))

    dev, bench = installed("dev"), installed("bench")
    assert dev | bench == extras
    page = " ".join((ROOT / "docs" / "getting-started.md").read_text().split())
    listed = re.search(r"`make test` every extra but `(\w+)` \(([^)]*)\)", page)
    assert listed, "getting-started.md no longer says which extras make test installs"
    assert {listed[1]} == bench
    named = set(re.findall(r"`(\w+)`", listed[2].split(";")[0]))
    assert named == dev, (sorted(named ^ dev), "differ between the page and the Makefile")

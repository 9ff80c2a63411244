"""Every command checks its optional packages before it starts work.

Each case runs ``uno-env`` with an import system that hides some modules (a meta-path finder
that refuses them, as if the extra were not installed): the command must stop with exit code 2
before any work (no run folder, no compile, no games), naming the missing modules and the line
to install them (``pip install 'uno-env[study]'``); a ``--resume`` says that the work in its
folder is kept and how to continue. The map of extras to modules is checked against
``pyproject.toml``, and the pages' words on missing packages against what happens: the extras
``make test`` installs, and the error a Python without the dependencies shows.

Hidden modules need a fresh process (this one may have imported them already). One child
process imports ``training.cli`` with every case's modules hidden, then forks once per case:
each fork hides only that case's modules, runs ``main(argv)`` in its own folder and exits, so
the modules a command imports are imported anew in each case, as in a process of its own.
"""

from __future__ import annotations

import dataclasses
import json
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
import json
import os
import signal
import sys
import traceback

CASES = json.loads(sys.argv[1])
HIDDEN = {module for case in CASES for module in case["hidden"]}
TRIED = []


class Hide:
    '''Refuses the hidden modules, as when their package is not installed.'''

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            TRIED.append(name)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Hide())
# imported once for every case, with the modules of all cases hidden: a hidden module this
# import asked for would leave state that depends on which modules are hidden
from training.cli import main

from tests.child_exit import exit_code

if TRIED:
    sys.exit(f"importing training.cli asked for the hidden modules {sorted(set(TRIED))}; "
             "the cases cannot share it: run each case in a process of its own")


def run_case(case):
    '''Run one case in this forked process and exit with the command's exit code.'''
    HIDDEN.clear()
    HIDDEN.update(case["hidden"])
    os.chdir(case["cwd"])
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, path in ((1, case["stdout"]), (2, case["stderr"])):
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(handle, fd)
        os.close(handle)
    signal.alarm(300)  # a hung command is killed; the test sees the signal as its exit code
    try:
        code = main(case["argv"])
        loaded = sorted(m for m in HIDDEN if m in sys.modules)
        print("LOADED:" + ",".join(loaded), file=sys.stderr)
        sys.exit(code)
    except SystemExit as stop:  # as the interpreter turns SystemExit into an exit code
        code = exit_code(stop)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


codes = {}
for case in CASES:
    pid = os.fork()
    if pid == 0:
        try:
            run_case(case)
        except BaseException:  # before the command ran (its folder, its output files)
            traceback.print_exc()
        os._exit(1)  # a fork never goes on with the loop
    codes[case["name"]] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(json.dumps(codes))
"""


@dataclasses.dataclass(frozen=True)
class HiddenRun:
    """What one case's ``uno-env`` run left: its exit code, its output and its folder."""

    returncode: int
    stdout: str
    stderr: str
    folder: Path


def run_hidden(cases: list[tuple[str, tuple[str, ...], list[str], Path]], logs: Path) -> dict[str, HiddenRun]:
    """Run each case ``(name, hidden modules, argv, folder)`` in turn in one child process (a
    fork per case, see the module docstring); each case's stdout and stderr go to ``logs``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ENV_PROGRESS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    spec = [
        {
            "name": name,
            "hidden": list(hidden),
            "argv": argv,
            "cwd": str(folder),
            "stdout": str(logs / f"{name}.stdout"),
            "stderr": str(logs / f"{name}.stderr"),
        }
        for name, hidden, argv, folder in cases
    ]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(spec)],
        cwd=logs,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    codes: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        name: HiddenRun(
            codes[name],
            (logs / f"{name}.stdout").read_text(encoding="utf-8"),
            (logs / f"{name}.stderr").read_text(encoding="utf-8"),
            folder,
        )
        for name, _, _, folder in cases
    }


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
RESUMED_STUDY = "study-resume"
"""The case of a study resumed from a folder with a finished batch, without the study extra."""
EVERY_EXTRA_HIDDEN = "rules-every-extra-hidden"
"""The case of a command that needs no extra, run with the modules of every extra hidden."""
STUDY_FOLDER = Path("runs") / "study__default__0__x"
KEPT_BATCH = STUDY_FOLDER / "batches" / "uno__2p__field0__00000.json"

ONE_WORKER_FOR_THE_HIDDEN_RUNS = pytest.mark.xdist_group("test_extras.hidden_runs")


@pytest.fixture(scope="module")
def hidden_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, HiddenRun]:
    """Every case of this file, run once in its own folder; the tests read their case by name."""
    from training.study import load_spec
    from training.study.run import write_spec

    cases = []
    for name, hidden, argv, _ in CASES:
        folder = tmp_path_factory.mktemp(name)
        (folder / "games.jsonl").write_text("", encoding="utf-8")
        (folder / "policy.toml").write_text(
            'name = "p"\nplayers = [2]\nstyles = ["greedy", "runs/x/model.zip"]\n', encoding="utf-8"
        )
        cases.append((name, hidden, argv, folder))
    folder = tmp_path_factory.mktemp(RESUMED_STUDY)
    study = folder / STUDY_FOLDER
    study.mkdir(parents=True)
    write_spec(load_spec(None), study)
    (study / "batches").mkdir()
    (folder / KEPT_BATCH).write_text("{}", encoding="utf-8")
    cases.append((RESUMED_STUDY, STUDY, ["study", "--resume", str(study)], folder))
    every_module = tuple(sorted({m for modules in EXTRA_MODULES.values() for m in modules}))
    cases.append(
        (
            EVERY_EXTRA_HIDDEN,
            every_module,
            ["rules", "--explain", "U-WD4-2"],
            tmp_path_factory.mktemp("rules"),
        )
    )
    return run_hidden(cases, tmp_path_factory.mktemp("logs"))


@ONE_WORKER_FOR_THE_HIDDEN_RUNS
@pytest.mark.parametrize(
    ("case", "argv", "extra"), [(c[0], *c[2:]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_without_its_extra_a_command_stops_before_any_work(
    case: str, argv: list[str], extra: str, hidden_runs: dict[str, HiddenRun]
) -> None:
    done = hidden_runs[case]
    assert done.returncode == 2, done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"uno-env: error: uno-env {argv[0]} needs "), first
    assert f"pip install 'uno-env[{extra}]'" in first
    assert f".venv/bin/pip install -e '.[{extra}]'" in first
    assert "Nothing was run" in first
    # before any work: no run folder, no compile, no games, and no hidden module slipped in
    assert not (done.folder / "out").exists() and not (done.folder / "runs").exists()
    assert "compil" not in done.stderr.lower() and "batches" not in done.stderr
    assert done.stderr.splitlines()[-1] == "LOADED:"
    assert done.stdout == ""


@ONE_WORKER_FOR_THE_HIDDEN_RUNS
def test_a_resumed_study_says_its_work_is_kept(hidden_runs: dict[str, HiddenRun]) -> None:
    done = hidden_runs[RESUMED_STUDY]
    folder = done.folder / STUDY_FOLDER
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert f"the finished work in {folder} is kept" in first
    assert f"uno-env study --resume {folder}" in first
    assert (done.folder / KEPT_BATCH).read_text() == "{}"


@ONE_WORKER_FOR_THE_HIDDEN_RUNS
def test_long_jobs_say_where_work_is_kept_and_how_to_resume(hidden_runs: dict[str, HiddenRun]) -> None:
    done = hidden_runs["study"]  # uno-env study --games 100 --out out, without the study extra
    assert "uno-env study --resume DIR" in done.stderr.splitlines()[0]


@ONE_WORKER_FOR_THE_HIDDEN_RUNS
def test_commands_without_extras_run_with_every_extra_hidden(hidden_runs: dict[str, HiddenRun]) -> None:
    done = hidden_runs[EVERY_EXTRA_HIDDEN]
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


def test_the_pages_quote_what_a_python_outside_the_venv_reports() -> None:
    """The README and the getting-started page quote the error of ``import uno_env`` in a
    Python without the package's dependencies (a system ``python`` outside ``.venv``): the
    first dependency the import asks for (they quoted gymnasium after numba came first)."""
    modules = {"numpy": "numpy", "numba": "numba", "gymnasium": "gymnasium", "pettingzoo": "pettingzoo"}
    modules |= {"tomli-w": "tomli_w", "pillow": "PIL"}
    requirements = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in requirements} == set(modules)
    child = (
        "import sys\n"
        f"HIDDEN = {sorted(modules.values())!r}\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in HIDDEN:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "try:\n"
        "    import uno_env\n"
        "except ModuleNotFoundError as error:\n"
        "    print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", child], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    error = done.stdout.strip()
    assert error.startswith("No module named '"), error
    for page in (ROOT / "README.md", ROOT / "docs" / "getting-started.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        assert f"does not see the dependencies: `{error}`" in text, (page.name, error)

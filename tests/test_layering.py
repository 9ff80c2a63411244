"""Layering: imports point one way (STYLE principle 1; docs/architecture.md).

``training -> agents -> uno_env (env) -> uno_env (encoding) -> uno_env (engine)``: importing
the engine, the facade, the batch simulator and the rule sets in a fresh interpreter must not
load PettingZoo, Gymnasium, Torch or Stable-Baselines3; and, read from the source, no module
of the engine layer imports from :mod:`uno_env.envs` (game records carry the env version from
:mod:`uno_env.versions`), and nothing above the envs (agents, training, examples) imports the
state layout (:mod:`uno_env.engine.layout`): they read a game through :class:`~uno_env.Game`
(:meth:`~uno_env.Game.decision`), :mod:`uno_env.engine.actions` and
:class:`~uno_env.styles.view.PublicView`. Version numbers are read from :mod:`uno_env.versions`
everywhere outside the env package, and the play-style registry from :mod:`uno_env.styles.registry`
(the simulator does not re-export it). That every option code has one source (the tables of
:mod:`uno_env.engine.options`) is tested in ``tests/test_options.py``.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
ENGINE_MODULES = (
    "uno_env.engine.engine",
    "uno_env.game.facade",
    "uno_env.sim.batch",
    "uno_env.engine.rules",
    "uno_env.game.position",
    "uno_env.engine.cards",
    "uno_env.engine.actions",
    "uno_env.engine.layout",
    "uno_env.engine.rng",
)
FORBIDDEN = ("pettingzoo", "gymnasium", "gym", "torch", "stable_baselines3", "sb3_contrib", "tensorboard")


def _loaded_after_import(modules: tuple[str, ...]) -> list[str]:
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(modules)!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    loaded: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return loaded


def test_engine_modules_do_not_import_the_rl_stack() -> None:
    loaded = _loaded_after_import(ENGINE_MODULES)
    assert "uno_env.engine.engine" in loaded and "uno_env.game.facade" in loaded
    offending = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert not offending, f"importing the engine layer loaded {offending}"


def test_the_probe_sees_what_it_looks_for() -> None:
    """The same probe does notice an RL library when one is imported (the test can fail)."""
    loaded = _loaded_after_import(("uno_env.engine.engine", "gymnasium"))
    assert "gymnasium" in loaded


def imported_modules(path: Path) -> set[str]:
    """The modules a source file imports (relative imports resolved, lazy ones included)."""
    package = ".".join(path.relative_to(REPO_ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def engine_layer_files() -> list[Path]:
    """Every module of ``uno_env`` outside the env package (the package's own ``__init__``
    registers the env ids on import and is left out)."""
    package = REPO_ROOT / "uno_env"
    return [
        p
        for p in sorted(package.rglob("*.py"))
        if p != package / "__init__.py" and p.relative_to(package).parts[0] != "envs"
    ]


def test_the_engine_layer_imports_nothing_from_the_envs() -> None:
    """No exemption: the observation encoder, which the learned seats of the simulator need,
    is a module of :mod:`uno_env.game`, not of the env package."""
    files = engine_layer_files()
    assert REPO_ROOT / "uno_env" / "sim" / "learned.py" in files
    offending = {
        str(p.relative_to(REPO_ROOT)): sorted(m for m in imported_modules(p) if m.startswith("uno_env.envs"))
        for p in files
    }
    assert {name: mods for name, mods in offending.items() if mods} == {}


def test_game_records_import_nothing_from_the_envs() -> None:
    """Game records (:mod:`uno_env.game.records`) sit in the engine layer: a record file can be read,
    written and replayed without the RL layer (the env version comes from :mod:`uno_env.versions`)."""
    imported = imported_modules(REPO_ROOT / "uno_env" / "game" / "records.py")
    assert sorted(m for m in imported if m.startswith("uno_env.envs")) == []
    assert "uno_env.versions.ENV_VERSION" in imported


def test_the_statistics_module_is_a_leaf() -> None:
    """:mod:`uno_env.stats` (intervals, deal-grouped and paired estimators, rankings, error
    control) is below every layer: the simulator, the tournament, the study and the examples
    use it, and it imports nothing of the project (numpy and the standard library only)."""
    imported = imported_modules(REPO_ROOT / "uno_env" / "stats.py")
    project = sorted(m for m in imported if m.split(".")[0] in {"uno_env", "agents", "training"})
    assert project == []
    assert not [m for m in imported if m.split(".")[0] in FORBIDDEN]


def test_the_file_checks_are_a_leaf() -> None:
    """:mod:`uno_env.files` (bounded reads and checks of every user's file) is below every
    layer: the rule files of the engine, the policies of the simulator, the checkpoints of the
    agents and the run folders of training all read through it, so it imports nothing of the
    project (numpy and the standard library only)."""
    imported = imported_modules(REPO_ROOT / "uno_env" / "files.py")
    project = sorted(m for m in imported if m.split(".")[0] in {"uno_env", "agents", "training"})
    assert project == []
    assert not [m for m in imported if m.split(".")[0] in FORBIDDEN]


def test_the_spelling_suggestions_are_a_leaf() -> None:
    """:mod:`uno_env.spelling` (the "did you mean" of unknown rule keys, position fields,
    presets, styles, spec keys and options) is used from the engine up to training, so it
    imports nothing of the project, nor anything outside the standard library."""
    imported = imported_modules(REPO_ROOT / "uno_env" / "spelling.py")
    assert sorted(m for m in imported if m.split(".")[0] in {"uno_env", "agents", "training"}) == []
    assert {m.split(".")[0] for m in imported} == {"__future__", "collections", "difflib"}


def test_the_study_analysis_lives_in_the_study_package() -> None:
    """The study's statistics, plots and report are modules of :mod:`training.study`;
    ``training/study_report.py`` only re-exports them for code written against that path."""
    package = REPO_ROOT / "training" / "study"
    for name in ("stats", "plots", "report"):
        assert (package / f"{name}.py").is_file(), name
    shim = ast.parse((REPO_ROOT / "training" / "study_report.py").read_text(encoding="utf-8"))
    definitions = [n for n in shim.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert definitions == []


def test_the_static_probe_sees_an_envs_import() -> None:
    """The source probe resolves relative imports (the test above can fail)."""
    probe = imported_modules(REPO_ROOT / "uno_env" / "envs" / "aec.py")
    assert "uno_env.envs.core" in probe and "uno_env.engine.layout" in probe


ABOVE_THE_ENVS = ("agents", "training", "examples")


def test_nothing_above_the_envs_imports_the_state_layout() -> None:
    files = [p for folder in ABOVE_THE_ENVS for p in sorted((REPO_ROOT / folder).rglob("*.py"))]
    assert len(files) > 20
    offending = sorted(
        str(p.relative_to(REPO_ROOT)) for p in files if "uno_env.engine.layout" in imported_modules(p)
    )
    assert offending == []


def test_the_envs_take_play_styles_from_the_registry_not_the_simulator() -> None:
    """The play-style registry is :mod:`uno_env.styles.registry`; the simulator is one of its users."""
    envs = sorted((REPO_ROOT / "uno_env" / "envs").glob("*.py"))
    offending = sorted(
        p.name for p in envs if any(m.startswith("uno_env.sim.batch") for m in imported_modules(p))
    )
    assert offending == []


OUTSIDE_THE_ENVS = ("uno_env", "agents", "training", "examples", "benchmarks", "tests")
REGISTRY = (
    "POLICIES",
    "POLICY_DOCS",
    "POLICY_RANDOM_LEGAL",
    "NUM_POLICY_PARAMS",
    "choose_action",
    "policy_table",
)


def _files_outside_the_envs() -> list[Path]:
    files = [p for folder in OUTSIDE_THE_ENVS for p in sorted((REPO_ROOT / folder).rglob("*.py"))]
    return [p for p in files if "envs" not in p.relative_to(REPO_ROOT).parts[:2]]


def test_versions_come_from_the_versions_module() -> None:
    """Version numbers have one home below every layer; the env package re-exports them for
    its users, but nothing outside it takes them from there."""
    found = {}
    for path in _files_outside_the_envs():
        taken = sorted(
            m for m in imported_modules(path) if m.startswith("uno_env.envs") and m.endswith("_VERSION")
        )
        if taken:
            found[str(path.relative_to(REPO_ROOT))] = taken
    assert found == {}


def test_the_play_style_registry_is_imported_from_policies() -> None:
    found = {}
    for path in _files_outside_the_envs():
        taken = sorted(m for m in imported_modules(path) if m in {f"uno_env.sim.batch.{n}" for n in REGISTRY})
        if taken:
            found[str(path.relative_to(REPO_ROOT))] = taken
    assert found == {}

"""The import graph has no cycles, and imports inside functions are the few deferred ones.

Read from the source (:mod:`tests.import_graph`): an import inside a function counts as an
edge, so a cycle cannot hide behind one. Imports inside functions are kept for what a plain
``import uno_env`` (or a command's start-up) should not pay for: optional dependencies
(extras such as Torch, Stable-Baselines3, Ray, Matplotlib), project modules that load one
(named here with what they load, which is checked) and a few named libraries;
``docs/architecture.md`` gives their count by kind, checked here.
"""

from __future__ import annotations

import re

from tests.import_graph import (
    PACKAGES,
    REPO_ROOT,
    all_modules,
    cycles,
    function_level_imports,
    imports,
    project_graph,
)


def test_uno_env_has_no_import_cycle() -> None:
    graph = project_graph(("uno_env",))
    assert len(graph) > 40
    assert cycles(graph) == []


def test_agents_have_no_import_cycle() -> None:
    assert cycles(project_graph(("agents",))) == []


def test_training_has_no_import_cycle() -> None:
    """The command line, the shared options, the run folder and the Ray side, evaluation and
    the opponent pools import one way; so do the study, the sweep and the transfer matrix (the
    sweep reads the study's spec fields, the study reads a named sweep's runs above both), and
    the atlas's spec, plan, run and report."""
    graph = project_graph(("training",))
    assert len(graph) > 40
    assert cycles(graph) == []
    assert not graph["training.common"] & {"training.cli", "training.play", "training.evaluate"}
    assert "training.runner" not in graph["training.cluster"]
    assert "training.evaluate" not in graph["training.pool"]
    assert not graph["training.study.spec"] & {"training.sweep", "training.study.planning"}
    assert "training.study" not in graph["training.transfer"] | graph["training.sweep"]
    assert "training.atlas.spec" not in graph["training.atlas.planning"]
    assert "training.atlas.run" not in graph["training.atlas.report"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions() -> None:
    """An import inside a function is an edge: ``uno_env.envs.vector`` imports the SB3 wrapper
    only when asked for it."""
    graph = project_graph(("uno_env",))
    assert "uno_env.envs.sb3" in graph["uno_env.envs.vector"]


OPTIONAL = frozenset(
    {
        *("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib"),  # train
        *("pandas", "pyarrow", "openskill"),  # study
        *("ray", "imageio", "moviepy", "starlette", "uvicorn", "websockets", "playwright", "httpx"),
        *("tianshou", "torchrl", "rlcard", "pyspiel"),  # clients, bench
    }
)
"""The optional dependencies (``pyproject.toml``'s extras), imported where they are used."""

DEFERRED_LIBRARIES = {
    "numba": "numba's internals, which the cache and the Ray side read only when they must",
    "llvmlite": "numba's internals, which the cache reads only when it must",
    "fcntl": "POSIX only: without it (Windows) the locks are skipped or refused with a message",
    "gymnasium": "registering the environments, on request (import uno_env loads no RL library)",
    "pettingzoo": "registering the environments, on request (import uno_env loads no RL library)",
    "PIL": "Pillow, for a replay's video frames only",
}
"""Libraries that are dependencies but imported inside functions all the same, and why."""

LAZY_LOADERS = {"uno_env": "the environments (and Gymnasium, PettingZoo) load on first use"}
"""Package modules whose lazy names import a module of the package on first use."""

DEFERRED_MODULES = {
    ("uno_env.envs.vector", "uno_env.envs.sb3"): {"stable_baselines3"},
    ("training.evaluate", "training.pool"): {"stable_baselines3"},
    ("training.train", "training.pool"): {"stable_baselines3"},
    ("training.transfer", "training.pool"): {"stable_baselines3"},
    ("training.serve.cli", "training.serve.app"): {"starlette"},
    ("training.selfplay", "training.selfplay_env"): {"gymnasium"},
}
"""Project modules imported inside a function because importing them loads what is named
(an optional dependency; Gymnasium, which ``uno-env``'s start-up does not load)."""


def module_level_libraries(module: str) -> set[str]:
    """The libraries (top-level names) that importing ``module`` loads at module level, through
    the project modules it imports at module level (and their packages' ``__init__``)."""
    modules = all_modules()
    seen: set[str] = set()
    found: set[str] = set()
    pending = [module]
    while pending:
        name = pending.pop()
        if name in seen or name not in modules:
            continue
        seen.add(name)
        pending += [".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1)]
        for i in imports(modules[name], modules):
            if i.in_function:
                continue
            if i.target.split(".")[0] in PACKAGES:
                pending.append(i.target)
            else:
                found.add(i.target.split(".")[0])
    return found


def test_imports_inside_functions_are_the_deferred_ones() -> None:
    """An import inside a function is of an optional dependency, of a dependency kept out of
    the start-up for a stated reason, or of a project module whose import loads one (checked
    here from the source): any other import of the project's modules belongs at the top."""
    project = {}
    for i in function_level_imports():
        top = i.target.split(".")[0]
        if top in PACKAGES and i.source not in LAZY_LOADERS:
            project.setdefault((i.source, i.target), []).append(i.line)
        else:
            assert top in OPTIONAL | set(DEFERRED_LIBRARIES) | set(PACKAGES), (
                f"{i.source}:{i.line} {i.target}"
            )
    assert sorted(project) == sorted(DEFERRED_MODULES), project
    for (source, target), libraries in DEFERRED_MODULES.items():
        assert libraries <= module_level_libraries(target), (source, target)
    assert "stable_baselines3" in module_level_libraries("training.pool")
    assert not module_level_libraries("training.cli") & (OPTIONAL | {"gymnasium", "pettingzoo"})


def test_the_documented_count_of_imports_inside_functions() -> None:
    """docs/architecture.md says how many imports sit inside functions, per package, and of
    which kinds (optional dependencies, project modules that load one, the rest)."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for package in ("uno_env", "agents", "training"):
        statements: dict[tuple[str, int], str] = {}
        for i in function_level_imports((package,)):
            top = i.target.split(".")[0]
            kind = "optional" if top in OPTIONAL else "project" if top in PACKAGES else "other"
            statements[(i.source, i.line)] = kind
        kinds = [sum(k == kind for k in statements.values()) for kind in ("optional", "project", "other")]
        match = re.search(
            rf"`{package}/`:\s+(\d+)\s+imports?\s+inside\s+functions\s+\((\d+)\s+of\s+optional\s+dependencies,"
            r"\s+(\d+)\s+of\s+project\s+modules,\s+(\d+)\s+others?\)",
            text,
        )
        assert match is not None, package
        assert [int(g) for g in match.groups()] == [len(statements), *kinds], (
            package,
            len(statements),
            kinds,
        )


# ------------------------------------------------------------------ comments say why, not when
ISSUE_CITATION = re.compile(r"\bissues? \d+\b|\bissue-\d+\b", re.IGNORECASE)


def issue_citations(text: str) -> list[int]:
    """Lines of ``text`` that cite an issue by number."""
    return [n for n, line in enumerate(text.splitlines(), 1) if ISSUE_CITATION.search(line)]


def test_code_says_why_not_when() -> None:
    """Comments and docstrings say why, not which issue asked for a change (history belongs in
    the docs and the commit log)."""
    found = []
    for top in ("uno_env", "agents", "training", "tests", "benchmarks", "examples"):
        for path in sorted((REPO_ROOT / top).rglob("*.py")):
            name = path.relative_to(REPO_ROOT).as_posix()
            if name != "tests/test_import_graph.py":
                found += [f"{name}:{n}" for n in issue_citations(path.read_text(encoding="utf-8"))]
    assert found == []
    assert issue_citations("x = 1  # issue 21: cold start\n# why, not when\n") == [1]

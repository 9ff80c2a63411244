"""The module paths of the flat layout still import, with a warning, as the moved modules.

``uno_env/`` is grouped into sub-packages (``engine``, ``game``, ``styles``, ``sim``,
``compiler``); the old paths (``uno_env.policies``, ``uno_env.batch``,
``uno_env.envs.encoding``, ...) are kept for a deprecation period by ``uno_env._moved``. Every
other test imports the new paths: pytest turns the deprecation warning into an error
(``filterwarnings`` in ``pyproject.toml``), so a test that leaned on an old path would fail.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import uno_env
from uno_env._moved import MOVED_MODULES, RENAMED_NAMES, SPLIT_MODULES

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("uno_env.engine", "uno_env.game")  # modules once, packages of the same name now
_LEAVES = "|".join(
    sorted(
        {old.rsplit(".", 1)[1] for old in (*MOVED_MODULES, *SPLIT_MODULES) if old not in PACKAGES}
        | {"engine", "game"}
    )
)
OLD_IN_TEXT = re.compile(rf"from uno_env(?:\.envs)? import [\w ,]*\b(?:{_LEAVES})\b")
"""An old path in any text, also in code written as a string for a child process."""


def test_every_moved_module_exists_at_its_new_path_and_not_at_its_old_one() -> None:
    for old, new in MOVED_MODULES.items():
        assert importlib.util.find_spec(new) is not None, new
        old_file = REPO_ROOT.joinpath(*old.split(".")).with_suffix(".py")
        assert not old_file.exists(), f"{old_file} should be gone (served by the import hook)"


OLD_PATHS = sorted(set(MOVED_MODULES) - set(PACKAGES))

# Each old path imported in turn in one fresh process (a process each cost about 3 s apiece,
# the same interpreter start-up and package import every time): whether it is the new module,
# and the warnings its import gave. The first one imports the package's new modules; the later ones
# find their new module imported already, as a program that mixes old and new paths does.
IMPORT_EACH_OLD_PATH = """
import importlib, json, sys, warnings
warnings.simplefilter('always')
out = {}
for old, new in json.loads(sys.argv[1]):
    with warnings.catch_warnings(record=True) as caught:
        module = importlib.import_module(old)
    warned = [(w.category.__name__, str(w.message)) for w in caught]
    out[old] = [module is importlib.import_module(new), warned]
print(json.dumps(out))
"""


@functools.cache
def _old_path_imports() -> dict[str, list[Any]]:
    """:data:`IMPORT_EACH_OLD_PATH`'s answer for every old path (one child process per test worker)."""
    pairs = json.dumps([[old, MOVED_MODULES[old]] for old in OLD_PATHS])
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_OLD_PATH, pairs],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    answers: dict[str, list[Any]] = json.loads(out.stdout.strip().splitlines()[-1])
    return answers


@pytest.mark.parametrize("old", OLD_PATHS)
def test_an_old_module_path_is_the_new_module_with_a_warning(old: str) -> None:
    same, caught = _old_path_imports()[old]
    assert same
    messages = [message for category, message in caught if category == "DeprecationWarning"]
    assert messages == [
        f"{old} has moved to {MOVED_MODULES[old]}; import it from there ({old} is deprecated)"
    ]


def test_from_imports_of_old_paths_work_in_this_process() -> None:
    with pytest.deprecated_call(match="uno_env.policies has moved to the modules uno_env.styles.params, "):
        from uno_env.policies import STYLES, choose_action
    from uno_env.styles.dispatch import choose_action as new_choose_action
    from uno_env.styles.registry import STYLES as NEW_STYLES

    assert STYLES is NEW_STYLES and choose_action is new_choose_action
    with pytest.deprecated_call(match="uno_env.envs.encoding has moved to uno_env.game.encoding"):
        from uno_env.envs import encoding
    from uno_env.game import encoding as new_encoding

    assert encoding is new_encoding
    with pytest.deprecated_call(match="uno_env.batch has moved"):
        from uno_env import batch
    assert batch.simulate is uno_env.simulate


@pytest.mark.parametrize(
    ("package", "name"),
    [("uno_env.engine", "fill_mask"), ("uno_env.game", "Game"), ("uno_env.game", "Phase")],
)
def test_names_of_the_modules_that_became_packages_are_forwarded_with_a_warning(
    package: str, name: str
) -> None:
    module = importlib.import_module(package)
    with pytest.deprecated_call(match=f"{package}.{name} has moved to {MOVED_MODULES[package]}.{name}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(MOVED_MODULES[package]), name)


@pytest.mark.parametrize("old", sorted(SPLIT_MODULES))
def test_a_split_module_serves_every_name_it_had(old: str) -> None:
    """``uno_env.policies`` (and ``uno_env.styles.policies``, its path for a while) went to
    the modules of :mod:`uno_env.styles`; the old path still has every name, old names too."""
    code = (
        "import importlib, json, warnings\n"
        "warnings.simplefilter('ignore')\n"
        f"old = importlib.import_module({old!r})\n"
        f"parts = [importlib.import_module(name) for name in {list(SPLIT_MODULES[old])!r}]\n"
        "names = {k for part in parts for k in vars(part) if not k.startswith('__')}\n"
        "same = all(getattr(old, k) is getattr(next(p for p in parts if k in vars(p)), k) for k in names)\n"
        f"renamed = {{k: getattr(old, k) == getattr(old, v) for k, v in {RENAMED_NAMES!r}.items()}}\n"
        "print(json.dumps([same, sorted(names - set(vars(old))), renamed, hasattr(old, 'parse_policy')]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    same, missing, renamed, parse = json.loads(out.stdout.strip().splitlines()[-1])
    assert same and missing == [] and parse
    assert renamed == dict.fromkeys(RENAMED_NAMES, True)


def test_a_package_that_was_a_module_still_refuses_unknown_names() -> None:
    import uno_env.engine as engine_package

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not hasattr(engine_package, "no_such_name")
        from uno_env.engine import layout  # a submodule, no warning

    assert layout.MAX_ACTIONS > 0


def test_the_project_imports_no_old_path() -> None:
    """The package, the agents, training, benchmarks, examples and tests (this file aside)
    use the new paths: read from the source, so imports inside functions count too."""
    from tests.test_layering import imported_modules

    folders = ("uno_env", "agents", "training", "benchmarks", "examples", "tests")
    files = [p for folder in folders for p in sorted((REPO_ROOT / folder).rglob("*.py"))]
    found = {}
    for path in files:
        if path == Path(__file__).resolve() or path.name == "_moved.py":
            continue
        old = sorted(
            m
            for m in imported_modules(path)
            if any(
                m == o or m.startswith(o + ".") for o in (*MOVED_MODULES, *SPLIT_MODULES) if o not in PACKAGES
            )
        )
        # code run in child processes is text: `from uno_env import _cache` in a string
        old += [m.group(0) for m in OLD_IN_TEXT.finditer(path.read_text(encoding="utf-8"))]
        if old:
            found[str(path.relative_to(REPO_ROOT))] = old
    assert found == {}

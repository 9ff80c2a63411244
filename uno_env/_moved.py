"""Old import paths of the modules that moved into sub-packages, kept for a deprecation period.

``uno_env`` was one flat folder; its modules now live in sub-packages by role (``engine``,
``game``, ``styles``, ``sim``, ``compiler``; see ``docs/architecture.md``). Importing an old
path emits a :class:`DeprecationWarning` naming the new path and gives the new module itself
(the same object in ``sys.modules`` under both names), so code written against the old path,
including code that patches module attributes, keeps working. The old paths will be removed
in a later release.

The old paths are served by an import hook (:class:`MovedModuleFinder`, installed by
``uno_env/__init__.py``) rather than by files, so the old files are gone from the tree.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

MOVED_MODULES: dict[str, str] = {
    "uno_env._bits": "uno_env.engine.bits",
    "uno_env._borrow": "uno_env.compiler.borrow",
    "uno_env._cache": "uno_env.compiler.cache",
    "uno_env._jit": "uno_env.compiler.jit",
    "uno_env.compiling": "uno_env.compiler.compiling",
    "uno_env.actions": "uno_env.engine.actions",
    "uno_env.cards": "uno_env.engine.cards",
    "uno_env.layout": "uno_env.engine.layout",
    "uno_env.options": "uno_env.engine.options",
    "uno_env.rules": "uno_env.engine.rules",
    "uno_env.rng": "uno_env.engine.rng",
    "uno_env.engine": "uno_env.engine.engine",
    "uno_env.game": "uno_env.game.facade",
    "uno_env.compiled": "uno_env.game.compiled",
    "uno_env.position": "uno_env.game.position",
    "uno_env.records": "uno_env.game.records",
    "uno_env.reference": "uno_env.game.reference",
    "uno_env.envs.encoding": "uno_env.game.encoding",
    "uno_env.search": "uno_env.styles.search",
    "uno_env.batch": "uno_env.sim.batch",
    "uno_env.learned": "uno_env.sim.learned",
    "uno_env.guided": "uno_env.sim.guided",
}
"""Old module path -> new module path."""

STYLE_MODULES = (
    "uno_env.styles.params",
    "uno_env.styles.facts",
    "uno_env.styles.baselines",
    "uno_env.styles.scripted",
    "uno_env.styles.rollout",
    "uno_env.styles.monte_carlo",
    "uno_env.styles.search",
    "uno_env.styles.dispatch",
    "uno_env.styles.registry",
    "uno_env.styles.view",
)
SPLIT_MODULES: dict[str, tuple[str, ...]] = {
    "uno_env.policies": STYLE_MODULES,
    "uno_env.styles.policies": STYLE_MODULES,
}
"""Old module path -> the modules its names went to (the play styles, split by concern)."""
RENAMED_NAMES = {"POLICY_RANDOM": "POLICY_RANDOM_LEGAL", "P_DEPTH_SEARCH": "P_DEPTH"}
"""Names of a split module that have another name now."""


def _warn(old: str, new: str, what: str = "", stacklevel: int = 3) -> None:
    warnings.warn(
        f"{old}{what} has moved to {new}{what}; import it from there ({old} is deprecated)",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


class _MovedModuleLoader(Loader):
    """Loads an old path as the module that now holds it (or, for a split module, as a module
    holding the names of the modules it was split into)."""

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        if spec.name in SPLIT_MODULES:
            parts = SPLIT_MODULES[spec.name]
            _warn(spec.name, f"the modules {', '.join(parts)}", stacklevel=4)
            merged = ModuleType(spec.name, f"Deprecated: the names of {', '.join(parts)}.")
            for part in parts:
                module = importlib.import_module(part)
                merged.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
            for old, new in RENAMED_NAMES.items():
                setattr(merged, old, getattr(merged, new))
            return merged
        new = MOVED_MODULES[spec.name]
        _warn(spec.name, new, stacklevel=4)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the new module is already imported."""


class MovedModuleFinder(MetaPathFinder):
    """Finds the old paths of :data:`MOVED_MODULES` (other names are left to the usual finders)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname in SPLIT_MODULES:
            return ModuleSpec(fullname, _MovedModuleLoader())
        if fullname not in MOVED_MODULES or fullname in ("uno_env.engine", "uno_env.game"):
            return None  # those two are packages now; see forward_attribute
        return ModuleSpec(fullname, _MovedModuleLoader())


def install() -> None:
    """Put :class:`MovedModuleFinder` first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())


def forward_attribute(package: str, name: str) -> Any:
    """A name of the old module ``package`` (now a package of the same name), with a warning.

    ``uno_env.engine`` and ``uno_env.game`` were modules and are now packages: their
    ``__getattr__`` forwards the old module's names to the module that holds them now. A
    name that the old module did not have raises :class:`AttributeError`, so the import
    system (which asks for a submodule as an attribute first) and ``hasattr`` behave as usual.
    """
    if name.startswith("__"):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module: ModuleType = importlib.import_module(MOVED_MODULES[package])
    if name not in vars(module):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    _warn(package, MOVED_MODULES[package], f".{name}")
    return vars(module)[name]

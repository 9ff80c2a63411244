"""Environment ids: ``uno_env/<preset>-v1`` for PettingZoo, ``uno_env/<Preset>-v1`` for Gymnasium.

For every preset of :data:`uno_env.PRESETS`:

- PettingZoo: ``pettingzoo.make("aec", "uno_env/uno-v1", num_players=4)`` gives
  :func:`uno_env.envs.aec.env` for that preset (keyword arguments as for ``env()``), and
  ``pettingzoo.make("parallel", "uno_env/uno-v1", ...)`` the Parallel-API env
  :func:`uno_env.envs.parallel.parallel_env` (PettingZoo's turn-based conversion of it).
- Gymnasium: ``gymnasium.make("uno_env/Uno-v1", num_players=4)`` gives the
  :class:`~uno_env.envs.single.SingleAgentEnv`, and
  ``gymnasium.make_vec("uno_env/Uno-v1", num_envs=256)`` the native
  :class:`~uno_env.envs.vector.VectorEnv`. The Gymnasium name is the preset name in
  CamelCase (``uno_house`` -> ``UnoHouse``).

The ``-vN`` suffix is :data:`ENV_VERSION`. Entry points are strings, so
registering imports no environment module; and ``import uno_env`` itself imports neither
PettingZoo nor Gymnasium (the engine layer stays free of the RL stack): the ids are
registered as soon as ``pettingzoo`` / ``gymnasium`` is imported, before or after
``uno_env``, by a one-shot import hook (:func:`install`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..engine.rules import PRESETS
from ..versions import ENV_VERSION

NAMESPACE = "uno_env"


def pettingzoo_id(preset: str) -> str:
    """The PettingZoo id of a preset: ``uno_env/<preset>-v1``."""
    return f"{NAMESPACE}/{preset}-v{ENV_VERSION}"


def gymnasium_id(preset: str) -> str:
    """The Gymnasium id of a preset: ``uno_env/<Preset>-v1`` (CamelCase)."""
    return f"{NAMESPACE}/{''.join(part.capitalize() for part in preset.split('_'))}-v{ENV_VERSION}"


def register_pettingzoo() -> None:
    """Register the AEC and the Parallel env of every preset with PettingZoo (once)."""
    import pettingzoo

    for name in PRESETS:
        env_id = pettingzoo_id(name)
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, "uno_env.envs.aec:env", kwargs={"rules": name})
        if env_id not in pettingzoo.parallel_registry:
            pettingzoo.register(
                "parallel", env_id, "uno_env.envs.parallel:parallel_env", kwargs={"rules": name}
            )


def register_gymnasium() -> None:
    """Register the single-agent and vector envs of every preset with Gymnasium (once)."""
    import gymnasium

    for name in PRESETS:
        env_id = gymnasium_id(name)
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="uno_env.envs.single:SingleAgentEnv",
                vector_entry_point="uno_env.envs.vector:VectorEnv",
                kwargs={"rules": name},
            )


class _ThenRegister(importlib.abc.Loader):
    """Runs a module's own loader, then a registration callback."""

    def __init__(self, loader: importlib.abc.Loader, callback: Callable[[], None]) -> None:
        self.loader = loader
        self.callback = callback

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # put the real loader back first so the module looks as if imported normally
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        module.__loader__ = self.loader
        self.loader.exec_module(module)
        self.callback()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """When ``name`` is loaded, register our ids after it and leave ``sys.meta_path``.

    The finder stays in place until the module is executed, not merely found: libraries
    probe with ``importlib.util.find_spec(name)`` before importing (TorchRL does for
    Gymnasium), and a probe loads nothing.
    """

    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name = name
        self.callback = callback
        self._searching = False

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name or self._searching:
            return None
        self._searching = True  # the search below asks the finders again, this one included
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._searching = False
        if spec is not None and spec.loader is not None and not isinstance(spec.loader, _ThenRegister):
            spec.loader = _ThenRegister(spec.loader, self._loaded)
        return spec

    def _loaded(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        self.callback()


def install() -> None:
    """Register with PettingZoo and Gymnasium now if they are loaded, else when they are imported."""
    for name, callback in (("pettingzoo", register_pettingzoo), ("gymnasium", register_gymnasium)):
        if name in sys.modules:
            callback()
        elif not any(isinstance(f, _RegisterOnImport) and f.name == name for f in sys.meta_path):
            sys.meta_path.insert(0, _RegisterOnImport(name, callback))

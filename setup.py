"""Build hook: a wheel carries the engine compiled for the portable x86-64 target.

``pip wheel --no-deps --wheel-dir dist -v .`` / ``python -m build`` run every part of the engine
once (``uno_env.compile_all``, a progress line every few seconds: ``-v`` shows them) in a fresh
process with an empty cache directory and copy the result into the wheel as
``uno_env/_compiled`` (``uno_env.compiler.cache.write_compiled_engine``); a fresh install then loads
that code on its first step instead of compiling it (``uno_env.compiler.cache`` copies it into the
user's cache directory when it fits the process). The wheel is tagged for this Python and
platform, like any wheel with compiled code. Editable installs (``pip install -e``) carry
none and compile on first use; ``UNO_ENV_BUNDLE=0`` builds a wheel without it. Everything
else about the package is in ``pyproject.toml``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

WRITE = """
import sys
from pathlib import Path

import uno_env
from uno_env.compiler import cache as _cache

if _cache.CODE_TARGET == "host":
    print("uno_env build: no portable code target on this machine; the wheel carries no compiled engine")
    sys.exit(0)
uno_env.compile_all(progress=lambda line: print("uno_env build:", line, flush=True))
manifest = _cache.write_compiled_engine(Path(sys.argv[1]))
print("uno_env build: compiled engine for", manifest["cpu"], "numba", manifest["numba"], flush=True)
"""


def _bundling() -> bool:
    return os.environ.get("UNO_ENV_BUNDLE", "1") != "0"


class BuildWithCompiledEngine(build_py):
    """``build_py``, then the compiled engine into the built package (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False) or not _bundling():
            return
        build_lib = Path(self.build_lib).resolve()
        with tempfile.TemporaryDirectory(prefix="uno_env-build-cache-") as cache:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "UNO_ENV_"))}
            # the built package first; the rest of PYTHONPATH is how pip's isolated build
            # environment (numba and the other build requirements) reaches this interpreter
            path = [str(build_lib), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
            env.update(UNO_ENV_CACHE_DIR=cache, PYTHONPATH=os.pathsep.join(path))
            subprocess.run(
                [sys.executable, "-c", WRITE, str(build_lib / "uno_env" / "_compiled")],
                env=env,
                cwd=cache,  # import the built package, not a source tree in the current folder
                check=True,
            )


class CompiledDistribution(Distribution):
    """Tags the wheel for this Python and platform when it carries compiled code."""

    def has_ext_modules(self) -> bool:
        return _bundling()


# setuptools' editable install warns on every `pip install -e` that folders named like a package
# may shadow it; the `make` targets install editable, and their stderr should show real problems
warnings.filterwarnings("ignore", message="Editable installation")

setup(cmdclass={"build_py": BuildWithCompiledEngine}, distclass=CompiledDistribution)

"""Where numba keeps the compiled engine: a directory keyed by a hash of this package's source.

Numba invalidates a cached function only when its own file changes, but a compiled function
embeds the compiled code of every function it calls, in other files too. Keying the cache
directory on the whole package source means an edit anywhere compiles everything afresh
instead of loading code built against the old rules. ``UNO_ENV_CACHE_DIR`` (or numba's own
``NUMBA_CACHE_DIR``) chooses the parent directory; by default it is the user's cache dir.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _source_digest() -> str:
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure_numba_cache() -> Path:
    """Point numba's cache at the directory of this exact source; return it."""
    base = os.environ.get("UNO_ENV_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "uno_env")
    directory = Path(base) / f"numba-{_source_digest()}"
    numba.config.CACHE_DIR = str(directory)  # type: ignore[attr-defined]
    return directory


CACHE_DIR = configure_numba_cache()

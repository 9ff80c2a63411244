"""Test-wide set-up.

- Checkpoints are signed with a throw-away key, never the user's own: the root
  ``conftest.py`` (shared with the notebooks) sets it up.
- The last garbage collection of a session walks every object the session created (the
  compiled engine, torch, pandas, matplotlib): pytest runs one in ``pytest_unconfigure``,
  after a pytest-xdist worker has reported its results. On a loaded 2-core machine that walk
  can outlast the five seconds execnet grants a finished worker before it interrupts it with
  SIGINT, and the interrupt then surfaces as a ``KeyboardInterrupt`` traceback in the log
  (inside hypothesis' gc callback, the Python code gc was running). So the session's garbage
  is collected at ``pytest_sessionfinish`` (before the worker reports back) and every object
  still alive is frozen (:func:`gc.freeze`): the final collections only walk what teardown
  itself creates.
"""

from __future__ import annotations

import gc

import pytest


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    gc.collect()
    gc.freeze()

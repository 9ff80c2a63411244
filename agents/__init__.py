"""Policies that play :mod:`uno_env` games: act on an observation's legal-action mask.

:class:`RandomAgent` is the uniform-random legal baseline; the scripted play styles and
learned policies build on the same interface.
"""

from .random_agent import RandomAgent

__all__ = ["RandomAgent"]

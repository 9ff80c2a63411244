"""Out-of-process agents: any program that speaks JSON lines over its standard input and output.

``cmd:python my_agent.py`` (or ``ProcessAgent("node agent.js")``) starts the command once (per
worker process) and talks to it one line at a time; each message is one JSON object on one
line, and every message but ``close`` gets exactly one line back:

=============================================  =============================================
the tools send                                 the agent answers
=============================================  =============================================
``{"type": "hello", "protocol":               ``{"name": "my-agent"}`` (any object; ``name``
"uno-env-agent/1", "name": ..., "seed": S}``   and ``"observation": true`` are read: with it,
                                               ``act`` messages also carry the observation
                                               vector)
``{"type": "reset", "seed": S}``               ``{}`` (a new game begins; seed your generator)
``{"type": "act", "view": {...}, "legal":      ``{"action": 12}`` or ``{"move": "R7"}`` (any
[...], "observation": [...]}``                 move notation or words :func:`agents.text.
                                               parse_answer` reads)
``{"type": "close"}``                          nothing: the program should exit
=============================================  =============================================

``view`` is :func:`agents.text.decision_json` of the decision (schema ``uno-env-decision/1``:
the rules, own hand, top card, colour, hand sizes, pending penalty, legal moves with their ids
and notation, the public history); ``legal`` the legal action ids. Whatever the program
writes to standard error is its own: read as it comes, so it never fills the pipe, and its
last part shown when the program exits. An answer that is not JSON, comes with a second
line, names no legal move, or does not come within ``timeout`` seconds ends the match with
:class:`ProtocolError` naming the agent, the message and what was wrong. So does a program
that exits before it is sent ``close`` (between two messages, in or between games): it is not
started again behind the tools' back, which would hide a crash and hand the next decision of a
game to a fresh program that never saw its beginning. The program starts again only after
:meth:`ProcessAgent.close` (the tools close it when a match ends).
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import subprocess
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from uno_env.styles.view import PublicView

from .base import View, as_view, resolve_mask
from .text import AnswerError, decision_json, parse_answer

PROTOCOL = "uno-env-agent/1"
LINE_LIMIT = 1 << 20
"""Longest answer line read (bytes): a longer one is refused, never read whole into memory."""
STDERR_TAIL = 4096
"""Bytes of the program's standard error kept (the end, shown when it fails); the rest is read
and dropped, so a program that writes much there never fills the pipe and stalls."""


def _json_type(value: Any) -> str:
    """What JSON calls the type of a decoded ``value`` (for the messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


class ProtocolError(RuntimeError):
    """An out-of-process agent broke the protocol (no answer, not JSON, an illegal move, exited)."""


class ProcessAgent:
    """An agent in another process: ``ProcessAgent("python agent.py", seed=1)``.

    The program starts on first use; :meth:`close` (or the end of the match) stops it.
    """

    def __init__(
        self,
        command: str | list[str],
        seed: int | None = None,
        *,
        name: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("an out-of-process agent needs a command")
        self.name = name or f"cmd:{shlex.join(self.argv)}"
        self.timeout = float(timeout)
        self.seed = seed
        self.wants_observation = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr_tail = b""
        self.last_answer: str | None = None
        self._last_message: str | None = None  # the type of the last message answered

    # ------------------------------------------------------------ the process
    def _start(self, what: str) -> subprocess.Popen[bytes]:
        """The running program, started on first use (and after :meth:`close`) for the
        ``what`` message; :class:`ProtocolError` when it has exited since its last answer."""
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                return proc
            raise ProtocolError(
                f"agent {self.name} exited (code {proc.returncode}) after answering the "
                f"{self._last_message!r} message, before the {what!r} message (a program runs until "
                f"it is sent 'close'){self._stderr()}"
            )
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            raise ProtocolError(f"agent {self.name}: cannot start {self.argv[0]!r}: {exc}") from None
        os.set_blocking(self._proc.stdout.fileno(), False)  # type: ignore[union-attr]
        os.set_blocking(self._proc.stderr.fileno(), False)  # type: ignore[union-attr]
        self._buffer = b""
        self._last_message = None
        self._stderr_tail = b""
        hello = self._request({"type": "hello", "protocol": PROTOCOL, "name": self.name, "seed": self.seed})
        self.wants_observation = bool(hello.get("observation", False))
        if isinstance(hello.get("name"), str) and hello["name"]:
            self.reported_name = hello["name"]
        return self._proc

    def _request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        if self._last_message is not None and self._unasked_output():
            # a second line after an answer would be read as the answer to this message, and the
            # answers of every later message would be one behind
            raise ProtocolError(
                f"agent {self.name} wrote more than one line in answer to the {self._last_message!r} "
                f"message (then {self._buffer[:200]!r}); every message but 'close' gets exactly one line"
            )
        try:
            proc.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ProtocolError(
                f"agent {self.name} exited before the {message['type']!r} message{self._stderr()}"
            ) from None
        line = self._read_line(str(message["type"]))
        self.last_answer = line
        self._last_message = str(message["type"])
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):  # the parser recurses once per level of nesting
            raise ProtocolError(
                f"agent {self.name} answered the {message['type']!r} message with a line that is not JSON: "
                f"{line[:200]!r}"
            ) from None
        if not isinstance(data, dict):
            raise ProtocolError(
                f"agent {self.name}: an answer is one JSON object per line, got {line[:200]!r}"
            )
        return data

    def _read_line(self, what: str) -> str:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            if proc.stderr is not None and not proc.stderr.closed:
                # drained while waiting: a pipe nobody reads fills (64 KiB) and blocks the program
                selector.register(proc.stderr, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > LINE_LIMIT:
                    raise ProtocolError(f"agent {self.name}: an answer line longer than {LINE_LIMIT} bytes")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ProtocolError(
                        f"agent {self.name} did not answer the {what!r} message within {self.timeout:g} s"
                    )
                ready = {key.fileobj for key, _ in selector.select(left)}
                if proc.stderr in ready:
                    if not self._drain_stderr():
                        selector.unregister(proc.stderr)
                if proc.stdout not in ready:
                    continue
                chunk = proc.stdout.read(65536)
                if not chunk:
                    try:
                        proc.wait(timeout=min(5.0, self.timeout))
                    except subprocess.TimeoutExpired:
                        # its standard output closed, the program still running: it can never answer
                        proc.kill()
                        proc.wait()
                        raise ProtocolError(
                            f"agent {self.name} closed its standard output before answering the {what!r} "
                            "message (stopped)"
                        ) from None
                    raise ProtocolError(
                        f"agent {self.name} exited (code {proc.returncode}) before answering the {what!r} "
                        "message"
                        f"{self._stderr()}"
                    )
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").strip()

    def _unasked_output(self) -> bool:
        """Whether the program has written to its standard output since its last answer (read
        without waiting, into the buffer)."""
        proc = self._proc
        if proc is not None and proc.stdout is not None and not self._buffer:
            try:
                chunk = proc.stdout.read(65536)
            except (BlockingIOError, ValueError):
                chunk = None
            if chunk:
                self._buffer += chunk
        return bool(self._buffer)

    def _drain_stderr(self) -> bool:
        """Read what the program wrote to standard error, keeping the last :data:`STDERR_TAIL`
        bytes; False once it is closed (the program exited or closed it)."""
        proc = self._proc
        if proc is None or proc.stderr is None or proc.stderr.closed:
            return False
        for _ in range(16):  # bounded: a program that never stops writing still gets its answer read
            try:
                chunk = proc.stderr.read(65536)
            except (BlockingIOError, ValueError):
                return True
            if chunk is None:  # nothing more for now
                return True
            if not chunk:
                return False
            self._stderr_tail = (self._stderr_tail + chunk)[-STDERR_TAIL:]
        return True

    def _stderr(self) -> str:
        proc = self._proc
        if proc is None or proc.stderr is None or proc.poll() is None:
            return ""
        self._drain_stderr()
        tail = self._stderr_tail[-600:].decode("utf-8", errors="replace").strip()
        return f"; its standard error ends: {tail}" if tail else ""

    # ------------------------------------------------------------ the agent interface
    def reset(self, seed: int | None = None) -> None:
        """A new game: the program gets ``{"type": "reset", "seed": seed}``."""
        self.seed = seed
        self._start("reset")
        self._request({"type": "reset", "seed": seed})

    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """The program's move for the decision in ``view``."""

        mask = resolve_mask(observation, action_mask)
        public: PublicView = as_view(view, f"agent {self.name}", observation)
        self._start("act")
        legal = [int(a) for a in np.flatnonzero(mask)]
        message: dict[str, Any] = {"type": "act", "view": decision_json(public), "legal": legal}
        if self.wants_observation and observation is not None:
            obs = observation["observation"] if isinstance(observation, Mapping) else observation
            message["observation"] = np.asarray(obs, dtype=float).round(6).tolist()
        answer = self._request(message)
        if "action" in answer:
            action = answer["action"]
            if isinstance(action, bool) or not isinstance(action, int):
                raise ProtocolError(
                    f"agent {self.name} answered action {action!r} (a JSON {_json_type(action)}), not an "
                    f"action id: an integer, one of {legal} "
                    f'({", ".join(public.describe_action(a) for a in legal)}), or "move" in notation'
                )
            if action not in legal:
                raise ProtocolError(
                    f"agent {self.name} chose action {action!r}, which is not legal here; legal: {legal} "
                    f"({', '.join(public.describe_action(a) for a in legal)})"
                )
            return action
        if "move" in answer:
            try:
                return parse_answer(str(answer["move"]), public)
            except AnswerError as exc:
                raise ProtocolError(f"agent {self.name}: {exc}") from None
        raise ProtocolError(
            f'agent {self.name}: an \'act\' answer needs "action" (an id) or "move" (notation)'
        )

    def close(self) -> None:
        """Send ``close`` and stop the program (killed if it does not exit within a second)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write(b'{"type": "close"}\n')
                proc.stdin.close()
            proc.wait(timeout=1)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()

    def __getstate__(self) -> dict[str, Any]:
        # a worker process starts its own copy of the program
        state = dict(self.__dict__)
        state["_proc"] = None
        state["_buffer"] = b""
        return state

    def __repr__(self) -> str:
        return f"ProcessAgent({shlex.join(self.argv)!r})"

"""Language models as players: an adapter for OpenAI-compatible chat-completion endpoints.

``llm:model=NAME,base_url=URL`` (or ``ChatAgent(model=..., base_url=...)``) puts every decision to
the model as :func:`agents.text.decision_prompt` (the rules in short, the situation, the legal
moves in the project's notation) and reads its answer with :func:`agents.text.parse_answer`;
an illegal or unreadable answer is re-asked, in the same conversation, with the parser's
message, at most ``retries`` times, after which the first legal move is played and counted as
a fallback (and the agent's first fallback is a :class:`FallbackWarning`).

**Nothing is sent anywhere unless configured.** There is no default endpoint: the base URL
comes from the spec (``base_url=``) or the environment (``UNO_ENV_LLM_BASE_URL``), the key
from the environment variable the spec names (``key_env=``, default ``OPENAI_API_KEY``; none
for a local server). Requests go to ``{base_url}/chat/completions`` with ``model``,
``messages``, ``temperature`` (default 0) and ``max_tokens``; the answer is
``choices[0].message.content`` and ``usage`` gives the tokens.

Accounting (:meth:`ChatAgent.stats`, and per decision :attr:`ChatAgent.last_exchange`, which
match traces record): decisions, requests, answers that named no legal move (the
illegal-answer rate is their share of the answers), fallbacks, prompt and completion tokens,
and seconds, per decision on average. Options of the spec: ``model`` (required),
``base_url``, ``key_env``, ``retries`` (2), ``temperature`` (0), ``max_tokens`` (64),
``timeout`` (60 s: the longest the endpoint may stay silent), ``history`` (12: public moves shown
in each prompt), ``busy_retries`` (3: how often an endpoint that answers "busy", HTTP 429 or
503, is asked again, after the wait its ``Retry-After`` names in seconds or else 1, 2, 4 ... s,
each wait at most ``timeout``; the waits are counted as ``busy_waits``).
"""

from __future__ import annotations

import http.client
import json
import math
import numbers
import os
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from uno_env.spelling import suggestion

from .base import View, as_view, resolve_mask
from .text import ask, decision_prompt

BASE_URL_ENV = "UNO_ENV_LLM_BASE_URL"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
OPTIONS: dict[str, type] = {
    "model": str,
    "base_url": str,
    "key_env": str,
    "retries": int,
    "temperature": float,
    "max_tokens": int,
    "timeout": float,
    "history": int,
    "busy_retries": int,
}
"""The options of an ``llm:`` spec and their types."""

SYSTEM_PROMPT = (
    "You are a careful card player. Each message describes one decision in a game of the Uno "
    "family. Reply with the move only, exactly as written in the list of legal moves."
)
RESPONSE_LIMIT = 1 << 20
"""Longest response body read (bytes)."""


class ChatError(RuntimeError):
    """The endpoint could not be reached or answered something that is not a chat completion."""


BUSY_STATUSES = (429, 503)
"""HTTP statuses that mean "busy, ask again later" (a rate limit, an overloaded server)."""


def busy_wait(retry_after: str | None, asked_again: int, longest: float) -> float:
    """Seconds to wait before asking a busy endpoint again: its ``Retry-After`` in seconds, else
    (no header, or an HTTP date, which is not read) 1, 2, 4 ... s by how often it was asked
    again; never more than ``longest`` (the ``timeout`` option)."""
    try:
        seconds = float(retry_after) if retry_after is not None else math.nan
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        seconds = 2.0**asked_again
    return min(seconds, longest)


class FallbackWarning(UserWarning):
    """A decision whose answers all named no legal move: the first legal move was played. Each
    agent warns of its first fallback (so a run whose model never answers a legal move does not
    pass in silence); :meth:`ChatAgent.stats` counts every one."""


def _without(key: str | None, text: str) -> str:
    """``text`` with the API key blanked out: an endpoint may echo the header it was sent (blank
    it out before cutting ``text`` short, or a cut key slips through)."""
    return text.replace(key, "[the key]") if key else text


LONGEST_TIMEOUT = 86_400.0
"""Largest ``timeout`` option, in seconds (a day; the socket layer overflows on large ones)."""
OPTION_ALLOWED: dict[str, str] = {
    "model": "a model name (text, not empty)",
    "base_url": "an http:// or https:// URL",
    "key_env": "the name of an environment variable (text, not empty)",
    "retries": "an integer 0 or more",
    "temperature": "a finite number 0 or more",
    "max_tokens": "an integer 1 or more",
    "timeout": f"a number of seconds above 0, at most {LONGEST_TIMEOUT:,.0f} (a day)",
    "history": "an integer 0 or more",
    "busy_retries": "an integer 0 or more",
}
"""What each option of an ``llm:`` spec allows, as its error message says."""


def _option_ok(key: str, value: Any) -> bool:
    """Whether the (converted) ``value`` of option ``key`` is in its range."""
    if key in ("model", "key_env"):
        return bool(value)
    if key == "base_url":
        return str(value).startswith(("http://", "https://"))
    if key == "temperature":
        return math.isfinite(value) and value >= 0
    if key == "timeout":
        return math.isfinite(value) and 0 < value <= LONGEST_TIMEOUT
    return int(value) >= (1 if key == "max_tokens" else 0)


def check_options(options: Mapping[str, Any], where: str = "llm") -> dict[str, Any]:
    """The options of an ``llm:`` spec (or of :class:`ChatAgent`), each of its type and in its
    range (:data:`OPTION_ALLOWED`); otherwise ValueError, one line naming the option, the value
    and what is allowed. Text options take a spec's number as text (``key_env=123``)."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        kind = OPTIONS.get(key)
        if kind is None:
            raise ValueError(
                f"{where}: llm: has no option {key!r}{suggestion(str(key), OPTIONS)}; its options: "
                f"{', '.join(OPTIONS)}"
            )
        if kind is str:
            converted: Any = value if isinstance(value, str) else str(value)
        elif kind is float and isinstance(value, numbers.Real) and not isinstance(value, bool):
            converted = float(value)
        elif kind is int and isinstance(value, numbers.Integral) and not isinstance(value, bool):
            converted = int(value)
        else:
            converted = None
        if converted is None or not _option_ok(key, converted):
            raise ValueError(f"{where}: llm: option {key} is {value!r:.80}; allowed: {OPTION_ALLOWED[key]}")
        out[key] = converted
    return out


class ChatAgent:
    """A chat model behind an OpenAI-compatible endpoint, as an agent (see the module docstring)."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        key_env: str = DEFAULT_KEY_ENV,
        retries: int = 2,
        temperature: float = 0.0,
        max_tokens: int = 64,
        timeout: float = 60.0,
        history: int = 12,
        busy_retries: int = 3,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        url = base_url or os.environ.get(BASE_URL_ENV)
        if not url:
            raise ValueError(
                f"no endpoint for model {model!r}: give base_url= in the spec (llm:model=...,base_url=...) "
                "or "
                f"set {BASE_URL_ENV}; nothing is sent anywhere unless configured"
            )
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {url!r:.200}")
        options = check_options(
            {
                "model": model, "key_env": key_env, "retries": retries, "temperature": temperature,
                "max_tokens": max_tokens, "timeout": timeout, "history": history,
                "busy_retries": busy_retries,
            },
            name or f"llm:{model}",
        )  # fmt: skip
        self.model: str = options["model"]
        self.base_url = url.rstrip("/")
        self.key_env: str = options["key_env"]
        self.retries: int = options["retries"]
        self.temperature: float = options["temperature"]
        self.max_tokens: int = options["max_tokens"]
        self.timeout: float = options["timeout"]
        self.history: int = options["history"]
        self.busy_retries: int = options["busy_retries"]
        self.seed = seed
        self.name = name or f"llm:{model}"
        self.totals = {
            "decisions": 0, "requests": 0, "answers": 0, "illegal_answers": 0, "fallbacks": 0,
            "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0, "busy_waits": 0,
        }  # fmt: skip
        self.last_exchange: dict[str, Any] = {}
        self._fallback_warned = False

    @classmethod
    def from_options(
        cls, options: Mapping[str, Any], *, seed: int | None = None, name: str | None = None
    ) -> ChatAgent:
        """The agent of an ``llm:`` spec's options."""
        values = check_options(options, name or "llm")
        model = values.pop("model")
        return cls(model, seed=seed, name=name, **values)

    def reset(self, seed: int | None = None) -> None:
        """A new game (the seed is sent with each request, for endpoints that take one)."""
        self.seed = seed

    # ------------------------------------------------------------ talking to the endpoint
    def complete(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, int]]:
        """One chat completion: the answer's text and its token usage."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = int(self.seed) % 2**31
        headers = {"Content-Type": "application/json"}
        api_key = os.environ.get(self.key_env)
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode("utf-8"),
            headers=headers,
            method="POST",
        )
        for asked_again in range(self.busy_retries + 1):
            try:
                return self._read_completion(self._post(request, api_key), api_key)
            except urllib.error.HTTPError as exc:
                try:
                    detail = exc.read(4000).decode("utf-8", errors="replace")
                except (OSError, http.client.HTTPException):
                    detail = ""
                if exc.code in BUSY_STATUSES and asked_again < self.busy_retries:
                    # a rate limit or an overloaded server: ask again after the wait it names
                    self.totals["busy_waits"] += 1
                    time.sleep(busy_wait(exc.headers.get("Retry-After"), asked_again, self.timeout))
                    continue
                again = f" (asked again {asked_again} times: option busy_retries)" if asked_again else ""
                raise ChatError(
                    f"{self.name}: the endpoint answered HTTP {exc.code}{again}: "
                    f"{_without(api_key, detail)[:400]}"
                ) from None
        raise AssertionError("unreachable: the last request returns or raises")

    def _post(self, request: urllib.request.Request, api_key: str | None) -> bytes:
        """One request: the response's body (an HTTP error status raises ``HTTPError``); every
        other failure is a :class:`ChatError` that never shows the key."""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # the user's own URL
                return bytes(response.read(RESPONSE_LIMIT + 1))
        except urllib.error.HTTPError:
            raise
        except TimeoutError:
            raise ChatError(
                f"{self.name}: {self.base_url} did not answer within {self.timeout:g} s (option timeout)"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            raise ChatError(
                f"{self.name}: cannot reach {self.base_url}: {_without(api_key, str(exc))}"
            ) from None
        except http.client.HTTPException as exc:  # a status line, header or chunk that is not HTTP
            raise ChatError(
                f"{self.name}: {self.base_url} answered a broken HTTP response "
                f"({type(exc).__name__}: {_without(api_key, str(exc))[:200]})"
            ) from None

    def _read_completion(self, raw: bytes, api_key: str | None) -> tuple[str, dict[str, int]]:
        """The answer's text and token usage of a response body (a :class:`ChatError` if it is
        not a chat completion)."""
        if len(raw) > RESPONSE_LIMIT:
            raise ChatError(f"{self.name}: a response longer than {RESPONSE_LIMIT} bytes")
        try:
            data = json.loads(raw)
            text = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            shown = _without(api_key, repr(raw[:2000]))[:200]
            raise ChatError(f"{self.name}: the response is not a chat completion: {shown}") from None
        usage = data.get("usage") if isinstance(data, dict) else None
        shown = _without(api_key, repr(raw[:2000]))[:200]
        tokens = {key: self._token_count(usage, key, shown) for key in ("prompt_tokens", "completion_tokens")}
        return str(text or ""), tokens

    def _token_count(self, usage: Any, key: str, shown: str) -> int:
        """``usage[key]`` of a response: 0 when the endpoint reports no usage (or null); a count
        that is not a non-negative integer is a :class:`ChatError` (it fed ``int()``, which raised
        ValueError or OverflowError from inside the adapter, or turned ``2.9`` into 2)."""
        count = usage.get(key) if isinstance(usage, dict) else None
        if count is None:
            return 0
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ChatError(
                f"{self.name}: the response's usage.{key} is {count!r:.40}, not a token count (an "
                f"integer 0 or more): {shown}"
            )
        return count

    # ------------------------------------------------------------ the agent interface
    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """The model's move, re-asked on an illegal or unreadable answer within the budget."""

        resolve_mask(observation, action_mask)
        public = as_view(view, f"agent {self.name}", observation)
        prompt = decision_prompt(public, history=self.history)
        messages = [{"role": "system", "content": SYSTEM_PROMPT}]
        tokens = {"prompt_tokens": 0, "completion_tokens": 0}
        start = time.perf_counter()

        def answer(question: str, reask: str | None) -> str:
            if reask is None:
                messages.append({"role": "user", "content": question})
            else:
                messages.append({"role": "user", "content": reask})
            text, used = self.complete(messages)
            messages.append({"role": "assistant", "content": text})
            for key in tokens:
                tokens[key] += used[key]
            return text

        asked = ask(public, answer, retries=self.retries, prompt=prompt)
        seconds = time.perf_counter() - start
        if asked.fallback and not self._fallback_warned:
            self._fallback_warned = True
            warnings.warn(
                f"{self.name}: {len(asked.answers)} answer(s) named no legal move (the last: "
                f"{asked.answers[-1][:80]!r}); played the first legal move, "
                f"{public.describe_action(asked.action)}, as the fallback (option retries={self.retries}; "
                "uno-env benchmark counts them; this agent warns of its first one only)",
                FallbackWarning,
                stacklevel=2,
            )
        totals = self.totals
        totals["decisions"] += 1
        totals["requests"] += len(asked.answers)
        totals["answers"] += len(asked.answers)
        totals["illegal_answers"] += len(asked.errors)
        totals["fallbacks"] += int(asked.fallback)
        totals["prompt_tokens"] += tokens["prompt_tokens"]
        totals["completion_tokens"] += tokens["completion_tokens"]
        totals["seconds"] += seconds
        self.last_exchange = {
            "prompt": prompt,
            "answers": asked.answers,
            "reasks": asked.errors,
            "retries": asked.retries,
            "fallback": asked.fallback,
            "tokens": tokens,
            "seconds": seconds,
        }
        return asked.action

    def stats(self) -> dict[str, float]:
        """Totals so far and the rates: illegal answers per answer, fallbacks, tokens and
        seconds per decision."""
        totals = dict(self.totals)
        decisions = max(1, int(totals["decisions"]))
        answers = max(1, int(totals["answers"]))
        return {
            **totals,
            "illegal_answer_rate": totals["illegal_answers"] / answers,
            "fallback_rate": totals["fallbacks"] / decisions,
            "prompt_tokens_per_decision": totals["prompt_tokens"] / decisions,
            "completion_tokens_per_decision": totals["completion_tokens"] / decisions,
            "seconds_per_decision": totals["seconds"] / decisions,
        }

    def __repr__(self) -> str:
        return f"ChatAgent(model={self.model!r}, base_url={self.base_url!r})"

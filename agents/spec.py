"""Agent specs: the one grammar every command, spec file and API uses to name an agent.

``parse_agent(text)`` reads one agent; :func:`parse_seats` an opponent set (one agent for
every seat, or a seat table); :func:`parse_weighted` a mixture entry (``SPEC@WEIGHT``). The
whole grammar, with examples, is in ``docs/agents.md`` (section "Agent specs"); in short:

==============================  ==========================================================
``greedy``, ``search:sims=300``  a compiled play style with its options (``random`` is
                                 ``random_legal``)
``ppo_uno_2p``                   a shipped exported policy, by name
``PATH.npz``                     an exported policy file (plain weights, safe to load)
``PATH.zip``                     a MaskablePPO checkpoint (a pickle: signed or trusted only)
``PATH.py:NAME[:k=v,...]``       a Python agent defined in a file (**runs that file**)
``MODULE:ATTR[:k=v,...]``        a Python agent from an importable module (**runs it**)
``cmd:COMMAND``                  an out-of-process agent speaking the JSON-lines protocol
                                 (:mod:`agents.process`; **runs that command**)
``llm:model=M,base_url=U,...``   a chat model behind an OpenAI-compatible endpoint
                                 (:mod:`agents.llm`)
``file:PATH``, ``py:MODULE:ATTR``  the explicit forms, for a name that could be read otherwise
``A | B | C``                    a seat table: one agent per seat (any agents, paths too)
``a/b/c``                        a seat table of *names* (styles, shipped policies)
``SPEC@WEIGHT``                  an entry of a weighted mixture (training pools)
==============================  ==========================================================

**A path is always a path.** A text that starts with ``/``, ``./``, ``../`` or ``~``, ends in
``.npz``, ``.zip`` or ``.py:NAME``, or starts with ``file:``, names a file wherever it
appears: its slashes never split it into seats. ``/`` separates seats only between names;
a text that could be both (``greedy/blocker`` while a file of that path exists) is refused
with a message that shows both spellings.

**Files on other machines.** A spec names files by the paths of the machine that parsed it
(the driver of a run). :meth:`AgentSpec.files` lists the files an agent reads, for a runner
to send along; the process that builds the agent reads each through the *file resolver*
(:func:`set_file_resolver`, :func:`local_file`): on a Ray node the runner's
(:func:`training.runner.node_file`: the node's copy of the driver's file), elsewhere the path
itself. The spec's text (the agent's name in tables and resume keys) never changes.

A Python agent (``PATH.py:NAME``, ``MODULE:ATTR``) is an object with ``act(observation,
action_mask=None, view=None) -> int`` (:class:`agents.Agent`), a class, or a factory
function returning one; a class or factory is called with the ``k=v`` options as keyword
arguments (numbers, ``true``/``false`` and text), plus ``seed=`` when it takes one. The
tools make one agent per worker process and call its ``reset(seed)`` (when it has one)
before every game, with the seed of that game and seat, so results do not depend on how
games are split between processes.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import math
import os
import re
import shlex
import sys
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uno_env import files
from uno_env.envs.common import AGENT_FAILURES, raised_at
from uno_env.sim.guided import network_of
from uno_env.sim.learned import (
    ExportedPolicy,
    PolicyFileError,
    PolicyGameMismatchError,
    load_policy,
    shipped_policies,
    sidecar_path,
)
from uno_env.spelling import suggestion
from uno_env.styles.params import STYLE_ALIASES
from uno_env.styles.registry import STYLES, canonical_policy, parse_policy

from .llm import ChatAgent, check_options
from .policy_agent import PolicyAgent, checkpoint_path, metadata_path
from .process import ProcessAgent
from .registry import make
from .trust import CHECKPOINT_LIMIT

if TYPE_CHECKING:
    from uno_env.engine.rules import RuleSet

    from .base import Agent

KINDS = ("style", "policy", "checkpoint", "python", "process", "llm", "object")
"""What an :class:`AgentSpec` can name (``object``: an agent or factory handed over in Python)."""

COMPILED_KINDS = ("style", "policy")
"""Kinds the compiled simulator and vector env run inside their loops."""

PATH_SUFFIXES = (".npz", ".zip")
_PATH_START = ("/", "./", "../", "~", ".\\", "..\\")
_PY_FILE = re.compile(r"^(?P<file>.+\.py):(?P<attr>[A-Za-z_]\w*)(?::(?P<options>.*))?$", re.S)
_PY_MODULE = re.compile(
    r"^(?P<module>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*):(?P<attr>[A-Za-z_]\w*)(?::(?P<options>.*))?$"
)
_WEIGHT = re.compile(r"^(?P<spec>.*\S)\s*@\s*(?P<weight>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)$", re.S)
_EXPLICIT = ("file", "py", "cmd", "llm")
SEAT_SEPARATOR = "|"

GRAMMAR_HELP = (
    "an agent is a style (greedy, search:sims=300), a shipped policy (ppo_uno_2p), a file "
    "(./p.npz, /abs/model.zip, agent.py:Name), a module (pkg.mod:Name), cmd:COMMAND or llm:model=..."
    "; seats are 'a | b | c' (or a/b/c of names); see docs/agents.md#agent-specs"
)


FileResolver = Callable[[str], "str | os.PathLike[str]"]
"""Where this process reads a file an agent spec names: the driver's path in, a local path out."""

_RESOLVER: list[FileResolver] = []


def set_file_resolver(resolver: FileResolver | None) -> None:
    """Read the files agent specs name through ``resolver`` from now on in this process
    (``None``: by their own paths). A runner sets it where tasks run on machines that do not
    share the driver's folders (:func:`training.cluster.run_on_node`)."""
    _RESOLVER[:] = [] if resolver is None else [resolver]


def local_file(path: str | os.PathLike[str]) -> str:
    """The path this process reads the driver's file ``path`` at (see :func:`set_file_resolver`)."""
    return str(_RESOLVER[0](str(path))) if _RESOLVER else str(path)


class AgentSpecError(ValueError):
    """An agent spec that cannot be read, or that could be read two ways."""


@dataclass(frozen=True)
class AgentSpec:
    """One agent, as parsed from its text (or wrapping an agent object handed over in Python).

    ``kind`` is one of :data:`KINDS`; ``text`` the canonical spec (what tables, result
    files and resume keys name it by); ``target`` the style text, the policy's path or
    shipped name, the checkpoint's path, the Python module or file, or the command line;
    ``attr`` the Python attribute; ``options`` the ``k=v`` options (Python agents and
    ``llm:``).
    """

    kind: str
    text: str
    target: str = ""
    attr: str = ""
    options: tuple[tuple[str, Any], ...] = ()
    obj: Any = field(default=None, compare=False, repr=False)

    @property
    def compiled(self) -> bool:
        """Whether the compiled simulator and vector env run this agent inside their loops."""
        return self.kind in COMPILED_KINDS

    @property
    def plays_as(self) -> str:
        """What decides how this agent plays: a style's canonical text (an alias and its style,
        a parameter written at its default and left out, play alike), else :attr:`text`."""
        return canonical_policy(self.target) if self.kind == "style" else self.text

    @property
    def policy(self) -> str:
        """The text the compiled layers take (:func:`uno_env.simulate`'s ``policies``, a
        vector env's style names): the style, or the exported policy's path (where this
        process reads it, :func:`local_file`) or shipped name."""
        if not self.compiled:
            a_kind = f"{'an' if self.kind[:1] in 'aeiou' else 'a'} {self.kind}"  # an object agent
            raise AgentSpecError(f"agent {self.text!r} is not compiled ({a_kind} agent)")
        if self.kind == "policy" and self.target not in shipped_policies():
            return local_file(self.target)
        guide = network_of(self.target) if self.kind == "style" else None
        if guide is not None and guide not in shipped_policies() and local_file(guide) != guide:
            return _with_network(self.target, local_file(guide))  # the search reads this process's copy
        return self.target

    @property
    def networks(self) -> tuple[str, ...]:
        """The exported networks this agent plays with, as the spec names them: an exported
        policy's own file (or shipped name), a search's guide (``search:net=NAME``)."""
        if self.kind == "policy":
            return (self.target,)
        guide = network_of(self.target) if self.kind == "style" else None
        return () if guide is None else (guide,)

    def check_networks(self, rules: Any, players: int | None, *, allow_rules_mismatch: bool = False) -> None:
        """Raise :class:`~uno_env.sim.learned.PolicyFileError` unless every network this agent
        plays with (:attr:`networks`) can be read (``MissingPolicyError``, a malformed file) and
        fits the game (``PolicyGameMismatchError``): its observation size, action table,
        observation spec and env version, and unless ``allow_rules_mismatch`` (a transfer) the
        rules and player count it was trained for (``players=None``: any count). A search's
        guide is held to the rule an exported policy in the seat is: it was trained for a game.
        An agent object that plays with a network (:class:`~agents.ExportedAgent`, a guided
        :class:`~agents.ScriptedAgent`: its ``check_game``) is held to it too."""
        if self.kind == "object" and _is_agent(self.obj) and callable(getattr(self.obj, "check_game", None)):
            try:
                self.obj.check_game(rules, players, allow_rules_mismatch=allow_rules_mismatch)
            except PolicyFileError as exc:
                raise type(exc)(f"agent {self.text!r}: {exc}") from None
        for network in self.networks:
            try:
                _load_network(network).check_game(rules, players, allow_rules_mismatch=allow_rules_mismatch)
            except PolicyFileError as exc:
                if self.kind == "policy":
                    raise
                raise type(exc)(f"agent {self.text!r}, the search's network: {exc}") from None

    def plays_a_transfer(self, rules: Any, players: int | None) -> bool:
        """Whether a network this agent plays with was trained for other rules or another
        player count than ``rules`` and ``players`` (it plays them as a transfer; reports flag it)."""
        for network in self.networks:
            try:
                _load_network(network).check_game(rules, players, allow_rules_mismatch=False)
            except PolicyGameMismatchError:
                return True
        return False

    def files(self) -> tuple[str, ...]:
        """The files this agent reads, by the paths of the process that parsed the spec: an
        exported policy's ``.npz`` and its ``.json`` sidecar (a search's guide too), a
        checkpoint's ``.zip`` and its sidecar, a Python file agent's ``.py`` (its own file;
        modules it imports are the user's to install). What a runner sends to machines
        without the driver's folders (:func:`local_file`)."""
        if self.kind in ("policy", "style"):  # read together, from one folder
            on_disk = [n for n in self.networks if n not in shipped_policies()]
            return tuple(path for n in on_disk for path in (n, str(sidecar_path(n))))
        if self.kind == "checkpoint":
            sidecar = metadata_path(self.target)
            return (str(checkpoint_path(self.target)), *([str(sidecar)] if sidecar.is_file() else []))
        if self.kind == "python" and self.target.endswith(".py"):
            return (self.target,)
        return ()

    @property
    def label(self) -> str:
        """A short name for tables and plots: a file's name without its folder."""
        if self.kind in ("policy", "checkpoint") and ("/" in self.target or os.sep in self.target):
            return Path(self.target).name
        if self.kind == "python" and self.target.endswith(".py"):
            return f"{Path(self.target).name}:{self.attr}"
        return self.text

    @property
    def cheats(self) -> bool:
        """Whether the agent sees hidden cards by design (the ``oracle`` style)."""
        return self.kind == "style" and parse_policy(self.target)[0].cheats

    def make(
        self,
        rules: RuleSet | None = None,
        players: int | None = None,
        seed: int | None = None,
        *,
        trust: bool = False,
    ) -> Agent:
        """A Python agent for this spec, seeded with ``seed``.

        ``rules`` and ``players`` are needed for a checkpoint (its sidecar is checked against
        them) and given to ``cmd:`` and ``llm:`` agents; ``trust`` loads a checkpoint this
        installation did not sign (:mod:`agents.trust`).
        """

        if self.kind in COMPILED_KINDS:
            return make(self.policy, seed=seed)
        if self.kind == "checkpoint":
            if rules is None:
                raise AgentSpecError(f"checkpoint {self.target}: the rules are needed to load it")
            local = local_file(checkpoint_path(self.target))  # its sidecar travels beside it
            return PolicyAgent(local, rules, num_players=players, seed=seed, trust=trust)
        if self.kind == "python":
            return _build(_load_attr(self), dict(self.options), seed, self.text)
        if self.kind == "object":
            return _build(self.obj, {}, seed, self.text)
        if self.kind == "process":
            return ProcessAgent(self.target, seed=seed, name=self.text)
        if self.kind == "llm":
            return ChatAgent.from_options(dict(self.options), seed=seed, name=self.text)
        raise AgentSpecError(f"agent {self.text!r}: unknown kind {self.kind!r}")

    def __str__(self) -> str:
        return self.text


_PARAMETER = re.compile(r"\s*[A-Za-z_]\w*=")


def split_agent_list(text: str) -> list[str]:
    """The agents of a comma-separated list (``tournament --agents``, ``play --vs``): a piece
    that starts ``key=`` continues the agent before it, whatever its value holds
    (``bluffer:bluff=0.3,challenge=0.8`` and ``llm:model=m,base_url=http://host:8000/v1`` are
    one agent each); a file named ``key=....zip`` or ``.npz`` is a file. Pieces are stripped;
    empty ones are kept for the caller to refuse or skip."""
    out: list[str] = []
    for piece in text.split(","):
        token = piece.strip()
        if out and _PARAMETER.match(token) and not token.lower().endswith((".zip", ".npz")):
            out[-1] += f",{token}"
        else:
            out.append(token)
    return out


def same_agent_twice(agents: Iterable[AgentSpec]) -> tuple[str, str] | None:
    """The texts of the first two ``agents`` that play alike (:attr:`AgentSpec.plays_as`:
    ``random`` and ``random_legal``, ``bluffer`` and ``bluffer:bluff=0.5``), or None: a table
    that lists one agent twice under two names compares it with itself."""
    seen: dict[str, str] = {}
    for agent in agents:
        if agent.plays_as in seen:
            return seen[agent.plays_as], agent.text
        seen[agent.plays_as] = agent.text
    return None


def check_seated_networks(
    agents: Iterable[AgentSpec],
    rules: Any,
    players: int | None,
    *,
    allow_rules_mismatch: bool = False,
    allow_with: str = "--allow-rules-mismatch plays it on other rules",
) -> None:
    """:meth:`AgentSpec.check_networks` for each agent of a table (each once); a rules mismatch
    that could be allowed says how (``allow_with``: the option of the tool that seats them). A
    network that would not fit even as a transfer (another deck family: other observation size
    and action table) gets no such hint: the option would not seat it."""
    for agent in {a.text: a for a in agents}.values():
        try:
            agent.check_networks(rules, players, allow_rules_mismatch=allow_rules_mismatch)
        except PolicyGameMismatchError as exc:
            if allow_rules_mismatch:  # what does not fit even as a transfer
                raise
            try:
                agent.check_networks(rules, players, allow_rules_mismatch=True)
            except PolicyGameMismatchError:
                raise exc from None
            raise PolicyGameMismatchError(f"{exc} ({allow_with})") from None


def _load_network(network: str) -> ExportedPolicy:
    """The exported network a spec names (a shipped name, or a file read where this process
    finds it: :func:`local_file`)."""
    return load_policy(network if network in shipped_policies() else local_file(network))


def _with_network(text: str, path: str) -> str:
    """A style text with its ``net=`` parameter set to ``path`` (every other item as written)."""
    name, _, rest = text.partition(":")
    items = [
        f"net={path}" if item.partition("=")[1] and item.partition("=")[0].strip() == "net" else item
        for item in rest.split(",")
    ]
    return f"{name}:{','.join(items)}"


AgentLike = Any
"""What the tools accept as an agent: a spec text, an :class:`AgentSpec`, an
:class:`agents.Agent` object, or a factory (a class or function returning one; what worker
processes need, since each builds its own)."""


# ================================================================ parsing
def parse_agent(text: str, *, where: str = "agent") -> AgentSpec:
    """One agent from its spec text (see the module docstring); :class:`AgentSpecError`
    naming ``where``, what was wrong and how to write it."""
    if not isinstance(text, str):
        raise AgentSpecError(f"{where}: an agent spec is text, got {type(text).__name__}")
    spec = text.strip()
    if not spec:
        raise AgentSpecError(f"{where}: empty agent spec; {GRAMMAR_HELP}")
    if SEAT_SEPARATOR in spec and not spec.startswith(("cmd:", "llm:")):
        raise AgentSpecError(
            f"{where}: {spec!r} is a seat table (one agent per seat); one agent is asked for here"
        )
    head, sep, rest = spec.partition(":")
    if sep and head in _EXPLICIT:
        return _explicit(head, rest.strip(), spec, where)
    if sep and STYLE_ALIASES.get(head.strip(), head.strip()) in STYLES:
        return _name_spec(spec, where)  # a style whose options may name files: search:net=/p.npz
    if _is_path_text(spec):
        return _path_spec(spec, where)
    if "/" in spec or "\\" in spec:
        if Path(spec).expanduser().exists():
            return _path_spec(spec, where)
        raise AgentSpecError(
            f"{where}: {spec!r} is not a file (no such path) and one agent is asked for here; a "
            f"file is written ./{spec} or file:{spec} (a seat table of names, a/b, is not one agent)"
        )
    return _name_spec(spec, where)


def parse_seats(text: str | Sequence[str], opponents: int, *, where: str = "opponents") -> list[AgentSpec]:
    """The agents of ``opponents`` seats: one spec for all of them, or a seat table with one
    per seat (``a | b | c``; ``a/b/c`` of names; in a spec file a list).

    Entry ``k`` of a table sits ``k + 1`` seats clockwise from the player the table is for.
    """
    if not isinstance(text, str):
        entries = list(text)
        if not entries or not all(isinstance(e, str) for e in entries):
            raise AgentSpecError(f"{where}: a seat table is a list of agent specs, got {text!r}")
        n = len(entries)
        specs = [parse_agent(e, where=f"{where}, entry {k + 1} of {n}") for k, e in enumerate(entries)]
    else:
        specs = split_seats(text, where=where)
    if len(specs) == 1:
        return specs * opponents
    if len(specs) != opponents:
        raise AgentSpecError(
            f"{where}: {_show(text)} names {len(specs)} seats; {opponents + 1} players need {opponents} "
            "(entry k sits k seats clockwise) or one agent for every seat"
        )
    return specs


def split_seats(text: str, *, where: str = "seats") -> list[AgentSpec]:
    """The entries of a seat-table text (one entry when it names a single agent), parsed."""
    parts = seat_texts(text, where=where)
    if len(parts) == 1:
        return [parse_agent(parts[0], where=where)]
    # "entry", not "seat": a table may list every seat (from 0) or the opponents (from 1 clockwise)
    return [parse_agent(p, where=f"{where}, entry {k + 1} of {len(parts)}") for k, p in enumerate(parts)]


def seat_texts(text: str, *, where: str = "seats") -> list[str]:
    """The entries of a seat-table text as texts, split by the grammar's rules alone: on
    ``|``; on ``/`` only between names (a text written as a path is one entry, and a file
    that exists is not split unless every part is a name too, which is refused as ambiguous).
    Files are not opened: :func:`parse_agent` checks each entry."""
    spec = text.strip()
    if not spec:
        raise AgentSpecError(f"{where}: empty agent spec; {GRAMMAR_HELP}")
    if SEAT_SEPARATOR in spec:
        parts = [p.strip() for p in spec.split(SEAT_SEPARATOR)]
        if any(not p for p in parts):
            raise AgentSpecError(f"{where}: {spec!r} has an empty seat between '|'")
        return parts
    head = spec.partition(":")[0]
    if head in _EXPLICIT or _is_path_text(spec) or ("/" not in spec and "\\" not in spec):
        return [spec]
    parts = [p.strip() for p in spec.split("/")]
    exists = Path(spec).expanduser().exists()
    for part in parts:
        try:
            if not part:
                raise AgentSpecError("an empty seat")
            _name_spec(part, where)
        except AgentSpecError:
            if exists:
                return [spec]
            raise AgentSpecError(
                f"{where}: {spec!r} is neither a file (no such path) nor a seat table of agent names "
                f"({part!r} is no style or shipped policy: {_known_names()}); write a file as ./{spec} or "
                f"file:{spec}, and seats as 'a | b | c'"
            ) from None
    if exists:
        raise AgentSpecError(
            f"{where}: {spec!r} is ambiguous: a seat table of {len(parts)} names and an existing path; "
            f"write ./{spec} (or file:{spec}) for the file, or '{' | '.join(parts)}' for the seats"
        )
    return parts


def parse_weighted(text: str, *, where: str = "opponents") -> tuple[str, float]:
    """Split a mixture entry ``SPEC@WEIGHT`` into the spec text and its weight (default 1)."""
    spec = text.strip()
    match = _WEIGHT.match(spec)
    if match is None:
        if "@" in spec and not Path(spec).expanduser().exists() and spec.rpartition("@")[2].strip():
            weight = spec.rpartition("@")[2].strip()
            if not _is_path_text(spec) and not spec.startswith(("cmd:", "llm:")):
                raise AgentSpecError(
                    f"{where}: {spec!r}: the weight after '@' must be a number, got {weight!r}"
                )
        return spec, 1.0
    if Path(spec).expanduser().exists() and not Path(match["spec"]).expanduser().exists():
        return spec, 1.0  # a file whose name ends in @N
    if Path(spec).expanduser().exists():
        raise AgentSpecError(
            f"{where}: {spec!r} is ambiguous: an existing file and {match['spec']!r} at weight "
            f"{match['weight']}; "
            f"write file:{spec} for the file or file:{match['spec']}@{match['weight']} for the weighted one"
        )
    value = float(match["weight"])
    if not math.isfinite(value) or value < 0:
        raise AgentSpecError(f"{where}: {spec!r}: the weight must be a finite number >= 0")
    return str(match["spec"]).strip(), value


def as_spec(agent: AgentLike, *, where: str = "agent") -> AgentSpec:
    """An :class:`AgentSpec` for anything the tools accept as one agent (see :data:`AgentLike`)."""
    if isinstance(agent, AgentSpec):
        return agent
    if isinstance(agent, str):
        return parse_agent(agent, where=where)
    if isinstance(agent, Path):
        return parse_agent(f"file:{agent}", where=where)
    if _is_agent(agent) or callable(agent):
        name = getattr(agent, "name", None)
        if not isinstance(name, str) or not name:
            name = getattr(agent, "__name__", None) or type(agent).__name__
        return AgentSpec("object", str(name), obj=agent)
    raise AgentSpecError(
        f"{where}: {agent!r} is not an agent: give a spec text, an object with act(observation, "
        "action_mask, view) or a factory returning one"
    )


def describe_grammar() -> str:
    """The grammar in one paragraph (help texts)."""
    return GRAMMAR_HELP


# ---------------------------------------------------------------- the forms
def _show(text: str | Sequence[str]) -> str:
    return repr(text) if isinstance(text, str) else repr(list(text))


def _is_path_text(spec: str) -> bool:
    """Whether the text is written as a path (and so is one, wherever it appears)."""
    if spec.startswith(_PATH_START):
        return True
    if _PY_FILE.match(spec):
        return True
    return spec.lower().endswith(PATH_SUFFIXES)


def _explicit(head: str, rest: str, spec: str, where: str) -> AgentSpec:
    if not rest:
        raise AgentSpecError(f"{where}: {spec!r} names nothing after '{head}:'")
    if head == "file":
        return _path_spec(rest, where, explicit=True)
    if head == "py":
        file_match = _PY_FILE.match(rest)
        if file_match:
            return _python_spec(
                file_match["file"], file_match["attr"], file_match["options"], where, file=True
            )
        module_match = _PY_MODULE.match(rest)
        if module_match:
            return _python_spec(module_match["module"], module_match["attr"], module_match["options"], where)
        raise AgentSpecError(f"{where}: {spec!r}: py: takes MODULE:ATTR or PATH.py:NAME (options after ':')")
    if head == "cmd":
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise AgentSpecError(
                f"{where}: {spec!r}: the command cannot be split into words ({exc})"
            ) from None
        if not argv:
            raise AgentSpecError(f"{where}: {spec!r} names no command")
        return AgentSpec("process", f"cmd:{rest}", target=rest)
    # llm: key=value options (model required)
    options = _options(rest, where, spec)
    names = dict(options)
    if "model" not in names:
        raise AgentSpecError(
            f"{where}: {spec!r}: llm: needs model=NAME (and base_url=, or UNO_ENV_LLM_BASE_URL)"
        )

    try:
        check_options(names, where)
    except ValueError as exc:
        raise AgentSpecError(str(exc)) from None
    return AgentSpec("llm", f"llm:{rest}", target=str(names["model"]), options=options)


def _here(path: str) -> Path:
    """Where this process reads the file ``path`` names (:func:`local_file`), ``~`` expanded."""
    return Path(local_file(path)).expanduser()


def _not_a_file(here: Path, named: str) -> AgentSpecError:
    """Why the policy or checkpoint file ``named`` (read at ``here``) cannot be read: missing,
    a folder, a broken link or not a regular file ("does not exist" misled for the others)."""
    if here.is_dir():
        return AgentSpecError(f"{named} is a folder; allowed: a file (name the file in the folder)")
    if here.is_symlink() and not here.exists():
        return AgentSpecError(f"{named} is a broken link; allowed: a file (or a link to one)")
    if here.exists():
        return AgentSpecError(f"{named} is not a regular file (a FIFO, device or socket); allowed: a file")
    return AgentSpecError(f"{named} does not exist")


def _path_spec(text: str, where: str, *, explicit: bool = False) -> AgentSpec:
    """A file: an exported policy (``.npz``), a checkpoint (``.zip``) or a Python file agent."""
    match = _PY_FILE.match(text)
    if match:
        return _python_spec(match["file"], match["attr"], match["options"], where, file=True)
    path = Path(text).expanduser()
    here = _here(text)  # where this process reads it: on a Ray node, its copy of the driver's file
    suffix = path.suffix.lower()
    if suffix == ".npz":
        if not here.is_file():
            raise _not_a_file(here, f"{where}: exported policy {text}")
        return AgentSpec("policy", str(path), target=str(path))
    zipped = _here(f"{Path(text)}.zip")  # a checkpoint named without its suffix
    if suffix == ".zip" or (not here.exists() and zipped.is_file()):
        if not (here if suffix == ".zip" else zipped).is_file():
            raise _not_a_file(here, f"{where}: checkpoint {text}")
        return AgentSpec("checkpoint", text if not explicit else str(path), target=str(path))
    if path.suffix.lower() == ".py":
        raise AgentSpecError(f"{where}: {text!r}: a Python file agent names its agent: {text}:NAME")
    if not here.exists():
        raise AgentSpecError(
            f"{where}: {text} does not exist (a policy .npz, a checkpoint .zip or FILE.py:NAME)"
        )
    if here.is_dir():
        raise AgentSpecError(f"{where}: {text} is a folder; name the policy file in it (.npz or .zip)")
    kind = _sniff(here)
    if kind is None:
        raise AgentSpecError(
            f"{where}: {text} is neither an exported policy (.npz) nor a MaskablePPO checkpoint (.zip)"
        )
    if kind == "policy":
        raise AgentSpecError(f"{where}: {text} holds NumPy arrays: exported policies are named NAME.npz")
    return AgentSpec("checkpoint", str(path), target=str(path))


def _sniff(path: Path) -> str | None:
    """What a file without a known suffix holds, from its first bytes (both are zip archives:
    an exported policy's ``.npz`` holds ``.npy`` members, a checkpoint ``data``)."""

    # a regular file within a checkpoint's size, read on one descriptor (a FIFO or a device:
    # one line, never a read that waits or does not end)
    with files.open_regular(path, CHECKPOINT_LIMIT, "agent file", error=AgentSpecError) as handle:
        try:
            if handle.read(4) != b"PK\x03\x04":
                return None
            handle.seek(0)
            with zipfile.ZipFile(handle) as archive:
                names = archive.namelist()[:64]
        except (OSError, zipfile.BadZipFile, ValueError, EOFError):
            return None
    if names and all(n.endswith(".npy") for n in names):
        return "policy"
    return "checkpoint" if "data" in names else None


def _name_spec(spec: str, where: str) -> AgentSpec:
    """A name: a style (with options), a shipped policy or a module's agent."""
    head = spec.partition(":")[0].strip()
    shipped = shipped_policies()
    if spec in shipped:
        _refuse_file_clash(spec, where)
        return AgentSpec("policy", spec, target=spec)
    if STYLE_ALIASES.get(head, head) in STYLES:
        try:
            parse_policy(spec)
        except ValueError as exc:
            # a user's module may share a style's name (greedy.py, Python's own random)
            module = (
                f"; a Python agent from a module named {head!r} is written py:{spec}"
                if _PY_MODULE.match(spec)
                else ""
            )
            raise AgentSpecError(f"{where}: {exc}{module}") from None
        _refuse_file_clash(spec, where)
        text = spec if ":" in spec else head
        return AgentSpec("style", text, target=spec)
    match = _PY_MODULE.match(spec)
    if match:
        return _python_spec(match["module"], match["attr"], match["options"], where)
    raise AgentSpecError(
        f"{where}: unknown play style {spec!r}"
        f"{suggestion(spec, [*STYLES, *STYLE_ALIASES, *shipped_policies()])}, and no shipped policy of that "
        f"name ({_known_names()}); "
        f"{GRAMMAR_HELP}"
    )


def _known_names() -> str:
    styles = ", ".join([*STYLES, *STYLE_ALIASES])
    return f"styles: {styles}; shipped policies: {', '.join(shipped_policies()) or 'none'}"


def _refuse_file_clash(spec: str, where: str) -> None:
    """A bare name that is also a file here could mean either: refuse, showing both spellings."""
    if Path(spec).is_file():
        raise AgentSpecError(
            f"{where}: {spec!r} is ambiguous: an agent name and a file in this folder; write ./{spec} "
            f"for the file, or run from another folder for the name"
        )


def _python_spec(source: str, attr: str, options: str | None, where: str, *, file: bool = False) -> AgentSpec:
    written = f"{source}:{attr}" if options is None else f"{source}:{attr}:{options}"
    if options is not None and not options.strip():  # "mod:Name:": a ':' with no options after it
        raise AgentSpecError(
            f"{where}: {written!r} has nothing after its last ':'; allowed: {source}:{attr} or "
            f"{source}:{attr}:key=value,..."
        )
    opts = () if options is None else _options(options, where, written)
    if file:
        path = _here(source)  # on a Ray node, its copy of the driver's file
        if not path.exists():
            raise AgentSpecError(f"{where}: Python file {source} does not exist (PATH.py:NAME)")
        if not path.is_file():  # a FIFO, a device or a folder: said as the file checks say it
            files.open_regular(path, PYTHON_FILE_LIMIT, f"{where}: Python file", error=AgentSpecError).close()
        resolved = str(path.resolve())
        text = f"{source}:{attr}" + (f":{options}" if options else "")
        return AgentSpec("python", text, target=resolved, attr=attr, options=opts)
    text = f"{source}:{attr}" + (f":{options}" if options else "")
    return AgentSpec("python", text, target=source, attr=attr, options=opts)


def _options(text: str, where: str, spec: str) -> tuple[tuple[str, Any], ...]:
    """``k=v,...`` options: numbers, ``true``/``false`` and text; an empty entry (``k=1,``,
    ``,k=1``, ``k=1,,j=2`` or nothing at all) is refused, never read as if it were not there."""
    out: dict[str, Any] = {}
    items = text.split(",")
    if any(not item.strip() for item in items):
        raise AgentSpecError(
            f"{where}: {spec!r} has an empty option entry; allowed: key=value options separated by "
            "single commas, none before the first or after the last"
        )
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise AgentSpecError(f"{where}: {spec!r}: option {item.strip()!r} is not key=value")
        if key in out:
            raise AgentSpecError(f"{where}: {spec!r}: option {key!r} is given twice")
        out[key] = _value(value.strip())
    return tuple(out.items())


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# ================================================================ building Python agents
_MODULES: dict[str, Any] = {}
PYTHON_FILE_LIMIT = 16 << 20
"""Largest Python file agent read (16 MiB)."""


def _load_attr(spec: AgentSpec) -> Any:
    """The attribute a Python spec names (its module imported once per process)."""
    source = local_file(spec.target) if spec.target.endswith(".py") else spec.target
    module = _MODULES.get(source)
    if module is None:
        if source.endswith(".py"):
            # the source read once, bounded (a FIFO or a device: one line, not a hang), and run
            # as the user asked (a Python file agent is code of the user's own choosing)
            code = files.read_bytes(
                source, PYTHON_FILE_LIMIT, f"agent {spec.text!r}: Python file", error=AgentSpecError
            )
            name = "uno_env_user_" + hashlib.sha256(source.encode()).hexdigest()[:12]
            loader = importlib.util.spec_from_file_location(name, source)
            if loader is None or loader.loader is None:
                raise AgentSpecError(f"agent {spec.text!r}: {source} cannot be loaded as Python")
            module = importlib.util.module_from_spec(loader)
            sys.modules[name] = module  # dataclasses and pickling look modules up by name
            folder = str(Path(source).parent)
            added = folder not in sys.path
            if added:
                sys.path.insert(0, folder)  # the file's own imports of its neighbours
            try:
                exec(compile(code, source, "exec"), module.__dict__)
            except AGENT_FAILURES as exc:
                sys.modules.pop(name, None)
                raise AgentSpecError(
                    f"agent {spec.text!r}: {source} failed to load: {_load_failure(exc)}"
                ) from exc
            finally:
                if added:
                    sys.path.remove(folder)
        else:
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.insert(0, os.getcwd())  # a user's module in the folder the command runs in
            try:
                module = importlib.import_module(source)
            except ImportError as exc:
                raise AgentSpecError(
                    f"agent {spec.text!r}: module {source!r} cannot be imported ({exc})"
                ) from None
            except AGENT_FAILURES as exc:  # the module's own code failed while it was imported
                raise AgentSpecError(
                    f"agent {spec.text!r}: module {source!r} failed to load: {_load_failure(exc)}"
                ) from exc
        _MODULES[source] = module
    try:
        return getattr(module, spec.attr)
    except AttributeError:
        public = ", ".join(n for n in dir(module) if not n.startswith("_")) or "none"
        raise AgentSpecError(
            f"agent {spec.text!r}: {source} defines no {spec.attr!r}; it defines {public}"
        ) from None


def _load_failure(exc: BaseException) -> str:
    """What went wrong while an agent's module ran, in words (an exit: where it comes from)."""
    if isinstance(exc, SystemExit):
        return (
            f"it exited while loading (SystemExit: {exc}), as sys.exit() or argparse's parse_args() at "
            "the top level of a module do (the tool's command line is not the agent's); keep them "
            "under if __name__ == '__main__':"
        )
    return f"{type(exc).__name__}: {exc}"


def _is_agent(obj: Any) -> bool:
    return not isinstance(obj, type) and callable(getattr(obj, "act", None))


def _build(obj: Any, options: dict[str, Any], seed: int | None, text: str) -> Agent:
    """The agent ``obj`` names: itself (an agent), or what calling it (a class or factory) gives;
    given a ``seed``, reset with it when it has ``reset`` (an agent built for one game, as
    ``uno-env play`` and the web table build theirs, is ready for it)."""
    if _is_agent(obj):
        if options:
            raise AgentSpecError(
                f"agent {text!r} is an agent object: it takes no options ({', '.join(options)})"
            )
        _reset(obj, seed, text)
        return obj
    if not callable(obj):
        raise AgentSpecError(
            f"agent {text!r} names a {type(obj).__name__}: expected an agent (with act), a class or a factory"
        )
    kwargs = dict(options)
    if seed is not None and _takes(obj, "seed"):
        kwargs.setdefault("seed", seed)
    try:
        agent = obj(**kwargs)
    except TypeError as exc:
        raise AgentSpecError(
            f"agent {text!r}: calling {_qualname(obj)} failed: {exc}{_factory_hint(obj)}"
        ) from None
    except AGENT_FAILURES as exc:  # the user's constructor or factory failed: one line, as a load error
        raise AgentSpecError(
            f"agent {text!r}: calling {_qualname(obj)} failed: {type(exc).__name__}: {exc}"
        ) from exc
    if not _is_agent(agent):
        raise AgentSpecError(
            f"agent {text!r}: {_qualname(obj)}(...) returned a {type(agent).__name__}, not an agent with "
            "act(observation, action_mask, view)"
        )
    _reset(agent, seed, text)  # seeded whether or not it takes seed=: ready for a game of its own
    return agent


def _factory_hint(obj: Any) -> str:
    """What a function named as an agent is taken for, when calling it without a decision
    failed: a plain ``act`` function reads as a factory (its first parameter is not filled)."""
    if isinstance(obj, type):
        return ""
    return (
        f" ({_qualname(obj)} is a function, so it is taken as a factory: called with the spec's "
        "key=value options (and seed= when it takes one), it returns the agent, an object with "
        "act(observation, action_mask, view); an act function of its own belongs in a class)"
    )


def _reset(agent: Any, seed: int | None, text: str) -> None:
    """``agent.reset(seed)`` when a seed is given and the agent has ``reset``; its failure is
    one :class:`AgentSpecError` naming the agent and where in its code it raised."""
    reset = getattr(agent, "reset", None)
    if seed is None or not callable(reset):
        return
    try:
        reset(seed)
    except AGENT_FAILURES as exc:
        said = " ".join(str(exc).split())[:300]
        raise AgentSpecError(
            f"agent {text!r}: its reset({seed}) raised {type(exc).__name__}: {said}{raised_at(exc)}"
        ) from exc


def _takes(function: Callable[..., Any], name: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _qualname(obj: Any) -> str:
    return str(getattr(obj, "__qualname__", type(obj).__name__))

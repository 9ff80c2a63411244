"""Learned policies as plain weights: a safe file format, a numpy forward pass and a compiled one.

A trained policy network (the actor of an sb3-contrib MaskablePPO MLP policy, exported by
``uno-env export``) is stored as two files side by side:

- ``NAME.npz``: NumPy arrays only (each ``.npy`` header checked before its data, no pickle):
  ``hidden.K.weight`` (``out x in``) and ``hidden.K.bias`` for each hidden layer ``K`` and
  ``action.weight`` / ``action.bias`` for the action logits, all float32 (torch's layout);
- ``NAME.json``: the sidecar, plain JSON (:data:`FORMAT`): the rules, observation spec, env
  version and player count the policy was trained for, the architecture (input size,
  hidden widths, activation, number of actions), the SHA-256 of the ``.npz`` file and a
  free-form ``training`` record (command, config, evaluation).

**Loading executes no code and reads no more than a legal file holds** (the file checks of
:mod:`uno_env.files`, the same for every entry point: ``agents.make``, ``simulate``, the
tournament, the study, ``evaluate``, ``uno-env train --init-policy``). :func:`load_exported`
reads the sidecar as bounded JSON and checks every field against the game the sidecar names
before the weights are touched: the format, the env and observation versions of this
installation, rules that parse, a player count those rules seat, and an architecture whose
input size is the observation size of the rules' deck family, whose action count is its
action table, and whose size is within :data:`MAX_HIDDEN_LAYERS`, :data:`MAX_WIDTH` and
:data:`MAX_PARAMETERS`. Then the ``.npz`` must be a regular file of at most
:data:`POLICY_FILE_LIMIT` bytes whose SHA-256 is the sidecar's, and a zip archive of exactly
the arrays the architecture names, each ``.npy`` header (float32, the layer's shape) checked
before its data are read; no pickle is ever read, and every value must be finite. Every
refusal is one :class:`PolicyFileError` line naming the file, the field, what was found and
what is allowed. (An SB3 ``.zip`` checkpoint, by contrast, is a pickle: loading one can run
arbitrary code. It stays the training format.)

**Acting.** The logits are the MLP's output on the env's observation (:mod:`uno_env.envs.
encoding`); illegal actions are masked out; the policy plays the legal action with the
highest logit (ties: the lowest id), as ``MaskablePPO.predict(..., deterministic=True)`` does.

- :meth:`ExportedPolicy.logits` / :meth:`ExportedPolicy.act`: numpy, for single games and
  Python agents (:class:`agents.ExportedAgent`);
- :func:`uno_env.sim.guided.play_games_with_nets`: the batch simulator with learned seats, compiled: games run
  in lockstep blocks; every game whose learned seat must decide between two or more legal
  actions is encoded into one row of an observation matrix and the network runs layer by
  layer over those rows (batched across the games), reading only the non-zero inputs of the
  sparse first layer (a forced decision, one legal action, needs no network). Scripted seats
  (and search agents) decide inline as in :func:`uno_env.sim.batch.play_games_with_params`.
  Game ``i`` is the same game as with any other batching: each game's randomness is its own.

Pretrained policies ship in ``uno_env/pretrained/`` and are named by their file stem
(:func:`shipped_policies`): ``simulate(..., policies=["distilled_uno_2p", "blocker"])``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import files
from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.cards import DeckFamily
from ..engine.rules import MAX_PLAYERS, RuleError, RuleSet, load_rules
from ..game.encoding import encode, obs_layout, observe_state, readable_specs, spec_version
from ..spelling import suggestion
from ..styles.dispatch import choose_action
from ..styles.registry import PRETRAINED_DIR as PRETRAINED_DIR  # the shipped files: one home, re-exported
from ..styles.registry import names_exported_policy
from ..styles.registry import shipped_policies as shipped_policies
from ..versions import ENV_VERSION, OBS_VERSION

_CURRENT_SIZES = (obs_layout("uno").size, obs_layout("french").size)
"""Sizes of today's observation vectors: an older network reads their prefix."""

FORMAT = "uno-env-exported-policy/1"
CRITIC_ENCODING = "privileged"
"""What an exported critic reads: the observation with every other hand revealed
(:func:`uno_env.sim.guided.encode_privileged`)."""
ACTIVATIONS = ("tanh", "relu")


MAX_HIDDEN_LAYERS = 7
"""Most hidden layers of an exported policy (the compiled forward pass's layer table)."""
MAX_WIDTH = 4096
"""Most units of a hidden layer."""
MAX_PARAMETERS = 1 << 24
"""Most weights and biases of an exported policy (64 MiB of float32)."""
MAX_NAME = 200
"""Most characters of an exported policy's ``name`` (and ``summary``)."""
POLICY_FILE_LIMIT = 4 * MAX_PARAMETERS + files.MiB
"""Largest ``.npz`` file read (the largest legal policy, plus its archive's headers)."""
SIDECAR_LIMIT = files.TEXT_LIMIT
"""Largest sidecar (``.json``) read."""


class PolicyFileError(files.FileError):
    """An exported policy file is missing, malformed, unsafe or does not fit the game."""


class MissingPolicyError(PolicyFileError, FileNotFoundError):
    """An exported policy file that does not exist."""


class PolicyGameMismatchError(PolicyFileError):
    """A readable exported policy that does not fit the game it is seated in (another deck
    family, observation spec or env version; or, unless a transfer is allowed, other rules or
    another player count): :meth:`ExportedPolicy.check_game`."""


# ================================================================ the files
@dataclass(frozen=True)
class ExportedPolicy:
    """A policy network as plain arrays plus the record of what it was trained for.

    ``weights[k]`` is ``(out, in)`` and ``biases[k]`` ``(out,)`` for every hidden layer, then
    the action layer last. ``meta`` is the sidecar's content.
    """

    name: str
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    activation: str
    meta: dict[str, Any] = field(repr=False)
    critic_weights: tuple[np.ndarray, ...] = field(default=(), repr=False)
    critic_biases: tuple[np.ndarray, ...] = field(default=(), repr=False)

    @property
    def has_critic(self) -> bool:
        """Whether the file holds a critic: a value network over the privileged observation
        (:func:`uno_env.sim.guided.encode_privileged`) that a guided search values its leaves with."""
        return bool(self.critic_weights)

    def critic_value(self, privileged: np.ndarray) -> np.ndarray:
        """The critic's chance that the observer wins, for one privileged observation or a batch."""
        if not self.has_critic:
            raise ValueError(f"policy {self.name} has no critic")
        x = self._inputs_of(privileged)
        for w, b in zip(self.critic_weights[:-1], self.critic_biases[:-1], strict=True):
            x = x @ w.T + b
            x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        out = (x @ self.critic_weights[-1].T + self.critic_biases[-1])[..., 0]
        value: np.ndarray = 1.0 / (1.0 + np.exp(-out))
        return value

    def __post_init__(self) -> None:
        """Refuse layers that do not chain (the compiled forward pass trusts these shapes)."""
        if self.activation not in ACTIVATIONS:
            raise PolicyFileError(
                f"policy {self.name}: activation {self.activation!r}; allowed: {ACTIVATIONS}"
            )
        if not self.weights or len(self.weights) != len(self.biases):
            raise PolicyFileError(f"policy {self.name}: weights and biases must list the same layers")
        if len(self.weights) > MAX_HIDDEN_LAYERS + 1:
            raise PolicyFileError(
                f"policy {self.name}: {len(self.weights)} layers; allowed: at most {MAX_HIDDEN_LAYERS + 1}"
            )
        inputs = self.weights[0].shape[1] if self.weights[0].ndim == 2 else -1
        _check_layers(self.name, "layer", self.weights, self.biases, inputs)
        if self.critic_weights or self.critic_biases:
            if (
                len(self.critic_weights) != len(self.critic_biases)
                or len(self.critic_weights) > MAX_HIDDEN_LAYERS + 1
            ):
                raise PolicyFileError(
                    f"policy {self.name}: the critic's weights and biases must list the same layers"
                )
            _check_layers(self.name, "critic layer", self.critic_weights, self.critic_biases, inputs)
            if self.critic_weights[-1].shape[0] != 1:
                outputs = self.critic_weights[-1].shape[0]
                raise PolicyFileError(f"policy {self.name}: the critic gives {outputs} outputs; allowed: 1")

    @property
    def rules(self) -> str:
        """The canonical rules string the policy was trained on."""
        return str(self.meta["rules"])

    def trained_rules(self) -> RuleSet | None:
        """The rule set the policy was trained on, read from its rules string (either one-line
        form), compared as a value: a rule field added later at its default changes nothing;
        None when the string is not a rule set of this version."""
        try:
            return RuleSet.parse(self.rules)
        except RuleError:
            return None

    @property
    def num_players(self) -> int | None:
        """The player count it was trained for (None: any)."""
        value = self.meta.get("num_players")
        return None if value is None else int(value)

    @property
    def inputs(self) -> int:
        """Observation size it reads: its observation spec's, a prefix of today's vector."""
        return int(self.weights[0].shape[1])

    @property
    def obs_version(self) -> int:
        """The observation version it was trained on (``obs-vN`` of its sidecar; today's if unset)."""
        return spec_version(self.meta.get("observation_spec")) or OBS_VERSION

    def _inputs_of(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` cut to the values this network reads: today's vector (or a batch of them)
        carries an older spec's as its prefix (:data:`uno_env.game.encoding.FIELDS_OF_VERSION`)."""
        x = np.asarray(obs, dtype=np.float32)
        if x.shape[-1] != self.inputs and x.shape[-1] in _CURRENT_SIZES:
            x = x[..., : self.inputs]
        return x

    @property
    def num_actions(self) -> int:
        """Size of the action table."""
        return int(self.weights[-1].shape[0])

    @property
    def hidden(self) -> tuple[int, ...]:
        """Widths of the hidden layers."""
        return tuple(int(w.shape[0]) for w in self.weights[:-1])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The action logits of one observation (``(inputs,)``) or a batch (``(B, inputs)``)."""
        x = self._inputs_of(obs)
        if x.shape[-1] != self.inputs:
            raise ValueError(f"policy {self.name} takes observations of {self.inputs} values, got {x.shape}")
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = x @ w.T + b
            x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        out: np.ndarray = x @ self.weights[-1].T + self.biases[-1]
        return out

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The legal action with the highest logit (ties: the lowest id)."""
        mask = np.asarray(mask).astype(bool)
        if mask.shape != (self.num_actions,):
            raise ValueError(
                f"policy {self.name} needs a mask of {self.num_actions} actions, got {mask.shape}"
            )
        if not mask.any():
            raise ValueError("the action mask has no legal action (is the game over?)")
        return int(np.argmax(np.where(mask, self.logits(obs), -np.inf)))

    def check_game(
        self, rules: Any, num_players: int | None = None, allow_rules_mismatch: bool = True
    ) -> None:
        """Raise :class:`PolicyGameMismatchError` unless the policy can play ``rules``: the same
        observation size and action count (the deck family), observation spec and env
        version, and unless ``allow_rules_mismatch`` the same rules and player count."""
        ruleset = load_rules(rules)
        problems = []
        if spec_version(self.meta.get("observation_spec")) is None:
            problems.append(
                f"observation spec {self.meta.get('observation_spec')!r}, env feeds {readable_specs()}"
            )
        else:
            size = obs_layout(ruleset.deck_family, self.obs_version).size
            if size != self.inputs:
                problems.append(f"observations of {self.inputs} values, these rules give {size}")
        if ruleset.num_actions != self.num_actions:
            problems.append(f"{self.num_actions} actions, these rules have {ruleset.num_actions}")
        if self.meta.get("env_version") != f"v{ENV_VERSION}":
            problems.append(f"env version {self.meta.get('env_version')!r}, env is v{ENV_VERSION}")
        if not allow_rules_mismatch:
            trained = self.trained_rules()
            if trained is None:
                problems.append(f"its rules string is not a rule set of this version: {self.rules!r}")
            elif trained != ruleset:
                changed = "; ".join(ruleset.differences(trained)).replace("(other:", "(trained:")
                problems.append(f"trained on other rules ({changed})")  # the caller says how to allow it
            if self.num_players is not None and num_players is not None and self.num_players != num_players:
                problems.append(f"trained for {self.num_players} players, the game has {num_players}")
        if problems:
            raise PolicyGameMismatchError(
                f"policy {self.name} does not fit this game: " + "; ".join(problems)
            )


TRANSFER_ARGUMENT = (
    "pass allow_rules_mismatch=True to play it on rules or a player count it was not trained for, a transfer"
)
"""How a Python caller allows a network trained for other rules or another player count."""


def check_switch(name: str, value: object) -> bool:
    """An on/off argument (``allow_rules_mismatch=``, the simulator's switches) as bool; anything
    but True or False (a NumPy bool too) raises TypeError naming it: a text such as ``"no"``
    would otherwise switch it on."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_fits(
    player: Any,
    rules: Any,
    num_players: int | None,
    *,
    allow_rules_mismatch: bool,
    allow_with: str = TRANSFER_ARGUMENT,
    where: str = "",
) -> None:
    """The one check of every table that seats a network (the simulator, the envs' opponents,
    :func:`agents.play`, the tools): ``player`` is an :class:`ExportedPolicy` or an agent that
    plays with one (:class:`agents.ExportedAgent`, a guided :class:`agents.ScriptedAgent`; any
    object with ``check_game(rules, num_players, allow_rules_mismatch=...)``), checked with
    :meth:`ExportedPolicy.check_game`; a player without ``check_game`` fits any game. A difference
    in rules or player count that could be allowed says how (``allow_with``: the argument or
    option of the caller); ``where`` leads the message (which seat, which search)."""
    check = getattr(player, "check_game", None)
    if not callable(check):
        return
    try:
        check(rules, num_players, allow_rules_mismatch=allow_rules_mismatch)
    except PolicyGameMismatchError as exc:
        hint = ""
        if not allow_rules_mismatch:
            try:
                check(rules, num_players, allow_rules_mismatch=True)
                hint = f" ({allow_with})"
            except PolicyGameMismatchError:
                pass  # does not fit even as a transfer: no allowance helps
        raise PolicyGameMismatchError(f"{where}{exc}{hint}") from None


def _check_layers(
    name: str, what: str, weights: tuple[np.ndarray, ...], biases: tuple[np.ndarray, ...], inputs: int
) -> None:
    """Refuse layers that are not float32 ``(out, in)`` + ``(out,)`` chaining from ``inputs``."""
    width = inputs
    for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
        shapes_fit = w.ndim == 2 and b.ndim == 1 and w.shape[1] == width and b.shape[0] == w.shape[0]
        if not shapes_fit or w.dtype != np.float32 or b.dtype != np.float32 or w.size == 0:
            raise PolicyFileError(
                f"policy {name}: {what} {k} is {w.dtype} {w.shape} + {b.dtype} {b.shape}; allowed: "
                f"float32 (out, {width}) + (out,) with out >= 1"
            )
        width = w.shape[0]


def sidecar_path(path: str | Path) -> Path:
    """``policy.npz`` -> ``policy.json``."""
    return Path(path).with_suffix(".json")


def file_digest(path: Path, limit: int = 1 << 62, what: str = "file") -> str:
    """SHA-256 of a regular file's bytes (hex), read in blocks (:func:`uno_env.files.open_regular`)."""
    return files.file_sha256(path, limit, what, error=PolicyFileError)


def save_exported(
    path: str | Path,
    weights: list[np.ndarray],
    biases: list[np.ndarray],
    activation: str,
    meta: dict[str, Any],
    critic: tuple[list[np.ndarray], list[np.ndarray]] | None = None,
) -> Path:
    """Write ``path`` (``.npz``) and its JSON sidecar; return the ``.npz`` path.

    ``weights``/``biases``: the hidden layers then the action layer, torch layout
    (``out x in``). ``meta`` must hold ``rules``, ``observation_spec``, ``env_version`` and
    may hold ``num_players`` and ``training``; the format, architecture and digest are added.
    ``critic``: optional (weights, biases) of a value network with one output (the logit of
    the observer's win) over the privileged observation, same activation; stored as
    ``critic.hidden.K.*`` and ``critic.value.*``, described in the architecture's ``critic``.
    """
    target = Path(path)
    if target.suffix != ".npz":
        raise ValueError(f"an exported policy is a .npz file, got {target}")
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if len(weights) != len(biases) or len(weights) < 1:
        raise ValueError("weights and biases must list the same layers (at least the action layer)")
    for key in ("rules", "observation_spec", "env_version"):
        if key not in meta:
            raise ValueError(f"the policy record needs {key!r}")
    arrays: dict[str, np.ndarray] = {}
    for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
        prefix = "action" if k == len(weights) - 1 else f"hidden.{k}"
        arrays[f"{prefix}.weight"] = np.ascontiguousarray(w, dtype=np.float32)
        arrays[f"{prefix}.bias"] = np.ascontiguousarray(b, dtype=np.float32)
    critic_arch: dict[str, Any] | None = None
    if critic is not None:
        c_weights, c_biases = critic
        if len(c_weights) != len(c_biases) or not c_weights or c_weights[-1].shape[0] != 1:
            raise ValueError(
                "the critic must list the same layers in weights and biases, ending in one output"
            )
        if c_weights[0].shape[1] != weights[0].shape[1]:
            raise ValueError(
                f"the critic takes {c_weights[0].shape[1]} inputs, the policy {weights[0].shape[1]}: "
                "both read the observation layout"
            )
        for k, (w, b) in enumerate(zip(c_weights, c_biases, strict=True)):
            prefix = "critic.value" if k == len(c_weights) - 1 else f"critic.hidden.{k}"
            arrays[f"{prefix}.weight"] = np.ascontiguousarray(w, dtype=np.float32)
            arrays[f"{prefix}.bias"] = np.ascontiguousarray(b, dtype=np.float32)
        critic_arch = {
            "inputs": int(c_weights[0].shape[1]),
            "hidden": [int(w.shape[0]) for w in c_weights[:-1]],
            "encoding": CRITIC_ENCODING,
        }
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        np.savez(handle, **arrays)  # type: ignore[arg-type]
    record = dict(meta)
    architecture: dict[str, Any] = {
        "kind": "mlp",
        "inputs": int(weights[0].shape[1]),
        "hidden": [int(w.shape[0]) for w in weights[:-1]],
        "activation": activation,
        "actions": int(weights[-1].shape[0]),
    }
    if critic_arch is not None:
        architecture["critic"] = critic_arch
    record.update(format=FORMAT, architecture=architecture, weights_sha256=file_digest(target))
    sidecar_path(target).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return target


def _integer(value: Any, key: str, source: str, low: int, high: int, *, exact: str | None = None) -> int:
    """``value`` (the sidecar's ``key``) as an integer ``low..high``, else a one-line refusal."""
    allowed = exact or f"an integer {low:,}..{high:,}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise files.refuse(source, key, f"is {files.describe(value)}", allowed, PolicyFileError)
    if not low <= value <= high:
        raise files.refuse(source, key, f"is {value:,}", allowed, PolicyFileError)
    return value


def _int_field(
    meta: dict[str, Any], key: str, source: str, low: int, high: int, *, exact: str | None = None
) -> int:
    """``meta[key]`` (a dotted key reads nested objects) as an integer ``low..high``."""
    value: Any = meta
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return _integer(value, key, source, low, high, exact=exact)


def _widths(value: Any, key: str, source: str) -> tuple[int, ...]:
    """The hidden widths at ``key``: a list of 1 to :data:`MAX_HIDDEN_LAYERS` integers, each
    1..:data:`MAX_WIDTH` (the compiled forward pass feeds the output layer from a hidden one)."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_HIDDEN_LAYERS:
        allowed = f"a list of 1 to {MAX_HIDDEN_LAYERS} widths (an MLP)"
        raise files.refuse(source, key, f"is {files.describe(value)}", allowed, PolicyFileError)
    return tuple(_integer(width, f"{key}[{k}]", source, 1, MAX_WIDTH) for k, width in enumerate(value))


def _parameters(widths: list[int]) -> int:
    return sum(widths[k] * widths[k + 1] + widths[k + 1] for k in range(len(widths) - 1))


def check_exportable(
    rules: RuleSet,
    hidden: list[int],
    option: str,
    *,
    critic: list[int] | None = None,
    critic_option: str = "--critic-arch",
    name: str = "",
    name_option: str = "--name",
) -> None:
    """Raise ValueError unless a network of ``hidden`` widths (and a ``critic`` of its own
    widths) for ``rules``, named ``name``, is one :func:`check_sidecar` accepts: 1 to
    :data:`MAX_HIDDEN_LAYERS` widths of 1 to :data:`MAX_WIDTH`, at most :data:`MAX_PARAMETERS`
    weights and biases, a name of at most :data:`MAX_NAME` characters; the messages name the
    options (``option``, ``critic_option``, ``name_option``) that set them. A command that trains
    a network to export calls it before its first game: the file it writes at the end is
    read back through :func:`check_sidecar`, which refused these only after the training."""
    for what, widths in ((option, hidden), (critic_option, critic)):
        if widths is None:
            continue
        if not 1 <= len(widths) <= MAX_HIDDEN_LAYERS or not all(1 <= w <= MAX_WIDTH for w in widths):
            raise ValueError(
                f"{what} {' '.join(map(str, widths))}: an exported network has 1 to {MAX_HIDDEN_LAYERS} "
                f"hidden layers of 1 to {MAX_WIDTH:,} units each"
            )
    inputs = obs_layout(rules.deck_family, OBS_VERSION).size
    parameters = _parameters([inputs, *hidden, rules.num_actions])
    if critic is not None:
        parameters += _parameters([inputs, *critic, 1])
    if parameters > MAX_PARAMETERS:
        nets = option if critic is None else f"{option} and {critic_option}"
        raise ValueError(
            f"{nets}: the network has {parameters:,} weights and biases ({inputs} inputs); an exported "
            f"network has at most {MAX_PARAMETERS:,}"
        )
    if len(name) > MAX_NAME:
        raise ValueError(
            f"{name_option}: the name has {len(name):,} characters; an exported network's name has at most "
            f"{MAX_NAME}"
        )


@dataclass(frozen=True)
class Architecture:
    """What a sidecar says the network is, after :func:`check_sidecar`: the actor's input
    size, hidden widths, action count and activation, and the critic's hidden widths (None:
    no critic; it reads the same inputs and ends in one output)."""

    inputs: int
    hidden: tuple[int, ...]
    actions: int
    activation: str
    critic: tuple[int, ...] | None = None

    def arrays(self) -> dict[str, files.ArraySpec]:
        """The ``.npz`` arrays it needs: name -> float32 and shape (torch's ``out x in``)."""
        out: dict[str, files.ArraySpec] = {}
        layers = [("hidden", "action", [self.inputs, *self.hidden, self.actions])]
        if self.critic is not None:
            layers.append(("critic.hidden", "critic.value", [self.inputs, *self.critic, 1]))
        for hidden, last, widths in layers:
            for k in range(len(widths) - 1):
                prefix = last if k == len(widths) - 2 else f"{hidden}.{k}"
                out[f"{prefix}.weight"] = files.ArraySpec("float32", (widths[k + 1], widths[k]))
                out[f"{prefix}.bias"] = files.ArraySpec("float32", (widths[k + 1],))
        return out


ARCHITECTURE_KEYS = ("kind", "inputs", "hidden", "activation", "actions", "critic")
"""The keys of a sidecar's ``architecture``: every one describes the computation, so one this
reader does not know (``layer_norm``, a typo) is refused, never ignored."""
CRITIC_KEYS = ("inputs", "hidden", "encoding")
"""The keys of ``architecture.critic``."""


def _known_keys(table: dict[str, Any], known: tuple[str, ...], field: str, source: str) -> None:
    """Refuse a key of ``table`` (the sidecar's ``field``) that is not one of ``known``."""
    unknown = sorted(str(key) for key in table if key not in known)
    if unknown:
        shown = ", ".join(f"{files.describe(key, 40)}{suggestion(key[:40], known)}" for key in unknown[:5])
        raise files.refuse(
            source,
            field,
            f"has unknown key(s) {shown} (each key describes the network: one ignored could run it "
            "otherwise than it was trained)",
            f"the keys {', '.join(known)}",
            PolicyFileError,
        )


def check_sidecar(meta: Any, source: str) -> Architecture:
    """Check an exported policy's sidecar against the game it names; return its architecture.

    ``source`` names the sidecar in messages. Refused, each with a one-line
    :class:`PolicyFileError` naming the field, what it holds and what is allowed: another
    format; another env version or observation spec than this installation's; rules that do
    not parse; a player count outside what those rules seat; an architecture that is not an
    MLP with a supported activation, whose input size is not the observation size of the
    rules' deck family, whose action count is not their action table's, or that is larger
    than :data:`MAX_HIDDEN_LAYERS`, :data:`MAX_WIDTH` or :data:`MAX_PARAMETERS` allow; a
    digest that is not SHA-256 hex; a name that is not a short string; a critic that does not
    read the actor's inputs, has no hidden layer or another encoding.
    """
    if not isinstance(meta, dict):
        raise files.refuse(
            source, "the document", f"is {files.describe(meta)}", "a JSON object", PolicyFileError
        )
    if meta.get("format") != FORMAT:
        raise files.refuse(
            source, "format", f"is {files.describe(meta.get('format'))}", repr(FORMAT), PolicyFileError
        )
    if meta.get("env_version") != f"v{ENV_VERSION}":
        raise files.refuse(
            source,
            "env_version",
            f"is {files.describe(meta.get('env_version'))}",
            f"'v{ENV_VERSION}' (this installation's env version; export it again)",
            PolicyFileError,
        )
    obs_version = spec_version(meta.get("observation_spec"))
    if obs_version is None:
        raise files.refuse(
            source,
            "observation_spec",
            f"is {files.describe(meta.get('observation_spec'))}",
            f"{readable_specs()} (the observation specs this installation feeds; export it again)",
            PolicyFileError,
        )
    text = meta.get("rules")
    if not isinstance(text, str) or len(text) > 64 * files.KiB:
        raise files.refuse(
            source, "rules", f"is {files.describe(text)}", "a canonical rules string", PolicyFileError
        )
    try:
        rules = RuleSet.parse(text)
    except RuleError as exc:
        raise files.refuse(
            source,
            "rules",
            f"do not parse ({files.describe(str(exc), 160)})",
            "a canonical rules string",
            PolicyFileError,
        ) from None
    if meta.get("num_players") is not None:
        low, high = rules.min_players, min(rules.max_players, MAX_PLAYERS)
        _int_field(
            meta, "num_players", source, low, high, exact=f"null or an integer {low}..{high} (its rules)"
        )
    for key in ("name", "summary"):
        value = meta.get(key)
        if value is not None and (not isinstance(value, str) or len(value) > MAX_NAME):
            raise files.refuse(
                source,
                key,
                f"is {files.describe(value)}",
                f"a string of at most {MAX_NAME} characters",
                PolicyFileError,
            )
    digest = meta.get("weights_sha256")
    if not isinstance(digest, str) or re.fullmatch(r"[0-9a-f]{64}", digest) is None:
        raise files.refuse(
            source, "weights_sha256", f"is {files.describe(digest)}", "64 hexadecimal digits", PolicyFileError
        )
    arch = meta.get("architecture")
    if not isinstance(arch, dict):
        raise files.refuse(
            source, "architecture", f"is {files.describe(arch)}", "a JSON object", PolicyFileError
        )
    _known_keys(arch, ARCHITECTURE_KEYS, "architecture", source)
    if arch.get("kind") != "mlp":
        raise files.refuse(
            source, "architecture.kind", f"is {files.describe(arch.get('kind'))}", "'mlp'", PolicyFileError
        )
    activation = arch.get("activation")
    if activation not in ACTIVATIONS:
        raise files.refuse(
            source,
            "architecture.activation",
            f"is {files.describe(activation)}",
            " or ".join(map(repr, ACTIVATIONS)),
            PolicyFileError,
        )
    size = obs_layout(rules.deck_family, obs_version).size
    family = f"the observation size of its rules' {rules.deck_family} deck, obs-v{obs_version}"
    inputs = _int_field(meta, "architecture.inputs", source, size, size, exact=f"{size} ({family})")
    count = rules.num_actions
    actions = _int_field(
        meta, "architecture.actions", source, count, count, exact=f"{count} (the action table of its rules)"
    )
    widths = _widths(arch.get("hidden"), "architecture.hidden", source)
    parameters = _parameters([inputs, *widths, actions])
    critic: tuple[int, ...] | None = None
    if arch.get("critic") is not None:
        spec = arch["critic"]
        if not isinstance(spec, dict):
            raise files.refuse(
                source,
                "architecture.critic",
                f"is {files.describe(spec)}",
                "an object or null",
                PolicyFileError,
            )
        _known_keys(spec, CRITIC_KEYS, "architecture.critic", source)
        if spec.get("encoding") != CRITIC_ENCODING:
            found = f"is {files.describe(spec.get('encoding'))}"
            raise files.refuse(
                source, "architecture.critic.encoding", found, repr(CRITIC_ENCODING), PolicyFileError
            )
        same = f"{inputs} (the actor's inputs: both read the observation layout)"
        _int_field(meta, "architecture.critic.inputs", source, inputs, inputs, exact=same)
        critic = _widths(spec.get("hidden"), "architecture.critic.hidden", source)
        parameters += _parameters([inputs, *critic, 1])
    if parameters > MAX_PARAMETERS:
        raise files.refuse(
            source,
            "architecture",
            f"has {parameters:,} weights and biases",
            f"at most {MAX_PARAMETERS:,}",
            PolicyFileError,
        )
    return Architecture(inputs, widths, actions, str(activation), critic)


def load_exported(path: str | Path) -> ExportedPolicy:
    """Read an exported policy (``.npz`` + ``.json`` sidecar) without executing any code.

    The sidecar first (:func:`check_sidecar`: every field against the game it names), then
    the weights (a regular file of at most :data:`POLICY_FILE_LIMIT` bytes, the sidecar's
    SHA-256, exactly the arrays of the architecture, each header checked before its data are
    read, every value finite). Raises :class:`PolicyFileError`, one line naming the file, the
    field, what was found and what is allowed (:class:`MissingPolicyError` for a missing file).
    """
    source = Path(path)
    meta_file = sidecar_path(source)
    try:
        meta = files.read_json(meta_file, "policy sidecar", SIDECAR_LIMIT, error=PolicyFileError)
        arch = check_sidecar(meta, f"policy sidecar {meta_file}")
        where = f"exported policy {source}"
        with files.open_regular(
            source, POLICY_FILE_LIMIT, "exported policy", error=PolicyFileError
        ) as handle:
            digest = hashlib.sha256()
            files.sha256_update(digest, handle)
            if digest.hexdigest() != meta["weights_sha256"]:
                found = "has another SHA-256 than its sidecar records (a replaced or damaged file)"
                allowed = f"the weights_sha256 of {meta_file.name}"
                raise files.refuse(where, "the file", found, allowed, PolicyFileError)
            handle.seek(0)
            arrays = files.npz_arrays(handle, where, arch.arrays(), error=PolicyFileError)
    except files.MissingFileError as exc:
        raise MissingPolicyError(str(exc)) from None
    for name, value in arrays.items():
        if not np.isfinite(value).all():
            raise files.refuse(
                where,
                f"array {name!r}",
                "holds values that are not finite",
                "finite float32 values",
                PolicyFileError,
            )
    prefixes = [f"hidden.{k}" for k in range(len(arch.hidden))] + ["action"]
    critic_prefixes = [f"critic.hidden.{k}" for k in range(len(arch.critic or ()))]
    critic_prefixes += ["critic.value"] if arch.critic is not None else []
    return ExportedPolicy(
        name=str(meta.get("name") or source.stem),
        weights=tuple(arrays[f"{p}.weight"] for p in prefixes),
        biases=tuple(arrays[f"{p}.bias"] for p in prefixes),
        activation=arch.activation,
        meta=meta,
        critic_weights=tuple(arrays[f"{p}.weight"] for p in critic_prefixes),
        critic_biases=tuple(arrays[f"{p}.bias"] for p in critic_prefixes),
    )


def is_learned_policy(text: str) -> bool:
    """Whether a policy text names an exported policy: a shipped name or a ``.npz`` path (not
    a style with parameters such as ``search:net=policy.npz``)."""
    return names_exported_policy(text)


@lru_cache(maxsize=32)
def _load_cached(path: str, version: tuple[int, int, int]) -> ExportedPolicy:
    return load_exported(path)


def load_policy(text: str) -> ExportedPolicy:
    """The exported policy a text names: a shipped name (``distilled_uno_2p``) or a ``.npz`` path.

    Loaded once per process and file version; unknown names list the shipped ones.
    """
    name = text.strip()
    shipped = shipped_policies()
    if name in shipped:
        path = shipped[name]
    elif name.endswith(".npz"):
        path = Path(name)
    else:
        known = ", ".join(shipped) or "none"
        raise PolicyFileError(f"{name!r} names no exported policy: a .npz path or a shipped one ({known})")
    try:
        info = path.stat()
    except OSError:
        raise MissingPolicyError(f"exported policy {path}: the file does not exist") from None
    # the path as given (a link is not resolved: its sidecar is the one beside the link)
    return _load_cached(str(path.absolute()), (info.st_mtime_ns, info.st_size, info.st_ino))


# ================================================================ the compiled forward pass
# A bank holds several networks in one float32 array; ``nets[k]`` is the row of network k in
# the int64 table ``layers``: (number of layers, activation, then per layer: inputs, outputs,
# weight offset, bias offset). Hidden weights are stored transposed (``in x out``) so that
# the first layer adds one contiguous row per non-zero input; the action layer keeps
# torch's ``out x in`` so that a legal action's logit is one contiguous dot product.
ACT_TANH = 0
ACT_RELU = 1
TABLE_WIDTH = 2 + 4 * 8  # up to 8 layers


def tanh_fraction(levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Lambert's continued fraction ``tanh x = x / (1 + y / (3 + y / (5 + ...)))`` (``y = x*x``)
    cut after ``levels`` levels, as ``tanh x ~ x * K(y) / H(y)``: the integer coefficients of
    ``K`` and ``H``, highest power first (float64; every one positive, so Horner's rule adds no
    cancellation)."""
    h_prev, h = [1], [1]
    k_prev, k = [0], [1]

    def step(p: list[int], b: int, q: list[int]) -> list[int]:  # b * p + y * q
        out = [0] * max(len(p), len(q) + 1)
        for i, c in enumerate(p):
            out[i] += b * c
        for i, c in enumerate(q):
            out[i + 1] += c
        return out

    for level in range(1, levels + 1):
        h, h_prev = step(h, 2 * level + 1, h_prev), h
        k, k_prev = step(k, 2 * level + 1, k_prev), k
    return np.array(k[::-1], dtype=np.float64), np.array(h[::-1], dtype=np.float64)


# 15 levels: relative error below 3e-11 on |x| <= 9.1 (float64), far under float32's rounding;
# beyond 9.1 tanh rounds to +-1 in float32. Plain arithmetic, so the compiler vectorises it
# across a layer's units where a call to the C library's tanh runs one unit at a time.
TANH_K, TANH_H = tanh_fraction(15)
TANH_LIMIT = 9.1


# error_model="numpy": under numba's default ("python") every division is preceded by a test
# for a zero divisor that raises ZeroDivisionError, and that branch kept the compiler from
# vectorising the layer's loop over units (scalar divisions, one unit at a time). The divisor
# H(y) is a polynomial with positive coefficients and constant term 1.9e17, never zero, so
# the test can never fire and dropping it changes no result.
@njit(cache=True, error_model="numpy")
def tanh_unit(value: float) -> float:
    """tanh of a unit's sum, to float32 rounding (the continued fraction :data:`TANH_K` /
    :data:`TANH_H` in float64)."""
    x = min(max(np.float64(value), -TANH_LIMIT), TANH_LIMIT)
    y = x * x
    num = TANH_K[0]
    for i in range(1, TANH_K.shape[0]):
        num = num * y + TANH_K[i]
    den = TANH_H[0]
    for i in range(1, TANH_H.shape[0]):
        den = den * y + TANH_H[i]
    return x * num / den


def pack(policies: list[ExportedPolicy]) -> tuple[np.ndarray, np.ndarray]:
    """The weight bank (float32) and layer table (int64, one row per policy) of ``policies``."""
    return pack_layers([(p.name, p.weights, p.biases, p.activation) for p in policies])


def pack_layers(
    networks: list[tuple[str, tuple[np.ndarray, ...], tuple[np.ndarray, ...], str]],
) -> tuple[np.ndarray, np.ndarray]:
    """The weight bank and layer table of ``networks``: (name, weights, biases, activation) each,
    one table row per network (policies' actors and critics alike)."""
    chunks: list[np.ndarray] = []
    offset = 0
    table = np.zeros((max(1, len(networks)), TABLE_WIDTH), dtype=np.int64)
    for k, (name, weights, biases, activation) in enumerate(networks):
        layers = len(weights)
        if layers > (TABLE_WIDTH - 2) // 4:
            raise ValueError(f"network {name} has {layers} layers; at most {(TABLE_WIDTH - 2) // 4}")
        if layers < 2:  # the compiled pass feeds the output layer from the last hidden layer
            raise PolicyFileError(f"network {name} has no hidden layer; the compiled forward pass needs one")
        table[k, 0] = layers
        table[k, 1] = ACT_TANH if activation == "tanh" else ACT_RELU
        for j, (w, b) in enumerate(zip(weights, biases, strict=True)):
            stored = w if j == layers - 1 else w.T
            table[k, 2 + 4 * j : 6 + 4 * j] = (w.shape[1], w.shape[0], offset, offset + w.size)
            chunks += [np.ascontiguousarray(stored, dtype=np.float32).ravel(), b.astype(np.float32)]
            offset += w.size + b.size
    bank = np.concatenate(chunks) if chunks else np.zeros(1, dtype=np.float32)
    return bank, table


@njit(cache=True)
def widest_layer(table: np.ndarray) -> int:
    """The most units any hidden layer of the bank has (scratch width)."""
    widest = 1
    for k in range(table.shape[0]):
        for j in range(table[k, 0] - 1):
            widest = max(widest, table[k, 3 + 4 * j])
    return widest


@njit(cache=True, internal=True)
def add_rows(
    bank: np.ndarray,
    w_at: int,
    n_out: int,
    inp: np.ndarray,
    nonzero: np.ndarray,
    listed: int,
    out: np.ndarray,
) -> None:
    """``out[u] += inp[i] * W[i, u]`` for the listed inputs ``i = nonzero[:listed]`` in order
    (``W``: the rows of ``n_out`` weights from ``bank[w_at]``).

    Four inputs per pass over the units: each unit still adds them one at a time in list
    order (the same float32 sums as one input per pass), but ``out`` is loaded and stored a
    quarter as often, which was most of a dense layer's memory traffic.
    """
    k = 0
    while k + 4 <= listed:
        i0, i1, i2, i3 = nonzero[k], nonzero[k + 1], nonzero[k + 2], nonzero[k + 3]
        v0, v1, v2, v3 = inp[i0], inp[i1], inp[i2], inp[i3]
        w0 = bank[w_at + i0 * n_out : w_at + (i0 + 1) * n_out]
        w1 = bank[w_at + i1 * n_out : w_at + (i1 + 1) * n_out]
        w2 = bank[w_at + i2 * n_out : w_at + (i2 + 1) * n_out]
        w3 = bank[w_at + i3 * n_out : w_at + (i3 + 1) * n_out]
        for u in range(n_out):
            out[u] = (((out[u] + v0 * w0[u]) + v1 * w1[u]) + v2 * w2[u]) + v3 * w3[u]
        k += 4
    while k < listed:
        i = nonzero[k]
        v = inp[i]
        weights = bank[w_at + i * n_out : w_at + (i + 1) * n_out]
        for u in range(n_out):
            out[u] += v * weights[u]
        k += 1


@njit(cache=True)
def forward_rows(
    bank: np.ndarray,
    table: np.ndarray,
    net: int,
    x: np.ndarray,
    rows: np.ndarray,
    count: int,
    h_a: np.ndarray,
    h_b: np.ndarray,
) -> None:
    """Hidden layers of network ``net`` for observation rows ``rows[:count]`` of ``x``, layer by
    layer over all rows; the last hidden activations end in ``h_a[rows]`` (``(B, width)``).

    Each unit adds its inputs in index order, so the result does not depend on the batch.
    Only the non-zero inputs of the first layer are added (listed first without a branch: the
    observation is mostly zeros), each as one contiguous row of the stored weights, four rows
    per pass over the units (:func:`add_rows`). A hidden layer's input is dense, so there every
    input is added, two batch rows at a time (:func:`add_dense_pair`): each weight is loaded
    once for both, and a zero adds an exact zero, so every sum is the same.
    """
    layers = table[net, 0]
    relu = table[net, 1] == ACT_RELU
    nonzero = np.empty(max(x.shape[1], h_a.shape[1]), dtype=np.int64)
    for j in range(layers - 1):
        n_in = table[net, 2 + 4 * j]
        n_out = table[net, 3 + 4 * j]
        w_at = table[net, 4 + 4 * j]
        bias = bank[table[net, 5 + 4 * j] : table[net, 5 + 4 * j] + n_out]
        r = 0
        while r < count:
            row = rows[r]
            out = h_b[row, :n_out]
            out[:] = bias
            if j > 0 and r + 1 < count:
                # a hidden layer's input is dense: two rows share each pass over the weights
                other = rows[r + 1]
                out_other = h_b[other, :n_out]
                out_other[:] = bias
                add_dense_pair(bank, w_at, n_in, n_out, h_a[row], h_a[other], out, out_other)
                activate(out, h_a[row, :n_out], relu)
                activate(out_other, h_a[other, :n_out], relu)
                r += 2
                continue
            inp = x[row] if j == 0 else h_a[row]
            listed = 0
            for i in range(n_in):
                nonzero[listed] = i
                listed += inp[i] != 0.0
            add_rows(bank, w_at, n_out, inp, nonzero, listed, out)
            activate(out, h_a[row, :n_out], relu)
            r += 1


@njit(cache=True, internal=True)
def activate(out: np.ndarray, dest: np.ndarray, relu: bool) -> None:
    """``dest[u]`` = the activation of ``out[u]`` (ReLU or the rational tanh)."""
    if relu:
        for u in range(out.shape[0]):
            dest[u] = max(out[u], np.float32(0.0))
    else:
        for u in range(out.shape[0]):
            dest[u] = tanh_unit(out[u])


@njit(cache=True, internal=True)
def add_dense_pair(
    bank: np.ndarray,
    w_at: int,
    n_in: int,
    n_out: int,
    a: np.ndarray,
    b: np.ndarray,
    out_a: np.ndarray,
    out_b: np.ndarray,
) -> None:
    """``out_a[u] += a[i] * W[i, u]`` and ``out_b[u] += b[i] * W[i, u]`` for every input ``i``
    in order: two rows per pass, so each weight is loaded once for both.

    Every input is added, zeros too: a zero input adds an exact zero (the weights are finite),
    which leaves each sum as :func:`add_rows` makes it.
    """
    i = 0
    while i + 4 <= n_in:
        a0, a1, a2, a3 = a[i], a[i + 1], a[i + 2], a[i + 3]
        b0, b1, b2, b3 = b[i], b[i + 1], b[i + 2], b[i + 3]
        w0 = bank[w_at + i * n_out : w_at + (i + 1) * n_out]
        w1 = bank[w_at + (i + 1) * n_out : w_at + (i + 2) * n_out]
        w2 = bank[w_at + (i + 2) * n_out : w_at + (i + 3) * n_out]
        w3 = bank[w_at + (i + 3) * n_out : w_at + (i + 4) * n_out]
        for u in range(n_out):
            out_a[u] = (((out_a[u] + a0 * w0[u]) + a1 * w1[u]) + a2 * w2[u]) + a3 * w3[u]
            out_b[u] = (((out_b[u] + b0 * w0[u]) + b1 * w1[u]) + b2 * w2[u]) + b3 * w3[u]
        i += 4
    while i < n_in:
        ai, bi = a[i], b[i]
        weights = bank[w_at + i * n_out : w_at + (i + 1) * n_out]
        for u in range(n_out):
            out_a[u] += ai * weights[u]
            out_b[u] += bi * weights[u]
        i += 1


@njit(cache=True)
def best_legal(
    bank: np.ndarray, table: np.ndarray, net: int, hidden: np.ndarray, mask: np.ndarray, count: int
) -> int:
    """The legal action (``mask``) with the highest logit of the action layer on ``hidden``
    (ties: the lowest id); only the legal actions' logits are computed.

    Each logit adds its terms in input order, one after another; four legal actions are
    summed side by side, so four independent sums hide the latency of each addition (the
    order within a sum, and so every logit, is unchanged).
    """
    j = table[net, 0] - 1
    n_in = table[net, 2 + 4 * j]
    w_at = table[net, 4 + 4 * j]
    b_at = table[net, 5 + 4 * j]
    best = -1
    best_logit = np.float32(-np.inf)
    a = 0
    while a < count:
        # the next (up to) four legal actions; unused lanes repeat the first, whose sum is
        # then computed more than once and compared once
        found = 0
        l0 = l1 = l2 = l3 = -1
        while a < count and found < 4:
            if mask[a]:
                if found == 0:
                    l0 = a
                elif found == 1:
                    l1 = a
                elif found == 2:
                    l2 = a
                else:
                    l3 = a
                found += 1
            a += 1
        if found == 0:
            break
        l1 = l1 if found > 1 else l0
        l2 = l2 if found > 2 else l0
        l3 = l3 if found > 3 else l0
        base0, base1, base2, base3 = w_at + l0 * n_in, w_at + l1 * n_in, w_at + l2 * n_in, w_at + l3 * n_in
        s0, s1 = np.float32(bank[b_at + l0]), np.float32(bank[b_at + l1])
        s2, s3 = np.float32(bank[b_at + l2]), np.float32(bank[b_at + l3])
        for i in range(n_in):
            h = hidden[i]
            s0 += h * bank[base0 + i]
            s1 += h * bank[base1 + i]
            s2 += h * bank[base2 + i]
            s3 += h * bank[base3 + i]
        # in id order, so the lowest id keeps a tie
        if best < 0 or s0 > best_logit:
            best, best_logit = l0, s0
        if found > 1 and s1 > best_logit:
            best, best_logit = l1, s1
        if found > 2 and s2 > best_logit:
            best, best_logit = l2, s2
        if found > 3 and s3 > best_logit:
            best, best_logit = l3, s3
    return best


@njit(cache=True)
def net_action(
    bank: np.ndarray, table: np.ndarray, net: int, obs: np.ndarray, mask: np.ndarray, num_actions: int
) -> int:
    """One observation's action (compiled, unbatched): for tests and single calls."""
    width = widest_layer(table)
    x = obs.reshape(1, obs.shape[0])
    h_a = np.zeros((1, width), dtype=np.float32)
    h_b = np.zeros((1, width), dtype=np.float32)
    rows = np.zeros(1, dtype=np.int64)
    forward_rows(bank, table, net, x, rows, 1, h_a, h_b)
    return best_legal(bank, table, net, h_a[0], mask, num_actions)


@njit(cache=True)
def only_legal(mask: np.ndarray, count: int) -> int:
    """The first legal action of ``mask`` (the only one, where one is legal)."""
    for a in range(count):
        if mask[a]:
            return a
    return -1


# ================================================================ a teacher's decisions
@njit(cache=True)
def collect_decisions(
    spec: np.ndarray,
    num_players: int,
    deck: np.ndarray,
    seed: int,
    games: int,
    teacher: int,
    teacher_params: np.ndarray,
    opponents: np.ndarray,
    opponent_params: np.ndarray,
    offsets: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    won: np.ndarray,
) -> int:
    """Play ``games`` games (game ``g`` from ``seed + g``, the teacher at seat ``g mod N``)
    and record every teacher decision with two or more legal actions; return the rows written
    (at most ``len(actions)``). ``won[r]``: 1 if the teacher won that row's game."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    rows = 0
    num_actions = spec[L.SP_NUM_ACTIONS]
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, True)
        me = g % num_players
        entry = (g // num_players) % len(opponents)
        first = rows
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            seat = state[L.S_CURRENT]
            if seat == me:
                action = choose_action(state, spec, mask, count, teacher, teacher_params)
                if count > 1 and rows < len(actions):
                    encode(state, spec, seat, offsets, obs[rows])
                    for a in range(num_actions):
                        masks[rows, a] = mask[a]
                    actions[rows] = action
                    rows += 1
            else:
                action = choose_action(state, spec, mask, count, opponents[entry], opponent_params[entry])
            engine.apply_action(state, spec, action, True)
        for r in range(first, rows):
            won[r] = 1 if state[L.S_WINNER] == me else 0
    return rows


def observe_public(state: np.ndarray, spec: np.ndarray, seat: int) -> np.ndarray:
    """The env observation of ``seat`` in a game state (what :class:`agents.ExportedAgent`
    feeds its network when it is handed a game rather than an observation)."""
    deck: DeckFamily = "french" if spec[L.SP_DECK] == 1 else "uno"
    return observe_state(state, spec, seat, deck)

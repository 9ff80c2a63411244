"""Learned policies as plain weights: a safe file format, a numpy forward pass and a compiled one.

A trained policy network (the actor of an sb3-contrib MaskablePPO MLP policy, exported by
``uno-env export``) is stored as two files side by side:

- ``NAME.npz``: NumPy arrays only, read with ``np.load(..., allow_pickle=False)``:
  ``hidden.K.weight`` (``out x in``) and ``hidden.K.bias`` for each hidden layer ``K`` and
  ``action.weight`` / ``action.bias`` for the action logits, all float32 (torch's layout);
- ``NAME.json``: the sidecar, plain JSON (:data:`FORMAT`): the rules, observation spec, env
  version and player count the policy was trained for, the architecture (input size,
  hidden widths, activation, number of actions), the SHA-256 of the ``.npz`` file and a
  free-form ``training`` record (command, config, evaluation).

**Loading executes no code.** JSON is data; ``allow_pickle=False`` makes NumPy refuse any
object array or pickle inside the archive (a :class:`PolicyFileError` here); the weights'
digest must match the sidecar's; every array's name, shape and dtype must be what the
architecture says, and every value finite. (An SB3 ``.zip`` checkpoint, by contrast, is a
pickle: loading one can run arbitrary code. It stays the training format.)

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
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.cards import DeckFamily
from ..engine.rules import RuleError, RuleSet, load_rules
from ..game.encoding import encode, obs_layout, observe_state
from ..styles.dispatch import choose_action
from ..styles.registry import PRETRAINED_DIR as PRETRAINED_DIR  # the shipped files: one home, re-exported
from ..styles.registry import names_exported_policy
from ..styles.registry import shipped_policies as shipped_policies
from ..versions import ENV_VERSION, OBS_VERSION

FORMAT = "uno-env-exported-policy/1"
CRITIC_ENCODING = "privileged"
"""What an exported critic reads: the observation with every other hand revealed
(:func:`uno_env.sim.guided.encode_privileged`)."""
ACTIVATIONS = ("tanh", "relu")


class PolicyFileError(ValueError):
    """An exported policy file is missing, malformed, unsafe or does not fit the game."""


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
        x = np.asarray(privileged, dtype=np.float32)
        for w, b in zip(self.critic_weights[:-1], self.critic_biases[:-1], strict=True):
            x = x @ w.T + b
            x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        out = (x @ self.critic_weights[-1].T + self.critic_biases[-1])[..., 0]
        value: np.ndarray = 1.0 / (1.0 + np.exp(-out))
        return value

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
        """Observation size."""
        return int(self.weights[0].shape[1])

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
        x = np.asarray(obs, dtype=np.float32)
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
        """Raise :class:`PolicyFileError` unless the policy can play ``rules``: the same deck
        family (action table and observation size), observation spec and env version, and
        unless ``allow_rules_mismatch`` the same rules and player count."""
        ruleset = load_rules(rules)
        problems = []
        size = obs_layout(ruleset.deck_family).size
        if size != self.inputs:
            problems.append(f"observations of {self.inputs} values, these rules give {size}")
        if self.meta.get("observation_spec") != f"obs-v{OBS_VERSION}":
            problems.append(
                f"observation spec {self.meta.get('observation_spec')!r}, env has obs-v{OBS_VERSION}"
            )
        if self.meta.get("env_version") != f"v{ENV_VERSION}":
            problems.append(f"env version {self.meta.get('env_version')!r}, env is v{ENV_VERSION}")
        if not allow_rules_mismatch:
            trained = self.trained_rules()
            if trained is None:
                problems.append(f"its rules string is not a rule set of this version: {self.rules!r}")
            elif trained != ruleset:
                changed = "; ".join(ruleset.differences(trained)).replace("(other:", "(trained:")
                problems.append(
                    f"trained on other rules ({changed}; allow the rules mismatch to transfer it)"
                )
            if self.num_players is not None and num_players is not None and self.num_players != num_players:
                problems.append(f"trained for {self.num_players} players, the game has {num_players}")
        if problems:
            raise PolicyFileError(f"policy {self.name} does not fit this game: " + "; ".join(problems))


def sidecar_path(path: str | Path) -> Path:
    """``policy.npz`` -> ``policy.json``."""
    return Path(path).with_suffix(".json")


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


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


def _fail(path: Path, why: str) -> PolicyFileError:
    return PolicyFileError(f"exported policy {path}: {why}")


def load_exported(path: str | Path) -> ExportedPolicy:
    """Read an exported policy (``.npz`` + ``.json`` sidecar) without executing any code.

    Raises :class:`PolicyFileError` naming what is wrong: a missing file, a sidecar that is
    not the format, a digest mismatch, a pickled or object array, an array of the wrong
    name, shape or dtype, a value that is not finite.
    """
    source = Path(path)
    meta_file = sidecar_path(source)
    for needed in (source, meta_file):
        if not needed.is_file():
            raise _fail(source, f"{needed} does not exist")
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(source, f"cannot read the sidecar {meta_file}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise _fail(source, f"sidecar format {found!r} is not {FORMAT!r}")
    arch: Any = meta.get("architecture")
    try:
        inputs = int(arch["inputs"])
        hidden = [int(h) for h in arch["hidden"]]
        actions = int(arch["actions"])
        activation = str(arch["activation"])
    except (TypeError, KeyError, ValueError):
        raise _fail(
            source, f"sidecar architecture {arch!r} lacks inputs, hidden, actions or activation"
        ) from None
    if activation not in ACTIVATIONS or inputs < 1 or actions < 1 or any(h < 1 for h in hidden):
        raise _fail(source, f"unsupported architecture {arch!r} (activations: {', '.join(ACTIVATIONS)})")
    if meta.get("weights_sha256") != file_digest(source):
        raise _fail(source, "the weights' SHA-256 differs from the sidecar's (a replaced or damaged file)")
    widths = [inputs, *hidden, actions]
    expected: dict[str, tuple[int, ...]] = {}
    for k in range(len(widths) - 1):
        prefix = "action" if k == len(widths) - 2 else f"hidden.{k}"
        expected[f"{prefix}.weight"] = (widths[k + 1], widths[k])
        expected[f"{prefix}.bias"] = (widths[k + 1],)
    critic_arch: Any = arch.get("critic") if isinstance(arch, dict) else None
    critic_widths: list[int] = []
    if critic_arch is not None:
        try:
            critic_widths = [int(critic_arch["inputs"]), *(int(h) for h in critic_arch["hidden"]), 1]
            encoding = critic_arch["encoding"]
        except (TypeError, KeyError, ValueError):
            raise _fail(source, f"sidecar critic {critic_arch!r} lacks inputs, hidden or encoding") from None
        if critic_widths[0] != inputs or any(h < 1 for h in critic_widths) or encoding != CRITIC_ENCODING:
            raise _fail(
                source,
                f"unsupported critic {critic_arch!r} (it reads the {inputs} inputs, "
                f"encoding {CRITIC_ENCODING!r})",
            )
        for k in range(len(critic_widths) - 1):
            prefix = "critic.value" if k == len(critic_widths) - 2 else f"critic.hidden.{k}"
            expected[f"{prefix}.weight"] = (critic_widths[k + 1], critic_widths[k])
            expected[f"{prefix}.bias"] = (critic_widths[k + 1],)
    arrays: dict[str, np.ndarray] = {}
    try:
        with np.load(source, allow_pickle=False) as archive:
            names = set(archive.files)
            if names != set(expected):
                raise _fail(source, f"arrays {sorted(names)}; the architecture needs {sorted(expected)}")
            for name, shape in expected.items():
                value = archive[name]
                if value.dtype != np.float32 or value.shape != shape:
                    raise _fail(source, f"{name} is {value.dtype} {value.shape}, expected float32 {shape}")
                if not np.isfinite(value).all():
                    raise _fail(source, f"{name} holds values that are not finite")
                arrays[name] = value
    except PolicyFileError:
        raise
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        # allow_pickle=False: NumPy refuses object arrays and pickles instead of running them
        raise _fail(source, f"not a plain NumPy archive ({exc})") from None
    layers = len(widths) - 1
    prefixes = [f"hidden.{k}" for k in range(layers - 1)] + ["action"]
    critic_prefixes = [f"critic.hidden.{k}" for k in range(len(critic_widths) - 2)]
    critic_prefixes += ["critic.value"] if critic_widths else []
    return ExportedPolicy(
        name=str(meta.get("name") or source.stem),
        weights=tuple(arrays[f"{p}.weight"] for p in prefixes),
        biases=tuple(arrays[f"{p}.bias"] for p in prefixes),
        activation=activation,
        meta=meta,
        critic_weights=tuple(arrays[f"{p}.weight"] for p in critic_prefixes),
        critic_biases=tuple(arrays[f"{p}.bias"] for p in critic_prefixes),
    )


def is_learned_policy(text: str) -> bool:
    """Whether a policy text names an exported policy: a shipped name or a ``.npz`` path (not
    a style with parameters such as ``search:net=policy.npz``)."""
    return names_exported_policy(text)


@lru_cache(maxsize=32)
def _load_cached(path: str, digest_key: float) -> ExportedPolicy:
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
    if not path.is_file():
        raise PolicyFileError(f"exported policy {path} does not exist")
    return _load_cached(str(path.resolve()), path.stat().st_mtime)


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


@njit(cache=True)
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
    Only the non-zero inputs are added (listed first without a branch: the observation is
    mostly zeros), each as one contiguous row of the stored weights.
    """
    layers = table[net, 0]
    relu = table[net, 1] == ACT_RELU
    nonzero = np.empty(max(x.shape[1], h_a.shape[1]), dtype=np.int64)
    for j in range(layers - 1):
        n_in = table[net, 2 + 4 * j]
        n_out = table[net, 3 + 4 * j]
        w_at = table[net, 4 + 4 * j]
        bias = bank[table[net, 5 + 4 * j] : table[net, 5 + 4 * j] + n_out]
        for r in range(count):
            row = rows[r]
            out = h_b[row, :n_out]
            out[:] = bias
            inp = x[row] if j == 0 else h_a[row]
            listed = 0
            for i in range(n_in):
                nonzero[listed] = i
                listed += inp[i] != 0.0
            for k in range(listed):
                i = nonzero[k]
                v = inp[i]
                weights = bank[w_at + i * n_out : w_at + (i + 1) * n_out]
                for u in range(n_out):
                    out[u] += v * weights[u]
            dest = h_a[row, :n_out]
            if relu:
                for u in range(n_out):
                    dest[u] = max(out[u], np.float32(0.0))
            else:
                for u in range(n_out):
                    dest[u] = tanh_unit(out[u])


@njit(cache=True)
def best_legal(
    bank: np.ndarray, table: np.ndarray, net: int, hidden: np.ndarray, mask: np.ndarray, count: int
) -> int:
    """The legal action (``mask``) with the highest logit of the action layer on ``hidden``
    (ties: the lowest id); only the legal actions' logits are computed."""
    j = table[net, 0] - 1
    n_in = table[net, 2 + 4 * j]
    w_at = table[net, 4 + 4 * j]
    b_at = table[net, 5 + 4 * j]
    best = -1
    best_logit = np.float32(-np.inf)
    for a in range(count):
        if mask[a]:
            logit = np.float32(bank[b_at + a])
            base = w_at + a * n_in
            for i in range(n_in):
                logit += hidden[i] * bank[base + i]
            if best < 0 or logit > best_logit:
                best = a
                best_logit = logit
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

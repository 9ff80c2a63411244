"""The native vector environment: N games stepped in lockstep inside one compiled call.

``VectorEnv(num_envs=256, rules="uno", num_players=4, opponents="random_playable", seat=0)`` is a
``gymnasium.vector.VectorEnv`` of single-agent games (one learner seat per game, as in
:class:`~uno_env.envs.single.SingleAgentEnv`). One :meth:`VectorEnv.step` is one compiled
call that, for every game, applies the learner's action, plays the opponents' moves with
compiled policies (texts of :data:`uno_env.styles.registry.POLICIES` such as ``"random_playable"`` or
``"bluffer:bluff=0.3"``, computed by :func:`uno_env.styles.dispatch.choose_action` inside the loop),
auto-resets finished games and writes observations and masks into preallocated arrays.

Opponents decided in Python (a frozen copy of a network for self-play, say) are *batch
policies*: callables ``(observations, masks) -> actions`` over a batch of games, given in
place of a style name. When some games wait on one, :meth:`VectorEnv.step` asks it once
for all of them (their views from the opponent's seat), applies the answers in one
compiled call and goes on until every learner decides; without batch policies a step
stays one compiled call. An agent object (``act(observation, action_mask, view=None)``,
:class:`agents.Agent`: a scripted style, a user's Python agent, an out-of-process one) sits
the same way; it is asked game by game, with the public view of its seat, whose public
history holds every decision of the game, the compiled opponents' moves included (the
compiled loop writes each move it applies into the game's public move log,
:class:`uno_env.envs.common.PublicLog`, kept once an agent object sits at a table).
``public_views=True`` keeps the log from every deal, and :meth:`VectorEnv.public_view` gives
game ``i``'s learner its typed view between steps, with the complete public history (the
log costs one int64 written per decision in the compiled loop, no extra call, and a row of
:func:`uno_env.envs.core.log_capacity` int64 per game: 128 KiB at the default
``max_decisions``). An
:class:`OpponentPool` seats each game at one of several
tables, picked with the given weights from the game's seed, and :meth:`VectorEnv.set_opponents`
changes the tables for games dealt afterwards (fictitious self-play adds snapshots this way).
An opponent that plays with a network (:class:`agents.ExportedAgent`, a ``search:net=NAME``
agent, any entry with ``check_game``) is refused with
:class:`~uno_env.sim.learned.PolicyGameMismatchError` when its network was trained for other
rules or another player count, unless ``allow_rules_mismatch=True`` (a transfer;
:func:`uno_env.sim.learned.check_fits`).
:meth:`VectorEnv.action_masks` gives the legal actions of every game;
:meth:`VectorEnv.to_sb3` wraps the same games as a Stable-Baselines3 ``VecEnv`` for
sb3-contrib's MaskablePPO.

Actions: one integer id per game. An id outside the action table (``-1``, ``num_actions``,
``2**62``) raises :class:`~uno_env.envs.common.ActionOutOfBoundsError` before any game
moves, as in the single-agent and AEC envs; a legal-table id that is not legal in its game
is handled by ``illegal_action`` (``"terminate"``: reward ``illegal_reward`` and the game
ends; ``"draw_penalty"``; ``"raise"``: :class:`~uno_env.IllegalActionError` naming the first such
game, before any game moves, so the step can be retried).

Auto-reset is *same-step* (the ``autoreset_mode`` attribute, also in ``metadata``, as
Gymnasium's own vector envs carry it): when game ``i`` ends, the step returns the first
observation of the next game in row ``i`` and puts the last observation of the finished
game in ``infos["final_obs"][i]`` (SB3: ``infos[i]["terminal_observation"]``);
``infos["final_info"]`` holds, per finished game, ``illegal_action``, ``decisions`` (every
choice made in the game, all seats), ``turns`` (turns begun: a player entered the play
phase), ``decision_limit`` (the game was cut by E-END-1) and ``step_limit`` (cut at
``max_episode_steps``), each with its ``_name`` presence mask.

``max_episode_steps=k`` (also ``gymnasium.make_vec(..., max_episode_steps=k)`` and an env
spec's own ``max_episode_steps``, which Gymnasium passes to the vector entry point) cuts a game
after its learner's ``k``-th step, as Gymnasium's ``TimeLimit`` cuts the single-agent env:
``truncated[i]`` is True, ``terminated[i]`` False, the step pays what it pays mid-game (0), and
the row restarts in the same step like a finished game: ``infos["final_obs"][i]`` is the view the
learner would have decided on (with ``dict_observation``, with its legal actions, not zeros:
the game was still going), ``final_info`` holds its lengths and ``step_limit`` True
(``decision_limit`` False), and the next game is dealt from :func:`uno_env.envs.core.next_seed`.
The count lives in NumPy beside the compiled call; a step that cuts games makes one more
compiled call, dealing only those rows.

``dict_observation=True`` makes the observations ``{"observation": (N, size) float32,
"action_mask": (N, num_actions) int8}`` (a ``spaces.Dict`` of batched boxes; each
``final_obs`` entry a dict too), the format masked models of TorchRL and RLlib read.

Stable-Baselines3 has its own ``VecEnv`` interface: hand it :meth:`VectorEnv.to_sb3`. Handing
it the ``VectorEnv`` itself raises a ``TypeError`` that says so, instead of SB3's "not a
Gymnasium environment": SB3's first look at an env is ``isinstance(env, VecEnv)``, which
reads ``env.__class__``, and the vector env answers that read from SB3's code with the error
(every other caller gets the class, as usual).

Seeds: ``reset(seed=s)`` deals game ``i`` from seed ``s + i`` (or ``seed=[s0, s1, ...]``
one seed per game, where ``None`` deals that game as ``reset()`` does, as Gymnasium's own
vector envs take a list); ``reset()`` deals each game the next seed of its row's sequence;
each later game of row ``i`` is dealt from
:func:`uno_env.envs.core.next_seed` of the previous one, exactly as a
:class:`SingleAgentEnv` reset with the same first seed and driven by the same learner
actions plays, game for game.

Observations are written into preallocated arrays. With ``copy=True`` (the default) each
call returns a copy. With ``copy=False`` it returns one of two preallocated buffers, used
in turn: an observation stays valid through the next step (what a training loop that keeps
``obs`` and ``next_obs`` needs, as Stable-Baselines3 does) and is overwritten by the step
after that; keep a copy to hold it longer.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TypeAlias

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from ..compiler.compiling import ensure_compiled
from ..engine import actions
from ..engine import layout as L
from ..engine.rng import fresh_seed
from ..engine.rules import RuleSet
from ..game.facade import EngineError, IllegalActionError, engine_error_message
from ..sim.learned import check_fits, check_switch
from ..styles.dispatch import planning_needed, scripted_needed
from ..styles.params import NUM_POLICY_PARAMS
from ..styles.view import PublicView
from . import core
from .common import (
    ActionOutOfBoundsError,
    CompiledEnv,
    PublicLog,
    SeatedAgent,
    check_learner_seat,
    check_options,
    check_seed,
    compiled_opponent,
    refuse_agent_class,
)
from .registration import ENV_VERSION

BatchPolicy: TypeAlias = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""An opponent decided in Python: ``(observations (k, obs_size), masks (k, num_actions)) -> (k,) actions``."""

OpponentTable: TypeAlias = Any
"""The opponents of one table: one entry for every opponent seat, or a list with one per seat.
An entry is a compiled style's name, a :data:`BatchPolicy`, or an agent: an object with
``act(observation, action_mask, view=None) -> int`` (:class:`agents.Agent`), asked game by
game with the view of the seat it plays (:class:`uno_env.styles.view.PublicView`)."""


class AgentOpponent(SeatedAgent):
    """An agent object seated as an opponent: asked one game at a time, with its view; one
    instance per game and seat when it keeps state (:class:`~uno_env.envs.common.SeatedAgent`)."""


@dataclass(frozen=True)
class OpponentPool:
    """Several opponent tables and their weights: each game is dealt at one, picked by its seed.

    The pick is a function of the game's seed only (:func:`uno_env.envs.core.pick_table`),
    so the same seeds meet the same tables whatever the batch size or order. Weights are
    relative (they need not sum to one); the pick resolves them in millionths.
    """

    tables: Sequence[OpponentTable]
    weights: Sequence[float] | None = None

    def __post_init__(self) -> None:
        if len(self.tables) == 0:
            raise ValueError("an opponent pool needs at least one table")
        if self.weights is not None:
            if len(self.weights) != len(self.tables):
                raise ValueError(f"{len(self.weights)} weights for {len(self.tables)} opponent tables")
            if any(not np.isfinite(w) or w < 0 for w in self.weights) or sum(self.weights) <= 0:
                raise ValueError(f"pool weights must be finite, >= 0 and not all 0, got {list(self.weights)}")

    def integer_weights(self) -> np.ndarray:
        """The weights in millionths of their total (each table with weight > 0 keeps at least 1)."""
        weights = np.ones(len(self.tables)) if self.weights is None else np.asarray(self.weights, dtype=float)
        scaled = np.round(weights / weights.sum() * 1_000_000).astype(np.int64)
        scaled[(weights > 0) & (scaled == 0)] = 1
        return scaled


class VectorEnv(CompiledEnv, gym.vector.VectorEnv[Any, np.ndarray, np.ndarray]):
    """N single-agent games against compiled opponents, stepped in compiled code."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (Gymnasium's class attribute)
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
        "name": f"uno_env_vector_v{ENV_VERSION}",
    }

    def __init__(
        self,
        num_envs: int = 256,
        rules: RuleSet | str | Path = "uno",
        num_players: int = 4,
        opponents: OpponentTable | OpponentPool = "random_playable",
        seat: int | None = 0,
        *,
        reward: str = "win",
        truncation_reward: str = "standing",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        max_episode_steps: int | None = None,
        copy: bool = True,
        dict_observation: bool = False,
        public_views: bool = False,
        render_mode: str | None = None,
        allow_rules_mismatch: bool = False,
        **rule_overrides: Any,
    ) -> None:
        if render_mode is not None:  # gymnasium.make_vec(..., render_mode=...) passes it
            raise ValueError(
                f"the vector env does not render: render_mode must be None, got {render_mode!r} "
                "(SingleAgentEnv(..., render_mode=...) renders one game)"
            )
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self._compile(rules, num_players, rule_overrides)
        ensure_compiled("vector")
        check_learner_seat(seat, num_players)
        self.num_envs = int(num_envs)
        self.seat = seat
        self._step_limit = check_step_limit(max_episode_steps)
        self.copy = check_switch("copy", copy)
        self.dict_observation = check_switch("dict_observation", dict_observation)
        self.autoreset_mode = AutoresetMode.SAME_STEP
        self.render_mode = None
        self._set_payoffs(reward, truncation_reward, illegal_action, illegal_reward)
        self._seat_mode = -1 if seat is None else int(seat)
        self.allow_rules_mismatch = check_switch("allow_rules_mismatch", allow_rules_mismatch)
        """Whether opponents that play with a network may have been trained for other rules or
        another player count (:meth:`set_opponents` holds the new ones to it too)."""
        size = self._layout.size
        n = self.num_envs
        single_vector = spaces.Box(self._layout.low, self._layout.high, dtype=np.float32)
        batch_vector = spaces.Box(
            np.broadcast_to(self._layout.low, (n, size)),
            np.broadcast_to(self._layout.high, (n, size)),
            dtype=np.float32,
        )
        self.single_action_space = spaces.Discrete(self._num_actions)
        if self.dict_observation:
            na = self._num_actions
            self.single_observation_space: spaces.Space[Any] = spaces.Dict(
                [("observation", single_vector), ("action_mask", spaces.Box(0, 1, (na,), dtype=np.int8))]
            )
            self.observation_space: spaces.Space[Any] = spaces.Dict(
                [("observation", batch_vector), ("action_mask", spaces.Box(0, 1, (n, na), dtype=np.int8))]
            )
        else:
            self.single_observation_space = single_vector
            self.observation_space = batch_vector
        self.action_space = spaces.MultiDiscrete(np.full(n, self._num_actions, dtype=np.int64))
        self._states = self.compiled.new_state(n)
        self._masks = self.compiled.new_mask(n)
        self._seats = np.full((n, L.MAX_PLAYERS), core.LEARNER, dtype=np.int64)
        self._params = np.full((n, L.MAX_PLAYERS, NUM_POLICY_PARAMS), -1, dtype=np.int64)
        self._learners = np.zeros(n, dtype=np.int64)
        self._seeds = np.zeros(n, dtype=np.int64)
        self._buffers = (np.zeros((n, size), dtype=np.float32), np.zeros((n, size), dtype=np.float32))
        self._turn = 0
        self._obs = self._buffers[0]
        self._out_masks = np.zeros((n, self._num_actions), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._illegal = np.zeros(n, dtype=np.bool_)
        self._final_obs = np.zeros((n, size), dtype=np.float32)
        self._final_lengths = np.zeros((n, 2), dtype=np.int64)  # decisions, turns
        self._episode_steps = np.zeros(n, dtype=np.int64)  # the learner's steps in each row's game
        self._cut = np.zeros(n, dtype=np.bool_)  # this step cut the row's game at max_episode_steps
        self._cut_masks = np.zeros((n, self._num_actions), dtype=np.int8)  # its legal actions then
        self._actions = np.zeros(n, dtype=np.int64)
        self._tables = np.zeros(n, dtype=np.int64)
        self._waiting = np.full(n, -1, dtype=np.int64)
        self._fresh = np.zeros(n, dtype=np.bool_)
        self._external_obs = np.zeros((n, size), dtype=np.float32)
        self._external_masks = np.zeros((n, self._num_actions), dtype=np.int8)
        self._external_actions = np.zeros(n, dtype=np.int64)
        self._externals: list[BatchPolicy | AgentOpponent | None] = []
        max_decisions = int(self._spec[L.SP_MAX_DECISIONS])
        self._public_log = PublicLog(n if check_switch("public_views", public_views) else 0, max_decisions)
        """Each game's decisions for the views' public history: kept (one row per game) with
        ``public_views`` or once an agent object sits at a table."""
        self._set_tables(opponents)
        self._views_complete = self._public_log.log.shape[0] > 0
        """Whether every game keeps its log from its deal (what :meth:`public_view` needs)."""
        self._has_reset = False

    # ------------------------------------------------------------ opponents
    def _set_tables(self, opponents: OpponentTable | OpponentPool) -> None:
        pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool([opponents])
        n = self.num_players
        templates = np.full((len(pool.tables), L.MAX_PLAYERS - 1), core.EXTERNAL, dtype=np.int64)
        template_params = np.full(
            (len(pool.tables), L.MAX_PLAYERS - 1, NUM_POLICY_PARAMS), -1, dtype=np.int64
        )
        externals = self._externals  # indices stay valid for the games in progress
        described: list[list[Any]] = []
        for p, table in enumerate(pool.tables):
            single = (
                isinstance(table, str)
                or callable(table)
                or callable(getattr(table, "act", None))
                or not isinstance(table, (Sequence, np.ndarray))  # the entry check names the kinds
            )
            entries: list[Any] = [table] * (n - 1) if single else list(table)
            if len(entries) != n - 1:
                raise ValueError(
                    f"an opponent table lists {len(entries)} entries; {n} players need {n - 1} "
                    "(entry k-1 sits k seats clockwise from the learner)"
                )
            for k, entry in enumerate(entries):
                where = f"opponents[{k}]: " if len(pool.tables) == 1 else f"opponent table {p}, entry {k}: "
                refuse_agent_class(entry, where)
                if isinstance(entry, str):
                    templates[p, k], template_params[p, k] = compiled_opponent(entry)
                elif callable(entry) or callable(getattr(entry, "act", None)):
                    check_fits(
                        entry, self.rules, n, allow_rules_mismatch=self.allow_rules_mismatch, where=where
                    )
                    index = next(
                        (
                            j
                            for j, f in enumerate(externals)
                            if f is entry or getattr(f, "agent", None) is entry
                        ),
                        len(externals),
                    )
                    if index == len(externals):
                        externals.append(
                            AgentOpponent(entry) if callable(getattr(entry, "act", None)) else entry
                        )
                    templates[p, k] = core.EXTERNAL - index
                else:
                    raise TypeError(
                        f"opponent {entry!r} is neither a compiled policy name (such as 'random_playable' or "
                        "'bluffer:bluff=0.3'), a batch policy (a callable (observations, masks) -> actions) "
                        "nor an agent (an object with act(observation, action_mask, view))"
                    )
            described.append(entries)
        self._templates = templates
        self._template_params = template_params
        self._cumulative_weights = np.cumsum(pool.integer_weights()).astype(np.int64)
        used = set(templates.ravel().tolist()) | set(self._seats.ravel().tolist())
        for j in range(len(externals)):
            if core.EXTERNAL - j not in used:
                externals[j] = None  # no game sits with it any more: let it go
        self._has_externals = any(policy is not None for policy in externals)
        if self._public_log.log.shape[0] == 0 and any(isinstance(p, AgentOpponent) for p in externals):
            # the games dealt from now on keep their log
            self._public_log = PublicLog(self.num_envs, self._public_log.max_decisions)
        # None compiles the loops without the planning styles, and with random opponents only
        # without the scripted ones too: a shorter cold start for loops that never seat them
        codes = np.concatenate([templates.ravel(), self._seats.ravel()])
        self._planning = True if planning_needed(codes) else None
        self._scripted = True if scripted_needed(codes) else None
        self._batches = tuple(self._batch(obs) for obs in self._buffers)
        self.opponent_pool = pool
        self.opponents = described[0] if len(described) == 1 else described

    def set_opponents(self, opponents: OpponentTable | OpponentPool) -> None:
        """Change the opponents; games dealt from now on (resets, auto-resets) use them.

        Games in progress finish at the table they were dealt at (their batch policies are
        still called until then), so a training loop can swap in a new :class:`OpponentPool`,
        say after adding a snapshot of its own policy, between steps.
        """
        self._set_tables(opponents)

    @property
    def max_episode_steps(self) -> int | None:
        """The learner steps after which a game is cut (truncated) and its row dealt anew; None: no
        limit. Fixed at construction: the steps are counted only while there is a limit."""
        return self._step_limit

    @property
    def table_index(self) -> np.ndarray:
        """Which table of the opponent pool each row's current game was dealt at (a copy)."""
        return self._tables.copy()

    # ------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal every game (see the module docstring for seeds); return observations and infos.

        ``options`` must be None or empty: this env takes none (ValueError otherwise)."""
        check_options(options, "VectorEnv")
        if seed is None:
            seeds = self._unseeded()
            if not self._has_reset:
                self._np_random, _ = gym.utils.seeding.np_random(None)
        elif isinstance(seed, (int, np.integer)):
            first = check_seed(seed)
            if first + self.num_envs > 2**63:
                raise ValueError(f"seed + num_envs must stay below 2**63, got seed {seed}")
            seeds = [first + i for i in range(self.num_envs)]
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random(first)
        else:
            # a text or a dict iterates too (as digits, as keys): only a list of seeds is one
            is_list = isinstance(seed, Sequence) and not isinstance(seed, (str, bytes))
            if not (is_list or (isinstance(seed, np.ndarray) and seed.ndim == 1)):
                raise ValueError(
                    "seed must be None, an integer in 0..2**63-1 or "
                    f"{self.num_envs} of them (one per game, None for a game's next seed), got {seed!r}"
                )
            if len(seed) != self.num_envs:
                raise ValueError(f"reset got {len(seed)} seeds for {self.num_envs} games")
            # as Gymnasium's own vector envs take it: a None entry resets that game unseeded
            unseeded = self._unseeded()
            seeds = [unseeded[i] if s is None else check_seed(s) for i, s in enumerate(seed)]
        self._seeds[:] = seeds
        for policy in self._externals:
            if isinstance(policy, AgentOpponent):
                policy.new_deals()
        self._next_buffer()
        core.vector_run(self._batches[self._turn], self._actions, self.illegal_reward, core.RUN_RESET)
        self._public_log.keep_up()
        self._has_reset = True
        self._rewards[:] = 0.0
        self._terminated[:] = False
        self._truncated[:] = False
        self._episode_steps[:] = 0
        self._cut[:] = False
        self._play_externals()
        return self._observations(), {"action_mask": self._out_masks.copy()}

    def _unseeded(self) -> list[int]:
        """Each game's seed for a reset without one: the next of its row's sequence, or before
        the first reset fresh seeds from the operating system."""
        if self._has_reset:
            return [core.next_seed(int(s)) for s in self._seeds]
        base = fresh_seed(self.num_envs)
        return [base + i for i in range(self.num_envs)]

    def step(self, actions: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game with the learners' actions; finished games restart in the same step."""
        if not self._has_reset:
            raise RuntimeError("reset() needs to be called before step()")
        acts = actions if type(actions) is np.ndarray else np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} integer action ids (shape ({self.num_envs},)), "
                f"got {acts.dtype} array of shape {acts.shape}"
            )
        self._actions[:] = acts
        if self._illegal_code == core.ILLEGAL_RAISE:
            self._refuse_illegal()
        self._next_buffer()
        failed = core.vector_run(self._batches[self._turn], self._actions, self.illegal_reward, core.RUN_STEP)
        if failed != -1:
            raise (
                self._illegal_error(failed)
                if failed >= 0
                else self._out_of_bounds(core.OUT_OF_BOUNDS - failed)
            )
        self._public_log.keep_up()  # returns at once unless max_decisions outgrows the log
        self._play_externals()
        if self._step_limit is not None:
            self._cut_long_games(self._step_limit)
        infos: dict[str, Any] = {"action_mask": self._out_masks.copy()}
        # np.count_nonzero rather than .any(): this runs every step, and it is the cheaper call
        if np.count_nonzero(self._terminated) or np.count_nonzero(self._truncated):
            done = self._terminated | self._truncated
            rows = np.flatnonzero(done)
            if np.count_nonzero(self._waiting[rows] == core.BROKEN):  # a broken game is flagged truncated
                self._raise_if_broken()
            infos["final_obs"] = self._final_views(rows)
            # the six "_" masks below are rows of one array: at 256 games nearly every step ends a
            # game, and right after the compiled loop each NumPy call costs microseconds (docs/speed.md)
            flags = np.empty((6, self.num_envs), dtype=bool)
            flags[:] = done
            infos["_final_obs"] = flags[0]
            lengths = np.zeros((self.num_envs, 2), dtype=self._final_lengths.dtype)
            lengths[rows] = self._final_lengths[rows]
            infos["final_info"] = {
                "illegal_action": self._illegal & done,
                "_illegal_action": flags[1],
                "decisions": lengths[:, 0],
                "_decisions": flags[2],
                "turns": lengths[:, 1],
                "_turns": flags[3],
                "decision_limit": self._truncated & ~self._cut,  # cut by E-END-1, paid by the standing
                "_decision_limit": flags[4],
                "step_limit": self._cut.copy(),  # cut at max_episode_steps, paid nothing
                "_step_limit": flags[5],
            }
            infos["_final_info"] = done
        if np.count_nonzero(self._illegal):
            infos["illegal_action"] = self._illegal.copy()
            infos["_illegal_action"] = self._illegal.copy()
        return (
            self._observations(),
            self._rewards.copy(),
            self._terminated.copy(),
            self._truncated.copy(),
            infos,
        )

    def _cut_long_games(self, limit: int) -> None:
        """Count each row's learner steps and cut the games that reached ``limit``: truncated,
        their last view kept as a finished game's, their rows dealt the next game of their seed
        sequence (as the compiled loop deals a finished game's row)."""
        steps = self._episode_steps
        steps += 1
        steps[self._terminated | self._truncated] = 0  # a finished game's row already holds a new one
        np.greater_equal(steps, limit, out=self._cut)
        if not np.count_nonzero(self._cut):
            return
        rows = np.flatnonzero(self._cut)
        self._truncated[rows] = True
        self._final_obs[rows] = self._obs[rows]
        self._cut_masks[rows] = self._out_masks[rows]
        self._final_lengths[rows, 0] = self._states[rows, L.S_DECISIONS]
        self._final_lengths[rows, 1] = self._states[rows, L.S_TURNS]
        self._deal_next(rows)
        steps[rows] = 0
        self._public_log.keep_up()
        self._play_externals()

    def _deal_next(self, rows: np.ndarray) -> None:
        """Deal the next game of their seed sequence in ``rows``: one compiled call on a copy of
        those rows (the loop that deals a reset, :data:`uno_env.envs.core.RUN_RESET`), copied back."""
        batch = self._batches[self._turn]
        taken = {name: getattr(batch, name)[rows] for name in _ROW_FIELDS}
        log = batch.log[rows] if batch.log.shape[0] else batch.log
        seeds = taken["seeds"]
        for k in range(seeds.shape[0]):
            seeds[k] = core.next_seed(int(seeds[k]))
        core.vector_run(
            batch._replace(log=log, **taken), self._actions[rows], self.illegal_reward, core.RUN_RESET
        )
        for name in _DEALT_FIELDS:
            getattr(batch, name)[rows] = taken[name]
        if batch.log.shape[0]:
            batch.log[rows] = log

    def _raise_if_broken(self) -> None:
        """Raise :class:`EngineError` for a game the engine ended on an unusable state.

        Dealt games never get there; a state written directly can. Such a game is not an
        ordinary truncated one, so it is not paid, reported or redealt.
        """
        broken = np.flatnonzero(self._waiting == core.BROKEN)
        if broken.size:
            i = int(broken[0])
            raise EngineError(f"game {i}: " + engine_error_message(self._states[i], self.position(i)))

    def _play_externals(self) -> None:
        """Ask the batch policies for the games waiting on them, until every learner decides.

        Each round is one compiled call to encode the waiting opponents' views, one call of
        each batch policy on all the games that wait on it, and one compiled call to apply
        the answers and let compiled opponents move on.
        """
        if not self._has_externals:
            return
        while True:
            rows = np.flatnonzero(self._waiting >= 0)
            if rows.size == 0:
                return
            core.external_views(self._batches[self._turn], self._external_obs, self._external_masks)
            codes = self._seats[rows, self._waiting[rows]]
            for code in np.unique(codes):
                chosen = rows[codes == code]
                policy = self._externals[core.EXTERNAL - int(code)]
                assert policy is not None, "a game sits with a released batch policy"
                if isinstance(policy, AgentOpponent):
                    answer = np.array(
                        [
                            policy.ask(
                                int(g),
                                int(self._waiting[g]),
                                int(self._seeds[g]),
                                self._external_obs[g],
                                self._external_masks[g],
                                self._view(int(g)),
                            )
                            for g in chosen
                        ],
                        dtype=np.int64,
                    )
                else:
                    answer = np.asarray(policy(self._external_obs[chosen], self._external_masks[chosen]))
                if answer.shape != (chosen.size,) or answer.dtype.kind not in "iu":
                    raise ValueError(
                        f"batch policy {policy!r} must return {chosen.size} integer action ids "
                        f"(shape ({chosen.size},)), got {answer.dtype} array of shape {answer.shape}"
                    )
                self._external_actions[chosen] = answer
            failed = core.vector_run(
                self._batches[self._turn], self._external_actions, self.illegal_reward, core.RUN_EXTERNAL
            )
            if failed >= 0:
                raise self._external_error(failed)
            self._public_log.keep_up()

    def public_view(self, i: int) -> PublicView:
        """Game ``i`` as its learner may see it between steps (every row waits on its learner
        then): the typed accessors of :class:`~uno_env.styles.view.PublicView` (own hand, top
        card, decision, hand sizes, pending penalty, scores...) and the public history of every
        decision of the game, the compiled opponents' included, nothing hidden from the
        learner reachable. Needs ``public_views=True`` (each game's public move log kept from
        its deal; an env with an agent object at a table from the start keeps it anyway).
        """
        if not self._views_complete:
            raise RuntimeError(
                "public_view needs each game's public move log from its deal: construct the "
                "VectorEnv with public_views=True"
            )
        if not self._has_reset:
            raise RuntimeError("reset() needs to be called before public_view()")
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise IndexError(f"public_view takes a game index 0..{self.num_envs - 1}, got {i!r}")
        return self._view(int(i)).public()

    def _view(self, i: int) -> PublicView:
        """The complete view of game ``i`` for the seat to move, with the game's public history
        (handed to agents as :meth:`~uno_env.styles.view.PublicView.public`, by ``call_act``)."""
        log = self._public_log.entries(i)
        digest = self._public_log.digest(i)
        return PublicView(self._states[i], self._spec, self.rules, log, len(log), history_digest=digest)

    def _external_error(self, i: int) -> IllegalActionError:
        seat = int(self._waiting[i])
        policy = self._externals[core.EXTERNAL - int(self._seats[i, seat])]
        lead = f"game {i}: batch policy {policy!r} at seat {seat} chose the illegal action "
        action = int(self._external_actions[i])
        return self.compiled.illegal_action(self._states[i], self._external_masks[i], action, lead=lead)

    def _batch(self, obs: np.ndarray) -> core.VectorBatch:
        """The record the compiled loops take: the games, their buffers and tables, writing the
        learners' observations into ``obs``."""
        return core.VectorBatch(
            states=self._states,
            masks=self._masks,
            seats=self._seats,
            params=self._params,
            learners=self._learners,
            seeds=self._seeds,
            tables=self._tables,
            waiting=self._waiting,
            fresh=self._fresh,
            obs=obs,
            out_masks=self._out_masks,
            rewards=self._rewards,
            terminated=self._terminated,
            truncated=self._truncated,
            illegal=self._illegal,
            final_obs=self._final_obs,
            final_lengths=self._final_lengths,
            log=self._public_log.log,
            spec=self._spec,
            deck=self._deck_counts,
            offsets=self._offsets,
            templates=self._templates,
            template_params=self._template_params,
            cumulative_weights=self._cumulative_weights,
            seat_mode=self._seat_mode,
            num_players=self.num_players,
            reward_mode=self._reward_code,
            illegal_mode=self._illegal_code,
            planning=self._planning,
            scripted=self._scripted,
            staged=self._staged,
        )

    def _next_buffer(self) -> None:
        """Write the coming observations into the other buffer (see ``copy``)."""
        self._turn ^= 1
        self._obs = self._buffers[self._turn]

    def _observations(self) -> Any:
        obs = self._obs.copy() if self.copy else self._obs
        if self.dict_observation:
            return {"observation": obs, "action_mask": self._out_masks.copy()}
        return obs

    def _final_views(self, rows: np.ndarray) -> np.ndarray:
        """The ``final_obs`` of a step: an object array, None but in the games of ``rows`` that
        just ended, which hold the last observation (copied together, one row each) and, with
        ``dict_observation``, its mask: all zeros, or the legal actions of a game cut at
        ``max_episode_steps``, which was still going."""
        final_obs = np.empty(self.num_envs, dtype=object)  # all None
        last = self._final_obs[rows]  # fancy indexing: a copy, which each game's entry is a row of
        if self.dict_observation:
            masks = np.zeros((rows.size, self._num_actions), dtype=np.int8)
            cut = self._cut[rows]
            masks[cut] = self._cut_masks[rows[cut]]
            for k, i in enumerate(rows.tolist()):
                final_obs[i] = {"observation": last[k], "action_mask": masks[k]}
        else:
            for k, i in enumerate(rows.tolist()):
                final_obs[i] = last[k]
        return final_obs

    def _refuse_illegal(self) -> None:
        """Under ``illegal_action="raise"``, raise for the first game whose learner's action is
        not legal before any game moves (the compiled loop would have stepped the games before
        it, whose new views the caller would never get). Actions outside the action space are
        left to the compiled loop, which refuses them before any game moves too."""
        acts = self._actions
        if np.count_nonzero((acts < 0) | (acts >= self._num_actions)):
            return
        legal = self._out_masks[np.arange(self.num_envs), acts]
        if np.count_nonzero(legal) != self.num_envs:
            raise self._illegal_error(int(np.flatnonzero(legal == 0)[0]))

    def _out_of_bounds(self, i: int) -> ActionOutOfBoundsError:
        """The error for an action outside the action space (no game was stepped)."""
        return ActionOutOfBoundsError(
            f"game {i}: action {int(self._actions[i])} is not in the action space: expected integer "
            f"ids 0..{self._num_actions - 1} (see uno_env.action_table); no game was stepped"
        )

    def _illegal_error(self, i: int) -> IllegalActionError:
        who = f"the learner at seat {int(self._learners[i])}"
        lead = f"game {i}: illegal action "
        return self.compiled.illegal_action(
            self._states[i], self._out_masks[i], int(self._actions[i]), lead=lead, who=who
        )

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        # isinstance() reads __class__ when the type alone does not match: the one place to
        # tell Stable-Baselines3, which checks its env with isinstance first, about to_sb3()
        _refuse_sb3_caller()
        return type(self)

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action masks of every game's learner, shape ``(num_envs, num_actions)``."""
        return self._out_masks.astype(bool)

    # ------------------------------------------------------------ inspection
    @property
    def game_seeds(self) -> np.ndarray:
        """Seed of the game in each row (a copy)."""
        return self._seeds.copy()

    @property
    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each row's game (a copy)."""
        return self._learners.copy()

    def position(self, i: int) -> str:
        """Game ``i`` in position notation (see :mod:`uno_env.game.position`)."""
        return self.compiled.position(self._states[i])

    def describe_action(self, action: int) -> str:
        """Notation of an action id (``R7``, ``colour G``, ``draw``...)."""
        return actions.format_action(int(action), self.deck)

    def to_sb3(self) -> Any:
        """These games as a Stable-Baselines3 ``VecEnv`` (needs stable-baselines3)."""
        from .sb3 import SB3VecEnv

        return SB3VecEnv(self)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


_DEALT_FIELDS = (
    "states", "masks", "seats", "params", "learners", "seeds", "tables", "waiting", "fresh",
    "obs", "out_masks",
)  # fmt: skip
"""The per-game fields of :class:`uno_env.envs.core.VectorBatch` a deal writes (and the log)."""
_ROW_FIELDS = (*_DEALT_FIELDS, "rewards", "terminated", "truncated", "illegal", "final_obs", "final_lengths")
"""Every per-game field but the log: what :meth:`VectorEnv._deal_next` takes of the dealt rows."""


def check_step_limit(max_episode_steps: Any) -> int | None:
    """``max_episode_steps`` as an int, or None; ValueError for anything but None or a positive integer."""
    if max_episode_steps is None:
        return None
    if (
        isinstance(max_episode_steps, (bool, np.bool_))
        or not isinstance(max_episode_steps, (int, np.integer))
        or max_episode_steps < 1
    ):
        raise ValueError(
            "max_episode_steps must be None (no limit) or a positive integer (the learner's steps per "
            f"game), got {max_episode_steps!r}"
        )
    return int(max_episode_steps)


_SB3_PACKAGES = ("stable_baselines3", "sb3_contrib")


def _refuse_sb3_caller() -> None:
    """Raise TypeError when the code asking (past :mod:`abc`) is Stable-Baselines3's."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") == "abc":
        frame = frame.f_back
    caller = "" if frame is None else str(frame.f_globals.get("__name__", ""))
    if caller.partition(".")[0] in _SB3_PACKAGES:
        raise TypeError(
            "uno_env.VectorEnv is a Gymnasium vector env, not a Stable-Baselines3 VecEnv: pass "
            "venv.to_sb3() to Stable-Baselines3 / sb3-contrib, e.g. MaskablePPO('MlpPolicy', venv.to_sb3())"
        )

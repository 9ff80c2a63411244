"""``uno-env play``: a person at the table with agents, in the terminal.

::

    uno-env play --rules uno --players 4 --seat 0 --vs greedy,bluffer,random --seed 7
    uno-env play --rules macao --players 3 --vs greedy --record games.jsonl
    python -m training.play --rules uno_house --vs "bluffer:bluff=0.3/greedy/random"

The person sits at ``--seat``; ``--vs`` names the agents of the other seats, in seat order:
one entry for all of them or one per seat, separated by ``,`` (a style parameter such as
``challenge=0.8`` after a comma belongs to the style before it), or by ``/`` between style
names. An entry is a
play style of :func:`agents.available` (``greedy``, ``bluffer:bluff=0.3``, ``random``...)
or the path of a MaskablePPO checkpoint (``.zip``, loaded by :class:`agents.PolicyAgent`
after its metadata is checked against the rules; SB3 checkpoints are pickles, so one this
installation did not sign needs ``--trust-checkpoint``, :mod:`agents.trust`).

Every decision the rules ask of the person is a phase of the engine with its own legal
actions (play or draw, name a colour, play or keep the drawn card, challenge or accept a
Wild Draw Four, stack on a penalty, lay more cards of a multi-play, pick a seat to swap
with, give cards, jump in out of turn, block a look, call): the legal actions are listed
numbered under a question for the phase, and the person answers with the number or the
action's notation (``R7``, ``draw``, ``colour G``, ``keep``, ``seat 2``...). A bad answer
re-prompts with the legal choices; ``?`` lists them again; ``q``, end of input or Ctrl-C
leave the game (exit codes 0, 0 and 130). Colour is used on a terminal unless
``--no-color`` or the ``NO_COLOR`` environment variable says otherwise.

The agents' seeds derive from the game seed (:func:`agent_seed`), so the same seed and the
same answers replay the same game; ``--record FILE`` appends the finished game to a JSON
Lines file of :mod:`uno_env.game.records` (``uno-env replay FILE`` plays it back). The record path
is checked before the game starts (:func:`training.common.record_target`). A terminal whose encoding
cannot print the table's marks gets ASCII (:class:`AsciiText`); an answer longer than
:data:`MAX_ANSWER` characters is refused without being echoed.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

import uno_env
from agents import Agent, PolicyAgent
from agents.match import decide
from agents.spec import parse_agent, seat_texts, split_agent_list
from training.common import add_rule_arguments, check_player_count, record_target, resolve_rules
from uno_env import Game, Phase
from uno_env.compiler.compiling import warm_up
from uno_env.engine.actions import ActionKind, action_kind
from uno_env.engine.phases import PHASES
from uno_env.engine.rng import check_seed, fresh_seed
from uno_env.engine.rules import RuleSet
from uno_env.envs.render import ansi, paint_action, paint_face, render_table
from uno_env.game.encoding import observe_state
from uno_env.game.facade import TargetReason
from uno_env.game.records import append_records, record_game
from uno_env.styles.view import PublicView

from .common import Subcommand, add_trust_argument, quiet_stdout
from .extras import checkpoint_needs, require

HUMAN = "human"
"""The name the person's seat gets in a record."""

_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_ALERT = "\x1b[1;91m"
_QUIT_WORDS = ("q", "quit", "exit")
_HELP_WORDS = ("?", "h", "help")
MAX_ANSWER = 100
"""Longest answer read as a choice; a longer line is refused without being echoed back."""
_ASCII_MARKS = str.maketrans({"·": "|"})
"""The table's non-ASCII marks and their ASCII stand-ins (terminals that cannot print them)."""


class QuitGameError(Exception):
    """The person asked to leave (``q``)."""


# ------------------------------------------------------------------ opponents
def split_opponents(text: str) -> list[str]:
    """The entries of ``--vs``, split on ``,`` keeping ``key=value`` parameters with the agent
    before them (``"bluffer:bluff=0.3,challenge=0.8,greedy"`` is two entries, and
    ``"llm:model=m,base_url=http://127.0.0.1:8000/v1"`` one); a single entry
    is read as a seat table when it is one (``"greedy | random"``, ``"greedy/random"`` of
    names; :mod:`agents.spec`: a path is always a path)."""

    entries = split_agent_list(text)
    if not entries or any(not e for e in entries):
        raise ValueError(f"--vs {text!r} has an empty entry; name an agent per seat")
    if len(entries) == 1:
        return seat_texts(entries[0], where="--vs")
    return entries


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in the game dealt with ``game_seed``."""
    return (game_seed * 1_000_003 + 7919 * (seat + 1)) % 2**63


def make_agent(entry: str, rules: RuleSet, num_players: int, seed: int, *, trust: bool = False) -> Agent:
    """The agent an ``--vs`` entry names (any agent spec, :mod:`agents.spec`; a MaskablePPO
    checkpoint this installation did not sign needs ``trust``, :mod:`agents.trust`)."""

    agent = parse_agent(entry, where=f"--vs entry {entry!r}")
    # a network of another deck family (or observation spec) cannot play here: said before the
    # first deal, not at the bot's first turn; other rules or players play, as a transfer
    agent.check_networks(rules, num_players, allow_rules_mismatch=True)
    return agent.make(rules, num_players, seed, trust=trust)


def opponent_entries(text: str, num_players: int, seat: int) -> dict[int, str]:
    """The ``--vs`` entry of every seat but ``seat`` (one entry for all or one per seat)."""
    entries = split_opponents(text)
    others = [s for s in range(num_players) if s != seat]
    if len(entries) == 1:
        entries = entries * len(others)
    if len(entries) != len(others):
        raise ValueError(
            f"--vs lists {len(entries)} agents; with {num_players} players and you at seat {seat} "
            f"give one for all or {len(others)} (seats {', '.join(map(str, others))} in order)"
        )
    return dict(zip(others, entries, strict=True))


def build_opponents(
    text: str, rules: RuleSet, num_players: int, seat: int, game_seed: int, *, trust: bool = False
) -> dict[int, Agent]:
    """The agent of every seat but ``seat``, from ``--vs`` text (one entry for all or one per seat)."""
    return {
        s: make_agent(entry, rules, num_players, agent_seed(game_seed, s), trust=trust)
        for s, entry in opponent_entries(text, num_players, seat).items()
    }


def agent_label(agent: Agent, entry: str) -> str:
    """What the game calls the agent of ``--vs`` entry ``entry``: its ``name`` (a style's with
    its parameters), else the entry (a Python agent need not have a name)."""
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name else entry


# ------------------------------------------------------------------ the session
class Session:
    """One game between a person (reading ``inp``, writing ``out``) and agents.

    ``run`` plays it to the end and returns the exit code; :attr:`game` holds the game.
    """

    def __init__(
        self,
        game: Game,
        seat: int,
        opponents: dict[int, Agent],
        inp: TextIO,
        out: TextIO,
        colour: bool = False,
        names: dict[int, str] | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self.opponents = opponents
        self.names = {s: agent_label(a, (names or {}).get(s, type(a).__name__)) for s, a in opponents.items()}
        """What the game calls each agent (its ``name``, else its ``--vs`` entry)."""
        self.inp = inp
        self.out = out
        self.colour = colour
        self.deck = game.deck
        self.spec = game.compiled.spec
        self.last: list[int | None] = [None] * game.num_players
        self.title = f"{game.rules.preset_name() or 'custom rules'} · you are seat {seat}"
        self._encoder: Any = None

    # ---------------------------------------------------------------- output
    def say(self, text: str = "") -> None:
        """Write a line."""
        self.out.write(text + "\n")
        self.out.flush()

    def paint(self, text: str, code: str) -> str:
        """``text`` in the ANSI ``code`` when colour is on."""
        return ansi(text, code, self.colour)

    def who(self, seat: int) -> str:
        """``you`` or ``seat 2 (greedy)``."""
        if seat == self.seat:
            return "you"
        return f"seat {seat} ({self.names[seat]})"

    def show_table(self) -> None:
        """The table from the person's seat, with their hand."""
        self.say()
        self.say(
            render_table(
                self.game.state,
                self.deck,
                self.game.rules.num_faces,
                [self.seat, *self.game.hands_seen(self.seat)],  # and the hands a 0 showed (H-ZEROSEE-1)
                self.last,
                title=self.title,
                colour=self.colour,
                call_word=self.game.rules.call_name,
            )
        )

    # ---------------------------------------------------------------- the person's decisions
    def question(self) -> str:
        """The question of the current phase, for the person."""
        game = self.game
        decision = game.decision()
        phase = decision.phase
        colour_word = "colour" if self.deck == "uno" else "suit"
        pending, sender = decision.pending_cards, decision.pending_from
        if phase == Phase.PLAY:
            if decision.can_call:
                word = game.rules.call_name
                return f"Your turn: play a card or draw (call {word} first if your play leaves you one card)."
            return "Your turn: play a card or draw."
        if phase == Phase.CHOOSE_COLOUR:
            return f"Name the {colour_word}."
        if phase == Phase.PLAY_DRAWN:
            drawn = decision.drawn
            card = paint_face(drawn.face, self.deck, self.colour) if drawn is not None else "a card"
            return f"You drew {card}: play it, or keep it (pass)."
        if phase == Phase.CHALLENGE:
            return (
                f"{self.who(sender).capitalize()} laid a Wild Draw Four on you ({pending} cards): "
                "challenge it, accept it, or answer it if you can."
            )
        if phase == Phase.ANSWER:
            return f"{self.penalty_text()} from {self.who(sender)} is on you: answer it or accept it."
        if phase == Phase.CONTINUE:
            return "Lay another card of the same play, or stop (pass)."
        if phase == Phase.CHOOSE_TARGET:
            what = {
                TargetReason.SWAP: "swap hands with",
                TargetReason.GIVE: "give cards to",
                TargetReason.CUBE: "hit with the cube",
            }
            reason = decision.target_reason
            return f"Pick the seat to {what[reason] if reason is not None else 'target'}."
        if phase == Phase.GIVE:
            target = decision.give_to if decision.give_to is not None else -1
            return f"Pick a card to give to {self.who(target)} ({decision.give_left} to give)."
        if phase == Phase.JUMP_IN:
            top = paint_face(game.top_card.face, self.deck, self.colour)
            return f"Out of turn: jump in with your identical {top}, or pass."
        if phase == Phase.BLOCK:
            return "Out of turn: block the look at the hands with a 0, or pass."
        return f"Decide ({phase.name.lower()})."

    def penalty_text(self) -> str:
        """The pending penalty in words: ``Draw 4 cards``, ``Sit out 1 turn`` or both."""
        decision = self.game.decision()
        cards_, turns = decision.pending_cards, decision.pending_turns
        parts = []
        if cards_:
            parts.append(f"draw {cards_} card{'s' if cards_ != 1 else ''}")
        if turns:
            parts.append(f"sit out {turns} turn{'s' if turns != 1 else ''}")
        return (" and ".join(parts) or "a penalty").capitalize()

    def label(self, action: int) -> str:
        """The menu text of a legal action in the current phase."""
        game = self.game
        text = paint_action(action, self.deck, self.colour)
        phase = game.phase
        kind, value = action_kind(action, self.deck)
        if kind == ActionKind.CARD:
            return f"{PHASES[phase].card_verb} {text}"
        if kind == ActionKind.TARGET:
            target = (self.seat + value) % game.num_players
            return f"{text} = seat {target} ({game.hand_sizes()[target]} cards)"
        if kind == ActionKind.PASS:
            word = PHASES[phase].pass_word
            return f"pass ({word})" if word else "pass"
        if kind == ActionKind.ACCEPT and game.decision().penalty_pending:
            return f"accept ({self.penalty_text().lower()})"
        return text

    def menu(self, legal: Sequence[int]) -> str:
        """The numbered legal actions, cards first, then colours/targets, then the rest."""
        groups: list[list[str]] = [[], [], []]
        for number, action in enumerate(legal, 1):
            kind = action_kind(action, self.deck)[0]
            group = (
                0 if kind == ActionKind.CARD else 1 if kind in (ActionKind.COLOUR, ActionKind.TARGET) else 2
            )
            groups[group].append(f"{number:>2}) {self.label(action)}")
        return "\n".join("   " + "   ".join(g) for g in groups if g)

    def parse_answer(self, text: str, legal: Sequence[int]) -> int | str:
        """The action id an answer means, or a message saying why it is not a legal choice."""
        game = self.game
        word = text.strip().lower()
        if len(word) > MAX_ANSWER:  # never echoed back whole (nor read as a 10-MB number)
            return (
                f"that answer is {len(word):,} characters long ({word[:20]!r}...); answer with a number "
                "or a short action such as R7"
            )
        if word.isdigit() and word.isascii():
            number = int(word)
            if 1 <= number <= len(legal):
                return legal[number - 1]
            return f"there is no choice {number}: pick 1..{len(legal)}"
        aliases = {
            "keep": "pass",
            "stop": "pass",
            "uno": "call",
            "mau": "call",
            "mau-mau": "call",
            "macao": "call",
            "take": "accept",
        }
        word = aliases.get(word, word)
        parts = word.split()
        if len(parts) == 2 and parts[0] == "seat" and parts[1].isdigit():
            target = int(parts[1])
            k = (target - self.seat) % game.num_players
            if target >= game.num_players or k == 0:
                return f"seat {target} is not a seat you can pick"
            word = f"target +{k}"
        try:
            action = game.parse_action(word)
        except ValueError as exc:
            message = " ".join(str(exc).split())
            return f"not understood: {message if len(message) <= 300 else message[:300] + '...'}"
        if action not in legal:
            return f"{game.describe_action(action)} is not legal now"
        return action

    def ask(self) -> int:
        """The person's legal action: prompt until the answer is one (EOFError, QuitGameError to leave)."""
        legal = self.game.legal_actions()
        self.say(self.paint(self.question(), _BOLD))
        self.say(self.menu(legal))
        while True:
            self.out.write(f"choice [1-{len(legal)}]> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise EOFError
            word = line.strip().lower()
            if not word:
                continue
            if word in _QUIT_WORDS:
                raise QuitGameError
            if word in _HELP_WORDS:
                self.say(self.menu(legal))
                continue
            answer = self.parse_answer(line, legal)
            if isinstance(answer, int):
                return answer
            self.say(self.paint(answer, _ALERT) + "; legal choices:")
            self.say(self.menu(legal))

    # ---------------------------------------------------------------- agents
    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s env observation vector (for learned policies)."""
        if self._encoder is None:
            self._encoder = observe_state
        obs: np.ndarray = self._encoder(self.game.state, self.spec, seat, self.deck)
        return obs

    def agent_action(self, seat: int) -> int:
        """The action of the agent at ``seat``, fed as :func:`agents.play` feeds agents."""
        agent = self.opponents[seat]
        observation = self.observation(seat) if isinstance(agent, PolicyAgent) else None
        view = PublicView.of(self.game)
        return decide(agent, observation, self.game.legal_mask(), view, name=self.names[seat], seat=seat)

    def narrate(self, seat: int, phase: Phase, action: int) -> str:
        """One line saying what an agent did."""
        text = paint_action(action, self.deck, self.colour)
        who = self.who(seat)
        kind, value = action_kind(action, self.deck)
        if kind == ActionKind.CARD:
            give_to = self.game.decision().give_to
            if phase == Phase.GIVE and give_to is not None:
                return f"{who} gives a card to {self.who(give_to)}"
            return f"{who} {PHASES[phase].card_narration} {text}"
        if kind == ActionKind.COLOUR:
            return f"{who} names {text}"
        if kind == ActionKind.TARGET:
            return f"{who} picks {self.who((seat + value) % self.game.num_players)}"
        if kind == ActionKind.PASS:
            return f"{who} {PHASES[phase].pass_narration}"
        words = {
            ActionKind.DRAW: "draws",
            ActionKind.CALL: f"calls {self.game.rules.call_name}",
            ActionKind.CHALLENGE: "challenges",
            ActionKind.ACCEPT: "accepts the penalty",
        }
        return f"{who} {words[kind]}"

    # ---------------------------------------------------------------- the game
    def my_hand(self) -> Counter[int]:
        """The person's cards as a multiset of faces."""
        return Counter(card.face for card in self.game.hand(self.seat))

    def report_hand_change(self, before: Counter[int]) -> None:
        """Say which cards came into (or left, other than by the person's play) the person's hand."""
        after = self.my_hand()
        gained, lost = after - before, before - after
        if gained:
            faces = " ".join(paint_face(f, self.deck, self.colour) for f in sorted(gained.elements()))
            self.say(f"   your hand gets {faces}")
        if lost and self.game.history[-1][0] != self.seat:
            faces = " ".join(paint_face(f, self.deck, self.colour) for f in sorted(lost.elements()))
            self.say(f"   your hand loses {faces}")

    def play(self) -> None:
        """Play until the game ends (EOFError / QuitGameError / KeyboardInterrupt propagate)."""
        game = self.game
        while not game.is_over():
            seat = game.current_player
            phase = game.phase
            before = self.my_hand()
            if seat == self.seat:
                self.show_table()
                action = self.ask()
                self.say(self.paint(" > ", _DIM) + f"you: {self.label(action)}")
            else:
                action = self.agent_action(seat)
                self.say(self.paint(" . ", _DIM) + self.narrate(seat, phase, action))
            game.step(action)
            self.last[seat] = action
            self.report_hand_change(before)

    def show_outcome(self) -> None:
        """The final table with every hand, the winner, the ranking and the points."""
        game = self.game
        outcome = game.outcome()
        assert outcome is not None
        self.say()
        self.say(
            render_table(
                game.state,
                self.deck,
                game.rules.num_faces,
                None,
                self.last,
                self.title,
                colour=self.colour,
                call_word=game.rules.call_name,
            )
        )
        self.say()
        if outcome.truncated:
            self.say(self.paint("The game hit the decision limit: no winner.", _BOLD))
        else:
            assert outcome.winner is not None
            winner = "You win!" if outcome.winner == self.seat else f"{self.who(outcome.winner)} wins."
            self.say(self.paint(f"Game over ({outcome.reason}): {winner}", _BOLD))
            self.say("ranking: " + ", ".join(f"{i}. {self.who(s)}" for i, s in enumerate(outcome.ranking, 1)))
        self.say(
            "points left in hand: " + " ".join(f"seat {s}={p}" for s, p in enumerate(outcome.round_points))
        )
        self.say(
            f"scores ({score_rule(game.rules)}): "
            + " ".join(f"seat {s}={p}" for s, p in enumerate(outcome.scores))
        )
        self.say(f"{outcome.decisions} decisions, {outcome.rounds} round(s) finished")


def score_rule(rules: RuleSet) -> str:
    """How the scores of a finished game were counted, in words."""
    if rules.match == "first_to_target":
        return f"U-SCORE-2, match points; the first to {rules.target} wins"
    if rules.match == "lowest_total":
        return f"U-SCORE-3, running totals of the points left in hand; at {rules.target} the lowest wins"
    if rules.round_score == "own_points":
        return "MM-SCORE-1, each player's points left in hand; fewer is better"
    return "U-SCORE-1, the winner takes the points left in the other hands"


# ------------------------------------------------------------------ command line
def configure(parser: argparse.ArgumentParser) -> None:
    """The options of ``uno-env play``."""
    add_rule_arguments(parser)
    parser.add_argument("--players", type=int, default=4, help="players at the table (default: 4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default: 0)")
    parser.add_argument(
        "--vs",
        default="greedy",
        help="agents of the other seats in seat order: one for all or one per seat, separated by ',' or "
        "'/'; a play style (" + ", ".join(sorted(uno_env.styles.registry.POLICIES)) + ", with parameters as "
        "name:key=value), or any agent spec: a shipped or exported policy, a MaskablePPO checkpoint .zip, "
        "FILE.py:NAME, MODULE:ATTR, cmd:COMMAND or llm:... (docs/agents.md#agent-specs) (default: greedy)",
    )
    parser.add_argument("--seed", type=int, default=None, help="game seed (default: a random one, printed)")
    parser.add_argument("--record", metavar="FILE.jsonl", help="append the finished game to this record file")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colours (also: NO_COLOR env var)")
    parser.add_argument("--color", action="store_true", help="ANSI colours even when not on a terminal")
    add_trust_argument(parser)


def use_colour(args: argparse.Namespace, out: TextIO) -> bool:
    """Colour on a terminal, unless ``--no-color`` or ``NO_COLOR``; ``--color`` forces it."""
    if args.no_color or os.environ.get("NO_COLOR"):
        return False
    return bool(args.color) or bool(getattr(out, "isatty", lambda: False)())


def run(args: argparse.Namespace, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    """Play one game from parsed arguments; the exit code (0 done or left, 130 interrupted)."""
    try:
        return _run(args, inp, out)
    except KeyboardInterrupt:  # while setting up or loading a checkpoint
        print("\ninterrupted.", file=sys.stdout if out is None else out)
        return 130


class AsciiText(io.TextIOBase):
    """An output stream for terminals whose encoding cannot print the table's marks (``·``).

    ``PYTHONIOENCODING=ascii``, a C locale: the marks get ASCII stand-ins and anything else
    not printable becomes ``?``, instead of the game stopping with an encoding error.
    """

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        """Write ``text`` in ASCII."""
        encoding = getattr(self.inner, "encoding", None) or "ascii"
        plain = text.translate(_ASCII_MARKS).encode(encoding, "replace").decode(encoding)
        self.inner.write(plain)
        return len(text)

    def flush(self) -> None:
        """Flush the terminal."""
        self.inner.flush()

    def isatty(self) -> bool:
        """Whether the terminal is one."""
        return bool(getattr(self.inner, "isatty", lambda: False)())


def printable_stream(out: TextIO) -> TextIO:
    """``out``, or :class:`AsciiText` around it when its encoding cannot print ``·``."""
    try:
        "·".encode(getattr(out, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return AsciiText(out)  # type: ignore[return-value]
    return out


def _run(args: argparse.Namespace, inp: TextIO | None, out: TextIO | None) -> int:
    if inp is None:
        inp = sys.stdin
        if isinstance(inp, io.TextIOWrapper):  # a keystroke the encoding cannot read is not a crash
            inp.reconfigure(errors="replace")
    out = printable_stream(sys.stdout if out is None else out)
    with record_target(args.record):
        return _play(args, inp, out)


def _play(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    require("play", checkpoint_needs(split_opponents(args.vs)))
    rules = resolve_rules(args.rules, args.overrides)
    check_player_count(rules, args.players)
    if not 0 <= args.seat < args.players:
        raise ValueError(f"--seat must be a seat 0..{args.players - 1}, got {args.seat}")
    seed = fresh_seed() if args.seed is None else check_seed(args.seed)
    warm_up("game")
    game = Game(rules, args.players, seed=seed)
    opponents = build_opponents(args.vs, rules, args.players, args.seat, seed, trust=args.trust_checkpoint)
    try:
        return _session(args, rules, game, seed, opponents, inp, out)
    finally:  # out-of-process agents stop with the game, however it ends
        for agent in opponents.values():
            close = getattr(agent, "close", None)
            if callable(close):
                close()


def _session(
    args: argparse.Namespace,
    rules: RuleSet,
    game: Game,
    seed: int,
    opponents: dict[int, Agent],
    inp: TextIO,
    out: TextIO,
) -> int:
    names = opponent_entries(args.vs, args.players, args.seat)
    session = Session(game, args.seat, opponents, inp, out, use_colour(args, out), names)
    others = ", ".join(f"seat {s}: {name}" for s, name in session.names.items())
    session.say(
        f"uno-env play: {rules.preset_name() or args.rules}, {args.players} players, seed {seed}; "
        f"you are seat {args.seat}; {others}"
    )
    transfers = [
        e
        for e in dict.fromkeys(split_opponents(args.vs))
        if parse_agent(e).plays_a_transfer(rules, args.players)
    ]
    for entry in transfers:
        session.say(
            f"{entry} was trained for other rules or another player count: it plays here as a transfer."
        )
    if any(name.split(":", 1)[0] == "random_legal" for name in session.names.values()):
        session.say(
            "random_legal picks uniformly among the legal actions and draws even when it could play: a "
            "weak opponent (--vs random_playable is the literature's random player: a random playable card)."
        )
    session.say("Answer with a number or an action (R7, draw, colour G, keep, seat 2); ? lists, q quits.")
    try:
        session.play()
    except EOFError:
        session.say("\nend of input: leaving the game.")
        return 0
    except QuitGameError:
        session.say("leaving the game.")
        return 0
    except KeyboardInterrupt:
        session.say("\ninterrupted: leaving the game.")
        return 130
    except BrokenPipeError:  # the reader went away (``| head``)
        quiet_stdout()
        return 0
    session.show_outcome()
    if args.record:
        seated = [HUMAN if s == args.seat else session.names[s] for s in range(args.players)]
        record = record_game(game, seated, source="play")
        try:
            append_records(args.record, record)
        except OSError as exc:  # the disk filled up during the game: the record is printed instead
            session.say(f"could not write {args.record} ({exc.strerror or exc}); the game's record:")
            session.say(record.to_json())
            return 1
        session.say(f"recorded to {args.record} (uno-env replay {args.record} --game -1)")
    return 0


COMMAND = Subcommand("play", "play a game in the terminal against agents", configure, run)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())

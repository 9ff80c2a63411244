"""The ``uno-env`` command line: ``simulate`` and ``rules`` (run in-process through ``main``)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

import uno_env
from training.cli import SUBCOMMAND_MODULES, build_parser, main
from training.common import plain_text
from uno_env.engine.rules import rule_fields
from uno_env.stats import mean_interval, wilson_interval


def test_simulate_prints_win_rates_and_throughput(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "200", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "rules: uno (uno); 3 players; 200 games; policy: random; seed 0" in out
    assert "seat  win rate  95% interval" in out
    assert re.search(r"throughput: [\d,]+ decisions/s, [\d,]+ games/s", out)
    for unit in ("turns", "decisions"):
        assert re.search(rf"game length in {unit} \([^)]*\): mean [\d.]+ \[[\d.]+, [\d.]+\], median \d+", out)
    assert re.search(r"first mover \([^)]*\): [\d.]+% \[[\d.]+%, [\d.]+%\]", out)
    # the table reports the same games that simulate() plays with the same seed
    result = uno_env.simulate("uno", 3, 200, seed=0)
    wins = [int((result.winner == seat).sum()) for seat in range(3)]
    rows = re.findall(r"^\s+(\d+)\s+([\d.]+)%\s+\[([\d.]+)%, ([\d.]+)%\]$", out, flags=re.MULTILINE)
    assert [int(seat) for seat, *_ in rows] == [0, 1, 2]
    for (seat, rate, lo, hi), won in zip(rows, wins, strict=True):
        assert rate == f"{won / 200:.2%}".rstrip("%"), seat
        low, high = wilson_interval(won, 200)
        assert (lo, hi) == (f"{low:.2%}".rstrip("%"), f"{high:.2%}".rstrip("%"))
    assert f"mean {result.length.mean():.1f}" in out
    assert f"{result.truncated.mean():.2%} of games" in out


def test_batch_summary_carries_intervals() -> None:
    """``BatchResult.summary()``: every rate and mean with its interval, games independent."""
    result = uno_env.simulate("uno", 4, 300, seed=5)
    summary = result.summary()
    wins = np.bincount(result.winner[result.winner >= 0], minlength=4)
    assert summary.games == 300 and summary.truncated == int(result.truncated.sum())
    for (rate, lo, hi), won in zip(summary.seat_win_rates, wins, strict=True):
        assert (rate, lo, hi) == (won / 300, *wilson_interval(int(won), 300))
    first = int((result.winner == result.first_mover).sum())
    assert summary.first_mover_win_rate == (first / 300, *wilson_interval(first, 300))
    assert summary.turns == mean_interval(result.turns) and summary.decisions == mean_interval(result.length)
    assert summary.turns[0] < summary.decisions[0]
    text = str(summary)
    assert "game length in turns" in text and "game length in decisions" in text and "first mover" in text


def test_wilson_interval_bounds_at_the_extremes() -> None:
    low, high = wilson_interval(0, 1000)
    assert low == 0.0 and str(low) == "0.0" and 0.0 < high < 0.01
    low, high = wilson_interval(1000, 1000)
    assert high == 1.0 and 0.99 < low < 1.0
    low, high = wilson_interval(500, 1000)
    assert 0.46 < low < 0.5 < high < 0.54 and abs((low + high) / 2 - 0.5) < 1e-12


def test_simulate_with_a_rule_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "short.toml"
    path.write_text('preset = "uno"\nmax_decisions = 10\n', encoding="utf-8")
    assert main(["simulate", "--rules", str(path), "--games", "20", "--players", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "(custom)" in out
    # the truncated share is a rate: it carries its interval (it had none)
    assert "truncated at the decision limit (10): 100.00% of games [83.89%, 100.00%] (95%, Wilson)" in out


def test_rules_lists_the_presets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name, rules in uno_env.PRESETS.items():
        assert re.search(
            rf"^{name}\s+{rules.min_players}-{rules.max_players} players, deck {rules.deck}$", out, re.M
        )


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_rules_prints_a_preset_as_toml(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", name]) == 0
    out = capsys.readouterr().out
    assert uno_env.RuleSet.from_toml_string(out) == uno_env.preset(name)


def test_rules_fields_describes_every_switch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--fields"]) == 0
    out = capsys.readouterr().out
    for f in rule_fields():
        line = f"{f['name']:<20} {f['rule']:<13} {f['allowed']} (default {f['default']})"
        assert re.search(rf"^{re.escape(line)}$", out, re.M), f["name"]
        assert " ".join(f["doc"].split()) in " ".join(out.split())
    # types, ranges and choices read unambiguously, values as a rule file writes them
    assert re.search(r"^jokers\s+MC-OPT-1\s+true \| false \(default false\)$", out, re.M)
    assert re.search(r"^zero_rule_rank\s+H-ZERO-1\s+integer 0\.\.1 \(default 0\)$", out, re.M)
    assert re.search(r"^uno_catch\s+U-UNO-1\s+number 0\.0\.\.1\.0 \(default 1\.0\)$", out, re.M)
    assert re.search(r'^deck\s+U-DECK-1\s+one of "uno" \| "french" \(default "uno"\)$', out, re.M)
    assert re.search(r"^stacking\s+H-STACK-1\s+list of strings \(default \[\]\)$", out, re.M)
    assert "None" not in out and "allowed=" not in out


def test_simulate_takes_rule_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "simulate",
        "--games",
        "30",
        "--players",
        "2",
        "--set",
        "max_decisions=10",
        "--set",
        "seven_swap=true",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "rules: uno --set max_decisions=10 --set seven_swap=true (custom); 2 players" in out
    assert "truncated at the decision limit (10): 100.00% of games" in out
    assert main(["simulate", "--games", "5", "--set", "sevens=true"]) == 2
    err = capsys.readouterr().err
    assert "unknown rule key(s) sevens (did you mean 'seven_swap'?); valid keys: deck, decks" in err


@pytest.mark.parametrize(
    "argv",
    [["simulate", "--rules", "unoo", "--games", "5"], ["rules", "unoo"]],
)
def test_bad_preset_exits_2_naming_the_valid_ones(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-env: error: ")
    assert "'unoo'" in err
    assert f"available: {', '.join(uno_env.PRESETS)}" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate"],
        ["play"],
        ["tournament"],
        ["train"],
        ["selfplay"],
        ["evaluate", "greedy"],
    ],
)
def test_bad_player_count_names_the_options_to_use(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Every command that takes rules and players words the error in its own options."""
    assert main([*argv, "--rules", "mau_mau", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "uno-env: error: --players 3: mau_mau is played by 4..8 players; choose --players in that "
        "range, or widen the range with --set min_players=3\n"
    )
    assert main([*argv, "--players", "11"]) == 2
    assert (
        "--players 11: games seat 2..10 players, and uno is played by 2..10 players"
        in capsys.readouterr().err
    )


def test_every_command_takes_rule_overrides() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in ("simulate", "play", "tournament", "train", "selfplay", "evaluate"):
        options = {o for action in commands[name]._actions for o in action.option_strings}
        assert {"--rules", "--set", "--players"} <= options, name


@pytest.mark.parametrize(
    "command",
    [
        "",
        "simulate",
        "rules",
        "compile",
        "study",
        "tournament",
        "play",
        "replay",
        "train",
        "selfplay",
        "evaluate",
    ],
)
def test_help_is_plain_text_with_defaults(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"] if command else ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for markup in ("``", "**", ":class:", ":func:", ":mod:", ":meth:", "`"):
        assert markup not in out, (command, markup)
    if command in ("simulate", "train", "evaluate", "tournament"):
        assert "--players PLAYERS" in out and re.search(r"players per game \(default: \d+\)", out)
        assert re.search(r"--seed SEED\s+.*\(default: 0\)", " ".join(out.split()))


def test_train_help_shows_every_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option, default in [
        ("--num-envs NUM_ENVS", "(default: 64)"),
        ("--batch-size BATCH_SIZE", "(default: "),
        ("--lr LEARNING_RATE", "(default: 0.0003)"),
        ("--reward {win,rank,score}", "(default: win)"),
        ("--max-minutes MAX_MINUTES", "(default: 0"),
    ]:
        assert re.search(re.escape(option) + r" (?:(?! --).)*" + re.escape(default), text), option


def test_serve_help_names_every_agent_form_in_its_description_and_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``serve --agent`` takes any agent spec: the help's description said the page could seat
    styles and policy files only ("it can name nothing else") after the option had grown."""
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    description, _, options = text.partition(" options: ")
    agent_help = options.split("--agent NAME=SPEC", 1)[1].split(" --win-estimate", 1)[0]
    for part in (description, agent_help):
        for form in ("any agent spec", "FILE.py:NAME", "MODULE:ATTR", "cmd:COMMAND", "llm:..."):
            assert form in part, (form, part)


@pytest.mark.parametrize("module_name", SUBCOMMAND_MODULES)
def test_python_m_help_is_the_subcommands_help(module_name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m training.<module> --help`` prints ``uno-env <name> --help`` (a literal % in
    an option's help once crashed the standalone parser)."""
    command = importlib.import_module(module_name).COMMAND
    with pytest.raises(SystemExit) as exc:
        command.main(["--help"])
    assert exc.value.code == 0
    standalone = capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([command.name, "--help"])
    assert standalone == capsys.readouterr().out


def test_plain_text_strips_docstring_markup() -> None:
    text = "``uno-env play`` plays **one** game with :class:`~uno_env.Game` and `RuleSet`; *see* a*b"
    assert plain_text(text) == "uno-env play plays one game with Game and RuleSet; see a*b"


def test_unknown_subcommand_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["fly"])
    assert exc.value.code == 2
    assert "invalid choice: 'fly'" in capsys.readouterr().err


def test_evaluate_a_style_runs_without_torch_and_checks_its_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A scripted style plays in the compiled batch loop; --threads is still checked."""
    assert main(["evaluate", "greedy", "--threads", "0"]) == 2
    assert "--batch and --threads must be >= 1, got 1024 and 0" in capsys.readouterr().err
    assert main(["evaluate", "greedy", "--players", "2", "--vs", "random", "--games", "20"]) == 0
    out = capsys.readouterr().out
    assert "greedy on uno, 2 players, seed 0; fair share 50.0% (1/2" in out
    header, row = out.splitlines()[1:3]
    assert "fair share" in header
    assert row.startswith("random_legal ")  # which random player, spelled out
    assert "50.0%: above" in row  # greedy beats the uniform random player: its interval is above 1/2
    assert main(["evaluate", "greedy", "--players", "4", "--vs", "greedy", "--games", "40"]) == 0
    assert "25.0%: within" in capsys.readouterr().out.splitlines()[2]


def test_the_readme_lists_every_command() -> None:
    """The README's count and list of commands is what ``uno-env --help`` lists."""
    import re
    from pathlib import Path

    from training.cli import build_parser

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    found = re.search(r"`uno-env --help` lists its (\d+) commands \(([^)]*)\)", " ".join(readme.split()))
    assert found, "the README no longer says which commands uno-env --help lists"
    listed = [c.strip() for c in found.group(2).split(",")]
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert int(found.group(1)) == len(listed) == len(commands)
    assert set(listed) == set(commands)


def test_ctrl_c_ends_a_long_job_in_one_line_naming_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C during a tournament (or any long job) is no traceback: one line that says the
    finished work is kept and how to continue, exit code 130."""
    from training import tournament

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "run_tournament", interrupted)
    out = tmp_path / "t"
    assert main(["tournament", "--agents", "greedy,aggressor", "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip()
    assert err == f"uno-env: interrupted; the finished work is kept in {out}: continue with --resume"


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "--players", "2", "--agents", "greedy,random", "--games", "2", "--executor", "serial"],
        ["distill", "--games", "2", "--epochs", "1"],
        ["expert", "--rounds", "1"],
        ["exploitability", "--agents", "greedy", "--steps", "100"],
    ],
    ids=lambda argv: argv[0],
)
def test_an_output_folder_that_is_a_file_is_refused_in_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--out naming a file, or a path below one: one line naming the file before anything
    runs (distill and expert ended in a FileExistsError traceback; the others offered a
    --resume of a run that never started)."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    for out, reason in ((blocker, "is a file, not a folder"), (blocker / "run", "is a file;")):
        assert main([*argv, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("uno-env: error: cannot create the ") and err.count("\n") == 1, err
        assert f"folder {out}: {blocker} {reason}" in err and "--resume" not in err
    assert blocker.read_text() == "mine\n"


@pytest.mark.parametrize(
    ("argv", "suffixes"),
    [
        (["evaluate", "greedy", "--players", "2", "--games", "2"], (".json", ".csv")),
        (["export", "model.zip"], (".npz", ".json")),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else "",
)
def test_an_output_file_that_cannot_be_written_is_refused_before_the_work(
    argv: list[str], suffixes: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """evaluate --out OUT (OUT.json, OUT.csv) and export --out P.npz (and its P.json): a folder
    in the place of either file, or a path below a file, is one line before any game or load
    (an IsADirectoryError or FileExistsError traceback after the games)."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    for suffix in suffixes:
        (tmp_path / f"taken{suffix}").mkdir()
        out = tmp_path / ("taken.npz" if argv[0] == "export" else "taken")
        assert main([*argv, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"--out {tmp_path / f'taken{suffix}'} is a folder" in err and err.count("\n") == 1, err
        (tmp_path / f"taken{suffix}").rmdir()
    assert main([*argv, "--out", str(blocker / "p.npz")]) == 2
    err = capsys.readouterr().err
    assert f"{blocker} is a file, not a folder" in err and err.count("\n") == 1


def test_a_huge_value_is_not_echoed_whole_in_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A value of 100,000 characters in a rule file, a --set or an agent spec, or a rule file
    of 20,000 unknown keys: the error is one line of at most a few thousand characters that
    still names the field and what is allowed (it echoed the whole value back)."""
    long = tmp_path / "long.toml"
    long.write_text(f'wild_not_on = "{"a" * 100_000}"\n')
    many = tmp_path / "many.toml"
    many.write_text("".join(f"k{i} = 1\n" for i in range(20_000)))
    for argv, names in (
        (["rules", str(long)], ["rule wild_not_on:", "(100,002 characters)", "ranks: 0, 1"]),
        (["simulate", "--set", f"card_effects={'7' * 5000}:skip"], ["rule card_effects:", "characters)"]),
        (["simulate", "--policy", "b" * 5000], ["unknown play style", "characters)"]),
        (["rules", str(many)], ["unknown rule key(s) k0, k1,", "valid keys: deck,", "max_decisions"]),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("uno-env: error: ") and err.count("\n") == 1 and len(err) < 2100, err[:300]
        assert all(name in err for name in names), err

"""The ``lostcities`` command line.

Every command is defined here (so ``lostcities --help`` lists them all without importing
any extra); each command's work lives in its own module, imported only when it runs.
Bad input ends with one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence

__all__ = ["main"]

EXIT_USAGE = 2


class CommandError(Exception):
    """A command failed for a reason the user can fix; the message is shown as is."""


def __getattr__(name: str) -> Callable[..., str]:
    """``lostcities.cli.format_score_table``: deprecated, removed in 0.4.0 (it lives in
    :mod:`lostcities.presentation`)."""
    if name == "format_score_table":
        warnings.warn(
            "lostcities.cli.format_score_table is deprecated and will be removed in 0.4.0: "
            "import it from lostcities.presentation",
            DeprecationWarning,
            stacklevel=2,
        )
        from lostcities.presentation import format_score_table

        return format_score_table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _at_most(maximum: int) -> Callable[[str], int]:
    """A positive whole number of at most ``maximum`` (an argparse type): a number that no
    run could finish is refused at once, not run until it is killed."""

    def parse(text: str) -> int:
        value = _positive_int(text)
        if value > maximum:
            raise argparse.ArgumentTypeError(f"at most {maximum:,}: {text!r}")
        return value

    return parse


MAX_DEALS = 1_000_000
"""The most ``--deals`` (and ``--matches``) of ``match`` and ``tournament``."""
MAX_WORLDS = 1_000_000
"""The most ``--worlds`` of ``analyse`` (1,000 by default)."""
MAX_JOBS = 1024
"""The most worker processes (``--jobs``)."""
MAX_TURNS = 100_000
"""The most ``--max-turns``."""
MAX_SECONDS = 86_400.0
"""The longest time a ``--time`` or ``--time-limit`` may give one move (a day)."""


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"at most {MAX_SECONDS:,.0f} seconds: {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds, at most {MAX_SECONDS:,.0f}: {text!r}"
        )
    return value


GOALS_PER_ROUND = 5
"""Goal cards laid out in a round (:data:`lostcities.achievements.GOALS_PER_ROUND`; a test
keeps the two equal, so that ``--help`` imports nothing)."""
MAX_PLAY_ROUNDS = 99
"""The most rounds of a ``lostcities play`` match."""


def _goals_won(text: str) -> int:
    value = _non_negative_int(text)
    if value > GOALS_PER_ROUND:
        raise argparse.ArgumentTypeError(
            f"a round has {GOALS_PER_ROUND} goals: {text!r} is more than a player can win"
        )
    return value


def _play_rounds(text: str) -> int:
    value = _positive_int(text)
    if value > MAX_PLAY_ROUNDS:
        raise argparse.ArgumentTypeError(f"at most {MAX_PLAY_ROUNDS} rounds: {text!r}")
    return value


def _variant_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--variant",
        choices=["classic", "long"],
        default="classic",
        help="classic: 5 colours, 60 cards (default); long: 6 colours, 72 cards",
    )


# -- command definitions: (name, one-line help, add arguments, "module:function") ----------


def _add_score(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "expeditions",
        nargs="*",
        metavar="COLOUR:CARDS",
        help="one per started expedition, cards in play order, e.g. y:2,4,6,9,10 r:x,3,5",
    )
    p.add_argument(
        "--totals",
        nargs="+",
        default=None,
        metavar="COLOUR:SUM,WAGERS,CARDS",
        help="score from each expedition's totals instead: number sum, wagers, cards"
        " (wagers included), e.g. --totals y:31,0,5 r:32,1,6",
    )
    p.add_argument(
        "--achievements",
        type=_goals_won,
        default=0,
        metavar="N",
        help=f"achievements (goal cards) won: N x 10 points, N from 0 to {GOALS_PER_ROUND}"
        " (the achievements variant)",
    )
    _variant_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _add_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="game record files ('-' for stdin)")
    p.add_argument("--json", action="store_true", help="print one JSON object per game")
    p.add_argument("--quiet", "-q", action="store_true", help="print only errors")


def _add_play(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--opponent",
        default="expert:time=1",
        metavar="SPEC",
        help="bot spec (default: expert:time=1, the strongest: a trained network guiding a"
        " search, 1 s a move, or ismcts:time=1 where expert cannot run); others: ismcts:time=1,"
        " heuristic, random, ...",
    )
    _variant_arg(p)
    p.add_argument(
        "--rounds",
        type=_play_rounds,
        default=3,
        help=f"rounds in the match (3; at most {MAX_PLAY_ROUNDS})",
    )
    p.add_argument("--seed", type=int, default=None, help="seed for the deals")
    p.add_argument(
        "--hotseat", action="store_true", help="two people at one keyboard (no --opponent)"
    )
    p.add_argument(
        "--save",
        metavar="FILE",
        default=None,
        help="save the game record in this records file, after the games already in it"
        " (checked before the match starts; written when it ends or you quit)",
    )
    p.add_argument(
        "--resume",
        metavar="FILE",
        default=None,
        help="go on with the last unfinished match saved in FILE (saved there again, in its"
        " place, unless --save names another file)",
    )
    _achievements_arg(p)


def _add_serve(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (8000)")
    p.add_argument(
        "--db",
        default="sqlite:///lostcities.db",
        metavar="URL",
        help="database URL: sqlite:///FILE (default sqlite:///lostcities.db) or postgresql://...",
    )
    p.add_argument(
        "--workers",
        type=_at_most(MAX_JOBS),
        default=1,
        metavar="N",
        help="server processes sharing the port (1); above 1 needs PostgreSQL (docs/deploy.md)",
    )


def _add_comments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list", "hide", "unhide"], help="what to do")
    p.add_argument("id", nargs="?", type=int, default=None, metavar="ID", help="comment id")
    p.add_argument(
        "--db",
        default="sqlite:///lostcities.db",
        metavar="URL",
        help="the web app's database URL (default sqlite:///lostcities.db)",
    )


def _add_users(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action", choices=["list", "ban", "unban", "delete", "reports", "log"], help="what to do"
    )
    p.add_argument("name", nargs="?", default=None, metavar="NAME", help="a username")
    p.add_argument("--reason", default="", help="why (kept with a ban and in the log)")
    p.add_argument(
        "--db",
        default="sqlite:///lostcities.db",
        metavar="URL",
        help="the web app's database URL (default sqlite:///lostcities.db)",
    )


def _arena_args(p: argparse.ArgumentParser, deals: int, deals_help: str) -> None:
    """The options ``match`` and ``tournament`` share."""
    p.add_argument("--deals", type=_at_most(MAX_DEALS), default=deals, help=deals_help)
    p.add_argument("--seed", type=int, default=0, help="seed for the deals (0)")
    p.add_argument(
        "--jobs", type=_at_most(MAX_JOBS), default=None, help="worker processes (all cores)"
    )
    _backend_args(p)
    p.add_argument("--max-turns", type=_at_most(MAX_TURNS), default=None, help="turn cap per round")
    _variant_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--time-limit",
        type=_non_negative_float,
        default=10.0,
        metavar="SECONDS",
        help="per-move limit before a bot forfeits (10; 0: no limit for built-in bots, 10 s for cmd: programs)",
    )
    _achievements_arg(p)


def _backend_args(p: argparse.ArgumentParser) -> None:
    """``--backend local|ray`` and ``--address ADDR`` (docs/scaling.md)."""
    p.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="where the deals run: local worker processes (default) or a Ray cluster"
        " (pip install 'lostcities[ray]')",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the cluster's host:port, or auto (the cluster of `ray start`"
        " on this machine); default: a Ray of this machine's cores, started for the run",
    )


def _achievements_arg(p: argparse.ArgumentParser) -> None:
    """``--achievements [FILE]``: the achievements variant (docs/achievements.md); the next
    word is FILE only if it looks like one (:func:`goal_file_words`)."""
    p.add_argument(
        "--achievements",
        nargs="?",
        const="default",
        default=None,
        metavar="FILE",
        help="play the achievements variant: 5 goals per round from the default pool, "
        "or from the goal file FILE (the next word is FILE if it ends in .goals or names "
        "an existing file; else --achievements=FILE)",
    )


GOAL_FILE_COMMANDS = ("play", "match", "tournament")
"""The commands whose ``--achievements`` takes an optional goal file."""


def goal_file_words(argv: Sequence[str]) -> list[str]:
    """``argv`` with a bare ``--achievements`` of :data:`GOAL_FILE_COMMANDS` made
    ``--achievements=default`` when the word after it is not a goal file (a word that ends
    in ``.goals`` or names an existing file), so that argparse does not take a bot spec or
    other argument for the file.

    >>> goal_file_words(["match", "--achievements", "heuristic", "random"])
    ['match', '--achievements=default', 'heuristic', 'random']
    >>> goal_file_words(["match", "a", "b", "--achievements", "mine.goals"])
    ['match', 'a', 'b', '--achievements', 'mine.goals']
    >>> goal_file_words(["score", "--achievements", "2"])
    ['score', '--achievements', '2']
    """
    import os

    words = list(argv)
    command = next((w for w in words if not w.startswith("-")), None)
    if command not in GOAL_FILE_COMMANDS:
        return words
    for i, word in enumerate(words[:-1]):
        after = words[i + 1]
        looks_like_file = after.endswith(".goals") or os.path.isfile(after)
        if word == "--achievements" and not after.startswith("-") and not looks_like_file:
            words[i] = "--achievements=default"
    return words


def _add_match(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="first bot spec, e.g. heuristic or 'ismcts:time=0.5'")
    p.add_argument("b", metavar="B", help="second bot spec")
    _arena_args(p, 100, "deals, each played twice (100)")
    _run_args(p, "stop early by an SPRT")
    p.add_argument(
        "--matches",
        type=_at_most(MAX_DEALS),
        default=None,
        metavar="N",
        help="play N whole matches instead of single deals, each twice on the same deals"
        " with the seats swapped; reports the match win rate beside the round figures",
    )
    p.add_argument(
        "--rounds",
        type=_at_most(MAX_PLAY_ROUNDS),
        default=None,
        help="rounds per match with --matches (3)",
    )


def _run_args(p: argparse.ArgumentParser, sprt_help: str) -> None:
    """``--records``, ``--sprt`` and ``--verbose``, of ``match`` and ``tournament``."""
    p.add_argument(
        "--records", metavar="FILE", default=None, help="save every game record ('-': stdout)"
    )
    p.add_argument("--sprt", metavar="elo0=0,elo1=20", default=None, help=sprt_help)
    p.add_argument(
        "--verbose", "-v", action="store_true", help="log bot misbehaviour (unknown lines, ...)"
    )


def _add_tournament(p: argparse.ArgumentParser) -> None:
    p.add_argument("bots", nargs="+", metavar="SPEC", help="two or more bot specs")
    _arena_args(p, 50, "deals per pairing, each played twice (50)")
    _run_args(p, "stop each pairing early by an SPRT")
    p.add_argument("--plot", metavar="FILE", default=None, help="write the Elo ladder (.svg/.png)")


def _add_bot(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="built-in bot spec to run over the protocol")
    p.add_argument("--seed", type=int, default=None, help="seed for the bot")


def _add_warmup(p: argparse.ArgumentParser) -> None:
    """No options."""


def _add_bench(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--seconds", type=_positive_float, default=3.0, help="time per measurement (3)")
    p.add_argument(
        "--repeat",
        type=_at_most(1000),
        default=3,
        help="runs of each timed figure: the median is shown with the spread (3)",
    )


def _add_analyse(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="game record files ('-' for stdin)")
    p.add_argument(
        "--bot",
        default="ismcts",
        metavar="SPEC",
        help="the search bot that analyses (ismcts, default; or expert, ismcts:top=5, ...)",
    )
    p.add_argument(
        "--worlds",
        type=_at_most(MAX_WORLDS),
        default=1000,
        help="sampled deals each move is played out in (1000; deterministic)",
    )
    p.add_argument(
        "--time",
        type=_non_negative_float,
        default=None,
        metavar="SECONDS",
        help="search each move this long instead of --worlds",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for the sampled deals (0)")
    p.add_argument("--jobs", type=_at_most(MAX_JOBS), default=1, help="worker processes (1)")
    p.add_argument("--json", action="store_true", help="print one JSON object per game")
    p.add_argument(
        "--plot", metavar="FILE", default=None, help="win-probability curves (.svg/.png)"
    )
    p.add_argument("--marked", action="store_true", help="list only the marked moves")


def _add_connect(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", metavar="URL", help="the server, e.g. https://lostcities.example")
    p.add_argument(
        "engine",
        metavar="ENGINE",
        help="the engine: a bot spec (heuristic, 'expert:time=0.5') or 'cmd:PROGRAM ARGS'"
        " speaking the bot protocol; one per game",
    )
    p.add_argument(
        "--token-file",
        required=True,
        metavar="FILE",
        help="file holding the bot account's API token (scope bot:play; challenge:write"
        " to answer and send challenges)",
    )
    accept = p.add_argument_group("which challenges to accept (the others are declined)")
    accept.add_argument(
        "--variants", default="classic,long", metavar="LIST", help="classic,long (both)"
    )
    accept.add_argument(
        "--clocks",
        default="any",
        metavar="LIST",
        help="clocks (60, 300+5, 3d, none), ranges of seconds LOW..HIGH (a match clock"
        " counts its base time), correspondence, any (default)",
    )
    accept.add_argument(
        "--rounds", default=None, metavar="LIST", help="match lengths, e.g. 1,3 (any)"
    )
    accept.add_argument(
        "--mode",
        choices=["rated", "casual", "both"],
        default="both",
        help="rated games only, casual only, or both (default)",
    )
    accept.add_argument(
        "--opponents",
        choices=["people", "bots", "both"],
        default="both",
        help="people only, bots only, or both (default)",
    )
    accept.add_argument(
        "--max-games",
        type=_at_most(MAX_JOBS),
        default=1,
        metavar="N",
        help="games at once (1); more are declined 'later'",
    )
    p.add_argument(
        "--games",
        type=_at_most(MAX_DEALS),
        default=None,
        metavar="N",
        help="stop after N games (default: run until Ctrl-C)",
    )
    p.add_argument(
        "--on-exit",
        choices=["finish", "resign"],
        default="finish",
        help="at Ctrl-C (or SIGTERM): finish the games being played (default) or resign"
        " them; a second Ctrl-C resigns",
    )
    send = p.add_argument_group("a challenge to send once connected")
    send.add_argument("--challenge", default=None, metavar="USER", help="challenge USER")
    send.add_argument(
        "--challenge-variant", choices=["classic", "long"], default="classic", help="(classic)"
    )
    send.add_argument("--challenge-rounds", type=int, choices=[1, 3], default=3, help="rounds (3)")
    send.add_argument(
        "--challenge-clock",
        default="300+5",
        metavar="CLOCK",
        help="60, 180, 300+5 (default), 600+10, 1d, 3d, 7d or none",
    )
    send.add_argument("--challenge-rated", action="store_true", help="a rated challenge")
    p.add_argument(
        "--move-time",
        type=_positive_float,
        default=10.0,
        metavar="SECONDS",
        help="the most time the engine is given for a move (10; less when the clock is short)",
    )
    p.add_argument(
        "--retry-base",
        type=_positive_float,
        default=1.0,
        metavar="SECONDS",
        help="first wait before reconnecting, doubled after each failure (1)",
    )
    p.add_argument(
        "--retry-max",
        type=_positive_float,
        default=60.0,
        metavar="SECONDS",
        help="the longest wait before reconnecting (60)",
    )
    p.add_argument(
        "--stream-timeout",
        type=_positive_float,
        default=20.0,
        metavar="SECONDS",
        help="reopen a stream silent this long (20; the server sends a keep-alive every 7 s)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed for the engines")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--quiet", "-q", action="store_true", help="print only errors")
    out.add_argument("--verbose", "-v", action="store_true", help="also print every move")
    p.add_argument(
        "--log-json",
        action="store_true",
        help="one JSON object per line on stdout instead of the progress lines on stderr",
    )


COMMANDS: list[tuple[str, str, Callable[[argparse.ArgumentParser], None], str]] = [
    (
        "score",
        "score a round's expeditions (a score calculator)",
        _add_score,
        "lostcities.cli:_score",
    ),
    (
        "replay",
        "check game records and print each game's result",
        _add_replay,
        "lostcities.replay:cli_main",
    ),
    (
        "play",
        "play in the terminal against a bot or hot-seat",
        _add_play,
        "lostcities.tui.app:cli_main",
    ),
    (
        "serve",
        "run the web app (browser play, invites, replays)",
        _add_serve,
        "lostcities.web.app:cli_main",
    ),
    (
        "comments",
        "moderate the rules page's comments: list, hide ID, unhide ID",
        _add_comments,
        "lostcities.web.comments:cli_main",
    ),
    (
        "users",
        "moderate accounts: list, ban NAME, unban NAME, delete NAME, reports, log",
        _add_users,
        "lostcities.web.accounts_cli:cli_main",
    ),
    (
        "match",
        "play two bots on duplicate deals and rate them",
        _add_match,
        "lostcities.arena.report:cli_match",
    ),
    (
        "tournament",
        "round robin between bots with an Elo ladder",
        _add_tournament,
        "lostcities.arena.report:cli_tournament",
    ),
    (
        "analyse",
        "evaluate every move of game records: mistakes, best moves, win chances",
        _add_analyse,
        "lostcities.review:cli_main",
    ),
    (
        "bot",
        "run a built-in bot as a protocol engine on stdin/stdout",
        _add_bot,
        "lostcities.cli:_bot",
    ),
    (
        "connect",
        "play online: run an engine as a bot account on a server (docs/bot-api.md)",
        _add_connect,
        "lostcities.connect.connector:cli_main",
    ),
    (
        "bench",
        "measure engine speed against the C reference",
        _add_bench,
        "lostcities.bench:cli_main",
    ),
    (
        "warmup",
        "compile the bots' search engine now (numba; for install scripts)",
        _add_warmup,
        "lostcities.cli:_warmup",
    ),
    (
        "train",
        "train the network by self-play (needs lostcities[train])",
        lambda p: importlib.import_module("lostcities.train.cli").add_arguments(p),
        "lostcities.train.cli:cli_main",
    ),
]

ALIASES = {"analyse": ["analyze"]}
"""Other names a command answers to."""

REMOVED_COMMANDS = {
    "train-judge": "lostcities train-judge was removed in 0.4.0 with the learned rollout judge "
    "(rollout=learned), which was no stronger than smart",
}
"""Commands that were removed, each with the one line that says so when it is called."""

EXTRAS = {
    "lostcities.review": "arena",
    "lostcities.tui": "tui",
    "lostcities.web": "web",
    "lostcities.fast": "fast",
    "lostcities.bench": "fast",
    "lostcities.arena": "arena",
    "lostcities.connect": "connect",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    from lostcities import __version__

    parser = argparse.ArgumentParser(
        prog="lostcities",
        description="Lost Cities: rules, bots, arena, web and terminal play.",
    )
    parser.add_argument("--version", action="version", version=f"lostcities {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, help_text, add, target in COMMANDS:
        p = sub.add_parser(
            name,
            aliases=ALIASES.get(name, []),
            help=help_text,
            description=help_text[0].upper() + help_text[1:],
        )
        add(p)
        p.set_defaults(handler=target)
    return parser


def _load(target: str) -> Callable[[argparse.Namespace], int | None]:
    module_name, _, func = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        missing = e.name or "a dependency"
        if missing.startswith("lostcities"):
            raise
        extra = next((x for m, x in EXTRAS.items() if module_name.startswith(m)), "all")
        raise CommandError(
            f"this command needs {missing!r}: pip install 'lostcities[{extra}]'"
        ) from None
    fn: Callable[[argparse.Namespace], int | None] = getattr(module, func)
    return fn


EXIT_INTERRUPTED = 130
"""The exit code after Ctrl-C (128 + SIGINT, as shells report it)."""


def _first_interrupt(signum: int, frame: object) -> None:
    """Ctrl-C: stop what runs (``KeyboardInterrupt``), and ignore the next ones, which
    would cut short the clean-up that ends every bot and worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    Ctrl-C at any moment, from the parsing of the arguments to the last line printed, ends
    the command with :data:`EXIT_INTERRUPTED` and ``lostcities: interrupted``, once its bots
    and workers are stopped; further Ctrl-Cs meanwhile are ignored. Run as the process's
    command line (``argv`` ``None``) they stay ignored until the process exits; otherwise
    the caller's handler is put back.
    """
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, _first_interrupt)
    interrupted = False
    try:
        return _run(argv)
    except KeyboardInterrupt:
        interrupted = True
        with contextlib.suppress(OSError, ValueError):
            print("lostcities: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    finally:
        if previous is not None and not (interrupted and argv is None):
            signal.signal(signal.SIGINT, previous)


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    words = goal_file_words(sys.argv[1:] if argv is None else argv)
    if words and words[0] in REMOVED_COMMANDS:
        print(f"lostcities: error: {REMOVED_COMMANDS[words[0]]}", file=sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(words)
    args.argv = words  # which flags were given (play)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        code = _load(args.handler)(args)
    except BrokenPipeError:
        return 0
    except (CommandError, ValueError, OSError) as e:
        print(f"lostcities {args.command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    return int(code or 0)


# -- the core's own commands ------------------------------------------------------------


def _score(args: argparse.Namespace) -> int:
    import json

    from lostcities.errors import InvalidExpeditionError
    from lostcities.presentation import format_score_table
    from lostcities.scoring import goal_points, parse_score_sheet, parse_totals_sheet, sheet_total

    if args.totals is not None:
        # --totals takes every word after it: card lists there are card lists all the same
        cards = [*args.expeditions, *(t for t in args.totals if _is_card_list(t, args.variant))]
        if cards:
            raise InvalidExpeditionError(
                f"give card lists or --totals, not both (cards {cards[0]!r})"
            )
        sheet = parse_totals_sheet(args.totals, args.variant)
    else:
        sheet = parse_score_sheet(args.expeditions, args.variant)
    total = sheet_total(sheet, args.achievements)
    if args.json:
        out: dict[str, object] = {
            "expeditions": {c.letter: e.to_dict() for c, e in sheet.items()},
            "achievements": args.achievements,
            "achievement_points": goal_points(args.achievements),
            "total": total,
        }
        print(json.dumps(out))
        return 0
    print(format_score_table(sheet, args.achievements))
    return 0


def _is_card_list(item: str, variant: str) -> bool:
    """Whether ``item`` reads as an expedition's cards (``y:2,4``) and not as its totals."""
    from lostcities.errors import InvalidExpeditionError
    from lostcities.scoring import parse_score_sheet, parse_totals_sheet

    try:
        parse_totals_sheet([item], variant)
    except InvalidExpeditionError:
        try:
            parse_score_sheet([item], variant)
        except InvalidExpeditionError:
            return False
        return True
    return False


def _bot(args: argparse.Namespace) -> int:
    """``lostcities bot SPEC [--seed N]``: serve a built-in bot on stdin/stdout.

    :raises BotSpecError: for a bad spec or an external ``cmd:`` spec.
    """
    from lostcities.bots import Bot, BotSpecError, make, parse_spec
    from lostcities.protocol import run_engine

    spec: str = args.spec
    name, _ = parse_spec(spec)
    if name == "cmd":
        raise BotSpecError(f"invalid bot spec: {spec!r} (lostcities bot serves built-in bots)")
    make(spec, seed=args.seed).close()  # a bad spec fails here, before any protocol

    def make_bot(seed: int | None) -> Bot:
        return make(spec, seed=args.seed if seed is None else seed)

    return run_engine(make_bot, name=f"lostcities {spec}", warm_up=search_warm_up(spec))


SEARCH_BOTS = ("ismcts", "expert")
"""The built-in bots whose first move would get their search ready (:func:`search_warm_up`)."""


def search_warm_up(spec: str) -> Callable[[], None] | None:
    """What ``lostcities bot SPEC`` runs at the handshake for a search bot (``None`` for
    the others): the compiled search loaded from numba's cache, then one short move of a
    throwaway bot of the same spec (its network and tables loaded), so that the served
    bot's first ``go`` is as quick as the next (``expert``'s first move otherwise spends
    0.7 s getting ready). Where the cache is cold (a first start, minutes of compiling,
    past the handshake's 10 s) nothing is compiled: ``lostcities warmup`` does it once.

    >>> search_warm_up("heuristic") is None, callable(search_warm_up("expert:time=1"))
    (True, True)
    """
    from lostcities.bots import parse_spec

    if parse_spec(spec)[0] not in SEARCH_BOTS:
        return None

    def warm() -> None:
        from lostcities.bots import make
        from lostcities.rules import Round

        try:
            from lostcities.fast.warmup import first_start, warm_up
        except ImportError:
            pass  # no numba: a pure-Python search, nothing to load
        else:
            if first_start():
                return
            warm_up()
        bot = make(spec, seed=0)
        try:
            bot.choose(Round.deal(seed=0, starter=0).view(0), 0.05)
        finally:
            bot.close()

    return warm


def _warmup(args: argparse.Namespace) -> int:
    """``lostcities warmup``: compile the search kernels into numba's on-disk cache (or check
    they are there), so that no first move of ``serve`` or ``play`` waits on the JIT."""
    try:
        from lostcities.fast.warmup import warm_up
    except ImportError:
        print("numba is not installed: nothing to compile (the bots search in pure Python)")
        return 0
    warm_up(lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

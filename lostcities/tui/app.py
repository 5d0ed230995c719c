"""``lostcities play``: the Textual app, from the first deal to the saved record.

>>> app = LostCitiesApp(Session(rounds=1, seed=1, opponent="random"))
>>> app.session.match.num_rounds
1
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from textual import events
from textual.app import App
from textual.binding import Binding

from lostcities.achievements import goal_pool
from lostcities.bots import BotSpecError, make, parse_spec
from lostcities.bots.warmup import prepare_search, search_first_start
from lostcities.tui.records import (
    NotARecordsFileError,
    RecordSlot,
    ResumeError,
    check_records_file,
    resume,
    save_to,
)
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.help import ConfirmQuit, HelpScreen, TooSmallScreen, guard_size
from lostcities.tui.screens.match_end import MatchEndScreen
from lostcities.tui.screens.privacy import PrivacyScreen
from lostcities.tui.screens.round_end import RoundEndScreen
from lostcities.tui.screens.start import LEVELS as START_LEVELS
from lostcities.tui.screens.start import Setup, StartScreen
from lostcities.tui.screens.ties import TieBreakScreen
from lostcities.tui.session import Session

__all__ = [
    "DEFAULT_OPPONENT",
    "FALLBACK_OPPONENT",
    "LostCitiesApp",
    "SavePathError",
    "SearchWarmUp",
    "StartApp",
    "check_save_path",
    "cli_main",
    "level_notes",
    "levels_unavailable",
    "prepare_search",
    "save_record",
    "start_screen_wanted",
    "terminal_attached",
    "with_setup",
]


class SavePathError(ValueError):
    """``--save`` names a file the record cannot be written to."""


def check_save_path(path: str) -> None:
    """Check, before a match starts, that the record can be written to ``path`` (``--save``):
    the file holds game records or nothing (:func:`~lostcities.tui.records.check_records_file`:
    the save adds the match's record after them), and it is opened for appending, and
    removed again if it did not exist.

    >>> check_save_path("/no/such/dir/match.txt")
    Traceback (most recent call last):
    ...
    lostcities.tui.app.SavePathError: cannot save the record to '/no/such/dir/match.txt': No such file or directory

    Raises:
        SavePathError: if it cannot (a missing folder, a folder, no permission, ...).
    """
    if not path.strip():
        raise SavePathError("--save needs a file name")
    p = Path(path)
    if p.is_dir():
        raise SavePathError(f"cannot save the record to {path!r}: it is a folder")
    try:
        check_records_file(p)  # a save adds its record to the games there, never over them
    except NotARecordsFileError as e:
        raise SavePathError(f"cannot save the record to {path!r}: {e}") from None
    except OSError as e:
        raise SavePathError(f"cannot save the record to {path!r}: {e.strerror or e}") from None
    existed = p.exists()
    try:
        with p.open("a", encoding="utf-8"):
            pass
    except OSError as e:
        raise SavePathError(f"cannot save the record to {path!r}: {e.strerror or e}") from None
    if not existed:
        p.unlink(missing_ok=True)


def save_record(session: Session, path: str | Path, slot: RecordSlot | None = None) -> RecordSlot:
    """Save the match's game record (with any undos as comments) in ``path``: added after
    the records already there, or in place of its own earlier save at ``slot``
    (:func:`lostcities.tui.records.save_to`); returns where it now lies.

    Raises:
        NotARecordsFileError: if ``path`` holds something other than game records.
        OSError: if the file cannot be written.
    """
    return save_to(session, path, slot)


class LostCitiesApp(App[int]):
    """A match in the terminal: the game screen, round ends, the match end.

    Every way out asks first (``q``, Ctrl+C, Ctrl+Q; Enter on the result screen) while a
    match is going on or its record is not saved, and then saves where ``--save`` says.

    Args:
        session: the match to play (built by :func:`cli_main` from the command line).
        save: where to write the game record when the match ends (``None``: offer it).
    """

    CSS_PATH = "app.tcss"
    TITLE = "Lost Cities"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        # Textual's own: Ctrl+Q quits at once (no record saved), Ctrl+C only says so (and
        # copies in a text box: never wanted for a move's few characters)
        Binding("ctrl+q", "confirm_quit", "quit", show=False, priority=True),
        Binding("ctrl+c", "confirm_quit", "quit", show=False, priority=True),
    ]

    def __init__(
        self,
        session: Session,
        save: str | None = None,
        warm_up: SearchWarmUp | None = None,
        slot: RecordSlot | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.save_path = save
        self.slot = slot
        """Where this match's record was last saved (or read from, for ``--resume``): a
        later save to that file replaces it there instead of adding another."""
        self.warm_up = warm_up
        """A first start's compile of the search, running while the board is shown (the
        bot's first move waits for it); ``None``: nothing to wait for."""
        self.game: GameScreen | None = None
        self.saved = False
        """Whether the finished match's record has been written."""
        self.written: str | None = None
        """Where the record was last written (the finished match's or the unfinished one's)."""
        self.save_error: str | None = None
        """Why the last save failed (``None``: it did not); :func:`cli_main` says it on exit."""

    too_small: TooSmallScreen | None = None
    """The "terminal too small" screen while it is shown."""

    def on_resize(self, event: events.Resize) -> None:
        self.check_size((event.size.width, event.size.height))

    def check_size(self, size: tuple[int, int]) -> None:
        """Cover everything with a message while the terminal is below :data:`MIN_SIZE`."""
        if self.game is None:
            return  # not yet: the game screen checks once it is shown
        self.too_small = guard_size(self, size, self.too_small)

    def _check_now(self) -> None:
        self.check_size((self.size.width, self.size.height))

    def on_mount(self) -> None:
        if self.session.tie_break_pending:
            self.push_screen(TieBreakScreen(self.session.names), self._tie_break_chosen)
            return
        self._begin()

    def _tie_break_chosen(self, choice: tuple[str, int | None] | None) -> None:
        tie_break, younger = choice or ("draw", None)
        self.session.set_tie_break(tie_break, younger)
        self._begin()

    def _begin(self) -> None:
        m = self.session.match
        if not m.rounds or (m.rounds[-1].is_over() and not m.is_over()):
            self.session.start_round()
        self.game = GameScreen(self.session)
        self.push_screen(self.game)
        self.call_after_refresh(self._check_now)  # started in a small terminal: say so

    # -- called by the game screen -------------------------------------------------------

    def round_over(self) -> None:
        """The round ended: show its breakdown, then deal the next or end the match."""
        self.push_screen(RoundEndScreen(self.session), self._after_round)

    def _after_round(self, _: object = None) -> None:
        s = self.session
        if s.match.is_over():
            saved = ""
            if self.save_path:
                saved = self.try_save(self.save_path)
            else:
                saved = "s: save the game record"
            self.push_screen(MatchEndScreen(s, saved, self.try_save))
            return
        s.start_round()
        assert self.game is not None
        self.game.new_round()

    def show_privacy(self, player: int, last: str, then: Callable[[object], None]) -> None:
        """Hot-seat: hide the board until ``player`` is at the keyboard, then call ``then``."""
        names = self.session.names
        self.push_screen(PrivacyScreen(names[player], names[player ^ 1], last), then)

    def try_save(self, path: str) -> str:
        """Save the record to ``path``; returns a line saying what happened."""
        if not path:
            return "no file name given"
        before = self.slot
        try:
            self.slot = save_record(self.session, path, self.slot)
        except (OSError, RuntimeError, ValueError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else e
            self.save_error = f"could not save the record to {path!r}: {why}"
            return self.save_error
        self.saved = self.session.match.is_over()
        self.written = path
        self.save_error = None
        kept = self.slot.start > 0 and (
            before is None or (before.path, before.start) != (self.slot.path, self.slot.start)
        )
        return f"saved the game record to {path}" + (
            " (after the games already in it)" if kept else ""
        )

    # -- app-wide actions ----------------------------------------------------------------------

    def action_show_help(self) -> None:
        """Show the keys."""
        self.push_screen(HelpScreen())

    def action_confirm_quit(self) -> None:
        """Quit (``q``, Ctrl+C, Ctrl+Q), after asking while a match is going on or its
        finished record is not saved; asked already, a second Ctrl+C or Ctrl+Q says yes."""
        if isinstance(self.screen, ConfirmQuit):
            self.screen.dismiss(True)
            return
        s = self.session
        if s.match.is_over():
            if self.saved:
                self.finish()
                return
            if self.save_path and self.save_error is None:
                self.finish()  # not tried yet (the last round's sheet is shown): saved now
                return
            where = "" if isinstance(self.screen, MatchEndScreen) else " on the result screen"
            question = "Quit without saving the game record?"
            note = f"n goes back: s{where} saves it"
            self.push_screen(ConfirmQuit(note, question), self._quit_unsaved)
            return
        if self.save_path:
            note = f"the unfinished match will be saved to {self.save_path}"
            save = None
        else:
            note = "s saves the unfinished match first: lostcities play --resume FILE goes on"
            save = self.try_save

        def answer(yes: bool | None) -> None:
            if yes:
                self.finish()

        self.push_screen(ConfirmQuit(note, save=save), answer)

    def _quit_unsaved(self, yes: bool | None) -> None:
        if yes:
            self.exit(0 if self.save_error is None else 1)

    def finish(self) -> None:
        """Save the record where ``--save`` says (unless already saved) and exit: 0, or 1
        when that save failed (:attr:`save_error` says why)."""
        if self.save_path and not self.saved:
            self.try_save(self.save_path)
        self.exit(0 if self.save_error is None else 1)

    def on_unmount(self) -> None:
        self.session.close()


class StartApp(App[Setup | None]):
    """``lostcities play`` without flags: the start screen alone; its return value is the
    chosen :class:`~lostcities.tui.screens.start.Setup` (``None``: quit)."""

    CSS_PATH = "app.tcss"
    TITLE = "Lost Cities"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+c", "quit", "quit", show=False, priority=True)]  # nothing to save yet

    too_small: TooSmallScreen | None = None
    """The "terminal too small" screen while it is shown."""

    start: StartScreen | None = None
    """The start screen, once shown."""

    def __init__(
        self, unavailable: Mapping[str, str] | None = None, notes: Mapping[str, str] | None = None
    ) -> None:
        super().__init__()
        self.unavailable = dict(unavailable or {})
        """The levels that cannot run here, with why (:func:`levels_unavailable`)."""
        self.notes = dict(notes or {})
        """How levels play here where it is worse than they can (:func:`level_notes`)."""

    def on_mount(self) -> None:
        self.start = StartScreen(unavailable=self.unavailable, notes=self.notes)
        self.push_screen(self.start, self._chosen)
        self.call_after_refresh(lambda: self.check_size((self.size.width, self.size.height)))

    def _chosen(self, setup: Setup | None) -> None:
        self.exit(setup)

    def on_resize(self, event: events.Resize) -> None:
        self.check_size((event.size.width, event.size.height))

    def check_size(self, size: tuple[int, int]) -> None:
        """Cover the screen with a message while the terminal is too small."""
        if self.start is None:
            return  # not yet: checked once the start screen is shown
        self.too_small = guard_size(self, size, self.too_small)


def start_screen_wanted(args: argparse.Namespace) -> bool:
    """Whether ``lostcities play`` was run without flags (then the start screen chooses the
    match): ``args.argv``, the command line's words, has none. Without ``args.argv`` (a
    namespace built in code) the flags' values are played.

    >>> start_screen_wanted(argparse.Namespace(argv=["play"]))
    True
    >>> start_screen_wanted(argparse.Namespace(argv=["play", "--rounds", "3"]))
    False
    """
    argv = getattr(args, "argv", None)
    return argv is not None and not any(a.startswith("-") for a in argv)


def with_setup(args: argparse.Namespace, setup: Setup) -> argparse.Namespace:
    """``args`` with the start screen's choices as the flags that make them."""
    chosen = argparse.Namespace(**vars(args))
    chosen.opponent = args.opponent if setup.hotseat else setup.opponent
    chosen.hotseat = setup.hotseat
    chosen.variant = setup.variant
    chosen.rounds = setup.rounds
    chosen.achievements = "default" if setup.achievements else None
    return chosen


DEFAULT_OPPONENT = "expert:time=1"
"""``lostcities play``'s default opponent: the network-guided search (:data:`FALLBACK_OPPONENT` where it
cannot be built)."""
FALLBACK_OPPONENT = "ismcts:time=1"
"""The default opponent where ``expert`` cannot run (no NumPy or no network weights)."""
SEARCH_BOTS = ("ismcts", "expert")
"""Bots whose moves run the compiled search: :func:`prepare_search` before they play."""


def levels_unavailable() -> dict[str, str]:
    """The start screen's levels whose bot cannot be built on this machine, with why (the
    errors on which ``lostcities play`` falls back from :data:`DEFAULT_OPPONENT`): the screen
    passes over them and says so."""
    out: dict[str, str] = {}
    for level, (spec, _) in START_LEVELS.items():
        try:
            make(spec, 0).close()
        except (ImportError, BotSpecError) as e:
            out[level] = str(e) or e.__class__.__name__
    return out


def level_notes() -> dict[str, str]:
    """How the start screen's search levels play on this machine where it is worse than they
    can: without the compiled engine (numba) their search runs in pure Python (the bots' own
    test, :func:`lostcities.bots.ismcts.fast_engine_available`)."""
    from lostcities.bots.ismcts import fast_engine_available

    if fast_engine_available():
        return {}
    note = "numba is not installed: its search runs in pure Python, far weaker"
    return {
        level: note
        for level, (spec, _) in START_LEVELS.items()
        if parse_spec(spec)[0] in SEARCH_BOTS
    }


class SearchWarmUp:
    """A first start's compile of the search (numba's cache is cold), off the screen: in a
    child process (:class:`lostcities.fast.warmup.WarmUpProcess`, so the board draws and
    takes keys meanwhile), then loaded here from the cache; :attr:`ready` is set when the
    bot can move without compiling (or the compile failed: a move then compiles what is
    missing). :meth:`close` stops it (the app quit first)."""

    def __init__(self) -> None:
        from lostcities.fast.warmup import WarmUpProcess

        self.ready = threading.Event()
        """Set once the bot's search is compiled and loaded."""
        self.seconds: float | None = None
        """The compile's seconds, once done (``None``: not yet, or it failed)."""
        self._child = WarmUpProcess()
        threading.Thread(target=self._run, name="lostcities-warm-up", daemon=True).start()

    def _run(self) -> None:
        from lostcities.fast.warmup import WarmUpError

        try:
            self.seconds = self._child.wait()
            prepare_search()  # from numba's cache now: under a second
        except WarmUpError:
            pass
        finally:
            self._child.close()
            self.ready.set()

    def close(self) -> None:
        """Stop the compile if it still runs."""
        self._child.close()


NOT_A_TERMINAL = (
    "the board needs a terminal, and stdin or stdout is not one (for bots alone: lostcities match)"
)


def terminal_attached() -> bool:
    """Whether stdin and stdout are a terminal, which the board reads keys from and draws on
    (on anything else, ``/dev/null`` or a pipe, it would wait for keys that never come)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _session(args: argparse.Namespace, opponent: str) -> Session:
    return Session(
        opponent=opponent,
        variant=args.variant,
        rounds=args.rounds,
        seed=args.seed,
        hotseat=args.hotseat,
        achievements=goal_pool(getattr(args, "achievements", None)),
    )


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities play``: build the match and the bot, load the search (from numba's
    cache, before the screen starts; at a first start it compiles in the background while
    the board is shown, :class:`SearchWarmUp`), then run the app.

    Run without flags, the start screen chooses the match first (:class:`StartApp`), or a
    saved match to resume (``r``). ``--resume FILE`` goes on with the last unfinished match
    saved in FILE (:func:`lostcities.tui.records.resume`), saved again in its place (or
    added to ``--save``'s file).

    Returns the exit code: 0; 2 with one line on stderr when the bot cannot be made,
    ``--save`` names a file that cannot be written or holds something other than game
    records (checked before anything starts), ``--hotseat`` comes with ``--opponent``,
    ``--resume`` with a flag that shapes a new match or a file with no unfinished match,
    or stdin or stdout is not a terminal; 1 when the record could not be saved at the end
    after all (the line says why).
    """

    def refuse(why: object) -> int:
        print(f"lostcities play: error: {why}", file=sys.stderr)
        return 2

    words = getattr(args, "argv", None) or []
    if args.hotseat and any(w == "--opponent" or w.startswith("--opponent=") for w in words):
        return refuse("--hotseat is two people at one keyboard: it takes no --opponent")
    resume_from: str | None = getattr(args, "resume", None)
    if resume_from is not None:
        shaping = [w.split("=")[0] for w in words if w.split("=")[0] in RESUME_CONFLICTS]
        if shaping:
            return refuse(f"--resume goes on with the saved match: it takes no {shaping[0]}")
    save: str | None = getattr(args, "save", None)
    if save is not None:
        try:
            check_save_path(save)
        except SavePathError as e:
            return refuse(e)
    if start_screen_wanted(args):
        if not terminal_attached():
            return refuse(NOT_A_TERMINAL)
        setup = StartApp(levels_unavailable(), level_notes()).run()
        if setup is None:
            return 0  # quit at the start screen
        if setup.resume is not None:
            resume_from = setup.resume
        else:
            args = with_setup(args, setup)
    if resume_from is not None:
        return _resume(resume_from, save, refuse)
    opponent: str = args.opponent
    try:
        try:
            session = _session(args, opponent)
        except (ImportError, BotSpecError) as e:
            if args.hotseat or opponent != DEFAULT_OPPONENT:
                raise
            print(f"lostcities play: {opponent} cannot run here ({e}): playing {FALLBACK_OPPONENT}")
            opponent = FALLBACK_OPPONENT
            session = _session(args, opponent)
    except ImportError as e:
        print(
            f"lostcities play: error: bot {opponent!r} is not available in this install ({e})",
            file=sys.stderr,
        )
        return 2
    except (ValueError, RuntimeError) as e:
        print(f"lostcities play: error: {e}", file=sys.stderr)
        return 2
    if not terminal_attached():
        session.close()
        return refuse(NOT_A_TERMINAL)
    return _run_app(session, save, None)


RESUME_CONFLICTS = (
    "--opponent",
    "--variant",
    "--rounds",
    "--seed",
    "--hotseat",
    "--achievements",
)
"""The flags that shape a new match, which ``--resume`` (a saved match) does not take."""


def _resume(path: str, save: str | None, refuse: Callable[[object], int]) -> int:
    """``--resume FILE``: the saved match goes on, saved again to ``save`` or in its place."""
    try:
        session, slot = resume(path)
    except (ResumeError, BotSpecError, ImportError, ValueError) as e:
        return refuse(f"cannot resume from {path!r}: {e}")
    except OSError as e:
        return refuse(f"cannot resume from {path!r}: {e.strerror or e}")
    if not terminal_attached():
        session.close()
        return refuse(NOT_A_TERMINAL)
    if save is None or os.path.abspath(save) == os.path.abspath(path):
        return _run_app(session, path, slot)
    return _run_app(session, save, None)


def _run_app(session: Session, save: str | None, slot: RecordSlot | None) -> int:
    """Run the app on ``session`` (its search warmed up first), then say where the record
    went; the exit code."""
    warm: SearchWarmUp | None = None
    if not session.hotseat and parse_spec(session.opponent)[0] in SEARCH_BOTS:
        if search_first_start():  # the board at once; the bot's first move waits for it
            warm = SearchWarmUp()
        else:  # from numba's cache: under a second
            prepare_search(lambda line: print(line, flush=True))
    app = LostCitiesApp(session, save=save, warm_up=warm, slot=slot)
    try:
        code = app.run()
    finally:
        if warm is not None:
            warm.close()
    if app.save_error is not None:
        print(f"lostcities play: error: {app.save_error}", file=sys.stderr)
        return 1
    if app.written is not None:
        print(f"lostcities play: saved the game record to {app.written}")
        if not session.match.is_over():
            print(f"lostcities play: lostcities play --resume {app.written} goes on with it")
    return code or 0

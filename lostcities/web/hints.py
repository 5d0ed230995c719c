"""Hints and game analyses, computed in the bot worker pool by the analysis bot
(:meth:`lostcities.bots.Bot.analyse`): a hint is one position's analysis for the player to
move; a finished game's analysis reviews every move, one at a time (so bot moves of other
games never wait long), and is stored once done."""

from __future__ import annotations

import asyncio
import json
import logging
import random

from lostcities.bots import make
from lostcities.bots.analysis import (
    DEFAULT_BOT,
    DEFAULT_WORLDS,
    MoveReview,
    Position,
    analyse,
    positions,
    report,
    review,
)
from lostcities.rules import PlayerView
from lostcities.web import schemas
from lostcities.web.errors import (
    GameOverError,
    HintInRatedGameError,
    HintNotAllowedError,
    NotFinishedError,
    NotYourTurnError,
    WarmingUpError,
)
from lostcities.web.levels import Levels
from lostcities.web.live_game import LiveGame
from lostcities.web.repositories.games import op_save_analysis, op_update_game
from lostcities.web.store import GameStore
from lostcities.web.workers import BotRunner

__all__ = ["ANALYSIS_BOT", "ANALYSIS_WORLDS", "HINT_WORLDS", "Analyst", "bot_hint", "bot_review"]

log = logging.getLogger("lostcities.web")

ANALYSIS_BOT = DEFAULT_BOT
"""The bot behind hints and the analysis page (:meth:`lostcities.bots.Bot.analyse`)."""
HINT_WORLDS = DEFAULT_WORLDS
"""Sampled worlds per hint (about 0.1 s with numba)."""
ANALYSIS_WORLDS = DEFAULT_WORLDS
"""Sampled worlds per move of a game's analysis (``lostcities analyse``'s default)."""


def bot_hint(spec: str, seed: int, view: PlayerView, worlds: int) -> dict[str, object]:
    """What a worker runs for a hint: the analysis of ``view`` (its only input) by the bot
    of ``spec`` (:meth:`Analysis.to_dict <lostcities.bots.analysis.Analysis.to_dict>`)."""
    bot = make(spec, seed)
    try:
        return analyse(bot, view, worlds=worlds, seed=seed).to_dict()
    finally:
        bot.close()


def bot_review(spec: str, pos: Position, worlds: int) -> MoveReview:
    """What a worker runs for one move of a game's analysis (from the mover's view)."""
    bot = make(spec, 0)
    try:
        return review(bot, pos, worlds=worlds)
    finally:
        bot.close()


class Analyst:
    """The hints and analyses of one server: run in ``bots``' workers, stored in ``store``."""

    def __init__(self, store: GameStore, bots: BotRunner, levels: Levels) -> None:
        self.store = store
        self.bots = bots
        self.levels = levels
        """The computer levels (whether the search engine is ready)."""
        self.analyses: dict[str, asyncio.Task[None]] = {}
        """Analyses being computed, by game id."""
        self.analysis_progress: dict[str, tuple[int, int]] = {}
        """Moves analysed and to analyse, by game id (while computing)."""

    async def hint(self, g: LiveGame, seat: int) -> schemas.HintOut:
        """The engine's move for ``seat``'s position (a game against the computer, the seat
        to move); the game is marked assisted (:attr:`GameRow.hints
        <lostcities.web.models.games.GameRow.hints>`, its record's ``Assisted`` tag).

        :raises GameError: for a game without a computer seat, a rated game, or not this
            seat's turn.
        """
        if g.row.bot0 is None and g.row.bot1 is None:
            raise HintNotAllowedError("hints are for games against the computer")
        if g.bot_spec(seat) is not None:
            raise HintNotAllowedError("that seat is the computer's")
        if g.row.rated:
            # refused rather than making the game unrated: a player losing could otherwise
            # ask for a hint to make the loss count for nothing
            raise HintInRatedGameError("no hints in a rated game: its result is your own play")
        if g.is_over() or g.round.is_over():
            raise GameOverError("the round is over")
        if g.round.to_move != seat:
            raise NotYourTurnError("it is not your turn")
        if self.levels.waits_for_search(ANALYSIS_BOT):
            raise WarmingUpError(
                "hints are warming up: the search engine is being prepared (first start "
                "only); try again in a few seconds"
            )
        view = g.match.view(seat)  # with the match's context, as the bots play
        ri, ply = g.round_index, g.round.ply
        seed = random.Random(f"hint:{self.match_seed(g)}:{ri}:{ply}").randrange(2**31)
        out = await self.bots.run(bot_hint, ANALYSIS_BOT, seed, view, HINT_WORLDS)
        hints = (g.row.hints or 0) + 1
        await self.store.write(op_update_game(g.id, hints=hints))
        g.row.hints = hints
        return schemas.HintOut(round=ri, ply=ply, **out)  # type: ignore[arg-type]

    @staticmethod
    def match_seed(g: LiveGame) -> int:
        """The match's seed (hints and analyses draw their worlds from it)."""
        return g.match.seed or 0

    async def analysis(self, g: LiveGame) -> schemas.AnalysisOut:
        """The analysis of a finished game: stored, or started now in the worker pool (one
        move at a time, so bot moves of other games never wait long) and reported as
        running with its progress.

        :raises NotFinishedError: while the game goes on.
        """
        if not g.is_over():
            raise NotFinishedError("the analysis is available once the game is over")
        text = await asyncio.to_thread(self.store.analysis_sync, g.id)
        if text is not None:
            return schemas.AnalysisOut(status="done", **json.loads(text))
        task = self.analyses.get(g.id)
        if task is None or (task.done() and task.exception() is not None):
            if task is not None:
                log.warning("analysis of game %s failed: %s; retrying", g.id, task.exception())
            self.analyses[g.id] = asyncio.create_task(self._analyse(g))
        done, total = self.analysis_progress.get(g.id, (0, 0))
        return schemas.AnalysisOut(status="running", done=done, total=total)

    async def _analyse(self, g: LiveGame) -> None:
        items = positions(g.match.rounds)
        self.analysis_progress[g.id] = (0, len(items))
        reviews: list[MoveReview] = []
        try:
            await self.levels.until_ready(ANALYSIS_BOT)  # (running, 0 done meanwhile)
            for p in items:
                reviews.append(await self.bots.run(bot_review, ANALYSIS_BOT, p, ANALYSIS_WORLDS))
                self.analysis_progress[g.id] = (len(reviews), len(items))
            data = {
                "bot": ANALYSIS_BOT,
                "worlds": ANALYSIS_WORLDS,
                **report(reviews, (g.row.name0, g.row.name1)),
            }
            await self.store.write(op_save_analysis(g.id, ANALYSIS_BOT, json.dumps(data)))
        finally:
            self.analysis_progress.pop(g.id, None)
            if self.analyses.get(g.id) is asyncio.current_task():
                del self.analyses[g.id]

    def close(self) -> None:
        """Cancel the analyses being computed."""
        for t in list(self.analyses.values()):
            t.cancel()

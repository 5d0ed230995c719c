"""What a finished game leaves: its replay (every position, both hands shown), a position
as a picture, its record. Hands and decks are secret until the game is over, so each
refuses a game still being played."""

from __future__ import annotations

from lostcities.presentation import assistance
from lostcities.web import schemas
from lostcities.web.errors import NotFinishedError, PositionNotFoundError
from lostcities.web.live_game import LiveGame

__all__ = ["position_svg", "record_text", "replay"]


def replay(g: LiveGame) -> schemas.ReplayOut:
    """Every position of a finished game with both hands revealed.

    :raises NotFinishedError: while the game goes on (hands are secret until the end).
    """
    if not g.is_over():
        raise NotFinishedError("replays are available once the game is over")
    rounds = []
    for i, r in enumerate(g.match.rounds):
        x = r.replayed(0)  # the same goal cards, claimed again move by move
        frames = [schemas.frame_of(x, None)]
        for mv in r.history:
            x.push(mv)
            frames.append(schemas.frame_of(x, str(mv)))
        rounds.append(
            schemas.ReplayRoundOut(
                index=i, starter=r.starter, frames=frames, summary=schemas.round_summary(i, r)
            )
        )
    return schemas.ReplayOut(game=g.summary(None), rounds=rounds)


def position_svg(g: LiveGame, round_number: int, ply: int) -> str:
    """The picture (:func:`lostcities.svg.position`, both hands shown, as the replay
    shows them) of a finished game's round ``round_number`` (from 1) after ``ply`` moves.

    :raises NotFinishedError: while the game goes on (hands are secret until the end).
    :raises PositionNotFoundError: for a round or ply the game does not have.
    """
    from lostcities.svg import position

    if not g.is_over():
        raise NotFinishedError("positions are available once the game is over")
    rounds = g.match.rounds
    if not 1 <= round_number <= len(rounds):
        raise PositionNotFoundError(f"no round {round_number} in this game (it has {len(rounds)})")
    r = rounds[round_number - 1]
    if not 0 <= ply <= len(r.history):
        raise PositionNotFoundError(
            f"no ply {ply} in round {round_number} (it has 0..{len(r.history)})"
        )
    return position(r.replayed(ply))


def record_text(g: LiveGame) -> str:
    """The game record (PGN-like) of a finished game. A game that ended off the board
    (:mod:`~lostcities.web.abandon`) says so in its ``Termination`` tag (``aborted``,
    ``abandoned``), with the game's result.

    :raises NotFinishedError: while the game goes on (it holds the decks).
    """
    from lostcities.record import GameRecord

    if not g.is_over():
        raise NotFinishedError("the record is available once the game is over")
    rec = GameRecord.from_match(
        g.match,
        players=(g.row.name0, g.row.name1),
        Event="lostcities web game",
        Site=f"game {g.id}",
        Date=g.row.created_at.strftime("%Y.%m.%d") if g.row.created_at else "????.??.??",
        **({"Assisted": assistance(g.row.hints)} if g.row.hints else {}),
    )
    if g.row.ending is not None:  # ended off the board: aborted, or abandoned and claimed
        rec.tags["Result"] = g.row.result
        rec.tags["Termination"] = g.row.ending
    return str(rec)

"""The errors of the web referee: one :class:`GameError` subclass per thing a request can get
wrong, each with the ``code`` clients see (the API's ``error``, the WebSocket's ``error``
message) and its HTTP status.

>>> issubclass(StaleMoveError, ValueError), StaleMoveError.code, StaleMoveError.status
(True, 'stale', 409)
"""

from __future__ import annotations

from lostcities import errors as core_errors

__all__ = [
    "BadBotRequestError",
    "BadTokenError",
    "BotBannedError",
    "BotInLobbyError",
    "ChallengeClosedError",
    "ChallengeNotFoundError",
    "MissingScopeError",
    "NotABotError",
    "NotYourGameError",
    "TokenNotFoundError",
    "TooManyTokensError",
    "UpgradeRefusedError",
    "BotUnavailableError",
    "CannotAbortError",
    "CannotClaimError",
    "ChatFullError",
    "ClaimTooEarlyError",
    "GameError",
    "GameNotFoundError",
    "GameOverError",
    "HintNotAllowedError",
    "HintInRatedGameError",
    "IllegalMoveRequestError",
    "InvalidTokenError",
    "NotFinishedError",
    "NotYourTurnError",
    "OpponentPresentError",
    "PositionNotFoundError",
    "SeatTakenError",
    "StaleMoveError",
    "TimeOutError",
    "WaitingForFriendError",
    "WarmingUpError",
]


class GameError(ValueError):
    """A request the referee refuses; ``code`` names the kind, ``status`` the HTTP status,
    and ``reason``, where a kind has several, what exactly is wrong (the answer's
    ``reason``: the pages say it by ``error.code.CODE.REASON``).

    >>> e = GameError("a username has 3 to 20 characters", reason="length")
    >>> str(e), e.reason, GameError("no").reason
    ('a username has 3 to 20 characters', 'length', None)
    """

    code = "bad_request"
    status = 400
    reasons: tuple[str, ...] = ()
    """The reasons this kind may give (each has its text in every catalogue; a test checks)."""

    def __init__(self, message: str = "", *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        """What exactly is wrong (one of :attr:`reasons`), or ``None``."""


class GameNotFoundError(GameError):
    """No game with that id."""

    code = "not_found"
    status = 404


class InvalidTokenError(GameError):
    """The token is not one of this game's seat tokens."""

    code = "invalid_token"
    status = 403


class NotYourTurnError(GameError, core_errors.NotYourTurnError):
    """The seat tried to move while the other player is to move: the rules core's
    :class:`lostcities.errors.NotYourTurnError` (one class: the server checks the turn
    once, where the move comes in, and the referee trusts it), with its code and status.

    >>> import lostcities.errors
    >>> issubclass(NotYourTurnError, lostcities.errors.NotYourTurnError)
    True
    """

    code = "not_your_turn"
    status = 409


class WaitingForFriendError(GameError):
    """A move in a friend game whose friend has not joined yet: nobody moves until both
    seats are taken (the status says "waiting for your friend to join")."""

    code = "waiting_for_friend"
    status = 409


class StaleMoveError(GameError):
    """The move was made at a round/ply that is not the current one (duplicate or stale)."""

    code = "stale"
    status = 409


class GameOverError(GameError):
    """The game (or round) is over."""

    code = "game_over"
    status = 409


class SeatTakenError(GameError):
    """The invite was already used."""

    code = "seat_taken"
    status = 409


class BotUnavailableError(GameError):
    """The level's bot is not installed on this server."""

    code = "bot_unavailable"
    status = 400


class WarmingUpError(BotUnavailableError):
    """The level's compiled search is still being prepared (a first start): it plays once
    it is ready, in a few seconds."""

    code = "warming_up"
    status = 503


class ChatFullError(GameError):
    """The game keeps no more chat (:data:`lostcities.web.chatroom.CHAT_KEPT` phrases)."""

    code = "chat_full"
    status = 409


class IllegalMoveRequestError(GameError):
    """The rules forbid the move (message from the core)."""

    code = "illegal_move"
    status = 422


class HintNotAllowedError(GameError):
    """A hint asked for in a game between people, or for the computer's seat."""

    code = "hint_not_allowed"
    status = 403


class HintInRatedGameError(HintNotAllowedError):
    """A hint asked for in a rated game: a rated result is the player's own play."""

    code = "hint_rated"
    status = 403


class NotFinishedError(GameError):
    """Replays and records exist only for finished games."""

    code = "not_finished"
    status = 409


class TimeOutError(GameError):
    """The move came after the move clock ran out (the round is forfeited for it)."""

    code = "time_out"
    status = 409


class PositionNotFoundError(GameError):
    """The game has no such round, or the round no such ply."""

    code = "no_such_position"
    status = 404


class CannotAbortError(GameError):
    """An abort once both players have moved (:mod:`lostcities.web.abandon`): resign, or
    claim once the opponent has left."""

    code = "cannot_abort"
    status = 409


class CannotClaimError(GameError):
    """A claim the rules do not allow here (:mod:`lostcities.web.abandon`): a game against
    the computer, a correspondence game, or one that can still be aborted."""

    code = "cannot_claim"
    status = 409


class OpponentPresentError(CannotClaimError):
    """A claim while the opponent is at the table."""

    code = "opponent_present"
    status = 409


class ClaimTooEarlyError(CannotClaimError):
    """A claim before the opponent has been away long enough."""

    code = "claim_too_early"
    status = 409


# -- the bot API (lostcities.web.bot_api, docs/bot-api.md) ------------------------------------


class BadBotRequestError(GameError):
    """A bot API request that cannot be done as asked (an unknown scope or chat phrase,
    challenging oneself...)."""

    code = "bad_request"
    status = 422


class BadTokenError(GameError):
    """No API token, or one that is malformed, unknown or revoked."""

    code = "bad_token"
    status = 401


class MissingScopeError(GameError):
    """An API token without the scope the request needs."""

    code = "missing_scope"
    status = 403


class BotBannedError(GameError):
    """An API token of a banned account."""

    code = "banned"
    status = 403


class NotABotError(GameError):
    """A bot API request that only a bot account may make (or only a bot may receive)."""

    code = "not_a_bot"
    status = 403


class NotYourGameError(GameError):
    """A bot's request about a game its account does not play in."""

    code = "not_your_game"
    status = 403


class TokenNotFoundError(GameError):
    """No such working API token of the account."""

    code = "no_such_token"
    status = 404


class TooManyTokensError(GameError):
    """An account with as many API tokens as it may have."""

    code = "too_many_tokens"
    status = 409


class UpgradeRefusedError(GameError):
    """Turning into a bot an account that played a rated game as a person."""

    code = "upgrade_refused"
    status = 409


class ChallengeNotFoundError(GameError):
    """No such challenge (of the caller's)."""

    code = "no_such_challenge"
    status = 404


class ChallengeClosedError(GameError):
    """A challenge answered, cancelled or expired already."""

    code = "challenge_closed"
    status = 409


class BotInLobbyError(GameError):
    """A bot account asking for the lobby's tables or play-now pairing: people challenge it."""

    code = "not_for_bots"
    status = 403

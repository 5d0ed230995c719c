"""The refusals of the web server: one :class:`GameError` subclass per thing a request can
get wrong, each with the ``code`` clients see (the API's ``error``, the WebSocket's ``error``
message) and its HTTP status, all in this module, and :data:`ERRORS`, the table of them by
code (docs/web.md lists the same codes; a test compares the two).

A new refusal is a class here with its own ``code`` and ``status`` (and a line in
docs/web.md, and ``error.code.CODE`` in every catalogue): the table picks it up.

>>> issubclass(StaleMoveError, ValueError), StaleMoveError.code, StaleMoveError.status
(True, 'stale', 409)
>>> ERRORS["stale"] is StaleMoveError, ERRORS["rate_limited"].status
(True, 429)
"""

from __future__ import annotations

import math

from lostcities import errors as core_errors

__all__ = [
    "ERRORS",
    "AccountBannedError",
    "AccountError",
    "AccountNotFoundError",
    "AlreadyJoinedError",
    "BadGameIdsError",
    "BadMessageError",
    "BlockedError",
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
    "ConfirmationError",
    "CsrfError",
    "EntryGoneError",
    "GameError",
    "GameNotFoundError",
    "GameOverError",
    "HelloFirstError",
    "HintInRatedGameError",
    "HintNotAllowedError",
    "HttpError",
    "IllegalMoveRequestError",
    "InvalidInputError",
    "InvalidRequestError",
    "InvalidTokenError",
    "LastCredentialError",
    "LoginFailedError",
    "MethodNotAllowedError",
    "NeedsAccountError",
    "NotFinishedError",
    "NotSignedInError",
    "NotYourTurnError",
    "OpponentPresentError",
    "PasskeyError",
    "PasswordRuleError",
    "PositionNotFoundError",
    "RateLimitedError",
    "RecoveryFailedError",
    "SeatTakenError",
    "SelfError",
    "SpectatorError",
    "StaleMoveError",
    "TimeOutError",
    "TooLargeError",
    "TooManyEntriesError",
    "UsernameRuleError",
    "UsernameTakenError",
    "WaitingForFriendError",
    "WarmingUpError",
    "WrongPasswordError",
    "retry_after_header",
]


class GameError(ValueError):
    """A request the server refuses; ``code`` names the kind, ``status`` the HTTP status,
    and ``reason``, where a kind has several, what exactly is wrong (the answer's
    ``reason``: the pages say it by ``error.code.CODE.REASON``).

    >>> e = GameError("a username has 3 to 20 characters", reason="length")
    >>> str(e), e.reason, GameError("no").reason
    ('a username has 3 to 20 characters', 'length', None)
    >>> e.body()
    {'error': 'bad_request', 'message': 'a username has 3 to 20 characters', 'reason': 'length'}
    """

    code = "bad_request"
    status = 400
    reasons: tuple[str, ...] = ()
    """The reasons this kind may give (each has its text in every catalogue; a test checks)."""

    def __init__(self, message: str = "", *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        """What exactly is wrong (one of :attr:`reasons`), or ``None``."""

    def body(self) -> dict[str, object]:
        """The HTTP answer's JSON: ``{"error": code, "message": ONE LINE}``, with ``reason``
        where there is one."""
        out: dict[str, object] = {"error": self.code, "message": str(self)}
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def headers(self) -> dict[str, str]:
        """The HTTP answer's headers (none; a rate limit's ``Retry-After``)."""
        return {}


# -- the requests themselves: what the app's handlers and the WebSocket answer ------------


class InvalidRequestError(GameError):
    """A request whose body or parameters do not have the documented form (a field
    missing, too long, of the wrong kind: the answer names it)."""

    code = "invalid_request"
    status = 422


class BadGameIdsError(InvalidRequestError):
    """A stream's ``games`` parameter that is not a list of game ids."""


class InvalidInputError(GameError):
    """Input the rules core or the calculator refuses, in their own words (a plain
    ``ValueError`` out of them)."""

    code = "invalid"
    status = 400


class TooLargeError(GameError):
    """A request body, or a WebSocket message, over the size limit."""

    code = "too_large"
    status = 413


class MethodNotAllowedError(GameError):
    """A path asked with a method it does not answer."""

    code = "method_not_allowed"
    status = 405


class HttpError(GameError):
    """Any other HTTP error of the framework (answered with its own status)."""

    code = "http_error"
    status = 400


class BadMessageError(GameError):
    """A WebSocket message that is not one of the documented messages."""

    code = "bad_message"
    status = 400


class HelloFirstError(GameError):
    """A WebSocket message before the ``hello``."""

    code = "hello_first"
    status = 409


class AlreadyJoinedError(GameError):
    """A second ``hello`` on one WebSocket."""

    code = "already_joined"
    status = 409


class SpectatorError(GameError):
    """A spectator's socket asked to move, chat, resign, abort or claim."""

    code = "spectator"
    status = 403


def retry_after_header(seconds: float) -> str:
    """The ``Retry-After`` value: whole seconds, rounded up, at least 1.

    >>> retry_after_header(0.2), retry_after_header(30.0)
    ('1', '30')
    """
    return str(max(1, math.ceil(seconds)))


class RateLimitedError(GameError):
    """A client went over a rate limit (:mod:`lostcities.web.limits`); ``retry_after`` is
    the seconds it must wait, which the answer says (``retry_after``, ``Retry-After``).

    >>> e = RateLimitedError("too many moves", 2.5)
    >>> e.body(), e.headers()
    ({'error': 'rate_limited', 'message': 'too many moves', 'retry_after': 3}, {'Retry-After': '3'})
    """

    code = "rate_limited"
    status = 429

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def body(self) -> dict[str, object]:
        """The answer's JSON, with ``retry_after`` (whole seconds)."""
        return {**super().body(), "retry_after": int(retry_after_header(self.retry_after))}

    def headers(self) -> dict[str, str]:
        """``Retry-After`` (whole seconds)."""
        return {"Retry-After": retry_after_header(self.retry_after)}


# -- games ----------------------------------------------------------------------------------


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


# -- accounts -------------------------------------------------------------------------------


class AccountError(GameError):
    """An account request refused (answered with ``code`` and ``status``, as game errors are)."""

    code = "account_error"
    status = 400


class UsernameRuleError(AccountError):
    """A username that breaks the rule; ``reason``: ``length``, ``characters``, ``first``
    (how it starts) or ``reserved``."""

    code = "invalid_username"
    status = 422
    reasons = ("length", "characters", "first", "reserved")


class UsernameTakenError(AccountError):
    """Sign-up with a name someone has (or one that looks the same)."""

    code = "username_taken"
    status = 409


class LoginFailedError(AccountError):
    """Wrong username or password (the same words whichever was wrong)."""

    code = "login_failed"
    status = 401


class RecoveryFailedError(LoginFailedError):
    """A recovery with a wrong username or recovery code (the same words whichever)."""

    code = "recovery_failed"


class WrongPasswordError(LoginFailedError):
    """The signed-in account's password, asked again (to change it, to delete the
    account), is wrong."""

    code = "wrong_password"


class NotSignedInError(AccountError):
    """A request that needs an account, without a valid session."""

    code = "not_signed_in"
    status = 401


class CsrfError(AccountError):
    """A state-changing request without the CSRF token (or from another site)."""

    code = "csrf"
    status = 403


class AccountBannedError(AccountError):
    """A log-in to a banned account (said only once the password was right)."""

    code = "banned"
    status = 403


class ConfirmationError(AccountError):
    """A destructive request without its confirmation (the username typed again)."""

    code = "confirm"
    status = 422


class LastCredentialError(AccountError):
    """Removing the account's only way to log in."""

    code = "last_credential"
    status = 409


class SelfError(AccountError):
    """Blocking or reporting oneself."""

    code = "self"
    status = 422


class AccountNotFoundError(AccountError):
    """No player with that username."""

    code = "no_such_player"
    status = 404


class PasswordRuleError(GameError):
    """A password the rule refuses (``reason``: what is wrong; :mod:`lostcities.web.passwords`)."""

    code = "invalid_password"
    status = 422
    reasons = ("length", "common", "pattern", "username")


class PasskeyError(AccountError):
    """A passkey answer that does not check out (or came too late); nothing changed."""

    code = "passkey_failed"
    status = 400


# -- the lobby ------------------------------------------------------------------------------


class NeedsAccountError(GameError):
    """A guest asked for a rated game: rated games are for signed-in players."""

    code = "needs_account"
    status = 403


class EntryGoneError(GameError):
    """The table or seek was taken, cancelled or dropped meanwhile."""

    code = "gone"
    status = 409


class BlockedError(GameError):
    """One of two players blocked the other: they are never seated together (nor chat)."""

    code = "blocked"
    status = 403


class TooManyEntriesError(GameError):
    """A player with :data:`lostcities.web.lobby.MAX_ENTRIES` open entries asked for another."""

    code = "too_many"
    status = 429


# -- the bot API (lostcities.web.bot_api, docs/bot-api.md) ------------------------------------


class BadBotRequestError(InvalidRequestError):
    """A bot API request that cannot be done as asked (an unknown scope or chat phrase,
    challenging oneself...): ``invalid_request``, which the bot API calls ``bad_request``."""


class BadTokenError(GameError):
    """No API token, or one that is malformed, unknown or revoked."""

    code = "bad_token"
    status = 401


class MissingScopeError(GameError):
    """An API token without the scope the request needs."""

    code = "missing_scope"
    status = 403


class BotBannedError(AccountBannedError):
    """An API token of a banned account."""


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


# -- the table ------------------------------------------------------------------------------


def _table() -> dict[str, type[GameError]]:
    """Each code with the class that names it (a subclass that keeps its parent's code, such
    as :class:`BadGameIdsError`, is not a row of its own), by code."""
    rows: dict[str, type[GameError]] = {}
    todo: list[type[GameError]] = [GameError]
    while todo:
        cls = todo.pop()
        if "code" in vars(cls):
            rows.setdefault(cls.code, cls)
        todo.extend(cls.__subclasses__())
    return dict(sorted(rows.items()))


ERRORS: dict[str, type[GameError]] = _table()
"""Every code the server answers with (HTTP or WebSocket): code -> its class (``status``,
``reasons``, the docstring says when). The app's handlers take the status from here."""

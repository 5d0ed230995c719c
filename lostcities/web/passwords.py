"""The password rule (NIST SP 800-63B, 5.1.1.2): 8 to 200 characters of any kind, and not a
password attackers try first. Refused, each with its own reason:

- ``length``: fewer than :data:`PASSWORD_MIN` or more than :data:`PASSWORD_MAX` characters;
- ``common``: on the shipped list (``lostcities/data/common_passwords.txt``: common passwords
  and the words they are built on, written for this project; its header says how), compared
  without case, also once the digits and symbols around it are taken off and the usual letter
  swaps undone (``Dragon2024!``, ``p@ssw0rd``, ``i love you``);
- ``pattern``: a repeat of one to four characters (``aaaaaaaa``, ``abcabcabc``), a run
  (``abcdefgh``, ``98765432``), a stretch of a keyboard row (``qwertyui``, ``1qaz2wsx``) or
  a date of eight digits (``19901231``, ``31121990``);
- ``username``: the username, with only digits or symbols added (``ann_lee2024``).

Nothing else is asked (no "one digit and one symbol"): a long phrase of one's own is best.

>>> check_password("correct horse on the moor", "ann")
'correct horse on the moor'
>>> [problem(p, "ann_lee") for p in ("short", "Password123!", "P@ssw0rd", "12121212",
...                                   "qwertyuiop", "ann_lee2024", "tea at dusk, 4 pm")]
['length', 'common', 'common', 'pattern', 'pattern', 'username', None]
"""

from __future__ import annotations

import datetime
import itertools
import re
import unicodedata
from functools import cache
from importlib import resources

from lostcities.web.errors import PasswordRuleError

__all__ = [
    "COMMON_FILE",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "check_password",
    "common_passwords",
    "problem",
]

PASSWORD_MIN, PASSWORD_MAX = 8, 200
COMMON_FILE = "common_passwords.txt"
"""The shipped list, in ``lostcities/data``."""

KEYBOARD_ROWS = (
    "`1234567890-=",
    "qwertyuiop[]",
    "asdfghjkl;'",
    "zxcvbnm,./",
    "qwertzuiopü",
    "asdfghjklöä",
    "yxcvbnm",
    "azertyuiop",
    "qsdfghjklm",
    "wxcvbn",
    "1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p",
    "qazwsxedcrfvtgbyhnujmikolp",
    "zaq1xsw2cde3vfr4bgt5nhy6mju7",
    "1q2w3e4r5t6y7u8i9o0p",
    "q1w2e3r4t5y6u7i8o9p0",
    "a1s2d3f4g5h6j7k8l9",
    "1a2b3c4d5e6f7g8h9i",
)
"""Keys in the order a finger walks them (rows, columns, zigzags; QWERTY, QWERTZ, AZERTY)."""

_LEET = str.maketrans(
    {"@": "a", "4": "a", "3": "e", "1": "i", "!": "i", "0": "o", "$": "s", "5": "s", "7": "t"}
)
_AROUND = re.compile(r"^[\W\d_]+|[\W\d_]+$")
_SEPARATORS = re.compile(r"[\s._\-]+")


@cache
def common_passwords() -> frozenset[str]:
    """The shipped list of common passwords and base words, case folded (read once)."""
    text = (resources.files("lostcities") / "data" / COMMON_FILE).read_text(encoding="utf-8")
    return frozenset(
        line.strip().casefold()
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    )


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def _is_common(pw: str) -> bool:
    words = common_passwords()
    core = _AROUND.sub("", pw)
    forms = {pw, core, pw.translate(_LEET), _AROUND.sub("", pw.translate(_LEET))}
    forms |= {core.translate(_LEET)}
    forms |= {_SEPARATORS.sub("", f) for f in list(forms)}
    return any(f in words for f in forms if f)


def _is_pattern(pw: str) -> bool:
    n = len(pw)
    for unit in range(1, 5):  # a repeat of 1 to 4 characters
        if n >= 2 * unit and all(pw[i] == pw[i % unit] for i in range(n)):
            return True
    steps = {ord(b) - ord(a) for a, b in itertools.pairwise(pw)}
    if steps in ({1}, {-1}):  # a run: abcdefgh, 98765432
        return True
    for row in KEYBOARD_ROWS:
        if pw in row or pw in row[::-1]:
            return True
    if pw.isdigit() and n == 8:  # a date: yyyymmdd, ddmmyyyy, mmddyyyy
        for y, m, d in (
            (pw[:4], pw[4:6], pw[6:]),
            (pw[4:], pw[2:4], pw[:2]),
            (pw[4:], pw[:2], pw[2:4]),
        ):
            try:
                datetime.date(int(y), int(m), int(d))
            except ValueError:
                continue
            if 1900 <= int(y) <= 2099:
                return True
    return False


def _is_username(pw: str, username: str) -> bool:
    name = _fold(username.strip())
    if len(name) < 3:
        return False
    rest = pw.replace(name, "") if name in pw else pw
    if name in pw and not _AROUND.sub("", rest):
        return True
    return _AROUND.sub("", pw) == name[::-1]


def problem(password: str, username: str = "") -> str | None:
    """What the rule finds wrong with ``password`` for ``username`` (a reason of
    :class:`PasswordRuleError`), or ``None`` if it is allowed."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        return "length"
    pw = _fold(password)
    if username and _is_username(pw, username):
        return "username"
    if _is_pattern(pw):
        return "pattern"
    if _is_common(pw):
        return "common"
    return None


MESSAGES = {
    "length": f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters",
    "common": "that password is too common: attackers try it first (a phrase of your own is best)",
    "pattern": "that password is a simple pattern (a repeat, a run, a keyboard row or a date)",
    "username": "a password may not be your username with digits or symbols added",
}
"""What the server says for each reason (the pages say it in the reader's language)."""


def check_password(password: str, username: str = "") -> str:
    """``password`` if the rule allows it for ``username`` (the module docs).

    :raises PasswordRuleError: saying what is wrong (its ``reason`` names it).
    """
    why = problem(password, username)
    if why is not None:
        raise PasswordRuleError(MESSAGES[why], reason=why)
    return password

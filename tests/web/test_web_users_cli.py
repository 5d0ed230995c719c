"""``lostcities users list|ban|unban|delete|reports|log`` (issue 27 part 6): the operator's
moderation, every action in the moderation log."""

from __future__ import annotations

from pathlib import Path

import pytest

from lostcities.cli import main
from lostcities.web import accounts as acc
from lostcities.web.store import GameStore


def _store(tmp_path: Path) -> tuple[GameStore, str]:
    url = f"sqlite:///{tmp_path / 'users.db'}"
    store = GameStore(url)
    store.create_tables()
    return store, url


def test_list_ban_unban_delete_and_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, url = _store(tmp_path)
    ann = store.write_sync(acc.op_create_account("ann", "$argon2id$x", "$argon2id$y"))
    bob = store.write_sync(acc.op_create_account("bob", None, "$argon2id$y"))
    store.write_sync(acc.op_new_session(bob.id, "bob-session-token"))
    store.write_sync(
        acc.op_report(acc.Account.of(ann), acc.Account.of(bob), "abuse", "rude\nvery", "g1")
    )
    store.close()
    assert main(["users", "list", "--db", url]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "ann" in lines[0] and "password" in lines[0] and lines[0].endswith("0 reports")
    assert "bob" in lines[1] and lines[1].endswith(" 1 report")
    assert out.strip().endswith("2 accounts (0 banned)")
    assert main(["users", "ban", "BOB", "--reason", "abuse", "--db", url]) == 0
    assert capsys.readouterr().out.strip() == "account bob banned"
    store, _ = _store(tmp_path)
    assert acc.session_account_sync(store, "bob-session-token") is None  # sessions ended
    store.close()
    main(["users", "list", "--db", url])
    assert "[banned]" in capsys.readouterr().out
    assert main(["users", "unban", "bob", "--db", url]) == 0
    assert main(["users", "reports", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "bob reported by ann: abuse (game g1): rude⏎very" in out
    assert main(["users", "delete", "ann", "--db", url]) == 0
    assert "account ann deleted" in capsys.readouterr().out
    main(["users", "reports", "--db", url])
    assert "bob reported by deleted player" in capsys.readouterr().out
    assert main(["users", "log", "--db", url]) == 0
    log = capsys.readouterr().out.splitlines()
    actions = [line.split("  ", 1)[1] for line in log]
    assert actions[:3] == [
        f"operator: delete #{ann.id} (0 games kept)",
        "operator: unban bob",
        "operator: ban bob (abuse)",
    ]
    assert "ann: report bob (abuse)" in actions and "ann: sign up ann (password)" in actions


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, url = _store(tmp_path)
    assert main(["users", "ban", "--db", url]) == 2
    assert main(["users", "ban", "nobody", "--db", url]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "needs a username" in err[0] and "no account 'nobody'" in err[1]

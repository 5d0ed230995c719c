"""The rules page's comments: store, API and moderation, on SQLite and (when
LOSTCITIES_TEST_POSTGRES_URL is set) PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from lostcities.web.limits import RateLimiter
from lostcities.web.models.comments import CommentRow
from lostcities.web.repositories.comments import comments_page, op_add_comment, op_hide_comment
from lostcities.web.store import GameStore

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def app_client(db_url: str) -> Iterator[Any]:
    """A TestClient on ``db_url`` (no bots needed), 3 comments per client at once."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.deps import Settings

    settings = Settings(
        db_url=db_url,
        bot_executor="thread",
        bot_workers=1,
        prepare_search=False,
        resume_on_start=False,
        comment_burst=3,
        comment_per=600.0,
    )
    with TestClient(create_app(settings)) as c:
        yield c


def post(client: Any, nickname: str = "ann", kind: str = "comment", text: str = "hello") -> Any:
    return client.post("/api/comments", json={"nickname": nickname, "kind": kind, "text": text})


def test_store_pages_newest_first_and_keeps_a_submission_once(db_url: str) -> None:
    store = GameStore(db_url)
    store.create_tables()
    ids = []
    for i in range(45):
        row, new = store.write_sync(op_add_comment(f"n{i}", "comment", f"text {i}", "h" * 64))
        assert new
        ids.append(row.id)
    # the same submission again (nickname case and spacing aside) is the stored one
    again, new = store.write_sync(op_add_comment(" N3 ", "comment", "text  3", "x" * 64))
    assert not new and again.id == ids[3]
    # ... but another kind or text is another comment
    _, new = store.write_sync(op_add_comment("n3", "mistake", "text 3", "h" * 64))
    assert new
    rows, total = comments_page(store.engine, 1, 20)
    assert total == 46 and len(rows) == 20
    assert rows[0].kind == "mistake" and [r.text for r in rows[1:4]] == [
        "text 44",
        "text 43",
        "text 42",
    ]
    last, _ = comments_page(store.engine, 3, 20)
    assert [r.text for r in last] == ["text 5", "text 4", "text 3", "text 2", "text 1", "text 0"][
        -6:
    ]
    assert comments_page(store.engine, 4, 20) == ([], 46)
    assert store.write_sync(op_hide_comment(ids[44], True)) == 1
    assert store.write_sync(op_hide_comment(999_999, True)) == 0
    rows, total = comments_page(store.engine, 1, 20)
    assert total == 45 and "text 44" not in [r.text for r in rows]
    rows, total = comments_page(store.engine, 1, 100, hidden=True)
    assert total == 46 and any(r.hidden and r.text == "text 44" for r in rows)
    store.close()


def test_post_then_page_as_plain_text(app_client: Any, db_url: str) -> None:
    script = "<script>alert('x')</script> & <b>bold</b>"
    r = post(app_client, "Zoë", "mistake", script)
    assert r.status_code == 201, r.text
    c = r.json()
    assert (c["nickname"], c["kind"], c["text"], c["duplicate"]) == (
        "Zoë",
        "mistake",
        script,
        False,
    )
    r2 = post(app_client, "bob", "tool request", "a score sheet\nwith two lines")
    assert r2.status_code == 201
    page = app_client.get("/api/comments?page=1").json()
    assert (page["page"], page["pages"], page["total"], page["per_page"]) == (1, 1, 2, 20)
    assert [x["text"] for x in page["comments"]] == ["a score sheet\nwith two lines", script]
    assert app_client.get("/api/comments").json()["total"] == 2  # page 1 by default
    assert app_client.get("/api/comments?page=2").json()["comments"] == []
    # the same submission is stored once: 200 with the stored comment
    dup = post(app_client, "zoë", "mistake", script)
    assert dup.status_code == 200 and dup.json()["id"] == c["id"] and dup.json()["duplicate"]
    assert app_client.get("/api/comments").json()["total"] == 2
    # the client's address is kept only as a salted hash
    store = GameStore(db_url)
    with store.engine.connect() as conn:
        rows = conn.execute(select(CommentRow.__table__)).mappings().all()
    store.close()
    assert len(rows) == 2
    for row in rows:
        assert len(row["client_hash"]) == 64 and int(row["client_hash"], 16) >= 0
        assert not any("testclient" in str(v) for v in row.values())


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (
            {"nickname": "", "kind": "comment", "text": "x"},
            "nickname: String should have at least 1",
        ),
        (
            {"nickname": "   ", "kind": "comment", "text": "x"},
            "nickname: String should have at least 1",
        ),
        (
            {"nickname": "a" * 41, "kind": "comment", "text": "x"},
            "nickname: String should have at most 40",
        ),
        ({"nickname": "a", "kind": "comment", "text": ""}, "text: String should have at least 1"),
        (
            {"nickname": "a", "kind": "comment", "text": "x" * 2001},
            "text: String should have at most 2000",
        ),
        (
            {"nickname": "a", "kind": "spam", "text": "x"},
            "kind: Input should be 'comment', 'mistake' or 'tool request'",
        ),
        ({"nickname": "a", "kind": "comment", "text": "x\x00y"}, "control character"),
        ({"nickname": "a\nb", "kind": "comment", "text": "x"}, "control character"),
        ({"nickname": "a", "kind": "comment"}, "text: Field required"),
        ({"nickname": "a", "kind": "comment", "text": "x", "email": "e@x"}, "email: Extra inputs"),
    ],
)
def test_bad_comments_are_refused_in_one_line(
    app_client: Any, body: dict[str, str], why: str
) -> None:
    r = app_client.post("/api/comments", json=body)
    assert r.status_code == 422 and why in r.json()["message"], r.text
    assert "\n" not in r.json()["message"]
    assert app_client.get("/api/comments").json()["total"] == 0


def test_limits_at_the_edges_are_accepted(app_client: Any) -> None:
    assert post(app_client, "a" * 40, "comment", "x" * 2000).status_code == 201
    assert post(app_client, "b", "comment", "y").status_code == 201
    for page in ("0", "-1", "abc"):
        r = app_client.get(f"/api/comments?page={page}")
        assert r.status_code == 422 and "page" in r.json()["message"]


def test_a_client_posting_too_often_gets_429_with_retry_after(app_client: Any) -> None:
    for i in range(3):
        assert post(app_client, text=f"comment {i}").status_code == 201
    r = post(app_client, text="one too many")
    assert r.status_code == 429
    assert r.json()["error"] == "rate_limited" and "too many comments" in r.json()["message"]
    wait = int(r.headers["Retry-After"])
    assert 1 <= wait <= 200
    assert r.json()["retry_after"] == wait  # (the page says "try again in N seconds")
    assert app_client.get("/api/comments").json()["total"] == 3
    # reading is not limited
    assert app_client.get("/api/comments").status_code == 200


def test_the_limiter_refills_and_keeps_clients_apart() -> None:
    now = [0.0]
    lim = RateLimiter(3, 600.0, clock=lambda: now[0])
    assert [lim.hit("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert lim.hit("a") == pytest.approx(200.0)
    assert lim.hit("b") == 0.0  # another client has its own bucket
    now[0] = 199.0
    assert lim.hit("a") > 0
    now[0] = 200.0
    assert lim.hit("a") == 0.0 and lim.hit("a") > 0


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "comments", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_moderation_from_the_command_line(app_client: Any, db_url: str) -> None:
    first = post(app_client, "ann", "comment", "first").json()
    second = post(app_client, "bob", "mistake", "two\nlines").json()
    out = cli("list", "--db", db_url)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[0] == str(second["id"]) and "bob: two⏎lines" in lines[0]
    assert "ann: first" in lines[1] and lines[-1] == "2 comments (2 shown, 0 hidden)"
    hide = cli("hide", str(second["id"]), "--db", db_url)
    assert hide.returncode == 0 and "hidden" in hide.stdout
    assert [c["id"] for c in app_client.get("/api/comments").json()["comments"]] == [first["id"]]
    listed = cli("list", "--db", db_url).stdout
    assert "[hidden]" in listed and "(1 shown, 1 hidden)" in listed
    assert cli("unhide", str(second["id"]), "--db", db_url).returncode == 0
    assert app_client.get("/api/comments").json()["total"] == 2
    for args, why in [
        (["hide", "999999"], "no comment 999999"),
        (["hide"], "hide needs a comment id"),
        (["unhide", "x"], "invalid int value"),
        (["list", "--db", "mysql://u@h/db"], "unsupported database"),
    ]:
        full = args if "--db" in args else [*args, "--db", db_url]
        bad = cli(*full)
        assert bad.returncode == 2 and why in bad.stderr and "Traceback" not in bad.stderr
        assert bad.stderr.strip().count("\n") <= 2  # argparse adds its usage lines

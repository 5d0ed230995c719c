"""In-process tests (TestClient) of issue 37's items 9 to 15 that the server answers: a page
that is not there is an HTML page (the API keeps JSON), refusals say what is wrong, common
passwords are refused, a rating history starts at the starting rating, a claimed guest game
takes the account's name."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.web_helpers import csrf, game_row

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# -- item 11: pages that are not there -----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/nope", "There is no page at this address."),
        ("/players/nobody", "There is no player named nobody."),
        ("/game/badid", "There is no game at this address."),
        ("/replay/badid", "There is no game at this address."),
        ("/analysis/badid", "There is no game at this address."),
        ("/join/badid", "There is no game at this address."),
    ],
)
def test_a_page_that_is_not_there_is_an_html_404(client: Any, path: str, words: str) -> None:
    r = client.get(path)
    assert r.status_code == 404, r.text
    assert r.headers["content-type"].startswith("text/html"), r.headers
    assert words in r.text and 'id="not-found"' in r.text
    assert "Resign" not in r.text  # no table for a game that is not there
    assert '"error"' not in r.text


def test_the_404_page_is_in_the_readers_language(client: Any) -> None:
    r = client.get("/players/nobody", headers={"Accept-Language": "de"})
    assert r.status_code == 404 and "Es gibt keinen Spieler namens nobody." in r.text
    assert r.headers["content-language"] == "de"


@pytest.mark.parametrize(
    "path", ["/api/nope", "/api/players/nobody", "/api/games/badid", "/static/nope.js"]
)
def test_the_api_keeps_answering_json(client: Any, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/json"), r.headers
    assert r.json()["error"] in ("not_found", "no_such_player")


def test_a_game_that_is_there_is_its_page(client: Any) -> None:
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    for page in ("game", "join"):
        assert client.get(f"/{page}/{g['id']}").status_code == 200


# -- item 9: refusals that say what is wrong ----------------------------------------------------


def _signup(c: Any, name: str, password: str = "lost cities at dusk", **extra: Any) -> Any:
    body = {"username": name, "password": password, **extra}
    return c.post("/api/accounts/signup", json=body, headers=csrf(c))


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("ab", "length"),
        ("x" * 21, "length"),
        ("x" * 41, "length"),  # the rule's 3 to 20, not a schema's "at most 40"
        ("an n", "characters"),
        ("ann\u202e", "characters"),
        ("_ann", "first"),
        ("Adm1n", "reserved"),
    ],
)
def test_a_refused_username_says_why(client: Any, name: str, reason: str) -> None:
    r = _signup(client, name)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["error"] == "invalid_username" and body["reason"] == reason, body
    assert "at most 40" not in body["message"]


def test_an_invalid_field_is_named(client: Any) -> None:
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    invite = g["invite_url"].split("#", 1)[1]
    r = client.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": "Ana\u202e"})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invalid_request"
    assert (body["field"], body["reason"]) == ("name", "bidi"), body
    r = client.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": "A" * 41})
    body = r.json()
    assert (body["field"], body["reason"], body["limit"]) == ("name", "too_long", 40), body


def test_a_wrong_recovery_code_or_password_says_which(client: Any) -> None:
    assert _signup(client, "rita").status_code == 201
    body = {"current_password": "not it at all", "new_password": "a new phrase of mine"}
    r = client.post("/api/accounts/password", json=body, headers=csrf(client))
    assert r.status_code == 401 and r.json()["error"] == "wrong_password", r.text
    client.post("/api/accounts/logout", headers=csrf(client))
    body = {"username": "rita", "recovery_code": "aaaa-bbbb", "new_password": "another phrase 9"}
    r = client.post("/api/accounts/recover", json=body, headers=csrf(client))
    assert r.status_code == 401 and r.json()["error"] == "recovery_failed", r.text
    assert r.json()["message"] == "wrong username or recovery code"


# -- item 10: common passwords -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("password", "common"),
        ("Password123!", "common"),
        ("p@ssw0rd", "common"),
        ("iloveyou", "common"),
        ("Dragon2024", "common"),
        ("12345678", "pattern"),
        ("aaaaaaaaaa", "pattern"),
        ("abcabcabc", "pattern"),
        ("qwertyuiop", "pattern"),
        ("19901231", "pattern"),
        ("sammy_lee2024", "username"),
        ("short", "length"),
    ],
)
def test_a_weak_password_is_refused_with_its_reason(
    client: Any, password: str, reason: str
) -> None:
    r = _signup(client, "sammy_lee", password)
    assert r.status_code == 422, r.text
    assert (r.json()["error"], r.json()["reason"]) == ("invalid_password", reason), r.text
    assert client.get("/api/accounts/me").json()["account"] is None  # nothing changed


def test_the_rule_holds_for_a_new_password_too(client: Any) -> None:
    assert _signup(client, "tess").status_code == 201
    body = {"current_password": "lost cities at dusk", "new_password": "letmein1"}
    r = client.post("/api/accounts/password", json=body, headers=csrf(client))
    assert r.status_code == 422 and r.json()["reason"] == "common", r.text


def test_the_list_ships_with_the_package() -> None:
    from lostcities.web import passwords

    words = passwords.common_passwords()
    assert 300 <= len(words) <= 20000 and "password" in words and "qwerty" in words
    assert all(w == w.strip().casefold() and not w.startswith("#") for w in words)


# -- item 15: a claimed guest game takes the account's name; where moderation goes ---------------


def test_a_claimed_guest_game_shows_the_accounts_name(client: Any) -> None:
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1, "name": "Guesty"}).json()
    assert client.get(f"/api/games/{g['id']}").json()["players"][0]["name"] == "Guesty"
    r = _signup(client, "ulla", games=[{"id": g["id"], "token": g["token"]}])
    assert r.status_code == 201 and r.json()["claimed"] == [g["id"]]
    assert client.get(f"/api/games/{g['id']}").json()["players"][0]["name"] == "ulla"
    row = game_row(client.app.state.store, g["id"])
    assert row.name0 == "ulla" and row.name1 != "ulla"


def test_the_docs_say_where_player_actions_are_logged(
    client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from pathlib import Path

    import lostcities

    with caplog.at_level("INFO", logger="lostcities.web"):
        assert _signup(client, "vera").status_code == 201
    assert any("sign up" in r.getMessage() and r.levelname == "INFO" for r in caplog.records)
    docs = (Path(lostcities.__file__).resolve().parents[1] / "docs" / "web.md").read_text()
    docs = " ".join(docs.split())
    moderation = docs[docs.index("every action, the players' too") :][:600]
    assert "and the server's log" not in moderation
    assert "`lostcities serve` prints only" in moderation and "at level INFO" in moderation


# -- item 13: the rating history starts at the starting rating ----------------------------------


def test_the_rating_plot_starts_at_the_starting_rating(client: Any) -> None:
    import webharness  # benchmarks/ (on sys.path: web_helpers.py)

    from lostcities import Match
    from lostcities.web import ratings
    from lostcities.web.models.base import utcnow
    from lostcities.web.models.games import GameRow, MoveRow, RoundRow

    store = client.app.state.store
    a, b = webharness.new_account(store, "wanda"), webharness.new_account(store, "xena")
    m = Match(1, seed=7)
    r = m.new_round()
    moves = [r.legal_moves()[0]]
    r.push(moves[0])
    moves.append(r.legal_moves()[0])

    def finished(s: Any) -> None:  # a game of two moves that wanda won (resigned: 1-0)
        row = GameRow(
            id="g37", variant="classic", num_rounds=1, seed=7, first_starter=m.first_starter,
            status="finished", result="1-0", name0="wanda", name1="xena", mistakes=0.0,
            account0=a, account1=b, rated=True,
        )  # fmt: skip
        row.created_at = row.updated_at = utcnow()
        s.add(row)
        s.flush()
        deck = " ".join(map(str, r.deal_order))
        s.add(RoundRow(game_id="g37", index=0, starter=r.starter, deck=deck))
        s.flush()
        for ply, mv in enumerate(moves):
            s.add(MoveRow(game_id="g37", round_index=0, ply=ply, move=str(mv)))

    store.write_sync(finished)
    assert store.write_sync(ratings.op_rate_game("g37")) == "rated"
    history = client.get("/api/players/wanda").json()["history"]["classic/untimed"]
    assert [round(p["rating"]) for p in history] == [1500, round(history[1]["rating"])]
    assert history[1]["rating"] > 1500  # a win
    page = client.get("/players/wanda", headers={"Accept-Language": "de"}).text
    assert "Start 1500" in page and "gewertete Partien" in page  # the start, the axis, in German
    assert "1 gewertete Partie; von 1500 auf" in page  # the description counts games, not points

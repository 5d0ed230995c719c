"""In-process tests (TestClient) of issue 37's items 9 to 15 that the server answers: a page
that is not there is an HTML page (the API keeps JSON), refusals say what is wrong, common
passwords are refused, a rating history starts at the starting rating, a claimed guest game
takes the account's name."""

from __future__ import annotations

from typing import Any

import pytest

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

"""``lostcities connect`` as a command (a subprocess): one-line errors for a bad token
file, URL, engine spec or option, an unreachable server and a refused token, never a
traceback and never the token; a whole game with ``--log-json``; Ctrl-C with
``--on-exit resign``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from connect_fake import FakeBotServer

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "lct_cli-bot-secret-token-0000000000000000000000"


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "lostcities.cli", "connect", *args]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args), capture_output=True, text=True, env=env(), timeout=timeout, cwd=ROOT
    )


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n", encoding="utf-8")
    return path


@pytest.fixture
def fake() -> Iterator[FakeBotServer]:
    server = FakeBotServer({TOKEN: "bot1"}, bots={"bot1"}, house={"ana"})
    with server:
        yield server


def one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lostcities connect: error: "), done.stderr
    assert "Traceback" not in done.stderr and TOKEN not in done.stderr + done.stdout
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_a_missing_empty_or_bad_token_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nothing"
    one_line_error(
        run("http://127.0.0.1:9", "--token-file", str(missing), "heuristic"),
        "token file not found",
    )
    empty = tmp_path / "empty"
    empty.write_text("\n", encoding="utf-8")
    one_line_error(run("http://127.0.0.1:9", "--token-file", str(empty), "heuristic"), "empty")
    two = tmp_path / "two"
    two.write_text(f"{TOKEN} {TOKEN}\n", encoding="utf-8")
    one_line_error(
        run("http://127.0.0.1:9", "--token-file", str(two), "heuristic"), "does not hold one token"
    )


@pytest.mark.parametrize(
    ("url", "word"),
    [
        ("ftp://127.0.0.1", "invalid server URL"),
        ("127.0.0.1:8000", "invalid server URL"),
        ("http://", "invalid server URL"),
        ("http://127.0.0.1:99999", "invalid server URL"),
        (f"http://127.0.0.1/?token={TOKEN}", "has a query"),
        (f"http://{TOKEN}@127.0.0.1/", "user name"),
    ],
)
def test_a_bad_url_is_one_line(token_file: Path, url: str, word: str) -> None:
    one_line_error(run(url, "--token-file", str(token_file), "heuristic"), word)


@pytest.mark.parametrize(
    ("engine", "word"),
    [
        ("nosuchbot", "unknown bot"),
        ("ismcts:iters=-1", "invalid"),
        ("cmd:", "cmd: needs a program"),
        ("cmd:/nonexistent/engine", "nonexistent"),
        (f"cmd:{sys.executable} -c pass", "did not start"),
    ],
)
def test_a_bad_engine_is_one_line(token_file: Path, engine: str, word: str) -> None:
    one_line_error(run("http://127.0.0.1:9", "--token-file", str(token_file), engine), word)


@pytest.mark.parametrize(
    ("option", "word"),
    [
        (["--clocks", "fast"], "invalid clock"),
        (["--clocks", "600..60"], "low end is above"),
        (["--variants", "classic,short"], "invalid --variants"),
        (["--rounds", "three"], "invalid --rounds"),
        (["--retry-base", "10", "--retry-max", "1"], "--retry-base"),
    ],
)
def test_a_bad_option_is_one_line(token_file: Path, option: list[str], word: str) -> None:
    one_line_error(
        run("http://127.0.0.1:9", "--token-file", str(token_file), *option, "heuristic"), word
    )


def test_an_unreachable_server_is_one_line(token_file: Path) -> None:
    port = FakeBotServer({}).port  # free, and nothing listens there
    one_line_error(
        run(f"http://127.0.0.1:{port}", "--token-file", str(token_file), "heuristic"),
        "cannot reach",
    )


def test_a_refused_token_is_one_line(fake: FakeBotServer, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.write_text("lct_not-a-known-token-00000\n", encoding="utf-8")
    line = one_line_error(run(fake.url, "--token-file", str(other), "heuristic"), "bad_token")
    assert "lct_not-a-known" not in line


def test_a_game_to_its_end_with_json_progress(fake: FakeBotServer, token_file: Path) -> None:
    fake.offer("ana", "bot1", rounds=1)
    done = run(
        fake.url,
        "--token-file",
        str(token_file),
        "--games",
        "1",
        "--log-json",
        "--retry-base",
        "0.05",
        "--seed",
        "3",
        "heuristic",
    )
    assert done.returncode == 0, done.stderr
    assert TOKEN not in done.stdout + done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [r["event"] for r in records]
    assert kinds[0] == "connected" and kinds[-1] == "stopped"
    games = [r for r in records if r["event"] == "game"]
    assert games[0]["status"] == "started" and games[0]["opponent"] == "ana"
    game = fake.game(games[0]["game"])
    assert game.status == "finished"
    seat = game.players.index("bot1")
    totals = game.match.totals()
    assert games[-1]["score"] == [totals[seat], totals[seat ^ 1]]
    assert games[-1]["status"].split()[0] in ("won", "lost", "draw")


def start_and_signal(
    fake: FakeBotServer, token_file: Path, sig: int, *options: str
) -> tuple[int, list[dict[str, object]], str]:
    """Run a connector (``--log-json``) with the house held until the bot's game stream
    is open, send ``sig``, let the house play once the connector says it is stopping, and
    wait for the end: its exit code, its JSON records, its stderr."""
    fake.hold = True
    proc = subprocess.Popen(
        command(fake.url, "--token-file", str(token_file), "--log-json", *options, "heuristic"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=ROOT,
    )
    records: list[dict[str, object]] = []
    try:
        deadline = time.monotonic() + 60
        while not any("/game/stream/" in path for _, path, _ in fake.stream_opens):
            assert time.monotonic() < deadline and proc.poll() is None, "no game was played"
            time.sleep(0.02)
        proc.send_signal(sig)
        assert proc.stdout is not None
        for line in proc.stdout:
            records.append(json.loads(line))
            if records[-1]["event"] == "stopping":
                break
        fake.release()
        out, err = proc.communicate(timeout=60)
        records += [json.loads(line) for line in out.splitlines()]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err and TOKEN not in json.dumps(records) + err
    return proc.returncode, records, err


def test_ctrl_c_with_on_exit_resign_resigns_and_exits_130(
    fake: FakeBotServer, token_file: Path
) -> None:
    fake.offer("ana", "bot1", rounds=3)
    code, records, err = start_and_signal(fake, token_file, signal.SIGINT, "--on-exit", "resign")
    assert code == 130, err
    stopping = [r for r in records if r["event"] == "stopping"]
    assert stopping[0]["mode"] == "resigning" and stopping[0]["running"] == 1
    (game,) = fake.games.values()
    assert game.status == "finished" and game.ending == "resigned"
    assert len(fake.posted("/resign")) == 1
    assert records[-1]["event"] == "stopped" and records[-1]["interrupted"] is True


def test_sigterm_finishes_the_game_being_played(fake: FakeBotServer, token_file: Path) -> None:
    fake.offer("ana", "bot1", rounds=1)
    code, records, err = start_and_signal(fake, token_file, signal.SIGTERM)
    assert code == 130, err
    stopping = [r for r in records if r["event"] == "stopping"]
    assert stopping[0]["mode"] == "finishing" and stopping[0]["running"] == 1
    (game,) = fake.games.values()
    assert game.status == "finished" and game.ending == "normal"
    assert not fake.posted("/resign")
    assert records[-1]["event"] == "stopped" and records[-1]["games"] == 1

"""The rollout policies issue 24 tried and measured no stronger than ``smart`` (the learned
judge, ``rollout=learned``, and the jittered ``smart``, ``rollout=jitter``) are gone: a spec,
an argument or a command that names one is refused with one line that says so and what to
use, and nothing is built."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lostcities import Round
from lostcities.bots import make
from lostcities.bots.base import BotSpecError
from lostcities.bots.expert import ExpertBot
from lostcities.bots.flat import (
    REMOVED_OPTIONS,
    REMOVED_ROLLOUTS,
    fast_engine_available,
    flat_search,
    removed_in_spec,
)
from lostcities.bots.ismcts import ROLLOUTS, IsmctsBot

GONE = "was removed in 0.4.0"


@pytest.mark.parametrize("bot", ["expert", "ismcts"])
@pytest.mark.parametrize("rollout", ["learned", "jitter", "LEARNED"])
def test_a_spec_with_a_removed_rollout_says_it_was_removed(bot: str, rollout: str) -> None:
    with pytest.raises(BotSpecError) as e:
        make(f"{bot}:iters=10,rollout={rollout},judge=x.npz")
    message = str(e.value)
    assert message == (
        f"invalid bot spec: {bot} rollout={rollout.lower()} was removed in 0.4.0: "
        "it was no stronger than smart; use rollout=smart"
    )
    assert "\n" not in message


@pytest.mark.parametrize("bot", ["expert", "ismcts"])
@pytest.mark.parametrize(("option", "value"), [("judge", "x.npz"), ("jitter", "1"), ("eps", "0.1")])
def test_a_spec_with_a_removed_option_says_it_was_removed(
    bot: str, option: str, value: str
) -> None:
    with pytest.raises(BotSpecError) as e:
        make(f"{bot}:iters=10,{option}={value}")
    rollout = REMOVED_OPTIONS[option]
    assert str(e.value) == (
        f"invalid bot spec: {bot} {option}= {GONE} with rollout={rollout}, "
        "which was no stronger than smart"
    )


def test_the_constructors_refuse_a_removed_rollout() -> None:
    for cls in (IsmctsBot, ExpertBot):
        for rollout in REMOVED_ROLLOUTS:
            with pytest.raises(BotSpecError, match=f"rollout={rollout} {GONE}"):
                cls(iters=10, rollout=rollout)
    assert set(ROLLOUTS) == {"smart", "cheap"}


def test_the_kept_rollouts_still_play() -> None:
    view = Round.deal(seed=3).view(0)
    for spec in ("ismcts:iters=40,rollout=smart", "ismcts:iters=40,rollout=cheap"):
        bot = make(spec, seed=1)
        assert bot.choose(view) in view.legal_moves()
    assert removed_in_spec({"rollout": "smart", "iters": "5"}) is None


@pytest.mark.parametrize("engine", ["python", "fast"])
def test_the_flat_search_refuses_a_removed_rollout(engine: str) -> None:
    if engine == "fast" and not fast_engine_available():
        pytest.skip("numba is not installed")
    view = Round.deal(seed=3).view(0)
    moves = list(view.legal_moves())[:2]
    for rollout in REMOVED_ROLLOUTS:
        with pytest.raises(ValueError, match=f"flat search: rollout={rollout} {GONE}"):
            flat_search(view, moves, engine=engine, rollout=rollout, seed=1)


def test_the_compiled_flat_search_names_the_removal() -> None:
    pytest.importorskip("numba")
    from lostcities.fast.search import FlatSearch

    view = Round.deal(seed=3).view(0)
    moves = list(view.legal_moves())[:2]
    with pytest.raises(ValueError, match=r"not 'jitter' \(jitter was removed in 0.4.0"):
        FlatSearch(view, moves, rollout="jitter", seed=1)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lostcities.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_match_with_a_removed_rollout_is_one_line_exit_2() -> None:
    out = _cli("match", "ismcts:iters=10,rollout=learned", "heuristic", "--deals", "1")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "rollout=learned was removed in 0.4.0" in out.stderr


def test_train_judge_is_a_removed_command() -> None:
    out = _cli("train-judge", "--out", "nowhere")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (
        "lostcities: error: lostcities train-judge was removed in 0.4.0 with the learned "
        "rollout judge (rollout=learned), which was no stronger than smart\n"
    )
    assert "train-judge" not in _cli("--help").stdout

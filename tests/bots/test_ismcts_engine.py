"""``ismcts``'s compiled flat search (``engine=fast``) against the same search in Python."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from lostcities import Round
from lostcities.bots import BotSpecError, make
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import IsmctsBot, fast_engine_available

pytest.importorskip("numba")


def positions(n: int, variant: str) -> list[Round]:
    """Running positions of heuristic self-play, from the deal to the last turns."""
    out: list[Round] = []
    seed = 0
    while len(out) < n:
        seed += 1
        r = Round.deal(seed=seed, variant=variant, starter=seed % 2)
        bot = HeuristicBot(seed=seed)
        for _ in range(random.Random(seed).randrange(0, 80)):
            if r.is_over():
                break
            r.push(bot.choose(r.view(r.to_move)))
        if not r.is_over() and len(r.legal_moves()) > 1:
            out.append(r)
    return out


@pytest.mark.parametrize("variant", ["classic", "long"])
@pytest.mark.parametrize("rollout", ["smart", "cheap"])
def test_fast_engine_chooses_the_python_engines_move(variant: str, rollout: str) -> None:
    for i, r in enumerate(positions(12, variant)):
        view = r.view(r.to_move)
        py = IsmctsBot(iters=150, seed=i, rollout=rollout, engine="python")
        fast = IsmctsBot(iters=150, seed=i, rollout=rollout, engine="fast")
        assert fast.choose(view) == py.choose(view)
        assert fast.last_iterations == py.last_iterations
        # the generators drew the same numbers: the next move's worlds are the same too
        assert fast.rng.getstate() == py.rng.getstate()


def test_whole_games_are_identical_with_either_engine() -> None:
    games = []
    for engine in ("python", "fast"):
        r = Round.deal(seed=11)
        bots = [make(f"ismcts:iters=40,engine={engine}", seed=s) for s in (1, 2)]
        while not r.is_over():
            r.push(bots[r.to_move].choose(r.view(r.to_move)))
        games.append((r.history, r.scores()))
    assert games[0] == games[1]


def test_engine_option() -> None:
    assert fast_engine_available()
    default = make("ismcts")
    assert isinstance(default, IsmctsBot) and default.engine == "fast"
    bot = make("ismcts:engine=python")
    assert isinstance(bot, IsmctsBot) and bot.engine == "python"
    with pytest.raises(BotSpecError, match="engine must be"):
        make("ismcts:engine=gpu")


def test_time_budget_with_the_fast_engine() -> None:
    r = positions(1, "classic")[0]
    bot = make("ismcts:time=0.05", seed=3)
    assert isinstance(bot, IsmctsBot)
    assert bot.choose(r.view(r.to_move)) in r.legal_moves()
    assert bot.last_iterations > 0


def test_without_numba_the_bot_falls_back_to_python() -> None:
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import importlib.util\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n == 'numba' else real(n, *a)\n"
        "from lostcities import Round\n"
        "from lostcities.bots import make, BotSpecError\n"
        "b = make('ismcts:iters=30', seed=1)\n"
        "r = Round.deal(seed=2)\n"
        "m = b.choose(r.view(0))\n"
        "try:\n"
        "    make('ismcts:engine=fast')\n"
        "except BotSpecError as e:\n"
        "    print('error:', e)\n"
        "print(b.engine, m)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "lostcities[fast]" in out.stdout and "python" in out.stdout.split("\n")[-2]
    want = IsmctsBot(iters=30, seed=1, engine="fast").choose(Round.deal(seed=2).view(0))
    assert out.stdout.split()[-1] == str(want)

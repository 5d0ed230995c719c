"""Random positions for the fast-path tests (core rounds after random play)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from lostcities import Round


def random_positions(
    n: int, variant: str = "classic", seed: int = 0, *, views: bool = True
) -> Iterator[Round]:
    """``n`` running rounds: a seeded deal, 0..120 uniform random moves; every third one
    replaced by a determinization of the mover's view (``PlayerView.sample_round``), and
    some with a turn cap just ahead."""
    rng = random.Random(seed)
    made = 0
    k = 0
    while made < n:
        k += 1
        cap = rng.choice([None, None, None, rng.randrange(5, 200)])
        r = Round.deal(seed=seed * 1_000_003 + k, variant=variant, starter=k % 2, max_turns=cap)
        for _ in range(rng.randrange(0, 120)):
            if r.is_over():
                break
            moves = r.legal_moves()
            r.push_unchecked(moves[rng.randrange(len(moves))])
        if r.is_over():
            continue
        if views and k % 3 == 0:
            r = r.view(r.to_move).sample_round(rng)
        made += 1
        yield r

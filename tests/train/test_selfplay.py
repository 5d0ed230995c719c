"""Self-play data: well-formed shards, the same whatever the number of processes."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from lostcities.bots.heuristic import HeuristicBot
from lostcities.nn import Network, features
from lostcities.rules import Move

pytest.importorskip("numba")

from lostcities.train.data import Positions, policy_targets, value_targets
from lostcities.train.errors import TrainOptionError
from lostcities.train.selfplay import (
    ExpertTeacher,
    FlatTeacher,
    GuidedTeacher,
    HeuristicTeacher,
    SelfPlayConfig,
    deal_round,
    generate,
    load_shards,
    play_round,
    shard_path,
)

CONFIG = SelfPlayConfig(variants=("classic", "long"), sample_plies=4, shard_rounds=1)


def _same(a: Positions, b: Positions) -> bool:
    return all(
        np.array_equal(getattr(a, f.name), getattr(b, f.name), equal_nan=True) for f in fields(a)
    )


def test_tiny_selfplay_gives_well_formed_shards(tmp_path: Path) -> None:
    paths = generate(tmp_path, FlatTeacher(worlds=4), CONFIG, rounds=2, seed=7, iteration=1, jobs=1)
    assert paths == [shard_path(tmp_path, 0), shard_path(tmp_path, 1)]
    for index, path in enumerate(paths):
        pos, meta = Positions.load(path)
        assert meta["rounds"] == [index, index + 1] and meta["teacher"]["worlds"] == 4
        assert set(pos.round.tolist()) == {index}
        assert pos.variant.tolist() == [index] * len(pos)  # classic, then long
        # replay the round from its seed: every recorded position is the real one
        r = deal_round(CONFIG, 7, 1, index)
        for i in range(len(pos)):
            view = r.view(r.to_move)
            assert pos.mover[i] == r.to_move and pos.ply[i] == r.ply
            assert np.array_equal(pos.x[i], features(view).astype(np.float32))
            legal = pos.legal[pos.offsets[i] : pos.offsets[i + 1]].tolist()
            assert sorted(legal) == sorted(m.index for m in view.legal_moves())
            assert int(pos.played[i]) in legal
            r.push(Move.from_index(int(pos.played[i])))
        assert r.is_over()
        s = r.scores()
        assert pos.margin.tolist() == [s[m] - s[m ^ 1] for m in pos.mover.tolist()]
        assert np.all(np.abs(pos.values) <= 1.0)  # every move searched by the flat teacher
        target = policy_targets(pos, CONFIG.temperature)
        sums = np.add.reduceat(target, pos.offsets[:-1])
        assert np.allclose(sums, 1.0, atol=1e-5)
        assert np.all(np.abs(value_targets(pos)) <= 1.0)
        # past the sampled opening, the move made is the teacher's best
        for i in range(len(pos)):
            if pos.ply[i] >= CONFIG.sample_plies:
                lo, hi = pos.offsets[i], pos.offsets[i + 1]
                best = pos.legal[lo:hi][int(np.argmax(pos.values[lo:hi]))]
                assert pos.played[i] == best


def test_same_data_whatever_the_jobs(tmp_path: Path) -> None:
    teacher = FlatTeacher(worlds=2)
    config = SelfPlayConfig(variants=("classic", "long"), sample_plies=2, shard_rounds=2)
    one = generate(tmp_path / "1", teacher, config, rounds=3, seed=3, iteration=2, jobs=1)
    two = generate(tmp_path / "2", teacher, config, rounds=3, seed=3, iteration=2, jobs=2)
    assert [p.name for p in one] == [p.name for p in two] == ["shard-00000.npz", "shard-00002.npz"]
    assert _same(load_shards(one), load_shards(two))
    # and it is the rounds played one by one
    alone = Positions.concat([play_round(teacher, config, 3, 2, i) for i in range(3)])
    assert _same(alone, load_shards(one))


def test_existing_shards_are_kept(tmp_path: Path) -> None:
    teacher = FlatTeacher(worlds=2)
    config = SelfPlayConfig(shard_rounds=1)
    first = generate(tmp_path, teacher, config, rounds=1, seed=1, iteration=1, jobs=1)
    stamp = first[0].stat().st_mtime_ns
    seen = []
    paths = generate(
        tmp_path,
        teacher,
        config,
        rounds=2,
        seed=1,
        iteration=1,
        jobs=1,
        progress=lambda done, total, n: seen.append((done, total)),
    )
    assert paths[0].stat().st_mtime_ns == stamp
    assert seen[0] == (1, 2) and seen[-1] == (2, 2)


def test_a_shard_of_other_rounds_is_played_again(tmp_path: Path) -> None:
    teacher = FlatTeacher(worlds=2)
    config = SelfPlayConfig(shard_rounds=2)
    generate(tmp_path, teacher, config, rounds=3, seed=1, iteration=1, jobs=1)
    first = shard_path(tmp_path, 0).stat().st_mtime_ns
    assert Positions.load(shard_path(tmp_path, 2))[1]["rounds"] == [2, 3]
    shard_path(tmp_path, 0).write_bytes(b"garbage")  # unreadable: played again
    generate(tmp_path, teacher, config, rounds=4, seed=1, iteration=1, jobs=1)
    assert shard_path(tmp_path, 0).stat().st_mtime_ns != first
    assert Positions.load(shard_path(tmp_path, 2))[1]["rounds"] == [2, 4]
    alone = Positions.concat([play_round(teacher, config, 1, 1, i) for i in range(4)])
    assert _same(alone, load_shards([shard_path(tmp_path, 0), shard_path(tmp_path, 2)]))


def test_guided_teacher_searches_top_moves_and_deck_draws(tmp_path: Path) -> None:
    Network.random(hidden=(16,), seed=4).save(tmp_path / "net.npz")
    teacher = GuidedTeacher(str(tmp_path / "net.npz"), top_k=2, heuristic_k=0, worlds=2)
    r = deal_round(SelfPlayConfig(), 0, 1, 0)
    for _ in range(12):
        view = r.view(r.to_move)
        legal = list(view.legal_moves())
        values = teacher.search(view, legal, seed=1)
        picked = {m.index for m, v in zip(legal, values, strict=True) if v is not None}
        assert 1 <= len(picked) <= 4
        legal_index = {m.index for m in legal}
        for i in picked:  # the draw-pile variant of each searched move is searched
            assert i - i % 7 not in legal_index or i - i % 7 in picked
        r.push(legal[0])


def test_expert_teacher_values_are_the_expert_bots_scores(tmp_path: Path) -> None:
    from lostcities.bots.expert import ExpertBot

    Network.random(hidden=(16,), seed=4).save(tmp_path / "net.npz")
    net = Network.load(tmp_path / "net.npz")
    teacher = ExpertTeacher(str(tmp_path / "net.npz"), worlds=3, top_k=2, depth=4, prior=1.5)
    r = deal_round(SelfPlayConfig(), 0, 1, 2)
    for ply in range(10):
        view = r.view(r.to_move)
        legal = list(view.legal_moves())
        values = teacher.search(view, legal, seed=ply)
        assert values == teacher.search(view, legal, seed=ply)
        bot = ExpertBot(iters=1, seed=ply, network=net, top=2, depth=4, prior=1.5, match=False)
        cands, scores = bot.scores(view, worlds=3)
        assert {legal[i]: v for i, v in enumerate(values) if v is not None} == {
            m: s / 15.0 for m, s in zip(cands, scores, strict=True)
        }
        r.push(legal[ply % len(legal)])


def test_heuristic_teacher_searches_the_ismcts_candidates() -> None:
    teacher = HeuristicTeacher(worlds=2, top_k=3)
    ranker = HeuristicBot()
    r = deal_round(SelfPlayConfig(), 0, 1, 1)
    for _ in range(12):
        view = r.view(r.to_move)
        legal = list(view.legal_moves())
        values = teacher.search(view, legal, seed=1)
        picked = {m.index for m, v in zip(legal, values, strict=True) if v is not None}
        expected = set()
        for _, m in ranker.rank_moves(view)[:3]:
            expected |= {m.index, m.index - m.index % 7}
        assert picked == expected & {m.index for m in legal}
        r.push(legal[-1])


@pytest.mark.parametrize(
    "make",
    [
        lambda: FlatTeacher(worlds=0),
        lambda: FlatTeacher(rollout="fast"),
        lambda: GuidedTeacher("x", top_k=0),
        lambda: GuidedTeacher("x", heuristic_k=-1),
        lambda: HeuristicTeacher(top_k=0),
        lambda: ExpertTeacher("x", worlds=0),
        lambda: ExpertTeacher("x", top_k=0),
        lambda: ExpertTeacher("x", depth=-1),
        lambda: ExpertTeacher("x", prior=-1.0),
        lambda: SelfPlayConfig(temperature=0),
        lambda: SelfPlayConfig(variants=("short",)),
        lambda: SelfPlayConfig(sample_plies=-1),
    ],
)
def test_bad_options(make: object) -> None:
    with pytest.raises(TrainOptionError, match="invalid"):
        make()  # type: ignore[operator]


def test_bad_round_count(tmp_path: Path) -> None:
    with pytest.raises(TrainOptionError, match="invalid rounds"):
        generate(tmp_path, FlatTeacher(), SelfPlayConfig(), rounds=0, seed=0, iteration=1)

"""The kernels' own pieces: scoring from the core's constants, and the guard of numba's
on-disk cache (which numba keys on each function's own file only)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from lostcities import Round
from lostcities.scoring import raw_score

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.state import state_from_round  # noqa: E402


def test_score_is_the_cores_formula() -> None:
    s = state_from_round(Round.deal(seed=1))
    for cnt, total, wagers in [(1, 0, 1), (3, 27, 0), (8, 35, 2), (9, 44, 3), (7, 30, 0)]:
        s[K.CNT], s[K.SUM], s[K.WAG] = cnt, total, wagers
        assert K.score(s, 0) == raw_score(total, wagers, cnt)


class _FakeDispatcher:
    """What guard_cache uses of a numba dispatcher: ``stats.cache_path``, ``recompile``."""

    def __init__(self, path: Path | None) -> None:
        self.stats = SimpleNamespace(cache_path=None if path is None else str(path))
        self.recompiled = 0

    def recompile(self) -> None:
        self.recompiled += 1


def test_guard_cache_drops_code_compiled_against_another_stamp(tmp_path: Path) -> None:
    fns = [_FakeDispatcher(tmp_path), _FakeDispatcher(tmp_path)]
    K.guard_cache(fns, "a", "probe")  # a cache without a record: dropped, then recorded
    assert [f.recompiled for f in fns] == [1, 1]
    assert (tmp_path / "probe.stamp").read_text() == "a"
    K.guard_cache(fns, "a", "probe")  # the same stamp: kept
    assert [f.recompiled for f in fns] == [1, 1]
    K.guard_cache(fns, "b", "probe")  # what they depend on changed: dropped
    assert [f.recompiled for f in fns] == [2, 2]
    assert (tmp_path / "probe.stamp").read_text() == "b"


def test_guard_cache_before_anything_was_cached_and_without_a_cache(tmp_path: Path) -> None:
    fresh = _FakeDispatcher(tmp_path / "not-yet")
    K.guard_cache([fresh], "a", "probe")
    assert fresh.recompiled == 0 and (tmp_path / "not-yet" / "probe.stamp").read_text() == "a"
    off = _FakeDispatcher(None)  # caching off
    K.guard_cache([off], "a", "probe")
    assert off.recompiled == 0
    K.guard_cache([], "a", "probe")  # nothing to guard


def test_the_real_kernels_record_their_stamps() -> None:
    path = Path(K.playout.stats.cache_path)
    if not path.is_dir():  # pragma: no cover - caching off or not writable
        pytest.skip("no numba cache directory")
    assert (path / "kernels.scoring.stamp").read_text() == K.SCORING_STAMP


def test_the_kernels_stamps_name_every_file_they_compile_in() -> None:
    """A kernel file that inlines or calls another file's functions (the card tables, the
    generators, the rules) is stamped with that file, so editing it drops the cached code
    that compiled it in (numba itself only sees the kernel's own file)."""
    import lostcities.fast.vector  # noqa: F401 (its guard records its stamp at import)
    import lostcities.netinput as netinput
    from lostcities.fast import bits, rng, smart

    path = Path(K.playout.stats.cache_path)
    if not path.is_dir():  # pragma: no cover - caching off or not writable
        pytest.skip("no numba cache directory")
    want = {
        "kernels.sources": K.source_stamp(bits, rng),
        "smart.kernels": K.source_stamp(K, bits, rng),
        "vector.kernels": K.source_stamp(K, smart, bits, rng, netinput),
    }
    for name, stamp in want.items():
        assert (path / f"{name}.stamp").read_text() == stamp
    # a stamp names each file's size and time, and the scoring constants compiled in
    st = os.stat(str(bits.__file__))
    assert K.source_stamp(bits) == f"{st.st_size}:{st.st_mtime_ns}; {K.SCORING_STAMP}"

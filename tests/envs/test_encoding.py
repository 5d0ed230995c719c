"""The action numbering and observation layout, alone (no framework)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lostcities as lc
from lostcities.envs.encoding import InvalidActionError, get_encoding

VARIANTS = ["classic", "long"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_actions_round_trip_over_the_whole_space(variant: str) -> None:
    enc = get_encoding(variant)
    nc = lc.get_variant(variant).num_colors
    assert enc.num_actions == 2 * (10 * nc) * (1 + nc)
    seen = set()
    for a in range(enc.num_actions):
        m = enc.action_to_move(a)
        assert enc.move_to_action(m) == a
        assert lc.Move.parse(enc.action_string(a)) == m
        seen.add(m)
    assert len(seen) == enc.num_actions
    # every move of the variant has an action
    for card in set(lc.get_variant(variant).deck()):
        for action in lc.Action:
            for draw in (None, *lc.get_variant(variant).colors):
                assert enc.action_to_move(
                    enc.move_to_action(lc.Move(action, card, draw))
                ) == lc.Move(action, card, draw)


def test_documented_examples() -> None:
    enc = get_encoding("classic")
    assert enc.move_to_action(lc.Move.parse("+yx.")) == 0
    assert enc.move_to_action(lc.Move.parse("+yxb")) == 2
    assert enc.move_to_action(lc.Move.parse("+y2.")) == 6
    assert enc.move_to_action(lc.Move.parse("-yx.")) == 300
    assert str(enc.action_to_move(599)) == "-r10r"


@pytest.mark.parametrize("bad", [-1, 600, 10**9, 1.0, True, "3", None])
def test_bad_action_numbers_raise(bad: object) -> None:
    with pytest.raises(InvalidActionError):
        get_encoding("classic").action_to_move(bad)  # type: ignore[arg-type]


def test_purple_move_is_not_a_classic_action() -> None:
    with pytest.raises(InvalidActionError):
        get_encoding("classic").move_to_action(lc.Move.parse("+p5."))
    assert get_encoding("long").move_to_action(lc.Move.parse("+p5.")) >= 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_actions_are_move_indices_packed_to_the_variant(variant: str) -> None:
    """One move numbering: an action is a documented function of ``Move.index`` (the very
    index in the long variant), and converts back."""
    enc = get_encoding(variant)
    k, s = enc.num_card_kinds, enc.num_sources
    for i in range(lc.NUM_MOVES):
        m = lc.Move.from_index(i)
        kind, rest = divmod(i, 60 * 7)
        card, source = divmod(rest, 7)
        assert (kind, card, source) == (
            m.action is lc.Action.DISCARD,
            m.card.index,
            0 if m.draw is None else 1 + m.draw,
        )
        if card < k and source < s:
            a = enc.index_to_action(i)
            assert a == (kind * k + card) * s + source == enc.move_to_action(m)
            assert enc.action_to_index(a) == i and enc.action_to_move(a) is m
            if variant == "long":
                assert a == i
        else:
            with pytest.raises(InvalidActionError):
                enc.index_to_action(i)
            with pytest.raises(InvalidActionError):
                enc.move_to_action(m)
    # a classic move that draws from a purple pile has no action (it is no classic move)
    with pytest.raises(InvalidActionError):
        get_encoding("classic").move_to_action(lc.Move.parse("+y5p"))
    with pytest.raises(InvalidActionError):
        enc.index_to_action(lc.NUM_MOVES)


def _random_round(seed: int, variant: str) -> lc.Round:
    rng = random.Random(seed)
    r = lc.Round.deal(seed=seed, variant=variant, starter=seed % 2)
    for _ in range(rng.randrange(120)):
        if r.is_over():
            break
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    return r


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(VARIANTS))
def test_mask_is_exactly_the_legal_moves(seed: int, variant: str) -> None:
    r = _random_round(seed, variant)
    enc = get_encoding(variant)
    legal = set(r.legal_moves())
    for p in (0, 1):
        view = r.view(p)
        mask = enc.action_mask(view)
        assert mask.dtype == np.int8 and mask.shape == (enc.num_actions,)
        masked_in = {enc.action_to_move(a) for a in np.flatnonzero(mask)}
        if p == r.to_move and not r.is_over():
            assert masked_in == legal
            assert int(mask.sum()) == len(r.legal_moves())
            assert enc.legal_actions(view) == sorted(np.flatnonzero(mask).tolist())
            for a in np.flatnonzero(mask):
                assert r.is_legal(enc.action_to_move(a))
        else:
            assert masked_in == set()


def test_identical_wagers_are_one_action() -> None:
    deck = lc.CLASSIC.deck()  # y x x x 2..10, b ...: player 0 gets yx yx yx y2 .. y6
    r = lc.Round.from_deck(deck)
    enc = get_encoding("classic")
    plays_of_wager = [
        a for a in enc.legal_actions(r.view(0)) if enc.action_to_move(a).card.is_wager
    ]
    # play yx or discard yx, each with the draw pile only (no discard pile yet)
    assert [str(enc.action_to_move(a)) for a in plays_of_wager] == ["+yx.", "-yx."]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(VARIANTS))
def test_observation_bounds_and_sections(seed: int, variant: str) -> None:
    r = _random_round(seed, variant)
    enc = get_encoding(variant)
    assert sum(s.size for s in enc.sections) == enc.observation_size
    for p in (0, 1):
        view = r.view(p)
        obs = enc.observation(view)
        assert obs.dtype == np.float32 and obs.shape == (enc.observation_size,)
        assert (obs >= enc.low).all() and (obs <= enc.high).all()

        def sec(name: str, obs: np.ndarray = obs) -> np.ndarray:
            s = enc.section(name)
            return obs[s.start : s.stop]

        # every card is in exactly one place (hand, table, discard piles, or unseen/known)
        total = (
            sec("hand")
            + sec("own_expedition")
            + sec("opponent_expedition")
            + sec("discard_top")
            + sec("discard_below")
            + sec("opponent_known")
            + sec("unseen")
        )
        want = np.zeros(enc.num_card_kinds, np.float32)
        for c in lc.get_variant(variant).deck():
            want[c.index] += 1
        assert (total == want).all()
        unseen = np.zeros(enc.num_card_kinds, np.float32)
        for c in view.unseen_cards():
            unseen[c.index] += 1
        assert (sec("unseen") == unseen).all()
        assert sec("hand").sum() == 8
        assert sec("unseen").sum() == r.deck_size + 8 - len(r.known_cards(p ^ 1))
        assert sec("deck_fraction")[0] == pytest.approx(r.deck_size / (enc.variant.deck_size - 16))
        s = r.scores()
        assert sec("own_score")[0] == pytest.approx(s[p] / 100)
        assert sec("opponent_score")[0] == pytest.approx(s[p ^ 1] / 100)
        assert sec("on_move")[0] == float(r.to_move == p and not r.is_over())


def test_last_move_section() -> None:
    enc = get_encoding("classic")
    r = lc.Round.deal(seed=5)
    r.push(r.legal_moves()[0])
    m = r.history[-1]
    for p in (0, 1):
        obs = enc.observation(r.view(p))
        by_me = obs[enc.section("last_move_by_me").start]
        assert by_me == float(p == 0)
        card = enc.section("last_move_card")
        assert np.flatnonzero(obs[card.start : card.stop]).tolist() == [m.card.index]
    # a pending move (OpenSpiel chance node) shows as the last move, flagged
    pending = lc.Move.parse("-y2.") if lc.Card.parse("y2") in r.hands[1] else r.legal_moves()[-1]
    obs = enc.observation(r.view(1), pending)
    assert obs[enc.section("pending_draw").start] == 1.0
    assert obs[enc.section("on_move").start] == 0.0
    assert obs[enc.section("last_move_by_me").start] == 1.0


def test_turn_cap_entries() -> None:
    enc = get_encoding("classic")
    r = lc.Round.deal(seed=1, max_turns=10)
    obs = enc.observation(r.view(0))
    assert obs[enc.section("capped").start] == 1.0
    assert obs[enc.section("turns_left").start] == 1.0
    r.push(r.legal_moves()[0])
    assert enc.observation(r.view(0))[enc.section("turns_left").start] == pytest.approx(0.9)


def test_hidden_cards_never_change_the_observation(worlds) -> None:  # type: ignore[no-untyped-def]
    for seed in range(6):
        w = worlds(
            seed, plies=20 + 7 * seed, variant="long" if seed % 2 else "classic", observer=seed % 2
        )
        enc = get_encoding(w.variant)
        a = lc.Round.from_deck(w.deck_a, w.starter, w.variant)
        b = lc.Round.from_deck(w.deck_b, w.starter, w.variant)
        differs = False
        for m in [*w.moves, None]:
            oa, ob = enc.observation(a.view(w.observer)), enc.observation(b.view(w.observer))
            assert (oa == ob).all()
            assert (
                enc.action_mask(a.view(w.observer)) == enc.action_mask(b.view(w.observer))
            ).all()
            opp = w.observer ^ 1
            differs |= not (enc.observation(a.view(opp)) == enc.observation(b.view(opp))).all()
            if m is not None:
                a.push(m)
                b.push(m)
        assert differs, "the worlds should look different to the other player"


def test_envs_package_import_is_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, lostcities.envs as e\n"
        "heavy = [m for m in ('numpy', 'pettingzoo', 'gymnasium', 'pyspiel') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert e.lostcities_v0.__name__ == 'lostcities.envs.pettingzoo'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

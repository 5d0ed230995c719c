"""Positions as SVG pictures, in the manner of python-chess's ``chess.svg``.

:func:`position` draws a :class:`~lostcities.Round` (the referee's picture: both hands face
up) or a :class:`~lostcities.PlayerView` (one player's picture: its own hand, the
opponent's as card backs, so no hidden card is ever drawn): both players' expeditions, the
discard piles with their tops (and how many cards lie below), the draw pile's count, the
scores, the colour symbols, and the last move highlighted (the card it played or
discarded, and the pile it drew from). ``Round._repr_svg_`` and ``PlayerView._repr_svg_``
call it, so notebooks show positions as pictures.

Standard library only; the output is deterministic (a test compares it with a golden
file) and self-contained (no fonts or scripts to load).

>>> from lostcities import Round
>>> r = Round.deal(seed=3)
>>> r.push(r.legal_moves()[0])
>>> text = position(r.view(0))
>>> text.startswith("<svg") and "y2" not in text.split("hand of player 1")[1].split("</g>")[0]
True
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from lostcities.cards import Card, Color
from lostcities.rules import Action, Move, PlayerView, Round

__all__ = ["COLORS", "SYMBOLS", "position"]

COLORS: dict[Color, str] = {
    Color.YELLOW: "#e8c21a",
    Color.BLUE: "#2f6db5",
    Color.WHITE: "#f4f4f0",
    Color.GREEN: "#3a9a4a",
    Color.RED: "#c8372d",
    Color.PURPLE: "#8a4fb0",
}
"""The fill of each colour's cards."""

SYMBOLS: dict[Color, str] = {
    Color.YELLOW: "☀",
    Color.BLUE: "≈",
    Color.WHITE: "❄",
    Color.GREEN: "♣",
    Color.RED: "▲",
    Color.PURPLE: "◆",
}
"""Each colour's symbol (a desert sun, the sea, the snow, the forest, a volcano, a gem)."""

_CW = 56  # card width
_CH = 78  # card height
_GAP = 10
_STEP = 17  # the overlap step of cards stacked in an expedition
_HL = "#ff8c00"  # the last move's highlight


def _text_colour(color: Color) -> str:
    return "#222" if color in (Color.YELLOW, Color.WHITE) else "#fff"


def _card(x: float, y: float, card: Card, cls: str, highlight: bool = False) -> str:
    rank = "×" if card.rank == 0 else str(card.rank)
    stroke = f' stroke="{_HL}" stroke-width="4"' if highlight else ' stroke="#333" stroke-width="1"'
    fg = _text_colour(card.color)
    return (
        f'<g class="card {cls}" data-card="{card}">'
        f'<rect x="{x}" y="{y}" width="{_CW}" height="{_CH}" rx="6" fill="{COLORS[card.color]}"{stroke}/>'
        f'<text x="{x + 6}" y="{y + 15}" font-size="13" font-weight="bold" fill="{fg}">{rank}</text>'
        f'<text x="{x + _CW / 2}" y="{y + _CH / 2 + 10}" font-size="26" text-anchor="middle" '
        f'fill="{fg}">{SYMBOLS[card.color]}</text></g>'
    )


def _back(x: float, y: float) -> str:
    return (
        f'<g class="card back"><rect x="{x}" y="{y}" width="{_CW}" height="{_CH}" rx="6" '
        f'fill="#6b4f2a" stroke="#333" stroke-width="1"/>'
        f'<rect x="{x + 6}" y="{y + 6}" width="{_CW - 12}" height="{_CH - 12}" rx="4" '
        f'fill="none" stroke="#d9b77a" stroke-width="2"/></g>'
    )


def _slot(x: float, y: float, color: Color, label: str = "") -> str:
    out = (
        f'<rect x="{x}" y="{y}" width="{_CW}" height="{_CH}" rx="6" fill="none" '
        f'stroke="{COLORS[color]}" stroke-width="2" stroke-dasharray="4 3"/>'
        f'<text x="{x + _CW / 2}" y="{y + _CH / 2 + 9}" font-size="24" text-anchor="middle" '
        f'fill="{COLORS[color]}" opacity="0.5">{SYMBOLS[color]}</text>'
    )
    if label:
        out += f'<text x="{x + _CW / 2}" y="{y + _CH + 13}" font-size="11" text-anchor="middle" fill="#333">{escape(label)}</text>'
    return out


def position(
    pos: Round | PlayerView, *, lastmove: Move | None = None, size: int | None = None
) -> str:
    """The SVG picture of a round or of a player's view (see the module docs).

    ``lastmove`` overrides the highlighted move (default: the last move of the history);
    ``size`` sets the picture's width in pixels (it scales).
    """
    if isinstance(pos, Round):
        hands: list[tuple[Card, ...] | int] = [pos.hands[0], pos.hands[1]]
        bottom = 0
        exps = [tuple(pos.expeditions[p].values()) for p in (0, 1)]
        piles = tuple(pos.discard_piles.values())
        scores = pos.scores()
        over = pos.is_over()
        title = "round"
    else:
        bottom = pos.player
        hs = pos.variant.hand_size
        hands = [pos.hand, hs] if bottom == 0 else [hs, pos.hand]
        exps = [tuple(pos.expeditions[p]) for p in (0, 1)]
        piles = tuple(pos.discard_piles)
        scores = pos.scores()
        over = pos.over
        title = f"view of player {bottom}"
    colors = pos.variant.colors
    history = pos.history
    last = lastmove if lastmove is not None else (history[-1] if history else None)
    last_by = None
    if last is not None and lastmove is None:
        last_by = pos.to_move if over else pos.to_move ^ 1
    ncol = len(colors)
    top = bottom ^ 1
    col_w = _CW + _GAP
    board_w = ncol * col_w + _GAP
    width = board_w + 150
    hand_w = 8 * (_CW // 2 + 4) + _CW // 2
    stack_h = _CH + 11 * _STEP
    y_opp_hand = 28
    y_opp_exp = y_opp_hand + _CH + 16
    y_piles = y_opp_exp + stack_h + 14
    y_own_exp = y_piles + _CH + 24
    y_own_hand = y_own_exp + stack_h + 14
    height = y_own_hand + _CH + 34
    out: list[str] = []
    scale = (
        f' width="{size}" height="{round(size * height / width)}"'
        if size
        else f' width="{width}" height="{height}"'
    )
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {width} {height}"{scale} '
        f'font-family="DejaVu Sans, Arial, sans-serif">'
    )
    out.append(f"<title>Lost Cities: {escape(title)}, ply {pos.ply}</title>")
    out.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="#efe6d2"/>')

    def hand(p: int, y: float) -> None:
        h = hands[p]
        x0 = (board_w - hand_w) / 2
        out.append(f'<g class="hand" id="hand-{p}"><desc>hand of player {p}</desc>')
        if isinstance(h, int):
            for i in range(h):
                out.append(_back(x0 + i * (_CW // 2 + 4), y))
        else:
            for i, c in enumerate(h):
                out.append(_card(x0 + i * (_CW // 2 + 4), y, c, "hand"))
        out.append("</g>")
        out.append(
            f'<text x="{board_w + 12}" y="{y + _CH / 2}" font-size="14" fill="#222">player {p}'
            f"{' (to move)' if not over and pos.to_move == p else ''}</text>"
        )

    def expeditions(p: int, y: float, upward: bool) -> None:
        out.append(f'<g class="expeditions" id="expeditions-{p}">')
        for i, color in enumerate(colors):
            x = _GAP + i * col_w
            cards = exps[p][i]
            if not cards:
                out.append(_slot(x, y + (11 * _STEP if upward else 0), color))
                continue
            # the opponent's stacks grow upwards: drawn newest first, so each rank shows
            order = list(enumerate(cards))
            for j, c in reversed(order) if upward else order:
                yy = y + (11 - j) * _STEP if upward else y + j * _STEP
                hl = (
                    last is not None
                    and last.action is Action.PLAY
                    and last_by == p
                    and j == len(cards) - 1
                    and last.card == c
                )
                out.append(_card(x, yy, c, "expedition", hl))
        out.append("</g>")
        out.append(
            f'<text x="{board_w + 12}" y="{y + stack_h / 2}" font-size="22" font-weight="bold" '
            f'fill="#222" class="score">{scores[p]}</text>'
        )

    hand(top, y_opp_hand)
    expeditions(top, y_opp_exp, upward=True)
    out.append('<g class="piles">')
    for i, color in enumerate(colors):
        x = _GAP + i * col_w
        pile = piles[i]
        drew = last is not None and last.draw == color
        if pile:
            hl = last is not None and last.action is Action.DISCARD and last.card == pile[-1]
            out.append(_card(x, y_piles, pile[-1], "pile", hl))
            label = f"+{len(pile) - 1}" if len(pile) > 1 else ""
            if label:
                out.append(
                    f'<text x="{x + _CW / 2}" y="{y_piles + _CH + 13}" font-size="11" text-anchor="middle" fill="#333">{label}</text>'
                )
        else:
            out.append(_slot(x, y_piles, color))
        if drew:
            out.append(
                f'<rect x="{x - 3}" y="{y_piles - 3}" width="{_CW + 6}" height="{_CH + 6}" rx="8" '
                f'fill="none" stroke="{_HL}" stroke-width="2" stroke-dasharray="6 3" class="drawn"/>'
            )
    out.append("</g>")
    dx = board_w + 12
    out.append(_back(dx, y_piles))
    out.append(
        f'<text x="{dx + _CW / 2}" y="{y_piles + _CH / 2 + 6}" font-size="18" font-weight="bold" '
        f'text-anchor="middle" fill="#fff" class="deck">{pos.deck_size}</text>'
    )
    if last is not None and last.draw is None and lastmove is None and history:
        out.append(
            f'<rect x="{dx - 3}" y="{y_piles - 3}" width="{_CW + 6}" height="{_CH + 6}" rx="8" '
            f'fill="none" stroke="{_HL}" stroke-width="2" stroke-dasharray="6 3" class="drawn"/>'
        )
    expeditions(bottom, y_own_exp, upward=False)
    hand(bottom, y_own_hand)
    caption = f"ply {pos.ply}"
    if last is not None:
        caption += f", last move {last}"
    if over:
        caption += ", round over"
    out.append(
        f'<text x="{_GAP}" y="{height - 10}" font-size="13" fill="#222">{escape(caption)}</text>'
    )
    out.append("</svg>")
    return "".join(out)

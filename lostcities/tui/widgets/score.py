"""Scores: the top bar (round, match totals, whose turn) and the round-end breakdown tables,
which are the very table ``lostcities score`` prints (:func:`lostcities.presentation.round_score_table`)."""

from __future__ import annotations

from textual.widgets import Static

from lostcities.presentation import round_score_table
from lostcities.rules import Round

__all__ = ["Breakdown", "TopBar", "breakdown_text"]


def breakdown_text(r: Round, player: int) -> str:
    """``player``'s score sheet for round ``r``, as ``lostcities score`` shows it."""
    return round_score_table(r, player)


class TopBar(Static):
    """One line: the round, the match totals and the deal's variant."""

    def show(
        self,
        round_no: int,
        rounds: int,
        names: tuple[str, str],
        totals: tuple[int, int],
        viewer: int,
        variant: str,
    ) -> None:
        """Show the match state from ``viewer``'s side (their name first)."""
        me, them = viewer, viewer ^ 1
        self.update(
            f" LOST CITIES  round {round_no}/{rounds}  ·  match: {names[me]} {totals[me]}"
            f" – {totals[them]} {names[them]}  ·  {variant}"
        )


class Breakdown(Static):
    """A player's score sheet for a finished round."""

    def __init__(self, r: Round, player: int, title: str, **kwargs: object) -> None:
        super().__init__(f"{title}\n{breakdown_text(r, player)}", **kwargs)  # type: ignore[arg-type]

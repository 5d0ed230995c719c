"""Widgets of the board: expedition columns with discard piles, the draw pile, the hand, scores."""

"""The app's screens: the game board, the hot-seat privacy screen, round end, match end, help."""

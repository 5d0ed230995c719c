"""Play Lost Cities in the terminal (``lostcities play``): a Textual app against a bot or hot-seat.

Needs the ``tui`` extra (Textual and Rich). The match state lives in
:mod:`lostcities.tui.session`; :mod:`lostcities.tui.app` is the app and its command-line entry.
"""

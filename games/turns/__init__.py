"""\"Your turn\" signals: the list of games waiting for me (page and nav count) and the
mails of correspondence games.

The tab title, favicon badge and browser notification are client-side
(``static/js/table.js``), driven by the status fragment (``#your-turn``) that the socket
pushes.  Mails: ``notify_turn(game)`` is called on commit after every change of a running
game (``games.turns.receivers``, listening to ``games.core.signals.game_committed``); it
sends (through a Celery task) only for games whose clock is correspondence
(``Game.clock``, days per move) and only to people who became the ones to move and did
not turn the mails off (``accounts.Preferences``).
"""

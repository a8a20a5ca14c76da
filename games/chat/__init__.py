"""Table chat: players and spectators talk at a table (stored with the game).

``services`` writes (post, remove, mute), ``selectors`` reads, ``views`` are the thin
HTML endpoints, ``render`` draws the chat panel for one viewer.  Live delivery: a post or
a removal sends a ``chat.updated`` hint to the game's socket group; each socket renders
the panel for its own viewer (mutes are per viewer) -- the chat is not part of the
version-keyed fragments of the board.

Rules: signed-in people (players and spectators) write, anonymous visitors only read;
messages are at most ``CHAT_MAX_LENGTH`` characters, ``CHAT_RATE_LIMIT`` per person per
minute (fail open when the cache is down); staff remove a message (everyone then sees
that one was removed); a person mutes another at every table.
"""

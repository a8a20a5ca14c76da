"""Practice help: in an unrated game where every other seat is the AI, a hint (the AI's
best three moves for the player's seat, searched on the worker) and undo of the player's
last move.  Neither exists in rated games or games with other people."""

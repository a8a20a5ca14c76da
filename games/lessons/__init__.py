"""Learn to play: each game's interactive lesson, drawn with the game's board (no account,
no database: the step is in the address, the move in the form)."""

"""The record of every result: one ``SeatResult`` per seat when a game finishes (places,
points, how the seat ended, rating before and after), and every read of a result."""

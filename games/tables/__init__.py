"""The tables: the home page and lobby, creating and joining tables, seats, leaving (before
and during a game, under the table's departure rule), clocks, rematches."""

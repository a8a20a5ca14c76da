"""The play page: a running game drawn by its board for each viewer, its actions, its
socket (every viewer's own view after every commit) and the game API."""

"""Ratings: one per player and game, changed by rated games when they end; the leaderboard
and the player's profile."""

"""The post-game analysis of finished games: the judging runs on the worker, in chunks;
the panel fills the replay page's analysis slot."""

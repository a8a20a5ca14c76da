"""AI turns: an AI seat to move gets its turn queued after the commit; a turn lost with its
worker or broker is queued again."""

"""Command-line tools over the pure engines and AI: simulate, bench, golden, replay."""

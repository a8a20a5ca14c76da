"""Replays: any step of a game from any perspective the viewer may take, and the export."""

"""AI opponents: pure search over the engine protocol (no Django import)."""

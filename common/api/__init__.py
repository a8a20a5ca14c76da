"""API plumbing every app shares: one error shape, safe parsers, throttles, schema hooks."""

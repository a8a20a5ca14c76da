"""The games app: variants, tables, seats and moves; lobby, play and replay pages."""

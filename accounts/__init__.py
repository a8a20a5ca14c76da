"""Accounts: sign-up, login, profile."""

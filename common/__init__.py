"""Plumbing both ``accounts`` and ``games`` use: rate limits and the client's address.

It imports neither of them (it sits below both).
"""

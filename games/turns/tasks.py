"""Celery task of "your turn": thin, it calls the function that does its work."""

from __future__ import annotations

from celery import shared_task

from games.turns.mails import send_turn_mails as send


@shared_task(name="games.tasks.send_turn_mails", ignore_result=True)  # see games.periodic
def send_turn_mails(game_id: int, version: int) -> int:
    """Mail the people whose turn it became at ``version`` (see ``games.turns.services``)."""
    return send(game_id=game_id, version=version)

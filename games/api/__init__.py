"""The public REST API of the games (Django REST framework): thin views over services and
selectors, one ``apis`` module per feature, routed in ``games.api_urls``.

Errors of the services come back as ``{"detail": message, "code": code}`` (plus the
current ``version`` when known) with the error's status: 403 not your seat, 409 stale
version / not your turn / not running / key conflict / table full, 422 illegal move
(``common.api.errors``).
"""

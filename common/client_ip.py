"""The one rule for a client's address: lockout (django-axes), sign-up and API limits.

``TRUSTED_PROXIES`` (environment ``NUM_PROXIES``) says how many proxies of ours stand in
front of the app server, each appending the address it saw to ``X-Forwarded-For``:

* 0 (the default): the socket's address, ``REMOTE_ADDR``; ``X-Forwarded-For`` is ignored,
  so a client cannot pick a fresh address per request;
* N: the N-th address from the right of ``X-Forwarded-For`` -- the one our outermost proxy
  saw.  Addresses further left were written by the client and are never trusted.

uvicorn must not rewrite ``REMOTE_ADDR`` from the same header as well: ``make run``
starts it with ``--no-proxy-headers`` (see the README on ``FORWARDED_ALLOW_IPS``).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _valid(address: str) -> str | None:
    address = address.strip()
    if address.startswith("[") and "]" in address:  # "[::1]:8000"
        address = address[1 : address.index("]")]
    elif address.count(":") == 1:  # "1.2.3.4:5678"
        address = address.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None


def client_ip_from_meta(meta: dict, proxies: int | None = None) -> str | None:
    """The client's address from WSGI/ASGI ``META`` (``None`` when there is none)."""
    proxies = settings.TRUSTED_PROXIES if proxies is None else proxies
    remote = _valid(str(meta.get("REMOTE_ADDR") or ""))
    if not proxies:
        return remote
    forwarded = [part for part in str(meta.get("HTTP_X_FORWARDED_FOR", "")).split(",")
                 if part.strip()]
    if len(forwarded) < proxies:  # fewer hops than proxies: not through our proxies
        return remote
    return _valid(forwarded[-proxies]) or remote


def client_ip(request: HttpRequest) -> str | None:
    """The client's address of ``request`` (``AXES_CLIENT_IP_CALLABLE`` points here).

    ``None`` when the request has none (e.g. ``Client.login`` in tests): django-axes then
    stores NULL, which PostgreSQL accepts in an address column and ``"unknown"`` is not.
    """
    return client_ip_from_meta(request.META)


def client_key(request: HttpRequest) -> str:
    """The client's address as a rate-limit key (``"unknown"`` when there is none)."""
    return client_ip(request) or "unknown"

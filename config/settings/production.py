"""Production settings: secure defaults; a real secret key and hosts are required."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from config.secret_key import weakness

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = False
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if weakness(SECRET_KEY):
    raise ImproperlyConfigured(
        f"DJANGO_SECRET_KEY is weak ({weakness(SECRET_KEY)}): set it to 50+ random "
        "characters, e.g. python -c 'import secrets; print(secrets.token_urlsafe(48))'."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# The page sends the token from <body hx-headers>; scripts never read the cookie.
CSRF_COOKIE_HTTPONLY = True
if "*" in ALLOWED_HOSTS:  # noqa: F405 - the WebSocket origin check relies on real hosts
    raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS must list real host names in production.")
# Never the browsable API in production, whatever DJANGO_DEBUG said to base.py.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}

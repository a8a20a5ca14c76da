"""What every API view shares: parsers, the client-address throttle, the error shape."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from common.api.errors import backend_unavailable
from common.api.parsers import SafeJSONParser
from common.client_ip import client_key
from common.ratelimit import cache_failed

PARSERS = [SafeJSONParser, FormParser, MultiPartParser]


class ClientAddressThrottle(ScopedRateThrottle):
    """A scoped throttle keyed by the user, or by the client's address for anonymous
    requests -- the address from the one rule of ``common.client_ip`` (a client cannot
    choose it with a fresh ``X-Forwarded-For``).

    The counters live in the cache (Redis): when it fails, the throttle fails *open*
    and says so in the log, rather than turning every request into a 500.
    """

    def get_ident(self, request):
        return client_key(request)

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception as exc:
            if not backend_unavailable(exc):
                raise
            cache_failed("an API throttle", exc)
            return True


class ErrorOutput(serializers.Serializer):
    """Every API error: a message, a stable code, field errors for invalid input."""

    detail = serializers.CharField()
    code = serializers.CharField()
    errors = serializers.DictField(
        required=False, help_text="Invalid input: the messages by field name."
    )
    version = serializers.IntegerField(
        required=False, help_text="The game's current version (refetch on a 409)."
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="Throttled: seconds to wait before trying again."
    )


class ApiView(APIView):
    """The base view of every API view: the safe parsers, and errors in one shape
    (``common.api.errors``)."""

    parser_classes = PARSERS

    def get_authenticate_header(self, request: Request) -> str:
        """Always a challenge, so a refused log-in is a 401 (as documented), never a 403."""
        return super().get_authenticate_header(request) or 'Token realm="api"'

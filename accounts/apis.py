"""The accounts' API: register, and exchange a password for the API token."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.errors import RegistrationError
from accounts.services import register_user
from common.api.base import ApiView, ClientAddressThrottle, ErrorOutput


class CredentialsInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)



class TokenOutput(serializers.Serializer):
    token = serializers.CharField()



class RegisterApi(ApiView):
    """``POST /api/auth/register/``: create an account, get its API token."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "register"

    @extend_schema(
        request=CredentialsInput,
        responses={201: TokenOutput, 400: ErrorOutput, 429: ErrorOutput},
        auth=[],
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        data = CredentialsInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            user = register_user(**data.validated_data)
        except RegistrationError as exc:
            return Response(
                {"detail": str(exc), "code": exc.code, "errors": exc.errors},
                status=status.HTTP_400_BAD_REQUEST,
            )
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key}, status=status.HTTP_201_CREATED)



class TokenApi(ApiView):
    """``POST /api/auth/token/``: exchange a username and password for the API token."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    # Per address, across usernames (django-axes locks one username + address pair).
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "token"

    @extend_schema(
        request=CredentialsInput,
        responses={200: TokenOutput, 400: ErrorOutput, 401: ErrorOutput, 429: ErrorOutput},
        auth=[],
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        data = CredentialsInput(data=request.data)
        data.is_valid(raise_exception=True)
        # The HttpRequest lets django-axes count failures and lock out guessers.
        user = authenticate(request._request, **data.validated_data)
        if user is None or not user.is_active:
            raise AuthenticationFailed(_("Wrong username or password."))
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})

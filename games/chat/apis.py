"""The table chat in the REST API: ``GET`` the newest messages, ``POST`` one.

The same rules as the chat of the play page (``games.chat.services``): everyone may read a
table's chat (without the people they muted; a removed message keeps no text), players and
signed-in spectators may write, with the same length and rate limits; refusals come back in
the API's one error shape (``{"detail", "code"}``).
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from common.api.base import ErrorOutput
from games.api.base import GameApi
from games.chat import services
from games.chat.selectors import CHAT_SHOWN, chat_messages
from games.models import ChatMessage


class ChatMessageOutput(serializers.Serializer):
    id = serializers.IntegerField()
    author = serializers.CharField(help_text="the author's name when they wrote it")
    author_id = serializers.IntegerField(allow_null=True, help_text="null once the account is gone")
    text = serializers.CharField(allow_blank=True, help_text="empty once removed by staff")
    removed = serializers.BooleanField(help_text="removed by staff: the text is not shown")
    created_at = serializers.DateTimeField()


class TextField(serializers.CharField):
    """A string, and only a string (DRF would turn a number into one)."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class ChatPostInput(serializers.Serializer):
    text = TextField(
        allow_blank=True, trim_whitespace=False,
        help_text=f"at most {settings.CHAT_MAX_LENGTH} characters once control characters "
                  "are dropped and surrounding spaces stripped; not empty",
    )


def message_output(message: ChatMessage) -> dict:
    """A message as the API shows it (a removed message's text never leaves the server)."""
    return {
        "id": message.pk,
        "author": message.author_name,
        "author_id": message.author_id,
        "text": "" if message.removed else message.text,
        "removed": message.removed,
        "created_at": message.created_at,
    }


class GameChatApi(GameApi):
    """``GET /api/games/{id}/chat/``: the newest messages, oldest first;
    ``POST``: write one (players and signed-in spectators)."""

    def get_permissions(self) -> list:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    @extend_schema(
        responses={200: ChatMessageOutput(many=True), 404: ErrorOutput},
        tags=["chat"],
        description=f"The newest {CHAT_SHOWN} messages of the table, oldest first, without "
                    "those of the people you muted.",
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = self.get_game(game_id)
        rows = [message_output(m) for m in chat_messages(game, request.user)]
        return Response(ChatMessageOutput(rows, many=True).data)

    @extend_schema(
        request=ChatPostInput,
        responses={
            201: ChatMessageOutput,
            400: OpenApiResponse(ErrorOutput, description="empty or too long"),
            401: OpenApiResponse(ErrorOutput, description="not signed in (send a token)"),
            403: OpenApiResponse(ErrorOutput, description="this account may not write"),
            404: OpenApiResponse(ErrorOutput, description="no such game"),
            409: OpenApiResponse(ErrorOutput, description="the table's chat is closed"),
            429: OpenApiResponse(ErrorOutput, description="writing too fast"),
        },
        tags=["chat"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = self.get_game(game_id)  # no such game: 404 whatever the body
        data = ChatPostInput(data=request.data)
        data.is_valid(raise_exception=True)
        message = services.post_message(game=game, user=request.user,
                                        text=data.validated_data["text"])
        return Response(ChatMessageOutput(message_output(message)).data,
                        status=status.HTTP_201_CREATED)

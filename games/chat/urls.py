"""Routes of the table chat (under ``/games/<id>/chat/``)."""

from django.urls import path

from games.chat import views

urlpatterns = [
    path("games/<int:game_id>/chat/", views.chat_post, name="chat"),
    path("games/<int:game_id>/chat/log/", views.chat_log, name="chat_log"),
    path("games/<int:game_id>/chat/<int:message_id>/remove/", views.chat_remove,
         name="chat_remove"),
    path("games/<int:game_id>/chat/mute/<int:user_id>/", views.chat_mute, name="chat_mute"),
    path("games/<int:game_id>/chat/unmute/<int:user_id>/", views.chat_mute, {"muted": False},
         name="chat_unmute"),
]

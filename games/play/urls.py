"""Routes of the play page and its actions."""

from django.urls import path

from games.play import views

urlpatterns = [
    path("games/<int:game_id>/", views.play, name="play"),
    path("games/<int:game_id>/act/", views.act, name="act"),
]

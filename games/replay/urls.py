"""Routes of the replay page."""

from django.urls import path

from games.replay import views

urlpatterns = [
    path("games/<int:game_id>/replay/", views.replay, name="replay"),
]

"""Routes of practice help on the play page."""

from django.urls import path

from games.practice import views

urlpatterns = [
    path("games/<int:game_id>/hint/", views.hint, name="practice_hint"),
    path("games/<int:game_id>/undo/", views.undo, name="practice_undo"),
]

"""The routes of the games' pages, one module per feature (wiring: it names them all)."""

from django.urls import include, path

urlpatterns = [
    path("", include("games.tables.urls")),
    path("", include("games.play.urls")),
    path("", include("games.practice.urls")),
    path("", include("games.replay.urls")),
    path("", include("games.analysis.urls")),
    path("", include("games.chat.urls")),
    path("", include("games.turns.urls")),
    path("", include("games.ratings.urls")),
    path("", include("games.lessons.urls")),
]

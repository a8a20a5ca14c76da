"""Routes of the analysis panel (inside the replay page)."""

from django.urls import path

from games.analysis import views

urlpatterns = [
    path("games/<int:game_id>/analysis/", views.analysis_panel, name="analysis_panel"),
    path("games/<int:game_id>/analysis/start/", views.analysis_start, name="analysis_start"),
]

from django.urls import include, path

from games import analysis_views, replay_views, views
from games.turns import views as turn_views

urlpatterns = [
    path("", views.home, name="home"),
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/create/", views.lobby_create, name="lobby_create"),
    path("games/<int:game_id>/", views.play, name="play"),
    path("games/<int:game_id>/act/", views.act, name="act"),
    path("games/<int:game_id>/join/", views.table_join, name="table_join"),
    path("games/<int:game_id>/leave/", views.table_leave, name="table_leave"),
    path("games/<int:game_id>/rematch/", views.rematch, name="rematch"),
    path("games/<int:game_id>/resign/", views.resign, name="resign"),
    path("games/<int:game_id>/hand-over/", views.hand_over, name="hand_over"),
    path("games/<int:game_id>/replay/", replay_views.replay, name="replay"),
    path("games/<int:game_id>/analysis/", analysis_views.analysis_panel, name="analysis_panel"),
    path("games/<int:game_id>/analysis/start/", analysis_views.analysis_start,
         name="analysis_start"),
    path("t/<str:token>/", views.invite, name="invite"),
    path("", include("games.chat.urls")),
    path("rules/<slug:game>/", views.rules, name="rules"),
    path("games/waiting/", turn_views.waiting, name="waiting"),
    path("games/waiting/nav/", turn_views.waiting_nav, name="waiting_nav"),
]

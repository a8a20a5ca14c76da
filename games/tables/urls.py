"""Routes of the tables: home, rules, lobby, a table's seats, resigning and rematches."""

from django.urls import path

from games.tables import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/<slug:game>/", views.rules, name="rules"),
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/create/", views.lobby_create, name="lobby_create"),
    path("quick-play/", views.quick_play, name="quick_play"),
    path("games/<int:game_id>/join/", views.table_join, name="table_join"),
    path("games/<int:game_id>/leave/", views.table_leave, name="table_leave"),
    path("games/<int:game_id>/rematch/", views.rematch, name="rematch"),
    path("games/<int:game_id>/rematch/decline/", views.rematch_decline,
         name="rematch_decline"),
    path("games/<int:game_id>/resign/", views.resign, name="resign"),
    path("games/<int:game_id>/resign/confirm/", views.resign_confirm, name="resign_confirm"),
    path("games/<int:game_id>/hand-over/", views.hand_over, name="hand_over"),
    path("t/<str:token>/", views.invite, name="invite"),
]

"""Routes of the ratings: the leaderboard and a player's profile."""

from django.urls import path

from games.ratings import views

urlpatterns = [
    path("leaderboard/", views.leaderboard, name="leaderboard"),
]

#: Under ``/accounts/`` (the ``accounts`` URL namespace, composed in ``config.urls``):
#: ``/accounts/<username>/`` catches every name, so it comes last there.
account_urlpatterns = [
    path("<str:username>/", views.profile, name="profile"),
]

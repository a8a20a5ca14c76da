"""Routes of "your turn": the games waiting for me, the nav's count, turn-mail unsubscribe."""

from django.urls import path

from games.turns import views

urlpatterns = [
    path("games/waiting/", views.waiting, name="waiting"),
    path("games/waiting/nav/", views.waiting_nav, name="waiting_nav"),
]

#: Under ``/accounts/`` (the ``accounts`` URL namespace, composed in ``config.urls``).
account_urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]

"""Routes of the lessons ("Learn to play")."""

from django.urls import path

from games.lessons import views

urlpatterns = [
    path("learn/<slug:game>/", views.lesson, name="lesson"),
    path("learn/<slug:game>/<int:number>/", views.step, name="lesson_step"),
    path("learn/<slug:game>/<int:number>/move/", views.move, name="lesson_move"),
]

"""Routes of the rules editor's API, mounted at ``/api/editor/``."""

from django.urls import path

from games.editor import apis

urlpatterns = [
    path("variants/", apis.VariantsApi.as_view(), name="api-editor-variants"),
    path("variants/<int:variant_id>/draft/", apis.DraftApi.as_view(), name="api-editor-draft"),
    path("variants/<int:variant_id>/simulate/", apis.SimulateApi.as_view(),
         name="api-editor-simulate"),
    path("variants/<int:variant_id>/publish/", apis.PublishApi.as_view(),
         name="api-editor-publish"),
]

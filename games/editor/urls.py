"""Pages of the rules editor, mounted at ``/editor/`` (staff only)."""

from django.urls import path

from games.editor import views

app_name = "editor"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.create, name="create"),
    path("import/", views.import_view, name="import"),
    path("variants/<int:variant_id>/", views.variant_detail, name="variant"),
    path("variants/<int:variant_id>/retire/", views.variant_active, {"active": False},
         name="retire"),
    path("variants/<int:variant_id>/restore/", views.variant_active, {"active": True},
         name="restore"),
    path("variants/<int:variant_id>/clone/", views.clone, name="clone"),
    path("variants/<int:variant_id>/diff/", views.diff_view, name="diff"),
    path("variants/<int:variant_id>/export/<str:label>/", views.export, name="export"),
    path("variants/<int:variant_id>/versions/<int:number>/", views.version_detail,
         name="version"),
    path("variants/<int:variant_id>/versions/<int:number>/retire/", views.version_retired,
         {"retired": True}, name="version_retire"),
    path("variants/<int:variant_id>/versions/<int:number>/restore/", views.version_retired,
         {"retired": False}, name="version_restore"),
    path("variants/<int:variant_id>/draft/", views.draft, name="draft"),
    path("variants/<int:variant_id>/draft/form/", views.draft_form, name="draft_form"),
    path("variants/<int:variant_id>/draft/validate/", views.draft_validate,
         name="draft_validate"),
    path("variants/<int:variant_id>/draft/start/", views.draft_start, name="draft_start"),
    path("variants/<int:variant_id>/draft/discard/", views.draft_discard, name="draft_discard"),
    path("variants/<int:variant_id>/simulate/", views.simulate, name="simulate"),
    path("variants/<int:variant_id>/simulation/", views.sim_status, name="sim_status"),
    path("variants/<int:variant_id>/publish/", views.publish, name="publish"),
]

"""Top-level URL routes."""

from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import urls as account_urls
from accounts import views as account_views
from games.ratings import urls as rating_urls
from games.turns import urls as turn_urls

#: ``/accounts/...``: sign-up, log-in and settings, then the games' pages that live there
#: (turn-mail unsubscribe, the player's profile: ``/accounts/<name>/`` catches every name,
#: so it comes last).
ACCOUNT_ROUTES = [
    *account_urls.urlpatterns,
    *turn_urls.account_urlpatterns,
    *rating_urls.account_urlpatterns,
]

urlpatterns = [
    path("admin/", admin.site.urls),
    # The language switcher (Django's set_language, remembered on the signed-in person).
    path("i18n/setlang/", account_views.set_language, name="set_language"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"),
         name="api-docs"),
    path("api/editor/", include("games.editor.api_urls")),
    path("api/", include("games.api_urls")),
    path("accounts/", include((ACCOUNT_ROUTES, "accounts"))),
    path("editor/", include("games.editor.urls")),
    path("", include("games.urls")),
]
if settings.DEBUG:
    urlpatterns += static(settings.STATIC_URL, document_root=settings.STATIC_ROOT)

handler400 = "config.error_views.bad_request"
handler403 = "config.error_views.permission_denied"
handler404 = "config.error_views.page_not_found"
handler500 = "config.error_views.server_error"

from django.urls import path

from games import apis

urlpatterns = [
    path("variants/", apis.VariantListApi.as_view(), name="api-variants"),
]

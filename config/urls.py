from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("api/v1/", include("research.api.urls")),  # researchers' API
    path("", include("annotation.urls")),  # volunteer pages + API (before studies: /s/<slug>/)
    path("research/jobs/", include("jobs.urls")),  # background jobs' state and results
    path("research/", include("research.urls")),
    path("", include("studies.urls")),
]

"""The volunteer pages (/s/<slug>/…, invitations at /s/<slug>/i/<token>/) and the
volunteer API (/api/v1/volunteer/…)."""

from django.urls import path, re_path

from annotation import api, poemfont, views, warmup_api, warmup_views

app_name = "volunteer"
urlpatterns = [
    path("s/<str:slug>/", views.welcome, name="welcome"),
    path("s/<str:slug>/i/<str:token>/", views.invite, name="invite"),
    path("s/<str:slug>/preview/", views.preview, name="preview"),
    path("s/<str:slug>/start/", views.start, name="start"),
    path("s/<str:slug>/screening/", views.screening, name="screening"),
    path("s/<str:slug>/q/", views.question, name="question"),
    path("s/<str:slug>/practice/", warmup_views.practice, name="practice"),
    path("s/<str:slug>/ended/", warmup_views.ended, name="ended"),
    path("s/<str:slug>/finish/", views.finish, name="finish"),
    path("s/<str:slug>/finish/share.png", views.finish_share, name="finish-share"),
    path("s/<str:slug>/resume/", views.resume, name="resume"),
    path("s/<str:slug>/poem-font.css", views.poem_font_css, name="poem-font-css"),
    re_path(
        rf"^s/(?P<slug>[^/]+)/poem-font-(?P<scope>{poemfont.SCOPE})-(?P<digest>[0-9a-f]{{16}})"
        r"\.(?P<flavor>woff2?)$",
        views.poem_font,
        name="poem-font-page",
    ),
    path("s/<str:slug>/poem-font-<str:digest>.<str:flavor>", views.poem_font, name="poem-font"),
    path("api/v1/volunteer/studies/<str:slug>/enrol/", api.EnrolView.as_view(), name="api-enrol"),
    path(
        "api/v1/volunteer/studies/<str:slug>/resume/", api.ResumeView.as_view(), name="api-resume"
    ),
    path("api/v1/volunteer/next/", api.NextView.as_view(), name="api-next"),
    path("api/v1/volunteer/answers/", api.AnswerView.as_view(), name="api-answers"),
    path("api/v1/volunteer/progress/", api.ProgressView.as_view(), name="api-progress"),
    path("api/v1/volunteer/warmup/", warmup_api.WarmupView.as_view(), name="api-warmup"),
    path(
        "api/v1/volunteer/warmup/answers/",
        warmup_api.WarmupAnswerView.as_view(),
        name="api-warmup-answers",
    ),
]

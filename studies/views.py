"""Public pages about studies (the volunteer flow itself lives in annotation)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from studies import selectors


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "studies/home.html", {"studies": selectors.listed_studies()})

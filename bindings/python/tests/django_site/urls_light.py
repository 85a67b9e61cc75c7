"""tests/django_site without django.contrib.auth: request.user is a
libauth.django.SessionUser (unsaved), libauth.django.login_required."""

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import engines
from django.urls import include, path

from libauth.django import login_required

PAGE = engines["django"].from_string('<p id="who">Hello {{ request.user.name }} ({{ request.user.email }})</p>')


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    return HttpResponse(PAGE.render({"request": request}, request))


@login_required
async def api(request: HttpRequest) -> JsonResponse:
    user: Any = request.user
    return JsonResponse({"type": user.__class__.__name__, "username": user.get_username(), "email": user.email})


urlpatterns = [
    path("dashboard", dashboard),
    path("api", api),
    path("auth/", include("libauth.django.urls")),
]

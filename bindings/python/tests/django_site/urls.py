from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import engines
from django.urls import include, path
from django.views import View

import libauth

PAGE = engines["django"].from_string(
    '<p id="who">Hello {{ user.first_name }} ({{ user.username }}, #{{ user.pk }})</p>'
    '<p id="session">{{ libauth_session.user.email }}</p>'
)


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    return HttpResponse(PAGE.render({}, request))


class ClassBased(LoginRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        return HttpResponse(f"cbv {request.user.email}")  # type: ignore[union-attr]


def whoami(request: HttpRequest) -> JsonResponse:
    user: Any = request.user
    return JsonResponse(
        {
            "authenticated": user.is_authenticated,
            "username": user.get_username(),
            "pk": user.pk,
            "session": libauth.get_session(request),
        }
    )


urlpatterns = [
    path("dashboard", dashboard),
    path("cbv", ClassBased.as_view()),
    path("whoami", whoami),
    path("auth/", include("libauth.django.urls")),
]

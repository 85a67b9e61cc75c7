from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

import libauth


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")  # {{ user }} is request.user


@login_required  # no session: to LOGIN_URL, libauth's sign-in page
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard.html")


async def me(request: HttpRequest) -> JsonResponse:  # an async view (under ASGI, on the event loop)
    return JsonResponse({"session": libauth.get_session(request)})

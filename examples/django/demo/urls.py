from django.urls import include, path

from . import views

urlpatterns = [
    path("", views.home),
    path("dashboard", views.dashboard),
    path("api/me", views.me),
    path("auth/", include("libauth.django.urls")),  # /auth/signin, /auth/callback/tiktok, …
]

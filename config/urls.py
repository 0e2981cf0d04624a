from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from config.api import api
from config.health import healthz

urlpatterns = [
    path("", RedirectView.as_view(url="/explorer/", permanent=False)),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("explorer/", include("explorer.urls")),
    path("settings/", include("policies.urls")),
    path("findings/", include("explorer.findings_urls")),
]

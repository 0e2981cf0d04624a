"""URLs. Dashboard pages live under `/a/<account slug>/` (lore.access.AccountPathMiddleware takes the slug off
before these patterns are matched); the same patterns without a slug redirect a person with one account."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from config.api import api
from config.health import healthz
from config.metrics import metrics
from members import views as members_views


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """The icon every page links (base.html), for browsers that ask for /favicon.ico anyway."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


urlpatterns = [
    path("", members_views.home, name="home"),
    path("welcome/", members_views.first_run, name="first_run"),
    # Browsers ask for /favicon.ico whatever the page links: send them to the icon every page names.
    path("favicon.ico", favicon),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            post_reset_login=True,
            post_reset_login_backend="django.contrib.auth.backends.ModelBackend",
            success_url="/",
        ),
        name="password_reset_confirm",
    ),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("explorer/", include("explorer.urls")),
    path("settings/", include("policies.urls")),
    path("settings/", include("members.urls")),
    path("findings/", include("explorer.findings_urls")),
]

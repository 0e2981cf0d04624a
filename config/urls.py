from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from config.api import api
from config.health import healthz


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """The icon every page links (base.html), for browsers that ask for /favicon.ico anyway."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


urlpatterns = [
    path("", RedirectView.as_view(url="/explorer/", permanent=False)),
    # Browsers ask for /favicon.ico whatever the page links: send them to the icon every page names.
    path("favicon.ico", favicon),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("explorer/", include("explorer.urls")),
    path("settings/", include("policies.urls")),
]

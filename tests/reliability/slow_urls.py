"""The product's URLs plus two that sleep in PostgreSQL, to meet the per-request statement timeout."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import urlpatterns as product_urlpatterns


def sleeps_in_the_database(request: HttpRequest) -> HttpResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(30)")
    return HttpResponse("finished")


urlpatterns = [
    path("slow/", sleeps_in_the_database),
    path("api/v1/slow", sleeps_in_the_database),
    *product_urlpatterns,
]

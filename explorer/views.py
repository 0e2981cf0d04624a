"""The Lore Explorer page (DESIGN.md §8)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
@login_required
def explorer(request: HttpRequest) -> HttpResponse:
    return render(request, "explorer/explorer.html", {})

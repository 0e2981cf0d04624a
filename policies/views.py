"""Settings → Retention Policies and API tokens (DESIGN.md §9)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
@login_required
def policy_list(request: HttpRequest) -> HttpResponse:
    return render(request, "policies/list.html", {})


@login_required
def policy_new(request: HttpRequest) -> HttpResponse:
    return render(request, "policies/list.html", {})

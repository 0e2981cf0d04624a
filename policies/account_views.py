"""Settings → Account: a form over the declared account settings (lore.account_settings) and the purge
schedule, so that nothing disappears unannounced."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from lore.access import account_of, account_view
from lore.account_settings import ACCOUNT_SETTINGS, account_settings_update, account_settings_values
from lore.activity import person
from lore.models import Account
from lore.purge import purge_forecast
from lore.roles import Role
from lore.rollups import account_health
from lore.schedule import next_sweep
from policies.charts import health_charts


class AccountSettingsForm(forms.Form):
    """One bounded whole-number field per declared setting."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        for setting in ACCOUNT_SETTINGS:
            self.fields[setting.name] = forms.IntegerField(
                label=setting.label, help_text=setting.help, min_value=setting.low, max_value=setting.high
            )


def purge_schedule(account: Account) -> dict[str, object]:
    """What the purge will do: after how many days, when the sweep runs next, and the next purge's size."""
    now = timezone.now()
    return {
        "purge_after_days": account.purge_after_days,
        "next_sweep": next_sweep(now),
        "forecast": purge_forecast(account, now),
    }


@require_http_methods(["GET", "POST"])
@account_view(Role.VIEWER, post=Role.ADMIN)
def account_settings(request: HttpRequest) -> HttpResponse:
    """Show the account's settings (purge_after_days, …) to every member; an admin changes them."""
    account = account_of(request)
    current = account_settings_values(account)
    # A setting a POST leaves out keeps its value (a script may change one setting); one sent empty is an error.
    data = (
        {**{k: str(v) for k, v in current.items()}, **request.POST.dict()}
        if request.method == "POST"
        else None
    )
    form = AccountSettingsForm(data, initial=current)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            changed = account_settings_update(
                account=account, values=form.cleaned_data, actor=person(request.user)
            )
            forecast = purge_forecast(account) if "purge_after_days" in changed else None
            messages.success(
                request, f"Saved. {forecast}." if forecast else "Saved." if changed else "Nothing changed."
            )
            return redirect("policies:account")
        status = 400
    rows = [(setting, form[setting.name]) for setting in ACCOUNT_SETTINGS]
    context = {"form": form, "rows": rows, "section": "account", **purge_schedule(account)}
    return render(request, "policies/account.html", context, status=status)


HEALTH_DAYS = 90


@require_GET
@account_view(Role.VIEWER)
def account_health_page(request: HttpRequest) -> HttpResponse:
    """Settings → Health: the account day by day over the last 90 days, from the daily rollups (today live)."""
    health = account_health(account_of(request), now=timezone.now(), days=HEALTH_DAYS)
    context = {"health": health, "charts": health_charts(health), "days": HEALTH_DAYS, "section": "health"}
    return render(request, "policies/health.html", context)

"""Dashboard URLs in tests: every dashboard page lives under its account's slug, `/a/<slug>/…`."""

from __future__ import annotations

from typing import Any

from django.test import Client

from lore.models import Account

DASHBOARD_PREFIXES = ("/explorer/", "/findings/", "/settings/")


def in_account(account: Account | str, path: str) -> str:
    """`/explorer/?q=x` → `/a/<slug>/explorer/?q=x` (a path outside the dashboard is left as it is)."""
    slug = account if isinstance(account, str) else account.slug
    return f"/a/{slug}{path}" if path.startswith(DASHBOARD_PREFIXES) else path


class AccountClient(Client):
    """A test client that works in one account: a slug-less dashboard path is sent inside the account."""

    def __init__(self, account: Account, **defaults: Any) -> None:
        super().__init__(**defaults)
        self.account = account

    def generic(self, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
        return super().generic(method, in_account(self.account, str(path)), *args, **kwargs)

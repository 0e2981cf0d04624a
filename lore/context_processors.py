from django.http import HttpRequest
from django.urls import reverse

from lore.access import account_reverse, role_reason
from lore.accounts import account_for_user, memberships_of
from lore.roles import Role, role_allows

# The main navigation: (label, URL name). A page is current when its path is under the entry's URL.
NAV = (
    ("Explorer", "explorer:index"),
    ("Findings", "findings:index"),
    ("Retention policies", "policies:list"),
    ("API tokens", "policies:tokens"),
)


def nav(request: HttpRequest) -> list[dict[str, object]]:
    """The main navigation's links, reverse()d inside the page's account, each saying whether it is current."""
    links = [(label, reverse(name)) for label, name in NAV]
    return [{"label": label, "url": url, "current": request.path.startswith(url)} for label, url in links]


def account(request: HttpRequest) -> dict[str, object]:
    """The account of the page, the person's other accounts (the switcher) and what their role may use (`can`:
    a control it may not is disabled, with `can.<x>_reason` saying why)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"current_account": None, "account_switch": [], "can": {}}
    membership = getattr(request, "membership", None)
    current = membership.account if membership else account_for_user(user)
    switch = [
        {
            "name": m.account.name,
            "url": account_reverse(m.account, "explorer:index"),
            "current": m.account == current,
        }
        for m in memberships_of(user)
    ]
    role = membership.role if membership else ""
    can = {
        "role": role,
        "edit": role_allows(role, Role.EDITOR),
        "admin": role_allows(role, Role.ADMIN),
        "edit_reason": role_reason(role, Role.EDITOR) if role else "",
        "admin_reason": role_reason(role, Role.ADMIN) if role else "",
    }
    nav_links = nav(request) if membership else []
    return {"current_account": current, "account_switch": switch, "can": can, "nav": nav_links}

from django.http import HttpRequest

from lore.accounts import account_for_user


def account(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"current_account": None}
    return {"current_account": account_for_user(user)}

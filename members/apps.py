from django.apps import AppConfig


class MembersConfig(AppConfig):
    """The team pages: first run, the account chooser, Settings → Members and Settings → Activity."""

    name = "members"
    default_auto_field = "django.db.models.BigAutoField"

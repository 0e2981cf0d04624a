from django.contrib import admin

from policies.models import PolicyRun, RetentionPolicy


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(admin.ModelAdmin):
    list_display = ("name", "account", "scope", "mode", "enabled", "updated_at")
    list_filter = ("mode", "enabled")


@admin.register(PolicyRun)
class PolicyRunAdmin(admin.ModelAdmin):
    list_display = (
        "pk",
        "policy_name",
        "trigger",
        "status",
        "matched",
        "archived",
        "started_at",
        "finished_at",
    )
    list_filter = ("status", "trigger")

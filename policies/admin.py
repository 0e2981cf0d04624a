from django.contrib import admin

from lore.activity import person
from lore.models import PolicyRun
from policies.models import RetentionPolicy
from policies.services import policy_delete


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(admin.ModelAdmin):
    list_display = ("name", "account", "scope", "mode", "enabled", "updated_at")
    list_filter = ("mode", "enabled")

    def delete_model(self, request, obj):  # noqa: ANN001, ANN201
        policy_delete(policy=obj, actor=person(request.user))

    def delete_queryset(self, request, queryset):  # noqa: ANN001, ANN201
        for policy in queryset:
            self.delete_model(request, policy)


@admin.register(PolicyRun)
class PolicyRunAdmin(admin.ModelAdmin):
    list_display = (
        "pk",
        "policy_name",
        "policy_id",
        "trigger",
        "status",
        "matched",
        "archived",
        "started_at",
        "finished_at",
    )
    list_filter = ("status", "trigger")

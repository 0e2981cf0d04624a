"""Admin registrations: useful to operators, and the changelist we benchmark the Explorer against."""

from django.contrib import admin

from lore.models import (
    Account,
    ApiToken,
    Lesson,
    LessonEvent,
    LessonEventBatch,
    LessonTag,
    Membership,
    ReadEvent,
)


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at")


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "account", "team")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "account", "prefix", "owner", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("hashed", "prefix")


@admin.register(Lesson)
class LessonAdmin(admin.ModelAdmin):
    list_display = ("key", "scope", "kind", "host", "seen_count", "read_count", "opened_count", "created_at")
    list_filter = ("kind", "host", "owner", "source_agent", "trigger", "origin_repo", "protected")
    search_fields = ("key", "content")
    show_facets = admin.ShowFacets.ALWAYS
    list_select_related = ("account",)
    raw_id_fields = ("archived_by_run",)


@admin.register(LessonTag)
class LessonTagAdmin(admin.ModelAdmin):
    list_display = ("tag", "lesson")
    raw_id_fields = ("lesson",)


@admin.register(ReadEvent)
class ReadEventAdmin(admin.ModelAdmin):
    list_display = ("account", "scope", "surface", "lesson_count", "at")


@admin.register(LessonEvent)
class LessonEventAdmin(admin.ModelAdmin):
    list_display = ("lesson", "action", "actor", "at")
    raw_id_fields = ("lesson", "run")


@admin.register(LessonEventBatch)
class LessonEventBatchAdmin(admin.ModelAdmin):
    list_display = ("action", "lessons", "first_lesson_id", "last_lesson_id", "run", "actor", "at")
    raw_id_fields = ("run",)

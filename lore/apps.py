from django.apps import AppConfig


class LoreConfig(AppConfig):
    name = "lore"
    verbose_name = "Lesson store"

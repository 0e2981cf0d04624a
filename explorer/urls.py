from django.urls import path

from explorer import views

app_name = "explorer"
urlpatterns = [
    path("", views.explorer, name="index"),
    path("rows/", views.explorer_rows, name="rows"),
    path("stats/", views.explorer_stats, name="stats"),
    path("menu/", views.explorer_menu, name="menu"),
    path("filter-control/", views.filter_control, name="filter_control"),
    path("restore/", views.restore_many, name="restore"),
    path("lessons/<int:lesson_id>/", views.lesson_sheet, name="sheet"),
    path(
        "lessons/<int:lesson_id>/<str:action>/",
        views.lesson_action,
        name="lesson_action",
    ),
]

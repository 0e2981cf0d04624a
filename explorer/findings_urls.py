from django.urls import path

from explorer import findings_views as views

app_name = "findings"
urlpatterns = [
    path("", views.findings, name="index"),
    path("run/", views.garden_run_now, name="run"),
    path("<int:finding_id>/apply/", views.finding_apply_view, name="apply"),
    path("<int:finding_id>/dismiss/", views.finding_dismiss_view, name="dismiss"),
    path("<int:finding_id>/undo/", views.finding_undo_view, name="undo"),
]

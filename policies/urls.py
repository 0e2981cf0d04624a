from django.urls import path

from policies import account_views, transfer_views, views

app_name = "policies"
urlpatterns = [
    path("policies/", views.policy_list, name="list"),
    path("policies/new/", views.policy_new, name="new"),
    path("policies/live/", views.policy_live, name="live"),
    path("policies/<int:policy_id>/", views.policy_detail, name="detail"),
    path("policies/<int:policy_id>/edit/", views.policy_edit, name="edit"),
    path("policies/<int:policy_id>/count/", views.policy_count, name="count"),
    path("policies/<int:policy_id>/forecast/", views.policy_forecast, name="forecast"),
    path("policies/<int:policy_id>/enabled/", views.policy_enable, name="enable"),
    path("policies/<int:policy_id>/run/", views.policy_run, name="run_new"),
    path("policies/<int:policy_id>/delete/", views.policy_delete_view, name="delete"),
    path("runs/<int:run_id>/", views.run_detail, name="run"),
    path("runs/<int:run_id>/undo/", views.run_undo, name="undo"),
    path("transfers/", transfer_views.transfers, name="transfers"),
    path("transfers/export/", transfer_views.transfer_export, name="transfer_export"),
    path("transfers/import/", transfer_views.transfer_import, name="transfer_import"),
    path("transfers/<int:job_id>/", transfer_views.transfer_job, name="transfer"),
    path("transfers/<int:job_id>/download/", transfer_views.transfer_download, name="transfer_download"),
    path("tokens/", views.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_view, name="revoke"),
    path("account/", account_views.account_settings, name="account"),
    path("health/", account_views.account_health_page, name="health"),
]

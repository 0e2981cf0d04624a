from django.urls import path

from policies import account_views, views

app_name = "policies"
urlpatterns = [
    path("policies/", views.policy_list, name="list"),
    path("policies/new/", views.policy_new, name="new"),
    path("policies/live/", views.policy_live, name="live"),
    path("policies/<int:policy_id>/", views.policy_detail, name="detail"),
    path("policies/<int:policy_id>/edit/", views.policy_edit, name="edit"),
    path("policies/<int:policy_id>/count/", views.policy_count, name="count"),
    path("policies/<int:policy_id>/enabled/", views.policy_enable, name="enable"),
    path("policies/<int:policy_id>/run/", views.policy_run, name="run_new"),
    path("policies/<int:policy_id>/delete/", views.policy_delete_view, name="delete"),
    path("runs/<int:run_id>/", views.run_detail, name="run"),
    path("runs/<int:run_id>/undo/", views.run_undo, name="undo"),
    path("tokens/", views.token_list, name="tokens"),
    path("account/", account_views.account_settings, name="account"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_view, name="revoke"),
]

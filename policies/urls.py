from django.urls import path

from policies import views

app_name = "policies"
urlpatterns = [
    path("policies/", views.policy_list, name="list"),
    path("policies/new/", views.policy_new, name="new"),
]

from django.urls import path

from members import views

app_name = "members"
urlpatterns = [
    path("members/", views.member_list, name="list"),
    path("members/<int:membership_id>/role/", views.member_role, name="role"),
    path("members/<int:membership_id>/remove/", views.member_remove, name="remove"),
    path("activity/", views.activity, name="activity"),
]

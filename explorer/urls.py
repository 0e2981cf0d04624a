from django.urls import path

from explorer import views

app_name = "explorer"
urlpatterns = [
    path("", views.explorer, name="index"),
]

from django.urls import path

from memory import views

urlpatterns = [
    path("", views.console_home, name="console-home"),
]

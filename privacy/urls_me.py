"""End-user privacy portal ("What you remember about me"), mounted at /me/."""

from django.urls import path

from privacy import views_me

urlpatterns = [
    path("", views_me.me_home, name="me-home"),
    path("link/<str:token>/", views_me.me_link, name="me-link"),
    path("memories/<int:pk>/correct/", views_me.me_correct, name="me-correct"),
    path("memories/<int:pk>/delete/", views_me.me_delete, name="me-delete"),
    path("forget/", views_me.me_forget, name="me-forget"),
    path("goodbye/", views_me.me_goodbye, name="me-goodbye"),
    path("export/", views_me.me_export, name="me-export"),
    path("download/<str:token>/", views_me.me_download, name="me-download"),
    path("pause/", views_me.me_pause, name="me-pause"),
]

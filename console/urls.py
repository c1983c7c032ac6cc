from django.urls import include, path

from console.views import home

urlpatterns = [
    path("", home.dashboard, name="console-home"),
    # subjects, memories (version chains, actions, reveal)
    path("", include("console.urls_subjects")),
    # observation queue, recall traces + replay, dashboards, agents
    path("", include("console.urls_review")),
    # privacy cases, audit viewer
    path("", include("console.urls_privacy")),
]

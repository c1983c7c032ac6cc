"""Subjects, memories (detail, version chain, staff actions) and the audited reveal."""

from django.urls import path

from console.views import subjects

urlpatterns = [
    path("subjects/", subjects.subject_list, name="console-subjects"),
    path("subjects/<int:pk>/", subjects.subject_detail, name="console-subject"),
    path("memories/<int:pk>/", subjects.memory_detail, name="console-memory"),
    path(
        "memories/<int:pk>/<slug:action>/",
        subjects.memory_action,
        name="console-memory-action",
    ),
    path("reveal/<slug:kind>/<int:pk>/", subjects.reveal, name="console-reveal"),
]

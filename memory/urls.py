from django.urls import path

from memory import apis

urlpatterns = [
    path("subjects/<str:subject_id>", apis.SubjectApi.as_view(), name="api-subject"),
    path(
        "subjects/<str:subject_id>/portal-link",
        apis.PortalLinkApi.as_view(),
        name="api-portal-link",
    ),
    path("subjects/<str:subject_id>/events", apis.EventsApi.as_view(), name="api-events"),
    path("subjects/<str:subject_id>/memories", apis.MemoriesApi.as_view(), name="api-memories"),
    path(
        "subjects/<str:subject_id>/memories/<int:memory_id>",
        apis.MemoryDetailApi.as_view(),
        name="api-memory",
    ),
    path(
        "subjects/<str:subject_id>/memories/<int:memory_id>/history",
        apis.MemoryHistoryApi.as_view(),
        name="api-memory-history",
    ),
    path("subjects/<str:subject_id>/profile", apis.ProfileApi.as_view(), name="api-profile"),
    path(
        "knowledge/<str:doc_id>/updated",
        apis.KnowledgeUpdatedApi.as_view(),
        name="api-knowledge-updated",
    ),
    path("subjects/<str:subject_id>/recall", apis.RecallApi.as_view(), name="api-recall"),
    path(
        "subjects/<str:subject_id>/sessions/<str:session_id>/context",
        apis.SessionContextApi.as_view(),
        name="api-session-context",
    ),
]

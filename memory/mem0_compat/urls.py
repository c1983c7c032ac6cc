"""Routes of the mem0-compatible door, mounted at /mem0/. mem0's clients send trailing slashes
on the Platform paths and none on the OSS server's; both forms are accepted everywhere."""

from django.urls import re_path

from memory.mem0_compat import views

ID = r"(?P<memory_id>[^/]+)"

urlpatterns = [
    re_path(r"^v1/ping/?$", views.PingView.as_view(), name="mem0-ping"),
    re_path(r"^v3/memories/add/?$", views.AddV3View.as_view(), name="mem0-add-v3"),
    re_path(r"^v3/memories/search/?$", views.SearchV3View.as_view(), name="mem0-search-v3"),
    re_path(r"^v3/memories/?$", views.ListV3View.as_view(), name="mem0-list-v3"),
    re_path(r"^v2/memories/search/?$", views.SearchV2View.as_view(), name="mem0-search-v2"),
    re_path(r"^v2/memories/?$", views.ListV2View.as_view(), name="mem0-list-v2"),
    re_path(r"^v1/memories/search/?$", views.SearchV1View.as_view(), name="mem0-search-v1"),
    re_path(r"^v1/memories/?$", views.MemoriesV1View.as_view(), name="mem0-memories-v1"),
    re_path(rf"^v1/memories/{ID}/history/?$", views.HistoryV1View.as_view(), name="mem0-history"),
    re_path(rf"^v1/memories/{ID}/?$", views.MemoryV1View.as_view(), name="mem0-memory-v1"),
    re_path(r"^v1/event/(?P<event_id>[^/]+)/?$", views.EventView.as_view(), name="mem0-event"),
    re_path(r"^v1/entities/?$", views.EntitiesV1View.as_view(), name="mem0-entities"),
    re_path(
        r"^v2/entities/(?P<entity_type>[^/]+)/(?P<entity_id>[^/]+)/?$",
        views.EntityV2View.as_view(),
        name="mem0-entity",
    ),
    # mem0's OSS server (server/main.py)
    re_path(r"^memories/?$", views.OssMemoriesView.as_view(), name="mem0-oss-memories"),
    re_path(r"^search/?$", views.OssSearchView.as_view(), name="mem0-oss-search"),
    re_path(rf"^memories/{ID}/history/?$", views.HistoryV1View.as_view(), name="mem0-oss-history"),
    re_path(rf"^memories/{ID}/?$", views.OssMemoryView.as_view(), name="mem0-oss-memory"),
    re_path(r"^", views.mem0_not_found),
]

"""Review part of the console: observation queue, recall traces (+ replay), agents."""

from django.urls import path

from console.views import agents, queue, traces

urlpatterns = [
    path("queue/", queue.queue, name="console-queue"),
    path("queue/<int:pk>/resolve/", queue.queue_resolve, name="console-queue-resolve"),
    path("queue/bulk/", queue.queue_bulk, name="console-queue-bulk"),
    path("traces/", traces.trace_list_view, name="console-traces"),
    path("traces/<int:pk>/", traces.trace_detail, name="console-trace"),
    path("traces/<int:pk>/replay/", traces.trace_replay, name="console-trace-replay"),
    path("agents/", agents.agent_list_view, name="console-agents"),
    path("agents/new/", agents.agent_create_view, name="console-agent-create"),
    path("agents/<int:pk>/", agents.agent_detail, name="console-agent"),
    path("agents/<int:pk>/scopes/", agents.agent_scopes, name="console-agent-scopes"),
    path("agents/<int:pk>/grants/", agents.agent_grant, name="console-agent-grant"),
    path(
        "agents/<int:pk>/grants/<int:subject_pk>/remove/",
        agents.agent_ungrant,
        name="console-agent-ungrant",
    ),
    path("agents/<int:pk>/revoke/", agents.agent_revoke_view, name="console-agent-revoke"),
]

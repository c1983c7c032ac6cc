from django.contrib import admin
from guardian.admin import GuardedModelAdmin

from memory.models import Event, Memory, Observation, RecallTrace, Subject


@admin.register(Subject)
class SubjectAdmin(GuardedModelAdmin):
    list_display = ["external_id", "tenant", "display_name", "paused", "last_activity_at"]
    list_filter = ["tenant", "paused"]
    search_fields = ["external_id", "display_name"]
    raw_id_fields = ["end_user"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["id", "subject", "session_id", "role", "occurred_at", "extraction_status"]
    list_filter = ["role", "extraction_status"]
    raw_id_fields = ["subject"]
    # Events are append-only (database trigger); the admin shows them read-only.
    readonly_fields = [field.name for field in Event._meta.fields]

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    list_display = ["id", "subject", "category", "status", "version", "confidence", "importance"]
    list_filter = ["status", "category", "kind"]
    search_fields = ["content"]
    raw_id_fields = ["subject", "source_event", "supersedes", "superseded_by"]
    exclude = ["embedding"]
    readonly_fields = ["search_text"]


@admin.register(Observation)
class ObservationAdmin(admin.ModelAdmin):
    list_display = ["id", "subject", "kind", "status", "created_at", "resolved_at"]
    list_filter = ["kind", "status"]
    raw_id_fields = ["subject", "memory", "related_memories"]


@admin.register(RecallTrace)
class RecallTraceAdmin(admin.ModelAdmin):
    list_display = ["id", "subject", "agent", "route", "total_ms", "created_at"]
    raw_id_fields = ["subject", "agent"]

from django.contrib import admin

from audit.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor_type", "actor_id", "action", "target_type", "target_id"]
    list_filter = ["actor_type", "action"]

    # Append-only: the database refuses changes anyway; the admin doesn't offer them.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

from django.contrib import admin
from guardian.admin import GuardedModelAdmin

from accounts.models import Agent, StaffTenantAccess, Tenant


@admin.register(Tenant)
class TenantAdmin(GuardedModelAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "tenant", "key_prefix", "scopes", "is_active", "last_used_at"]
    list_filter = ["tenant", "is_active"]
    search_fields = ["name", "key_prefix"]
    # The key hash is not a secret by itself, but nobody needs to edit it by hand.
    readonly_fields = ["key_prefix", "key_hash", "last_used_at", "revoked_at", "user"]


@admin.register(StaffTenantAccess)
class StaffTenantAccessAdmin(admin.ModelAdmin):
    list_display = ["user", "limited"]

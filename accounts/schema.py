"""OpenAPI description of agent-key auth (gives /api/docs/ its "Authorize" button)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class AgentKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.AgentKeyAuthentication"
    name = "AgentKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "egk_<prefix>_<secret>",
            "description": "An agent key from `manage.py create_agent` or the console.",
        }

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts import keys
from accounts.models import Agent
from accounts.services import agent_touch

MSG_BAD_KEY = "Invalid or revoked agent key."


def agent_for_key(key: str) -> Agent:
    """The active agent holding this key (constant-time compare), or AuthenticationFailed.
    Shared by every door that takes agent keys (the v1 API, the mem0-compatible API)."""
    prefix = keys.parse_prefix(key)
    if prefix is None:
        raise exceptions.AuthenticationFailed(MSG_BAD_KEY)
    agent = (
        Agent.objects.select_related("tenant", "user")
        .filter(key_prefix=prefix, is_active=True)
        .first()
    )
    if agent is None or not keys.key_matches(key, agent.key_hash):
        raise exceptions.AuthenticationFailed(MSG_BAD_KEY)
    agent_touch(agent=agent)
    return agent


class AgentKeyAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer egk_…` → the Agent (as request.user and request.auth)."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Agent, Agent] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        parts = header.split()
        if len(parts) != 2 or parts[0].lower() != self.keyword.lower():
            raise exceptions.AuthenticationFailed("Use 'Authorization: Bearer <agent key>'.")
        agent = agent_for_key(parts[1])
        return agent, agent

    def authenticate_header(self, request: Any) -> str:
        return 'Bearer realm="engram"'

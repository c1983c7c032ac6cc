"""OpenAPI for the agent API: agent-key auth (the "Authorize" button of /api/docs/), the error
responses every operation can give, and the constraints validation enforces (path parameter
patterns, list sizes), so clients generated from /api/schema/ handle errors and limits."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from core.validation import NO_NUL_PATTERN, NON_BLANK_NO_NUL_PATTERN

ERROR_DESCRIPTIONS = {
    400: "Invalid input: see `error.fields` (`invalid`), a body that is not JSON "
    "(`malformed_json`), or a parameter that cannot be stored (NUL, lone surrogates).",
    401: "No agent key, or an unknown or revoked one (`not_authenticated`).",
    403: "The agent key lacks the scope this request needs (`permission_denied`).",
    404: "No such subject or memory for this agent (another tenant's, not granted to a "
    "restricted agent, or never created), or no such endpoint (`not_found`).",
    409: "Only the current version of a memory can be corrected (`not_current`).",
    413: "The request body is larger than ENGRAM_MAX_REQUEST_BYTES (`payload_too_large`).",
    415: "The body is not `application/json` (`unsupported_media_type`).",
    423: "Memory is paused for this subject (restriction of processing); nothing was stored "
    "(`subject_paused`).",
    503: "The database or the broker is unavailable; retry after `Retry-After` seconds.",
}
BODY_METHODS = ("POST", "PUT", "PATCH")


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


class AgentApiSchema(AutoSchema):
    """drf-spectacular's AutoSchema plus the error side of the contract.

    Views declare what is specific to them: `path_parameter_schemas` (the constraints their
    path parameters are validated against) and `error_statuses` (domain errors per method,
    e.g. 409, 423); the statuses every operation shares are added here.
    """

    def _resolve_path_parameters(self, variables: list[str]) -> list[dict[str, Any]]:
        parameters = super()._resolve_path_parameters(variables)
        declared = getattr(self.view, "path_parameter_schemas", {})
        for parameter in parameters:
            if parameter["name"] in declared:
                parameter["schema"] = dict(declared[parameter["name"]])
        return parameters

    def _map_serializer_field(self, field: Any, direction: str, bypass_extensions: bool = False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and isinstance(schema, dict)
            and not {"pattern", "format", "enum", "$ref"} & set(schema)
        ):
            # DRF refuses NUL in every CharField (lone surrogates cannot occur in valid UTF-8)
            # and, when it trims, a value that is only whitespace. A field that may be blank
            # gets the non-blank pattern too: drf-spectacular adds "" as a separate `oneOf`
            # branch, which a pattern matching "" would make ambiguous.
            keeps_whitespace = not field.trim_whitespace and not field.allow_blank
            schema["pattern"] = NO_NUL_PATTERN if keeps_whitespace else NON_BLANK_NO_NUL_PATTERN
        if isinstance(field, serializers.ListSerializer) and isinstance(schema, dict):
            minimum = field.min_length if field.min_length is not None else 0
            if not field.allow_empty:
                minimum = max(minimum, 1)
            if minimum:
                schema["minItems"] = minimum
            if field.max_length is not None:
                schema["maxItems"] = field.max_length
        return schema

    def _error_statuses(self) -> list[int]:
        # 404 on every operation: besides unknown subjects and memories, a path that no
        # longer matches a route (e.g. a parameter of "..") is a JSON 404 too.
        statuses = {400, 404, 503}
        if self.view.authentication_classes:
            statuses |= {401, 403}
        if self.method in BODY_METHODS:
            statuses.add(413)
            if self.get_request_serializer() is not None:
                statuses.add(415)
        statuses |= set(getattr(self.view, "error_statuses", {}).get(self.method.lower(), ()))
        return sorted(statuses)

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:
        from memory.serializers import ErrorOutputSerializer

        responses = super()._get_response_bodies(direction)
        if not self.path.startswith("/api/v1/"):
            return responses
        error_ref = self.resolve_serializer(ErrorOutputSerializer, "response").ref
        for code in self._error_statuses():
            response: dict[str, Any] = {
                "description": ERROR_DESCRIPTIONS[code],
                "content": {"application/json": {"schema": error_ref}},
            }
            if code == 503:
                response["headers"] = {
                    "Retry-After": {
                        "schema": {"type": "integer", "minimum": 0},
                        "description": "Seconds to wait before retrying.",
                    }
                }
            responses.setdefault(str(code), response)
        return responses

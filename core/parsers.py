"""Request parsers of the API."""

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MSG_TOO_DEEP = "JSON parse error - the document is nested too deeply."


class JSONParser(parsers.JSONParser):
    """DRF's strict JSON parser (no NaN / Infinity), plus: a document nested deeper than the
    decoder's recursion limit is a parse error (400 `malformed_json`), not a RecursionError."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(MSG_TOO_DEEP) from exc

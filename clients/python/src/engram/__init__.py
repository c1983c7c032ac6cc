"""Engram's Python client: `Engram` (sync) and `AsyncEngram` over the v1 REST API."""

from engram._async import AsyncEngram
from engram._base import NO_RETRIES, VERSION, RetryPolicy
from engram._sync import Engram
from engram.errors import (
    APIError,
    AuthenticationError,
    ConflictError,
    ConnectionFailedError,
    EngramError,
    InvalidRequestError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
    ServiceUnavailableError,
    SubjectPausedError,
)
from engram.types import (
    AppendResult,
    ErasureReceipt,
    Event,
    EventInput,
    Extraction,
    Memory,
    Page,
    PortalLink,
    Profile,
    Recall,
    RecalledMemory,
    SessionContext,
    WriteResult,
)

__version__ = VERSION

__all__ = [
    "NO_RETRIES",
    "APIError",
    "AppendResult",
    "AsyncEngram",
    "AuthenticationError",
    "ConflictError",
    "ConnectionFailedError",
    "Engram",
    "EngramError",
    "ErasureReceipt",
    "Event",
    "EventInput",
    "Extraction",
    "InvalidRequestError",
    "Memory",
    "NotFoundError",
    "Page",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PortalLink",
    "Profile",
    "RateLimitedError",
    "Recall",
    "RecalledMemory",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailableError",
    "SessionContext",
    "SubjectPausedError",
    "WriteResult",
]

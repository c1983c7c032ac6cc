"""Domain errors. The API exception handler renders them as the contract's error shape."""

from typing import Any


class ApplicationError(Exception):
    """A client-visible error: `code` is stable and machine-readable, `message` is for people."""

    status_code = 400

    def __init__(
        self,
        code: str,
        message: str,
        *,
        fields: dict[str, Any] | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields or {}
        if status_code is not None:
            self.status_code = status_code


class NotFound(ApplicationError):
    status_code = 404

    def __init__(self, message: str = "Not found.") -> None:
        super().__init__("not_found", message)


class SubjectPaused(ApplicationError):
    status_code = 423

    def __init__(self) -> None:
        super().__init__(
            "subject_paused",
            "Memory is paused for this subject (restriction of processing); nothing was stored.",
        )

"""Encryption at rest for raw event content (Fernet, keys from the environment).

`ENGRAM_ENCRYPTION_KEYS` is a comma-separated list of Fernet keys; the first encrypts, all
decrypt (MultiFernet), so a key can be rotated: put the new key first, run
`manage.py rotate_encryption_key`, then drop the old one. Without the setting a key is derived
from DJANGO_SECRET_KEY (fine for development; set real keys in production).

Stored values carry a marker (`fernet:`), so rows written before encryption was enabled still
read as plaintext.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models

MARKER = "fernet:"


@lru_cache(maxsize=4)
def _fernet(keys: tuple[str, ...], secret_key: str) -> MultiFernet:
    if not keys:
        derived = base64.urlsafe_b64encode(
            hashlib.sha256(f"engram-events:{secret_key}".encode()).digest()
        )
        return MultiFernet([Fernet(derived)])
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except (ValueError, TypeError) as exc:
        raise ImproperlyConfigured(
            "ENGRAM_ENCRYPTION_KEYS must be Fernet keys; generate one with `python -c "
            "'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`."
        ) from exc


def fernet() -> MultiFernet:
    return _fernet(tuple(settings.ENGRAM_ENCRYPTION_KEYS), settings.SECRET_KEY)


def encrypt(plaintext: str) -> str:
    return MARKER + fernet().encrypt(plaintext.encode()).decode()


def decrypt(stored: str) -> str:
    if not stored.startswith(MARKER):
        return stored  # written before encryption was enabled
    try:
        return fernet().decrypt(stored[len(MARKER) :].encode()).decode()
    except InvalidToken as exc:
        raise ImproperlyConfigured(
            "Cannot decrypt event content: the key that wrote it is not in ENGRAM_ENCRYPTION_KEYS."
        ) from exc


def rotate(stored: str) -> str:
    """Re-encrypt with the primary key (plaintext rows get encrypted)."""
    if not stored.startswith(MARKER):
        return encrypt(stored)
    return MARKER + fernet().rotate(stored[len(MARKER) :].encode()).decode()


class EncryptedTextField(models.TextField):
    """A text column holding Fernet ciphertext; Python code sees plaintext.

    Not searchable by content in SQL (that is the point); lookups other than isnull are
    meaningless on it.
    """

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return value if value is None else decrypt(value)

    def to_python(self, value: Any) -> Any:
        if value is None or not isinstance(value, str):
            return value
        return decrypt(value)

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return value if value is None else encrypt(value)

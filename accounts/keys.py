"""Agent API keys, healthchecks-style: a recognisable prefix, an HMAC at rest, shown once.

Key format: `egk_<8-char lookup prefix>_<32-char secret>`. We store the prefix (for lookup) and
HMAC-SHA256(pepper, key); verification uses a constant-time comparison.
"""

import hashlib
import hmac
import secrets
import string

from django.conf import settings

KEY_MARKER = "egk_"
PREFIX_LENGTH = 8
SECRET_LENGTH = 32
_ALPHABET = string.ascii_letters + string.digits


def generate_key() -> tuple[str, str]:
    """Returns (full key, lookup prefix)."""
    prefix = "".join(secrets.choice(_ALPHABET) for _ in range(PREFIX_LENGTH))
    secret = "".join(secrets.choice(_ALPHABET) for _ in range(SECRET_LENGTH))
    return f"{KEY_MARKER}{prefix}_{secret}", prefix


def parse_prefix(key: str) -> str | None:
    if not key.startswith(KEY_MARKER):
        return None
    parts = key[len(KEY_MARKER) :].split("_")
    if len(parts) != 2 or len(parts[0]) != PREFIX_LENGTH or len(parts[1]) != SECRET_LENGTH:
        return None
    return parts[0]


def hash_key(key: str) -> str:
    pepper = settings.ENGRAM_AGENT_KEY_PEPPER.encode()
    return hmac.new(pepper, key.encode(), hashlib.sha256).hexdigest()


def key_matches(key: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_key(key), stored_hash)

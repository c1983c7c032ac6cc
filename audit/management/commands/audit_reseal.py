import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.services import audit_chain_reseal


class Command(BaseCommand):
    help = (
        "Rotate ENGRAM_AUDIT_HMAC_KEY: check every seal against the old key, then re-seal "
        "with the configured (new) key. Run as the table owner, with web and worker stopped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--old-key-env",
            default="ENGRAM_AUDIT_HMAC_OLD_KEY",
            help="environment variable holding the old key (default: %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        old_key = os.environ.get(options["old_key_env"], "")
        if not old_key:
            raise CommandError(f"Set {options['old_key_env']} to the previous audit key.")
        try:
            count = audit_chain_reseal(old_key=old_key)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Re-sealed {count} audit entries."))

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.selectors import HEAD_FORMAT, audit_chain_verify


class Command(BaseCommand):
    help = (
        "Verify the audit log's keyed hash chains; exits non-zero at the first broken link. "
        "With --head, also check against a head exported earlier by audit_export_head "
        "(detects dropped newest entries and an emptied table)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--head", help="a file written by `manage.py audit_export_head`")

    def handle(self, *args: Any, **options: Any) -> None:
        head = _read_head(options["head"]) if options["head"] else None
        result = audit_chain_verify(head=head)
        if not result.ok:
            raise CommandError(
                f"Audit chain broken at entry {result.broken_id} ({result.problem}); "
                f"{result.checked} entries checked before it."
            )
        anchored = f", consistent with the head of {len(head['chains'])} chain(s)" if head else ""
        self.stdout.write(
            self.style.SUCCESS(f"Audit chain intact: {result.checked} entries{anchored}.")
        )


def _read_head(path: str) -> dict[str, Any]:
    try:
        head = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CommandError(f"Cannot read the exported head {path}: {exc}") from exc
    if not isinstance(head, dict) or head.get("format") != HEAD_FORMAT:
        raise CommandError(f"{path} is not an audit head ({HEAD_FORMAT}).")
    return head

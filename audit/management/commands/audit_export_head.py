import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from audit.selectors import audit_chain_head


class Command(BaseCommand):
    help = (
        "Print (or write) the newest entry of every audit chain as JSON. Store it outside "
        "this database (a ticket, a WORM bucket, another system's log); "
        "`audit_verify --head FILE` then detects entries dropped from the end."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", help="write to this file instead of stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        document = json.dumps(audit_chain_head(), indent=2, sort_keys=True)
        if options["output"]:
            Path(options["output"]).write_text(document + "\n", encoding="utf-8")
            self.stderr.write(f"Audit head written to {options['output']}.")
        else:
            self.stdout.write(document)

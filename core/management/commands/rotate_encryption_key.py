from django.core.management.base import BaseCommand, CommandParser
from django.db import connection, transaction

from audit.services import actor_for_task, audit_record
from core import crypto
from memory.models import Event


class Command(BaseCommand):
    help = (
        "Re-encrypt all event content with the first key of ENGRAM_ENCRYPTION_KEYS "
        "(also encrypts rows stored before encryption was enabled). Resumable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=1000)

    def handle(self, *args: object, **options: object) -> None:
        batch_size = int(options["batch_size"])
        total = Event.objects.count()
        done, last_id = 0, 0
        while True:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT id, content FROM memory_event WHERE id > %s ORDER BY id LIMIT %s",
                    [last_id, batch_size],
                )
                rows = cursor.fetchall()
            if not rows:
                break
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL engram.event_write = 'rotate'")
                cursor.executemany(
                    "UPDATE memory_event SET content = %s WHERE id = %s",
                    [(crypto.rotate(content), pk) for pk, content in rows],
                )
                audit_record(
                    actor=actor_for_task("rotate_encryption_key"),
                    action="event.reencrypt",
                    target_type="memory.event",
                    target_id=f"{rows[0][0]}-{rows[-1][0]}",
                    changed_fields=["content"],
                    reason=f"{len(rows)} events",
                )
            done += len(rows)
            last_id = rows[-1][0]
            self.stdout.write(f"  {done}/{total} events re-encrypted")
        self.stdout.write(self.style.SUCCESS(f"Done: {done} events use the primary key."))

from django.core.management.base import BaseCommand, CommandError

from audit.selectors import audit_chain_verify


class Command(BaseCommand):
    help = "Verify the audit log's hash chain; exits non-zero at the first broken link."

    def handle(self, *args: object, **options: object) -> None:
        result = audit_chain_verify()
        if not result.ok:
            raise CommandError(
                f"Audit chain broken at entry {result.broken_id} ({result.problem}); "
                f"{result.checked} entries checked before it."
            )
        self.stdout.write(self.style.SUCCESS(f"Audit chain intact: {result.checked} entries."))

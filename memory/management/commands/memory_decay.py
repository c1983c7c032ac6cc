from django.core.management.base import BaseCommand, CommandParser

from audit.services import actor_for_task
from memory.lifecycle import DECAY_RULES, memories_decay, memories_purge


class Command(BaseCommand):
    help = "Apply the decay and forgetting rules (use --dry-run to see what would change)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="report only, change nothing")
        parser.add_argument("--verbose-list", action="store_true", help="list every memory")

    def handle(self, *args: object, **options: object) -> None:
        dry_run = bool(options["dry_run"])
        actor = actor_for_task("memory_decay")
        report = memories_decay(actor=actor, dry_run=dry_run)
        verb = "would change" if dry_run else "changed"
        counts = report.by_rule()
        for rule in DECAY_RULES:
            self.stdout.write(f"{rule:<28} {verb} {counts[rule]}")
        if options["verbose_list"] or dry_run:
            for change in report.changes[:200]:
                self.stdout.write(
                    f"  memory {change.memory_id} (subject {change.subject_id}) → "
                    f"{change.new_status} [{change.rule}, effective importance "
                    f"{change.effective_importance}]"
                )
        if not dry_run:
            self.stdout.write(
                f"purged {memories_purge(actor=actor)} memories past the grace period"
            )

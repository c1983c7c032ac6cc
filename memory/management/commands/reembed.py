from django.core.management.base import BaseCommand, CommandParser

from audit.services import actor_for_task
from memory.embeddings import get_embedder
from memory.services import memories_reembed


class Command(BaseCommand):
    help = "Re-embed memories after an embedding model change (resumable, batched)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", help="re-embed every memory")
        parser.add_argument("--batch-size", type=int, default=256)

    def handle(self, *args: object, **options: object) -> None:
        name = get_embedder().name
        self.stdout.write(f"Embedding model: {name}")

        def progress(done: int, total: int) -> None:
            self.stdout.write(f"  {done}/{total} memories re-embedded")

        count = memories_reembed(
            actor=actor_for_task("reembed"),
            force=bool(options["all"]),
            batch_size=int(options["batch_size"]),
            progress=progress,
        )
        self.stdout.write(self.style.SUCCESS(f"Done: {count} memories now use {name}."))

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import agent_create, tenant_get_or_create
from audit.services import actor_for_task
from core.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Create an agent (API client) in a tenant; prints the new key as the last line."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--tenant", required=True, help="tenant slug (created if needed)")
        parser.add_argument("--scopes", default="read,write", help="comma list of read,write,erase")
        parser.add_argument(
            "--restricted",
            action="store_true",
            help="the agent sees only subjects explicitly granted to it (guardian)",
        )

    def handle(self, *args: object, **options: object) -> None:
        actor = actor_for_task("create_agent")
        try:
            tenant = tenant_get_or_create(slug=str(options["tenant"]), actor=actor)
            created = agent_create(
                tenant=tenant,
                name=str(options["name"]),
                scopes=str(options["scopes"]).split(","),
                restricted_to_granted_subjects=bool(options["restricted"]),
                actor=actor,
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(
            f"Created agent {created.agent.name!r} in tenant {tenant.slug!r} "
            f"with scopes {','.join(created.agent.scopes)}. "
            "Store the key now; it is not shown again:"
        )
        self.stdout.write(created.key)

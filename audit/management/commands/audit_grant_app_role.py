import os
import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction
from psycopg import sql

ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


class Command(BaseCommand):
    help = (
        "Create (if missing) the database role the web, worker and beat processes use, and "
        "grant it the reads and writes of every Engram table, but only SELECT and INSERT on "
        "the audit log. Run it as the owner of the tables, after `migrate` (docker-compose's "
        "migrate service does). The app role then cannot UPDATE, DELETE, TRUNCATE or disable "
        "the triggers of audit_auditentry."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", help="e.g. engram_app")
        parser.add_argument(
            "--password-env",
            default="",
            help="environment variable with the role's password (sets it; creates the role)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        role = options["role"]
        if not ROLE_NAME.fullmatch(role):
            raise CommandError("The role name must be lower-case letters, digits and _.")
        password = os.environ.get(options["password_env"], "") if options["password_env"] else ""
        name = sql.Identifier(role)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT rolsuper, pg_has_role(%s, tableowner, 'USAGE') FROM pg_roles, pg_tables "
                "WHERE rolname = %s AND tablename = 'audit_auditentry'",
                [role, role],
            )
            found = cursor.fetchone()
            if found is not None and any(found):
                raise CommandError(f"{role} is a superuser or owns the audit table; use another.")
            if found is None:
                if not password:
                    raise CommandError(f"Role {role} does not exist; pass --password-env.")
                statement = sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}")
                cursor.execute(self._sql(statement.format(name, sql.Literal(password))))
            elif password:
                statement = sql.SQL("ALTER ROLE {} PASSWORD {}")
                cursor.execute(self._sql(statement.format(name, sql.Literal(password))))
            for grant in (
                "GRANT USAGE ON SCHEMA public TO {}",
                "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {}",
                "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}",
                # Append-only for the app: no UPDATE, DELETE or TRUNCATE, and not the owner,
                # so it cannot disable the triggers either.
                "REVOKE UPDATE, DELETE, TRUNCATE, TRIGGER, REFERENCES ON audit_auditentry FROM {}",
            ):
                cursor.execute(self._sql(sql.SQL(grant).format(name)))
        self.stdout.write(
            self.style.SUCCESS(f"Granted {role}; the audit log is append-only to it.")
        )

    @staticmethod
    def _sql(composed: sql.Composed) -> str:
        return composed.as_string(connection.connection)

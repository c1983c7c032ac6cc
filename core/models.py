import uuid

from django.db import models


class BaseModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True, db_index=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class OutboxMessage(models.Model):
    """A Celery task message, stored in the same transaction as the change that needs it.

    The transactional outbox: a request commits its rows and their messages together and never
    waits for the broker. `core.outbox.outbox_relay` publishes the messages after commit (and a
    beat task every few seconds catches up after a broker outage), then deletes them, so a
    message is delivered at least once and nothing acknowledged is lost while Redis is down.
    """

    # The Celery task id: a message relayed twice (crash between publish and delete) keeps it.
    task_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    task = models.CharField(max_length=200)
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    # Compare-and-set claim of one relay; a relay that died leaves it to expire.
    claimed_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # The person a message carries data of (a recall trace holds their query): erasing them
    # deletes their waiting messages too. A plain id, no FK: the message may outlive the row.
    subject_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.task} ({self.task_id})"

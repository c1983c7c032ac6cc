"""Small template helpers for the subjects and memories pages."""

from django import template

register = template.Library()


@register.filter
def similarity(distance: float | None) -> str:
    """Cosine distance → similarity in [0, 1], two decimals ("—" when unknown)."""
    if distance is None:
        return "—"
    return f"{max(0.0, 1.0 - float(distance)):.2f}"


@register.simple_tag
def actor_name(names: dict, entry: object) -> str:
    """An audit entry's actor: a username / agent name when known, else type:id."""
    actor_type = getattr(entry, "actor_type", "")
    actor_id = getattr(entry, "actor_id", "")
    return names.get((actor_type, actor_id)) or f"{actor_type}:{actor_id}"

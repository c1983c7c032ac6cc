"""A mem0-compatible REST door (`/mem0/`): the real `mem0ai` client works against Engram."""

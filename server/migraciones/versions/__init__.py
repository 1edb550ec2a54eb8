"""The schema's revisions, oldest first (Alembic reads them from this folder)."""

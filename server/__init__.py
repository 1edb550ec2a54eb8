"""The one server (`mus servir`): the partida on the players' phones, the reading API and the
tournament, as one FastAPI app over one database. Laid out like FastAPI's full-stack template:
``server.db`` holds the one SQLAlchemy ``Base`` and makes the engine and its sessions,
``server.migraciones`` the one Alembic chain (one version table) that every start runs; the
partida pages (web/) and the tournament (torneo/) are moving in here, part by part."""

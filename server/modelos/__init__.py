"""The database's tables, on the one SQLAlchemy Base (server.db): the partidas played from
the phones and the tournament's."""

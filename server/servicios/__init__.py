"""What the server does, without HTTP: functions over a SQLAlchemy Session that raise
server.errores' errors."""

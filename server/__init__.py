"""The one server (`mus servir`): the partida on the players' phones, the reading API and the
tournament, as one FastAPI app over one database, laid out like FastAPI's full-stack template:

- ``main``: the app (``crear_app``), ``cli``: `mus servir`, ``cli_torneo``: `mus torneo`;
- ``db``: the one SQLAlchemy ``Base``, the engine and its sessions; ``migraciones``: the one
  Alembic chain (one version table) every start runs; ``modelos``: the tables;
- ``deps``: what the routes take by Depends (session, account, language, body);
  ``errores``: the one error hierarchy the services raise; ``handlers``: the one place that
  turns it into HTTP (JSON under /api/, a page elsewhere);
- ``esquemas`` and ``formularios``: the pydantic models of every body and answer;
- ``servicios``: what the server does, without HTTP; ``rutas``: one APIRouter per resource;
- ``estado``, ``limites``, ``seguridad``, ``cuerpo``, ``conexiones``: what guards it (the rate
  limits in the database, forms and origins, bodies within limits, headers within time);
- ``plantillas`` and ``static``: the pages (one gettext catalogue, mesa.i18n).
"""

"""The one server (`mus servir`): the partida pages, the tournament and the reading API."""

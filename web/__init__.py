"""The one server, `mus servir`: the phone pages of a partida over the tournament server."""

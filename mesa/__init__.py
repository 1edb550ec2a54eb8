"""The logic of a table in plain Python, shared by the Kivy tablet app (app/) and the phone
pages (server/): the partida and its marcador, entering a hand, reading the cards and correcting
them, seat by seat, registering a deck, the tournament table's client, the señas trainer and the
referee's screen. No Kivy and no HTTP here: the tests drive these classes without a window."""

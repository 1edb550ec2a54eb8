"""A tournament's shape, pure and without a database: its formats (league, groups then a
knockout, the Swiss system, elimination by ceros), the pairings of each round and the standings
with their tie-breaks. The server (server/) stores and serves it; the app never imports it."""

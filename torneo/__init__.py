"""The tournament server (`mus torneo`): tables report their hands, referees their logs, the
organiser follows standings in a browser. Scores with scoring/; the app never imports it."""

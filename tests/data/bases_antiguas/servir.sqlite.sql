BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('0008');
CREATE TABLE alembic_version_web (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_web_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version_web" VALUES('0001');
CREATE TABLE borradores (
	partida_id INTEGER NOT NULL, 
	datos JSON NOT NULL, 
	version INTEGER NOT NULL, 
	actualizado DATETIME NOT NULL, 
	PRIMARY KEY (partida_id), 
	FOREIGN KEY(partida_id) REFERENCES partidas (id)
);
INSERT INTO "borradores" VALUES(1,'{"id_mano": "zN0ZwOwqQbUW5mZw", "n": 3, "mano": null, "cartas": ["10c 10e 11o 11b", null, null, null], "asiento": 1, "lances": {}, "paso": "cartas", "lectura": null, "correcciones": [], "fotos_asiento": []}',1,'2026-12-07 09:33:00.464503');
CREATE TABLE cambio_miembro (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	usuario VARCHAR(64) NOT NULL, 
	rol VARCHAR(16) NOT NULL, 
	accion VARCHAR(8) NOT NULL, 
	por VARCHAR(64) NOT NULL, 
	cuando DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id)
);
CREATE TABLE correccion (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	enfrentamiento_id INTEGER NOT NULL, 
	cuenta_id INTEGER NOT NULL, 
	usuario VARCHAR(64) NOT NULL, 
	cuando DATETIME NOT NULL, 
	motivo TEXT NOT NULL, 
	antes JSON NOT NULL, 
	despues JSON NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(enfrentamiento_id) REFERENCES enfrentamiento (id), 
	FOREIGN KEY(cuenta_id) REFERENCES cuenta (id)
);
CREATE TABLE cuenta (
	id INTEGER NOT NULL, 
	usuario VARCHAR(64) NOT NULL, 
	clave_hash VARCHAR(255) NOT NULL, 
	rol VARCHAR(16) NOT NULL, 
	torneo_id INTEGER, 
	PRIMARY KEY (id), 
	CONSTRAINT fk_cuenta_torneo FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	UNIQUE (usuario)
);
INSERT INTO "cuenta" VALUES(1,'org','$argon2id$v=19$m=65536,t=3,p=4$kgguxOC3HLXyHBHwVVScaw$WNycVX4nNjzPtfwtXxWkHUVyHnObidVudaAH0GSzznw','organizador',NULL);
CREATE TABLE enfrentamiento (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	ronda_id INTEGER NOT NULL, 
	mesa_id INTEGER, 
	pareja0_id INTEGER NOT NULL, 
	pareja1_id INTEGER, 
	ganador INTEGER, 
	PRIMARY KEY (id), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(ronda_id) REFERENCES ronda (id), 
	FOREIGN KEY(mesa_id) REFERENCES mesa (id), 
	FOREIGN KEY(pareja0_id) REFERENCES pareja (id), 
	FOREIGN KEY(pareja1_id) REFERENCES pareja (id)
);
INSERT INTO "enfrentamiento" VALUES(1,1,1,1,1,4,NULL);
INSERT INTO "enfrentamiento" VALUES(2,1,1,2,2,3,NULL);
CREATE TABLE "incidencia" (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	informe_id INTEGER, 
	mesa_id INTEGER NOT NULL, 
	pareja_id INTEGER, 
	asiento INTEGER, 
	tipo VARCHAR(32) NOT NULL, 
	gravedad VARCHAR(32) NOT NULL, 
	articulo TEXT NOT NULL, 
	razon TEXT NOT NULL, 
	origen VARCHAR(16) DEFAULT 'arbitro' NOT NULL, 
	mano_id INTEGER, 
	PRIMARY KEY (id), 
	CONSTRAINT fk_incidencia_mano FOREIGN KEY(mano_id) REFERENCES mano (id), 
	FOREIGN KEY(pareja_id) REFERENCES pareja (id), 
	FOREIGN KEY(mesa_id) REFERENCES mesa (id), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(informe_id) REFERENCES informe (id)
);
CREATE TABLE informe (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	mesa_id INTEGER NOT NULL, 
	enfrentamiento_id INTEGER, 
	arbitro_id INTEGER NOT NULL, 
	sello VARCHAR(64) NOT NULL, 
	registro JSON NOT NULL, 
	recibido DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(mesa_id) REFERENCES mesa (id), 
	FOREIGN KEY(enfrentamiento_id) REFERENCES enfrentamiento (id), 
	FOREIGN KEY(arbitro_id) REFERENCES cuenta (id)
);
CREATE TABLE invitacion (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	usuario VARCHAR(64) NOT NULL, 
	cuenta_id INTEGER, 
	rol VARCHAR(16) NOT NULL, 
	por VARCHAR(64) NOT NULL, 
	cuando DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (torneo_id, usuario), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(cuenta_id) REFERENCES cuenta (id)
);
CREATE TABLE mano (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	enfrentamiento_id INTEGER NOT NULL, 
	cliente_id VARCHAR(64) NOT NULL, 
	numero INTEGER NOT NULL, 
	huella_cuerpo VARCHAR(64) NOT NULL, 
	registro JSON NOT NULL, 
	marcador JSON NOT NULL, 
	ganados JSON NOT NULL, 
	juego INTEGER, 
	respuesta JSON NOT NULL, 
	foto VARCHAR(64), 
	anulada BOOLEAN NOT NULL, 
	recibida DATETIME NOT NULL, discrepancia JSON, 
	PRIMARY KEY (id), 
	UNIQUE (enfrentamiento_id, cliente_id), 
	UNIQUE (enfrentamiento_id, numero), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(enfrentamiento_id) REFERENCES enfrentamiento (id)
);
CREATE TABLE manos_partida (
	id INTEGER NOT NULL, 
	partida_id INTEGER NOT NULL, 
	n INTEGER NOT NULL, 
	id_mano VARCHAR(64) NOT NULL, 
	registro JSON NOT NULL, 
	tanteo JSON NOT NULL, 
	origen VARCHAR(16) NOT NULL, 
	creada DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_manos_partida_n UNIQUE (partida_id, n), 
	CONSTRAINT uq_manos_partida_id_mano UNIQUE (partida_id, id_mano), 
	FOREIGN KEY(partida_id) REFERENCES partidas (id)
);
INSERT INTO "manos_partida" VALUES(1,1,1,'mano-antigua-1','{"reglas": "segovia", "mano": 0, "manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], "marcador": [0, 0], "lances": {"pares": {"quiero": 5}}, "jugadores": ["Ana", "Bea", "Carlos", "Dani"]}','{"reglas": "segovia", "mano": 0, "manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], "marcador_antes": [0, 0], "lances_jugados": ["grande", "chica", "pares", "juego"], "apuestas": {"grande": true, "chica": true, "pares": true, "juego": true}, "ganadores": {"grande": 1, "chica": 3, "pares": 1, "juego": 0}, "jugadas": [{"pares": "pareja de reyes", "juego": 31, "punto": 31, "real": false}, {"pares": "medias de reyes", "juego": 37, "punto": 37, "real": false}, {"pares": null, "juego": null, "punto": 22, "real": false}, {"pares": "medias de ases", "juego": null, "punto": 7, "real": false}], "por_lance": {"grande": [0, 1], "chica": [0, 1], "pares": [0, 9], "juego": [3, 0]}, "marcador": [3, 11], "fin": null, "detalle": [{"pareja": 1, "tantos": 1, "lance": "grande", "razon": "Grande en paso: gana Bea (3o 3c 3e 7b) (1)"}, {"pareja": 1, "tantos": 1, "lance": "chica", "razon": "Chica en paso: gana Dani (1o 2c 1e 4b) (1)"}, {"pareja": 1, "tantos": 5, "lance": "pares", "razon": "Pares: envite de 5 querido, gana Bea (medias de reyes) (5)"}, {"pareja": 1, "tantos": 2, "lance": "pares", "razon": "Pares: medias de reyes de Bea (2)"}, {"pareja": 1, "tantos": 2, "lance": "pares", "razon": "Pares: medias de ases de Dani (2)"}, {"pareja": 0, "tantos": 3, "lance": "juego", "razon": "Juego: 31 de Ana (3)"}], "notas": []}','manual','2026-12-07 09:33:00.293471');
INSERT INTO "manos_partida" VALUES(2,1,2,'mano-antigua-2','{"reglas": "segovia", "mano": 1, "manos": ["1o 1c 4e 5b", "6o 6c 7e 7c", "10o 11c 12e 2b", "4o 5o 6e 7o"], "marcador": [3, 11], "lances": {"grande": {"no_quiero": 1, "gana": 1}}, "jugadores": ["Ana", "Bea", "Carlos", "Dani"]}','{"reglas": "segovia", "mano": 1, "manos": ["1o 1c 4e 5b", "6o 6c 7e 7c", "10o 11c 12e 2b", "4o 5o 6e 7o"], "marcador_antes": [3, 11], "lances_jugados": ["grande", "chica", "pares", "juego"], "apuestas": {"grande": true, "chica": true, "pares": true, "juego": false}, "ganadores": {"grande": 2, "chica": 0, "pares": 1, "juego": 2}, "jugadas": [{"pares": "pareja de ases", "juego": null, "punto": 11, "real": false}, {"pares": "duples de sietes y seises", "juego": null, "punto": 26, "real": false}, {"pares": null, "juego": 31, "punto": 31, "real": false}, {"pares": null, "juego": null, "punto": 22, "real": false}], "por_lance": {"grande": [0, 1], "chica": [1, 0], "pares": [0, 3], "juego": [3, 0]}, "marcador": [7, 15], "fin": null, "detalle": [{"pareja": 1, "tantos": 1, "lance": "grande", "razon": "Grande: envite no querido por Ana y Carlos, 1 para Bea y Dani"}, {"pareja": 0, "tantos": 1, "lance": "chica", "razon": "Chica en paso: gana Ana (1o 1c 4e 5b) (1)"}, {"pareja": 1, "tantos": 3, "lance": "pares", "razon": "Pares: duples de sietes y seises de Bea (3)"}, {"pareja": 0, "tantos": 3, "lance": "juego", "razon": "Juego: 31 de Carlos (3)"}], "notas": []}','manual','2026-12-07 09:33:00.376286');
CREATE TABLE "mesa" (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	numero INTEGER NOT NULL, 
	huella VARCHAR(64) NOT NULL, 
	version INTEGER DEFAULT '0' NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_mesa_huella UNIQUE (huella), 
	UNIQUE (torneo_id, numero), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id)
);
INSERT INTO "mesa" VALUES(1,1,1,'0f3e783497bdd78df7c5a912b3db3c68f9dd37092059a15654ddb2a24b1f9da3',1);
INSERT INTO "mesa" VALUES(2,1,2,'ce4543f62c6a1a9bf23aabbff0f738718da8bc51d725bbd366bfc3d33243bf38',1);
CREATE TABLE miembro (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	cuenta_id INTEGER NOT NULL, 
	rol VARCHAR(16) NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (torneo_id, cuenta_id), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(cuenta_id) REFERENCES cuenta (id)
);
INSERT INTO "miembro" VALUES(1,1,1,'organizador');
CREATE TABLE pareja (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	nombre VARCHAR(120) NOT NULL, 
	jugadores JSON NOT NULL, 
	semilla INTEGER NOT NULL, 
	grupo INTEGER, retirada BOOLEAN DEFAULT 0 NOT NULL, entra_en INTEGER DEFAULT '0' NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (torneo_id, nombre), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id)
);
INSERT INTO "pareja" VALUES(1,1,'P0','["A0", "B0"]',1,NULL,0,0);
INSERT INTO "pareja" VALUES(2,1,'P1','["A1", "B1"]',2,NULL,0,0);
INSERT INTO "pareja" VALUES(3,1,'P2','["A2", "B2"]',3,NULL,0,0);
INSERT INTO "pareja" VALUES(4,1,'P3','["A3", "B3"]',4,NULL,0,0);
CREATE TABLE partidas (
	id INTEGER NOT NULL, 
	clave VARCHAR(32) NOT NULL, 
	creada DATETIME NOT NULL, 
	reglas JSON NOT NULL, 
	jugadores JSON NOT NULL, 
	mano_inicial INTEGER NOT NULL, 
	idioma VARCHAR(8) NOT NULL, 
	terminada BOOLEAN NOT NULL, 
	ganador INTEGER, 
	baraja BLOB, 
	torneo JSON, 
	PRIMARY KEY (id), 
	UNIQUE (clave)
);
INSERT INTO "partidas" VALUES(1,'ZVBkq7JPrGD8FFBamNNJ0w','2026-12-07 09:33:00.179131','"segovia"','["Ana", "Bea", "Carlos", "Dani"]',0,'es',0,NULL,NULL,NULL);
CREATE TABLE ronda (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	numero INTEGER NOT NULL, 
	fase VARCHAR(16) NOT NULL, 
	semilla INTEGER, 
	PRIMARY KEY (id), 
	UNIQUE (torneo_id, numero), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id)
);
INSERT INTO "ronda" VALUES(1,1,1,'liga',NULL);
CREATE TABLE sesion (
	id INTEGER NOT NULL, 
	huella VARCHAR(64) NOT NULL, 
	cuenta_id INTEGER NOT NULL, 
	caduca DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (huella), 
	FOREIGN KEY(cuenta_id) REFERENCES cuenta (id)
);
CREATE TABLE token_mesa (
	id INTEGER NOT NULL, 
	huella VARCHAR(64) NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	enfrentamiento_id INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (huella), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(enfrentamiento_id) REFERENCES enfrentamiento (id)
);
CREATE TABLE torneo (
	id INTEGER NOT NULL, 
	nombre VARCHAR(120) NOT NULL, 
	organizador_id INTEGER NOT NULL, 
	reglas JSON NOT NULL, 
	formato JSON NOT NULL, 
	creado DATETIME NOT NULL, arbitros_corrigen BOOLEAN DEFAULT 0 NOT NULL, version INTEGER DEFAULT '0' NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(organizador_id) REFERENCES cuenta (id)
);
INSERT INTO "torneo" VALUES(1,'Club',1,'"segovia"','{"tipo": "liga", "grupos": 1, "clasifican": 2, "juegos": null, "vacas": null, "desempates": ["diferencia_juegos", "juegos_favor", "diferencia_tantos", "tantos_favor"], "sorteo": false, "semilla": null}','2026-12-07 09:32:59.344865',0,3);
CREATE INDEX ix_pareja_torneo_id ON pareja (torneo_id);
CREATE INDEX ix_ronda_torneo_id ON ronda (torneo_id);
CREATE INDEX ix_enfrentamiento_ronda_id ON enfrentamiento (ronda_id);
CREATE INDEX ix_enfrentamiento_torneo_id ON enfrentamiento (torneo_id);
CREATE INDEX ix_mano_enfrentamiento_id ON mano (enfrentamiento_id);
CREATE INDEX ix_mano_torneo_id ON mano (torneo_id);
CREATE INDEX ix_informe_torneo_id ON informe (torneo_id);
CREATE INDEX ix_incidencia_torneo_id ON incidencia (torneo_id);
CREATE INDEX ix_correccion_torneo_id ON correccion (torneo_id);
CREATE INDEX ix_correccion_enfrentamiento_id ON correccion (enfrentamiento_id);
CREATE INDEX ix_mesa_torneo_id ON mesa (torneo_id);
CREATE INDEX ix_miembro_torneo_id ON miembro (torneo_id);
CREATE INDEX ix_miembro_cuenta_id ON miembro (cuenta_id);
CREATE INDEX ix_cambio_miembro_torneo_id ON cambio_miembro (torneo_id);
CREATE INDEX ix_invitacion_torneo_id ON invitacion (torneo_id);
CREATE INDEX ix_invitacion_cuenta_id ON invitacion (cuenta_id);
CREATE INDEX ix_manos_partida_partida_id ON manos_partida (partida_id);
COMMIT;

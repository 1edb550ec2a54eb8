BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('0008');
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
INSERT INTO "cuenta" VALUES(1,'org','$argon2id$v=19$m=65536,t=3,p=4$WldKscDJJ1LgNO+kfMCp7w$cJ7gAYJZwXvUhmMDb02YzsBjOrmaZpMIcB37bZuQy/A','organizador',NULL);
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
	FOREIGN KEY(informe_id) REFERENCES informe (id), 
	FOREIGN KEY(mesa_id) REFERENCES mesa (id), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	FOREIGN KEY(pareja_id) REFERENCES pareja (id)
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
CREATE TABLE "mesa" (
	id INTEGER NOT NULL, 
	torneo_id INTEGER NOT NULL, 
	numero INTEGER NOT NULL, 
	huella VARCHAR(64) NOT NULL, 
	version INTEGER DEFAULT '0' NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_mesa_huella UNIQUE (huella), 
	FOREIGN KEY(torneo_id) REFERENCES torneo (id), 
	UNIQUE (torneo_id, numero)
);
INSERT INTO "mesa" VALUES(1,1,1,'75545095fa7da916864027ad95dc32eb6bdb24f98c6bf1fcd765056efc63885c',1);
INSERT INTO "mesa" VALUES(2,1,2,'32c7121f79f4c81c5834f2778b6eea096e54aaa9827c6c06e08684b2012a0c3a',1);
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
INSERT INTO "torneo" VALUES(1,'Club',1,'"segovia"','{"tipo": "liga", "grupos": 1, "clasifican": 2, "juegos": null, "vacas": null, "desempates": ["diferencia_juegos", "juegos_favor", "diferencia_tantos", "tantos_favor"], "sorteo": false, "semilla": null}','2026-12-07 09:32:57.906854',0,3);
CREATE INDEX ix_pareja_torneo_id ON pareja (torneo_id);
CREATE INDEX ix_ronda_torneo_id ON ronda (torneo_id);
CREATE INDEX ix_enfrentamiento_torneo_id ON enfrentamiento (torneo_id);
CREATE INDEX ix_enfrentamiento_ronda_id ON enfrentamiento (ronda_id);
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
COMMIT;

--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: alembic_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alembic_version (
    version_num character varying(32) NOT NULL
);


--
-- Name: alembic_version_web; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alembic_version_web (
    version_num character varying(32) NOT NULL
);


--
-- Name: borradores; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.borradores (
    partida_id integer NOT NULL,
    datos json NOT NULL,
    version integer NOT NULL,
    actualizado timestamp without time zone NOT NULL
);


--
-- Name: cambio_miembro; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.cambio_miembro (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    usuario character varying(64) NOT NULL,
    rol character varying(16) NOT NULL,
    accion character varying(8) NOT NULL,
    por character varying(64) NOT NULL,
    cuando timestamp without time zone NOT NULL
);


--
-- Name: cambio_miembro_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.cambio_miembro_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: cambio_miembro_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.cambio_miembro_id_seq OWNED BY public.cambio_miembro.id;


--
-- Name: correccion; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.correccion (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    enfrentamiento_id integer NOT NULL,
    cuenta_id integer NOT NULL,
    usuario character varying(64) NOT NULL,
    cuando timestamp without time zone NOT NULL,
    motivo text NOT NULL,
    antes json NOT NULL,
    despues json NOT NULL
);


--
-- Name: correccion_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.correccion_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: correccion_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.correccion_id_seq OWNED BY public.correccion.id;


--
-- Name: cuenta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.cuenta (
    id integer NOT NULL,
    usuario character varying(64) NOT NULL,
    clave_hash character varying(255) NOT NULL,
    rol character varying(16) NOT NULL,
    torneo_id integer
);


--
-- Name: cuenta_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.cuenta_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: cuenta_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.cuenta_id_seq OWNED BY public.cuenta.id;


--
-- Name: enfrentamiento; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enfrentamiento (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    ronda_id integer NOT NULL,
    mesa_id integer,
    pareja0_id integer NOT NULL,
    pareja1_id integer,
    ganador integer
);


--
-- Name: enfrentamiento_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.enfrentamiento_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: enfrentamiento_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.enfrentamiento_id_seq OWNED BY public.enfrentamiento.id;


--
-- Name: incidencia; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.incidencia (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    informe_id integer,
    mesa_id integer NOT NULL,
    pareja_id integer,
    asiento integer,
    tipo character varying(32) NOT NULL,
    gravedad character varying(32) NOT NULL,
    articulo text NOT NULL,
    razon text NOT NULL,
    origen character varying(16) DEFAULT 'arbitro'::character varying NOT NULL,
    mano_id integer
);


--
-- Name: incidencia_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.incidencia_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: incidencia_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.incidencia_id_seq OWNED BY public.incidencia.id;


--
-- Name: informe; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.informe (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    mesa_id integer NOT NULL,
    enfrentamiento_id integer,
    arbitro_id integer NOT NULL,
    sello character varying(64) NOT NULL,
    registro json NOT NULL,
    recibido timestamp without time zone NOT NULL
);


--
-- Name: informe_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.informe_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: informe_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.informe_id_seq OWNED BY public.informe.id;


--
-- Name: invitacion; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.invitacion (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    usuario character varying(64) NOT NULL,
    cuenta_id integer,
    rol character varying(16) NOT NULL,
    por character varying(64) NOT NULL,
    cuando timestamp without time zone NOT NULL
);


--
-- Name: invitacion_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.invitacion_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: invitacion_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.invitacion_id_seq OWNED BY public.invitacion.id;


--
-- Name: mano; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mano (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    enfrentamiento_id integer NOT NULL,
    cliente_id character varying(64) NOT NULL,
    numero integer NOT NULL,
    huella_cuerpo character varying(64) NOT NULL,
    registro json NOT NULL,
    marcador json NOT NULL,
    ganados json NOT NULL,
    juego integer,
    respuesta json NOT NULL,
    foto character varying(64),
    anulada boolean NOT NULL,
    recibida timestamp without time zone NOT NULL,
    discrepancia json
);


--
-- Name: mano_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.mano_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: mano_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.mano_id_seq OWNED BY public.mano.id;


--
-- Name: manos_partida; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.manos_partida (
    id integer NOT NULL,
    partida_id integer NOT NULL,
    n integer NOT NULL,
    id_mano character varying(64) NOT NULL,
    registro json NOT NULL,
    tanteo json NOT NULL,
    origen character varying(16) NOT NULL,
    creada timestamp without time zone NOT NULL
);


--
-- Name: manos_partida_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.manos_partida_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: manos_partida_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.manos_partida_id_seq OWNED BY public.manos_partida.id;


--
-- Name: mesa; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mesa (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    numero integer NOT NULL,
    huella character varying(64) NOT NULL,
    version integer DEFAULT 0 NOT NULL
);


--
-- Name: mesa_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.mesa_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: mesa_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.mesa_id_seq OWNED BY public.mesa.id;


--
-- Name: miembro; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.miembro (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    cuenta_id integer NOT NULL,
    rol character varying(16) NOT NULL
);


--
-- Name: miembro_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.miembro_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: miembro_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.miembro_id_seq OWNED BY public.miembro.id;


--
-- Name: pareja; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pareja (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    nombre character varying(120) NOT NULL,
    jugadores json NOT NULL,
    semilla integer NOT NULL,
    grupo integer,
    retirada boolean DEFAULT false NOT NULL,
    entra_en integer DEFAULT 0 NOT NULL
);


--
-- Name: pareja_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.pareja_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: pareja_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.pareja_id_seq OWNED BY public.pareja.id;


--
-- Name: partidas; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partidas (
    id integer NOT NULL,
    clave character varying(32) NOT NULL,
    creada timestamp without time zone NOT NULL,
    reglas json NOT NULL,
    jugadores json NOT NULL,
    mano_inicial integer NOT NULL,
    idioma character varying(8) NOT NULL,
    terminada boolean NOT NULL,
    ganador integer,
    baraja bytea,
    torneo json
);


--
-- Name: partidas_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.partidas_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: partidas_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.partidas_id_seq OWNED BY public.partidas.id;


--
-- Name: ronda; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ronda (
    id integer NOT NULL,
    torneo_id integer NOT NULL,
    numero integer NOT NULL,
    fase character varying(16) NOT NULL,
    semilla integer
);


--
-- Name: ronda_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.ronda_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: ronda_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.ronda_id_seq OWNED BY public.ronda.id;


--
-- Name: sesion; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sesion (
    id integer NOT NULL,
    huella character varying(64) NOT NULL,
    cuenta_id integer NOT NULL,
    caduca timestamp without time zone NOT NULL
);


--
-- Name: sesion_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.sesion_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: sesion_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.sesion_id_seq OWNED BY public.sesion.id;


--
-- Name: token_mesa; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.token_mesa (
    id integer NOT NULL,
    huella character varying(64) NOT NULL,
    torneo_id integer NOT NULL,
    enfrentamiento_id integer NOT NULL
);


--
-- Name: token_mesa_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.token_mesa_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: token_mesa_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.token_mesa_id_seq OWNED BY public.token_mesa.id;


--
-- Name: torneo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.torneo (
    id integer NOT NULL,
    nombre character varying(120) NOT NULL,
    organizador_id integer NOT NULL,
    reglas json NOT NULL,
    formato json NOT NULL,
    creado timestamp without time zone NOT NULL,
    arbitros_corrigen boolean DEFAULT false NOT NULL,
    version integer DEFAULT 0 NOT NULL
);


--
-- Name: torneo_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.torneo_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: torneo_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.torneo_id_seq OWNED BY public.torneo.id;


--
-- Name: cambio_miembro id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cambio_miembro ALTER COLUMN id SET DEFAULT nextval('public.cambio_miembro_id_seq'::regclass);


--
-- Name: correccion id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.correccion ALTER COLUMN id SET DEFAULT nextval('public.correccion_id_seq'::regclass);


--
-- Name: cuenta id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cuenta ALTER COLUMN id SET DEFAULT nextval('public.cuenta_id_seq'::regclass);


--
-- Name: enfrentamiento id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enfrentamiento ALTER COLUMN id SET DEFAULT nextval('public.enfrentamiento_id_seq'::regclass);


--
-- Name: incidencia id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.incidencia ALTER COLUMN id SET DEFAULT nextval('public.incidencia_id_seq'::regclass);


--
-- Name: informe id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.informe ALTER COLUMN id SET DEFAULT nextval('public.informe_id_seq'::regclass);


--
-- Name: invitacion id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitacion ALTER COLUMN id SET DEFAULT nextval('public.invitacion_id_seq'::regclass);


--
-- Name: mano id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mano ALTER COLUMN id SET DEFAULT nextval('public.mano_id_seq'::regclass);


--
-- Name: manos_partida id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manos_partida ALTER COLUMN id SET DEFAULT nextval('public.manos_partida_id_seq'::regclass);


--
-- Name: mesa id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mesa ALTER COLUMN id SET DEFAULT nextval('public.mesa_id_seq'::regclass);


--
-- Name: miembro id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.miembro ALTER COLUMN id SET DEFAULT nextval('public.miembro_id_seq'::regclass);


--
-- Name: pareja id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pareja ALTER COLUMN id SET DEFAULT nextval('public.pareja_id_seq'::regclass);


--
-- Name: partidas id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partidas ALTER COLUMN id SET DEFAULT nextval('public.partidas_id_seq'::regclass);


--
-- Name: ronda id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ronda ALTER COLUMN id SET DEFAULT nextval('public.ronda_id_seq'::regclass);


--
-- Name: sesion id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sesion ALTER COLUMN id SET DEFAULT nextval('public.sesion_id_seq'::regclass);


--
-- Name: token_mesa id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_mesa ALTER COLUMN id SET DEFAULT nextval('public.token_mesa_id_seq'::regclass);


--
-- Name: torneo id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.torneo ALTER COLUMN id SET DEFAULT nextval('public.torneo_id_seq'::regclass);


--
-- Data for Name: alembic_version; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.alembic_version VALUES ('0008');


--
-- Data for Name: alembic_version_web; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.alembic_version_web VALUES ('0001');


--
-- Data for Name: borradores; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.borradores VALUES (1, '{"id_mano": "JXynxU0exsR5nvWk", "n": 3, "mano": null, "cartas": ["10c 10e 11o 11b", null, null, null], "asiento": 1, "lances": {}, "paso": "cartas", "lectura": null, "correcciones": [], "fotos_asiento": []}', 1, '2026-12-07 09:33:11.894282');


--
-- Data for Name: cambio_miembro; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: correccion; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: cuenta; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.cuenta VALUES (1, 'org', '$argon2id$v=19$m=65536,t=3,p=4$6pUybzpCgGHU3ih6eKti3A$HuFc3PWdrD1w0THzavEef+N8TFPiuuHWj/pc0kVdwx4', 'organizador', NULL);


--
-- Data for Name: enfrentamiento; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.enfrentamiento VALUES (1, 1, 1, 1, 1, 4, NULL);
INSERT INTO public.enfrentamiento VALUES (2, 1, 1, 2, 2, 3, NULL);


--
-- Data for Name: incidencia; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: informe; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: invitacion; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: mano; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: manos_partida; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.manos_partida VALUES (1, 1, 1, 'mano-antigua-1', '{"reglas": "segovia", "mano": 0, "manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], "marcador": [0, 0], "lances": {"pares": {"quiero": 5}}, "jugadores": ["Ana", "Bea", "Carlos", "Dani"]}', '{"reglas": "segovia", "mano": 0, "manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], "marcador_antes": [0, 0], "lances_jugados": ["grande", "chica", "pares", "juego"], "apuestas": {"grande": true, "chica": true, "pares": true, "juego": true}, "ganadores": {"grande": 1, "chica": 3, "pares": 1, "juego": 0}, "jugadas": [{"pares": "pareja de reyes", "juego": 31, "punto": 31, "real": false}, {"pares": "medias de reyes", "juego": 37, "punto": 37, "real": false}, {"pares": null, "juego": null, "punto": 22, "real": false}, {"pares": "medias de ases", "juego": null, "punto": 7, "real": false}], "por_lance": {"grande": [0, 1], "chica": [0, 1], "pares": [0, 9], "juego": [3, 0]}, "marcador": [3, 11], "fin": null, "detalle": [{"pareja": 1, "tantos": 1, "lance": "grande", "razon": "Grande en paso: gana Bea (3o 3c 3e 7b) (1)"}, {"pareja": 1, "tantos": 1, "lance": "chica", "razon": "Chica en paso: gana Dani (1o 2c 1e 4b) (1)"}, {"pareja": 1, "tantos": 5, "lance": "pares", "razon": "Pares: envite de 5 querido, gana Bea (medias de reyes) (5)"}, {"pareja": 1, "tantos": 2, "lance": "pares", "razon": "Pares: medias de reyes de Bea (2)"}, {"pareja": 1, "tantos": 2, "lance": "pares", "razon": "Pares: medias de ases de Dani (2)"}, {"pareja": 0, "tantos": 3, "lance": "juego", "razon": "Juego: 31 de Ana (3)"}], "notas": []}', 'manual', '2026-12-07 09:33:11.566472');
INSERT INTO public.manos_partida VALUES (2, 1, 2, 'mano-antigua-2', '{"reglas": "segovia", "mano": 1, "manos": ["1o 1c 4e 5b", "6o 6c 7e 7c", "10o 11c 12e 2b", "4o 5o 6e 7o"], "marcador": [3, 11], "lances": {"grande": {"no_quiero": 1, "gana": 1}}, "jugadores": ["Ana", "Bea", "Carlos", "Dani"]}', '{"reglas": "segovia", "mano": 1, "manos": ["1o 1c 4e 5b", "6o 6c 7e 7c", "10o 11c 12e 2b", "4o 5o 6e 7o"], "marcador_antes": [3, 11], "lances_jugados": ["grande", "chica", "pares", "juego"], "apuestas": {"grande": true, "chica": true, "pares": true, "juego": false}, "ganadores": {"grande": 2, "chica": 0, "pares": 1, "juego": 2}, "jugadas": [{"pares": "pareja de ases", "juego": null, "punto": 11, "real": false}, {"pares": "duples de sietes y seises", "juego": null, "punto": 26, "real": false}, {"pares": null, "juego": 31, "punto": 31, "real": false}, {"pares": null, "juego": null, "punto": 22, "real": false}], "por_lance": {"grande": [0, 1], "chica": [1, 0], "pares": [0, 3], "juego": [3, 0]}, "marcador": [7, 15], "fin": null, "detalle": [{"pareja": 1, "tantos": 1, "lance": "grande", "razon": "Grande: envite no querido por Ana y Carlos, 1 para Bea y Dani"}, {"pareja": 0, "tantos": 1, "lance": "chica", "razon": "Chica en paso: gana Ana (1o 1c 4e 5b) (1)"}, {"pareja": 1, "tantos": 3, "lance": "pares", "razon": "Pares: duples de sietes y seises de Bea (3)"}, {"pareja": 0, "tantos": 3, "lance": "juego", "razon": "Juego: 31 de Carlos (3)"}], "notas": []}', 'manual', '2026-12-07 09:33:11.714217');


--
-- Data for Name: mesa; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mesa VALUES (1, 1, 1, '1a0818d06d13d58a91995164abba6b7205774d8111e770b625512e5acf2d9b7c', 1);
INSERT INTO public.mesa VALUES (2, 1, 2, '0c92308c0d530ebca3d603e31aca80ca71f18527ece9735c462a4ecbf8f184e5', 1);


--
-- Data for Name: miembro; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.miembro VALUES (1, 1, 1, 'organizador');


--
-- Data for Name: pareja; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.pareja VALUES (1, 1, 'P0', '["A0", "B0"]', 1, NULL, false, 0);
INSERT INTO public.pareja VALUES (2, 1, 'P1', '["A1", "B1"]', 2, NULL, false, 0);
INSERT INTO public.pareja VALUES (3, 1, 'P2', '["A2", "B2"]', 3, NULL, false, 0);
INSERT INTO public.pareja VALUES (4, 1, 'P3', '["A3", "B3"]', 4, NULL, false, 0);


--
-- Data for Name: partidas; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.partidas VALUES (1, 'uKiVq2Gkba18wPE6UmcCUQ', '2026-12-07 09:33:11.457428', '"segovia"', '["Ana", "Bea", "Carlos", "Dani"]', 0, 'es', false, NULL, NULL, NULL);


--
-- Data for Name: ronda; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.ronda VALUES (1, 1, 1, 'liga', NULL);


--
-- Data for Name: sesion; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: token_mesa; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: torneo; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.torneo VALUES (1, 'Club', 1, '"segovia"', '{"tipo": "liga", "grupos": 1, "clasifican": 2, "juegos": null, "vacas": null, "desempates": ["diferencia_juegos", "juegos_favor", "diferencia_tantos", "tantos_favor"], "sorteo": false, "semilla": null}', '2026-12-07 09:33:10.541105', false, 3);


--
-- Name: cambio_miembro_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.cambio_miembro_id_seq', 1, false);


--
-- Name: correccion_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.correccion_id_seq', 1, false);


--
-- Name: cuenta_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.cuenta_id_seq', 1, true);


--
-- Name: enfrentamiento_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.enfrentamiento_id_seq', 2, true);


--
-- Name: incidencia_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.incidencia_id_seq', 1, false);


--
-- Name: informe_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.informe_id_seq', 1, false);


--
-- Name: invitacion_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.invitacion_id_seq', 1, false);


--
-- Name: mano_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.mano_id_seq', 1, false);


--
-- Name: manos_partida_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.manos_partida_id_seq', 2, true);


--
-- Name: mesa_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.mesa_id_seq', 2, true);


--
-- Name: miembro_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.miembro_id_seq', 1, true);


--
-- Name: pareja_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.pareja_id_seq', 4, true);


--
-- Name: partidas_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.partidas_id_seq', 1, true);


--
-- Name: ronda_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.ronda_id_seq', 1, true);


--
-- Name: sesion_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.sesion_id_seq', 1, false);


--
-- Name: token_mesa_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.token_mesa_id_seq', 1, false);


--
-- Name: torneo_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.torneo_id_seq', 1, true);


--
-- Name: alembic_version alembic_version_pkc; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alembic_version
    ADD CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num);


--
-- Name: alembic_version_web alembic_version_web_pkc; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alembic_version_web
    ADD CONSTRAINT alembic_version_web_pkc PRIMARY KEY (version_num);


--
-- Name: borradores borradores_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.borradores
    ADD CONSTRAINT borradores_pkey PRIMARY KEY (partida_id);


--
-- Name: cambio_miembro cambio_miembro_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cambio_miembro
    ADD CONSTRAINT cambio_miembro_pkey PRIMARY KEY (id);


--
-- Name: correccion correccion_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.correccion
    ADD CONSTRAINT correccion_pkey PRIMARY KEY (id);


--
-- Name: cuenta cuenta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cuenta
    ADD CONSTRAINT cuenta_pkey PRIMARY KEY (id);


--
-- Name: cuenta cuenta_usuario_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cuenta
    ADD CONSTRAINT cuenta_usuario_key UNIQUE (usuario);


--
-- Name: enfrentamiento enfrentamiento_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enfrentamiento
    ADD CONSTRAINT enfrentamiento_pkey PRIMARY KEY (id);


--
-- Name: incidencia incidencia_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.incidencia
    ADD CONSTRAINT incidencia_pkey PRIMARY KEY (id);


--
-- Name: informe informe_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.informe
    ADD CONSTRAINT informe_pkey PRIMARY KEY (id);


--
-- Name: invitacion invitacion_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitacion
    ADD CONSTRAINT invitacion_pkey PRIMARY KEY (id);


--
-- Name: invitacion invitacion_torneo_id_usuario_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitacion
    ADD CONSTRAINT invitacion_torneo_id_usuario_key UNIQUE (torneo_id, usuario);


--
-- Name: mano mano_enfrentamiento_id_cliente_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mano
    ADD CONSTRAINT mano_enfrentamiento_id_cliente_id_key UNIQUE (enfrentamiento_id, cliente_id);


--
-- Name: mano mano_enfrentamiento_id_numero_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mano
    ADD CONSTRAINT mano_enfrentamiento_id_numero_key UNIQUE (enfrentamiento_id, numero);


--
-- Name: mano mano_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mano
    ADD CONSTRAINT mano_pkey PRIMARY KEY (id);


--
-- Name: manos_partida manos_partida_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manos_partida
    ADD CONSTRAINT manos_partida_pkey PRIMARY KEY (id);


--
-- Name: mesa mesa_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mesa
    ADD CONSTRAINT mesa_pkey PRIMARY KEY (id);


--
-- Name: mesa mesa_torneo_id_numero_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mesa
    ADD CONSTRAINT mesa_torneo_id_numero_key UNIQUE (torneo_id, numero);


--
-- Name: miembro miembro_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.miembro
    ADD CONSTRAINT miembro_pkey PRIMARY KEY (id);


--
-- Name: miembro miembro_torneo_id_cuenta_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.miembro
    ADD CONSTRAINT miembro_torneo_id_cuenta_id_key UNIQUE (torneo_id, cuenta_id);


--
-- Name: pareja pareja_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pareja
    ADD CONSTRAINT pareja_pkey PRIMARY KEY (id);


--
-- Name: pareja pareja_torneo_id_nombre_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pareja
    ADD CONSTRAINT pareja_torneo_id_nombre_key UNIQUE (torneo_id, nombre);


--
-- Name: partidas partidas_clave_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partidas
    ADD CONSTRAINT partidas_clave_key UNIQUE (clave);


--
-- Name: partidas partidas_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partidas
    ADD CONSTRAINT partidas_pkey PRIMARY KEY (id);


--
-- Name: ronda ronda_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ronda
    ADD CONSTRAINT ronda_pkey PRIMARY KEY (id);


--
-- Name: ronda ronda_torneo_id_numero_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ronda
    ADD CONSTRAINT ronda_torneo_id_numero_key UNIQUE (torneo_id, numero);


--
-- Name: sesion sesion_huella_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sesion
    ADD CONSTRAINT sesion_huella_key UNIQUE (huella);


--
-- Name: sesion sesion_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sesion
    ADD CONSTRAINT sesion_pkey PRIMARY KEY (id);


--
-- Name: token_mesa token_mesa_huella_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_mesa
    ADD CONSTRAINT token_mesa_huella_key UNIQUE (huella);


--
-- Name: token_mesa token_mesa_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_mesa
    ADD CONSTRAINT token_mesa_pkey PRIMARY KEY (id);


--
-- Name: torneo torneo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.torneo
    ADD CONSTRAINT torneo_pkey PRIMARY KEY (id);


--
-- Name: manos_partida uq_manos_partida_id_mano; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manos_partida
    ADD CONSTRAINT uq_manos_partida_id_mano UNIQUE (partida_id, id_mano);


--
-- Name: manos_partida uq_manos_partida_n; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manos_partida
    ADD CONSTRAINT uq_manos_partida_n UNIQUE (partida_id, n);


--
-- Name: mesa uq_mesa_huella; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mesa
    ADD CONSTRAINT uq_mesa_huella UNIQUE (huella);


--
-- Name: ix_cambio_miembro_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_cambio_miembro_torneo_id ON public.cambio_miembro USING btree (torneo_id);


--
-- Name: ix_correccion_enfrentamiento_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_correccion_enfrentamiento_id ON public.correccion USING btree (enfrentamiento_id);


--
-- Name: ix_correccion_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_correccion_torneo_id ON public.correccion USING btree (torneo_id);


--
-- Name: ix_enfrentamiento_ronda_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_enfrentamiento_ronda_id ON public.enfrentamiento USING btree (ronda_id);


--
-- Name: ix_enfrentamiento_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_enfrentamiento_torneo_id ON public.enfrentamiento USING btree (torneo_id);


--
-- Name: ix_incidencia_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_incidencia_torneo_id ON public.incidencia USING btree (torneo_id);


--
-- Name: ix_informe_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_informe_torneo_id ON public.informe USING btree (torneo_id);


--
-- Name: ix_invitacion_cuenta_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_invitacion_cuenta_id ON public.invitacion USING btree (cuenta_id);


--
-- Name: ix_invitacion_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_invitacion_torneo_id ON public.invitacion USING btree (torneo_id);


--
-- Name: ix_mano_enfrentamiento_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_mano_enfrentamiento_id ON public.mano USING btree (enfrentamiento_id);


--
-- Name: ix_mano_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_mano_torneo_id ON public.mano USING btree (torneo_id);


--
-- Name: ix_manos_partida_partida_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_manos_partida_partida_id ON public.manos_partida USING btree (partida_id);


--
-- Name: ix_mesa_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_mesa_torneo_id ON public.mesa USING btree (torneo_id);


--
-- Name: ix_miembro_cuenta_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_miembro_cuenta_id ON public.miembro USING btree (cuenta_id);


--
-- Name: ix_miembro_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_miembro_torneo_id ON public.miembro USING btree (torneo_id);


--
-- Name: ix_pareja_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_pareja_torneo_id ON public.pareja USING btree (torneo_id);


--
-- Name: ix_ronda_torneo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_ronda_torneo_id ON public.ronda USING btree (torneo_id);


--
-- Name: borradores borradores_partida_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.borradores
    ADD CONSTRAINT borradores_partida_id_fkey FOREIGN KEY (partida_id) REFERENCES public.partidas(id);


--
-- Name: cambio_miembro cambio_miembro_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cambio_miembro
    ADD CONSTRAINT cambio_miembro_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: correccion correccion_cuenta_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.correccion
    ADD CONSTRAINT correccion_cuenta_id_fkey FOREIGN KEY (cuenta_id) REFERENCES public.cuenta(id);


--
-- Name: correccion correccion_enfrentamiento_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.correccion
    ADD CONSTRAINT correccion_enfrentamiento_id_fkey FOREIGN KEY (enfrentamiento_id) REFERENCES public.enfrentamiento(id);


--
-- Name: correccion correccion_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.correccion
    ADD CONSTRAINT correccion_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: enfrentamiento enfrentamiento_mesa_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enfrentamiento
    ADD CONSTRAINT enfrentamiento_mesa_id_fkey FOREIGN KEY (mesa_id) REFERENCES public.mesa(id);


--
-- Name: enfrentamiento enfrentamiento_pareja0_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enfrentamiento
    ADD CONSTRAINT enfrentamiento_pareja0_id_fkey FOREIGN KEY (pareja0_id) REFERENCES public.pareja(id);


--
-- Name: enfrentamiento enfrentamiento_pareja1_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enfrentamiento
    ADD CONSTRAINT enfrentamiento_pareja1_id_fkey FOREIGN KEY (pareja1_id) REFERENCES public.pareja(id);


--
-- Name: enfrentamiento enfrentamiento_ronda_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enfrentamiento
    ADD CONSTRAINT enfrentamiento_ronda_id_fkey FOREIGN KEY (ronda_id) REFERENCES public.ronda(id);


--
-- Name: enfrentamiento enfrentamiento_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enfrentamiento
    ADD CONSTRAINT enfrentamiento_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: cuenta fk_cuenta_torneo; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cuenta
    ADD CONSTRAINT fk_cuenta_torneo FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: incidencia fk_incidencia_mano; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.incidencia
    ADD CONSTRAINT fk_incidencia_mano FOREIGN KEY (mano_id) REFERENCES public.mano(id);


--
-- Name: incidencia incidencia_informe_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.incidencia
    ADD CONSTRAINT incidencia_informe_id_fkey FOREIGN KEY (informe_id) REFERENCES public.informe(id);


--
-- Name: incidencia incidencia_mesa_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.incidencia
    ADD CONSTRAINT incidencia_mesa_id_fkey FOREIGN KEY (mesa_id) REFERENCES public.mesa(id);


--
-- Name: incidencia incidencia_pareja_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.incidencia
    ADD CONSTRAINT incidencia_pareja_id_fkey FOREIGN KEY (pareja_id) REFERENCES public.pareja(id);


--
-- Name: incidencia incidencia_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.incidencia
    ADD CONSTRAINT incidencia_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: informe informe_arbitro_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.informe
    ADD CONSTRAINT informe_arbitro_id_fkey FOREIGN KEY (arbitro_id) REFERENCES public.cuenta(id);


--
-- Name: informe informe_enfrentamiento_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.informe
    ADD CONSTRAINT informe_enfrentamiento_id_fkey FOREIGN KEY (enfrentamiento_id) REFERENCES public.enfrentamiento(id);


--
-- Name: informe informe_mesa_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.informe
    ADD CONSTRAINT informe_mesa_id_fkey FOREIGN KEY (mesa_id) REFERENCES public.mesa(id);


--
-- Name: informe informe_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.informe
    ADD CONSTRAINT informe_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: invitacion invitacion_cuenta_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitacion
    ADD CONSTRAINT invitacion_cuenta_id_fkey FOREIGN KEY (cuenta_id) REFERENCES public.cuenta(id);


--
-- Name: invitacion invitacion_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitacion
    ADD CONSTRAINT invitacion_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: mano mano_enfrentamiento_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mano
    ADD CONSTRAINT mano_enfrentamiento_id_fkey FOREIGN KEY (enfrentamiento_id) REFERENCES public.enfrentamiento(id);


--
-- Name: mano mano_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mano
    ADD CONSTRAINT mano_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: manos_partida manos_partida_partida_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manos_partida
    ADD CONSTRAINT manos_partida_partida_id_fkey FOREIGN KEY (partida_id) REFERENCES public.partidas(id);


--
-- Name: mesa mesa_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mesa
    ADD CONSTRAINT mesa_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: miembro miembro_cuenta_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.miembro
    ADD CONSTRAINT miembro_cuenta_id_fkey FOREIGN KEY (cuenta_id) REFERENCES public.cuenta(id);


--
-- Name: miembro miembro_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.miembro
    ADD CONSTRAINT miembro_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: pareja pareja_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pareja
    ADD CONSTRAINT pareja_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: ronda ronda_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ronda
    ADD CONSTRAINT ronda_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: sesion sesion_cuenta_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sesion
    ADD CONSTRAINT sesion_cuenta_id_fkey FOREIGN KEY (cuenta_id) REFERENCES public.cuenta(id);


--
-- Name: token_mesa token_mesa_enfrentamiento_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_mesa
    ADD CONSTRAINT token_mesa_enfrentamiento_id_fkey FOREIGN KEY (enfrentamiento_id) REFERENCES public.enfrentamiento(id);


--
-- Name: token_mesa token_mesa_torneo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_mesa
    ADD CONSTRAINT token_mesa_torneo_id_fkey FOREIGN KEY (torneo_id) REFERENCES public.torneo(id);


--
-- Name: torneo torneo_organizador_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.torneo
    ADD CONSTRAINT torneo_organizador_id_fkey FOREIGN KEY (organizador_id) REFERENCES public.cuenta(id);


--
-- PostgreSQL database dump complete
--



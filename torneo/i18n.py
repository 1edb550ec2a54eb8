"""The server's words: Spanish first, Basque and English. Two small catalogues kept here: the
organiser pages' words (tests/test_torneo_paginas.py fails if a language lacks one) and the
API's error messages (tests/test_torneo_i18n_api.py checks every one the code raises).

The language comes from ``?lang=`` or the browser's Accept-Language, Spanish by default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

IDIOMAS: Final = ("es", "eu", "en")

# Spanish text -> (Basque, English)
CATALOGO: Final[dict[str, tuple[str, str]]] = {
    "Torneo de mus": ("Mus txapelketa", "Mus tournament"),
    "Entrar": ("Sartu", "Log in"),
    "Salir": ("Irten", "Log out"),
    "Usuario": ("Erabiltzailea", "User"),
    "Contraseña": ("Pasahitza", "Password"),
    "Mis torneos": ("Nire txapelketak", "My tournaments"),
    "Crear torneo": ("Txapelketa sortu", "Create tournament"),
    "Nombre": ("Izena", "Name"),
    "Jugadores": ("Jokalariak", "Players"),
    "Reglas": ("Arauak", "Rules"),
    "Formato": ("Formatua", "Format"),
    "Liga": ("Liga", "League"),
    "Grupos y eliminatoria": ("Multzoak eta kanporaketa", "Groups then knockout"),
    "Grupos": ("Multzoak", "Groups"),
    "Clasifican por grupo": ("Multzoko sailkatuak", "Qualify per group"),
    "Partida a juegos": ("Partida jokotara", "Match to juegos"),
    "Sortear el orden": ("Ordena zozketatu", "Draw the order"),
    "Semilla del sorteo": ("Zozketaren hazia", "Draw seed"),
    "Mesas": ("Mahaiak", "Tables"),
    "Mesa": ("Mahaia", "Table"),
    "Parejas": ("Bikoteak", "Pairs"),
    "Pareja": ("Bikotea", "Pair"),
    "Una pareja por línea: Nombre: Jugador, Jugador": (
        "Bikote bat lerro bakoitzean: Izena: Jokalaria, Jokalaria",
        "One pair per line: Name: Player, Player",
    ),
    "Código": ("Kodea", "Code"),
    "Rondas": ("Txandak", "Rounds"),
    "Ronda": ("Txanda", "Round"),
    "Empezar la siguiente ronda": ("Hurrengo txanda hasi", "Start the next round"),
    "Clasificación": ("Sailkapena", "Standings"),
    "Partidas": ("Partidak", "Matches"),
    "En juego": ("Jokoan", "Being played"),
    "Terminadas": ("Amaituak", "Finished"),
    "Descansa": ("Atseden", "Bye"),
    "Incidencias": ("Gorabeherak", "Incidents"),
    "Artículo": ("Artikulua", "Article"),
    "Motivo": ("Arrazoia", "Reason"),
    "Gravedad": ("Larritasuna", "Severity"),
    "Sin incidencias": ("Gorabeherarik ez", "No incidents"),
    "Origen": ("Jatorria", "Source"),
    "Árbitro": ("Epailea", "Referee"),
    "Discrepancia de tanteo": ("Zenbaketa-desadostasuna", "Score discrepancy"),
    "Mano": ("Eskua", "Hand"),
    "la mesa contó": ("mahaiak zenbatu zuen", "the table counted"),
    "las reglas dan": ("arauek ematen dute", "the rules give"),
    "Ganadas": ("Irabaziak", "Won"),
    "Perdidas": ("Galduak", "Lost"),
    "Juegos": ("Jokoak", "Juegos"),
    "Tantos": ("Harriak", "Tantos"),
    "Manos": ("Eskuak", "Hands"),
    "Marcador": ("Markagailua", "Score"),
    "Ganador": ("Irabazlea", "Winner"),
    "Exportar": ("Esportatu", "Export"),
    "Se actualiza sola cada 10 segundos": (
        "Bere kabuz eguneratzen da 10 segundoro",
        "Refreshes itself every 10 seconds",
    ),
    "Aún no hay rondas": ("Oraindik ez dago txandarik", "No rounds yet"),
    "Aún no hay torneos": ("Oraindik ez dago txapelketarik", "No tournaments yet"),
    "Códigos de mesa": ("Mahaien kodeak", "Table codes"),
    "La tableta de cada mesa se une con su código o leyendo el QR": (
        "Mahai bakoitzeko tabletak bere kodearekin edo QRa irakurriz bat egiten du",
        "Each table's tablet joins with its code or by reading the QR code",
    ),
    "Volver": ("Itzuli", "Back"),
    "Campeón": ("Txapelduna", "Champion"),
    "Correcciones": ("Zuzenketak", "Corrections"),
    "Corregir": ("Zuzendu", "Correct"),
    "Corregir el resultado": ("Emaitza zuzendu", "Correct the result"),
    "Guardar la corrección": ("Zuzenketa gorde", "Save the correction"),
    "Cuándo": ("Noiz", "When"),
    "Quién": ("Nork", "Who"),
    "Antes": ("Lehen", "Before"),
    "Después": ("Gero", "After"),
    "Cambio en una partida cerrada": ("Itxitako partida bateko aldaketa", "Change to a closed match"),
    "Cuadro": ("Koadroa", "Bracket"),
    "Grupo": ("Multzoa", "Group"),
    "Los árbitros pueden corregir resultados": ("Epaileek emaitzak zuzen ditzakete", "Referees may correct results"),
    "Se actualiza sola": ("Bere kabuz eguneratzen da", "Refreshes itself"),
    "Vista de proyector": ("Proiektagailurako ikuspegia", "Projector view"),
    "Vista de móvil": ("Mugikorrerako ikuspegia", "Phone view"),
    "Imprimir": ("Inprimatu", "Print"),
    "Parejas por mesa": ("Bikoteak mahaika", "Pairs by table"),
    "Clasificación en directo": ("Zuzeneko sailkapena", "Live standings"),
    "Tarjetas de mesa": ("Mahai-txartelak", "Table cards"),
    "Página pública": ("Orri publikoa", "Public page"),
    "Nuevo código": ("Kode berria", "New code"),
    "Retirar": ("Erretiratu", "Withdraw"),
    "Retirada": ("Erretiratua", "Withdrawn"),
    "Añadir pareja": ("Bikotea gehitu", "Add a pair"),
    "Árbitros": ("Epaileak", "Referees"),
    "Crear cuenta de árbitro": ("Epaile-kontua sortu", "Create a referee account"),
    "Mi cuenta": ("Nire kontua", "My account"),
    "Cambiar la contraseña": ("Pasahitza aldatu", "Change the password"),
    "Contraseña actual": ("Egungo pasahitza", "Current password"),
    "Contraseña nueva": ("Pasahitz berria", "New password"),
    "Repite la contraseña nueva": ("Errepikatu pasahitz berria", "Repeat the new password"),
    "Contraseña cambiada": ("Pasahitza aldatuta", "Password changed"),
    "Organizadores y árbitros": ("Antolatzaileak eta epaileak", "Organisers and referees"),
    "Un coorganizador puede hacer todo lo que hace quien creó el torneo; un árbitro lo ve, sube informes"
    " y corrige resultados si el torneo lo permite.": (
        "Antolatzailekide batek txapelketa sortu zuenak egiten duen guztia egin dezake; epaile batek ikusi egiten du,"
        " txostenak igotzen ditu eta emaitzak zuzentzen ditu txapelketak uzten badu.",
        "A co-organiser may do everything the tournament's creator does; a referee sees it, uploads reports"
        " and corrects results if the tournament allows it.",
    ),
    "Papel": ("Zeregina", "Role"),
    "Creó el torneo": ("Txapelketa sortu zuen", "Created the tournament"),
    "Coorganizador": ("Antolatzailekidea", "Co-organiser"),
    "Cambios": ("Aldaketak", "Changes"),
    "Cambio": ("Aldaketa", "Change"),
    "Añadido": ("Gehitua", "Added"),
    "Quitado": ("Kendua", "Removed"),
    "Papel cambiado": ("Zeregina aldatua", "Role changed"),
    "Quitar": ("Kendu", "Remove"),
    "Añadir": ("Gehitu", "Add"),
    "solo para una cuenta nueva": ("kontu berri baterako bakarrik", "only for a new account"),
    "Torneo": ("Txapelketa", "Tournament"),
    "Invitaciones a torneos": ("Txapelketetarako gonbidapenak", "Invitations to tournaments"),
    "Invitaciones pendientes": ("Zain dauden gonbidapenak", "Pending invitations"),
    "Una cuenta que ya existe recibe una invitación: será del torneo cuando la acepte.": (
        "Lehendik dagoen kontu batek gonbidapen bat jasotzen du: onartzen duenean izango da txapelketakoa.",
        "An account that already exists gets an invitation: it joins the tournament when it accepts.",
    ),
    "Invitado": ("Gonbidatua", "Invited"),
    "Invitación aceptada": ("Gonbidapena onartua", "Invitation accepted"),
    "Invitación rechazada": ("Gonbidapena baztertua", "Invitation declined"),
    "Aceptar": ("Onartu", "Accept"),
    "Rechazar": ("Baztertu", "Decline"),
    "No tienes invitaciones": ("Ez duzu gonbidapenik", "You have no invitations"),
    "En una liga, una pareja que llega tarde juega contra todas en las rondas que faltan"
    " (se añaden rondas si hace falta).": (
        "Liga batean, berandu datorren bikote batek guztien aurka jokatzen du falta diren txandetan"
        " (txandak gehitzen dira behar izanez gero).",
        "In a league, a pair that arrives late plays every other pair in the rounds left (rounds are added if needed).",
    ),
    # the day's running (issue 55): calls to the referee, the round clock
    "Llamadas al árbitro": ("Epaileari deiak", "Calls to the referee"),
    "Sin llamadas": ("Deirik ez", "No calls"),
    "Atendida": ("Artatua", "Attended"),
    "Marcar atendida": ("Artatutzat jo", "Mark attended"),
    "Reloj de la ronda": ("Txandaren erlojua", "Round clock"),
    "Minutos": ("Minutuak", "Minutes"),
    "Empezar el reloj": ("Erlojua abiarazi", "Start the clock"),
    "Pausar": ("Pausatu", "Pause"),
    "Reanudar": ("Jarraitu", "Resume"),
    "Prorrogar": ("Luzatu", "Extend"),
    "Cerrar ronda por tiempo": ("Txanda denboragatik itxi", "Close the round on time"),
    "Por tiempo": ("Denboragatik", "On time"),
    "Tiempo agotado": ("Denbora amaitu da", "Time is up"),
    "En pausa": ("Pausan", "Paused"),
    "Tiempo": ("Denbora", "Time"),
}


def idioma(lang: str | None, accept: str | None) -> str:
    """``?lang=`` if it is one we have, else the first of Accept-Language we have, else es."""
    if lang in IDIOMAS:
        return lang
    for part in (accept or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in IDIOMAS:
            return code
    return "es"


def idioma_de(request: Any) -> str:
    """A request's language (pages and API alike): ``?lang=``, else Accept-Language, else es."""
    return idioma(request.query_params.get("lang"), request.headers.get("accept-language"))


def traducir(texto: str, lang: str) -> str:
    if lang == "es" or texto not in CATALOGO:
        return texto
    return CATALOGO[texto][IDIOMAS.index(lang) - 1]


# -- the API's error messages -----------------------------------------------------------------
# Spanish msgid -> (Basque, English). ``{name}`` fields are filled from the ServicioError's
# parameters. Messages made elsewhere (scoring/, torneo.formato, pydantic's checks as
# api.error_de_validacion words them) arrive as finished text: they are matched against these
# same templates, the fields read back from the text. Text no template matches stays Spanish.
MENSAJES: Final[dict[str, tuple[str, str]]] = {
    # servicio.py
    "un torneo necesita de 2 a {maximo} parejas": (
        "txapelketa batek 2 eta {maximo} bikote artean behar ditu",
        "a tournament needs 2 to {maximo} pairs",
    ),
    "dos parejas tienen el mismo nombre": ("bi bikotek izen bera dute", "two pairs have the same name"),
    "el número de mesas debe ir de 1 a {maximo}": (
        "mahai kopuruak 1 eta {maximo} artean egon behar du",
        "the number of tables must be 1 to {maximo}",
    ),
    "hay más grupos que parejas para llenarlos (dos por grupo como poco)": (
        "bikoteak baino multzo gehiago daude (gutxienez bi multzo bakoitzeko)",
        "there are more groups than pairs to fill them (two per group at least)",
    ),
    "no existe ese torneo": ("txapelketa hori ez dago", "no such tournament"),
    "la ronda en juego no ha terminado: faltan partidas": (
        "jokoan dagoen txanda ez da amaitu: partidak falta dira",
        "the round being played has not finished: matches are missing",
    ),
    "el torneo ha terminado: no quedan rondas": (
        "txapelketa amaitu da: ez da txandarik geratzen",
        "the tournament is over: no rounds are left",
    ),
    "la ronda necesita {necesita} mesas y el torneo tiene {tiene}": (
        "txandak {necesita} mahai behar ditu eta txapelketak {tiene} ditu",
        "the round needs {necesita} tables and the tournament has {tiene}",
    ),
    "código de mesa desconocido": ("mahai-kode ezezaguna", "unknown table code"),
    "esta mesa aún no tiene partida: espera a que empiece la ronda": (
        "mahai honek ez du partidarik oraindik: itxaron txanda hasi arte",
        "this table has no match yet: wait for the round to start",
    ),
    "token de mesa no válido": ("mahai-token baliogabea", "invalid table token"),
    "la mano {id} ya se recibió con otro contenido": (
        "{id} eskua beste eduki batekin jaso zen",
        "hand {id} was already received with other content",
    ),
    "esta pareja descansa en la ronda: no hay manos que enviar": (
        "bikote honek atseden du txanda honetan: ez dago eskurik bidaltzeko",
        "this pair has a bye this round: there are no hands to send",
    ),
    "se esperaba la mano {esperada}, no la {numero}": (
        "{esperada}. eskua espero zen, ez {numero}.a",
        "hand {esperada} was expected, not {numero}",
    ),
    "otra copia de esta mano llegó a la vez: reenvíala": (
        "esku honen beste kopia bat iritsi da aldi berean: bidali berriro",
        "another copy of this hand arrived at the same time: send it again",
    ),
    "la partida ya tiene ganador: la mesa no puede cambiarla; el organizador corrige los resultados": (
        "partidak irabazlea du jada: mahaiak ezin du aldatu; antolatzaileak zuzentzen ditu emaitzak",
        "the match already has a winner: the table cannot change it; the organiser corrects results",
    ),
    "la ronda de esta partida ya terminó: la mesa no puede escribir en ella": (
        "partida honen txanda amaitu da: mahaiak ezin du bertan idatzi",
        "this match's round is over: the table cannot write to it",
    ),
    "no existe esa partida": ("partida hori ez dago", "no such match"),
    "{donde}: el nombre tiene caracteres de control o de dirección del texto; escríbelo sin ellos": (
        "{donde}: izenak kontrol-karaktereak edo testuaren norabidekoak ditu; idatzi horiek gabe",
        "{donde}: the name has control or text-direction characters; write it without them",
    ),
    "{donde}: falta el nombre": ("{donde}: izena falta da", "{donde}: the name is missing"),
    "no existe esa página": ("orri hori ez dago", "no such page"),
    "método no admitido": ("metodo hori ez da onartzen", "method not allowed"),
    "solo el organizador corrige resultados (o un árbitro, si el organizador lo permite)": (
        "antolatzaileak bakarrik zuzentzen ditu emaitzak (edo epaile batek, antolatzaileak uzten badio)",
        "only the organiser corrects results (or a referee, if the organiser allows it)",
    ),
    "una pareja que descansa no tiene resultado que corregir": (
        "atseden duen bikote batek ez du zuzentzeko emaitzarik",
        "a pair with a bye has no result to correct",
    ),
    "el motivo de la corrección debe tener de 3 a 500 caracteres": (
        "zuzenketaren arrazoiak 3 eta 500 karaktere artean izan behar ditu",
        "the reason for the correction must have 3 to 500 characters",
    ),
    "el ganador debe ser la pareja 0 o la 1": (
        "irabazleak 0 edo 1 bikotea izan behar du",
        "the winner must be pair 0 or 1",
    ),
    "ya se emparejó una ronda con este resultado: el ganador no puede cambiar": (
        "emaitza honekin txanda bat parekatu da jada: irabazlea ezin da aldatu",
        "a round was already paired from this result: the winner cannot change",
    ),
    "solo se puede corregir la última mano de la partida": (
        "partidaren azken eskua bakarrik zuzen daiteke",
        "only the match's last hand can be corrected",
    ),
    "campo desconocido en el registro: {campos}": (
        "eremu ezezaguna erregistroan: {campos}",
        "unknown field in the record: {campos}",
    ),
    "el registro trae otras reglas que las del torneo": (
        "erregistroak txapelketarenak ez diren arauak ditu",
        "the record has other rules than the tournament's",
    ),
    "el marcador antes de la mano no coincide: el servidor lleva {marcador}": (
        "eskuaren aurreko markagailua ez dator bat: zerbitzariak {marcador} darama",
        "the score before the hand does not match: the server has {marcador}",
    ),
    "los jugadores del registro no son los de esta partida": (
        "erregistroko jokalariak ez dira partida honetakoak",
        "the record's players are not this match's",
    ),
    "el tanteo no coincide: la mesa dice {mesa}, las reglas dan {reglas}": (
        "zenbaketa ez dator bat: mahaiak {mesa} dio, arauek {reglas} ematen dute",
        "the score does not match: the table says {mesa}, the rules give {reglas}",
    ),
    "el torneo no tiene mesa {mesa}": ("txapelketak ez du {mesa}. mahairik", "the tournament has no table {mesa}"),
    "registro del árbitro ALTERADO: {motivo}": (
        "epailearen erregistroa ALDATUTA: {motivo}",
        "referee's log ALTERED: {motivo}",
    ),
    "registro del árbitro ALTERADO en la entrada {entrada}: {motivo}": (
        "epailearen erregistroa ALDATUTA {entrada}. sarreran: {motivo}",
        "referee's log ALTERED at entry {entrada}: {motivo}",
    ),
    # auth.py, cuerpo.py, api.py, paginas.py, cli.py
    "el usuario debe tener de 3 a 64 letras, cifras o . _ - @": (
        "erabiltzaileak 3 eta 64 artean letra, zifra edo . _ - @ izan behar ditu",
        "the user must have 3 to 64 letters, digits or . _ - @",
    ),
    "rol desconocido {rol}": ("rol ezezaguna {rol}", "unknown role {rol}"),
    "no existe ese dato": ("datu hori ez dago", "no such record"),
    # miembros.py, dependencias.py
    "solo un organizador del torneo puede hacer esto": (
        "txapelketaren antolatzaile batek bakarrik egin dezake hau",
        "only an organiser of the tournament may do this",
    ),
    "no existe el usuario {usuario}: escribe una contraseña para crearlo": (
        "ez dago {usuario} erabiltzailerik: idatzi pasahitz bat sortzeko",
        "there is no user {usuario}: write a password to create it",
    ),
    "ya existe el usuario {usuario}: se añade sin contraseña": (
        "{usuario} erabiltzailea badago: pasahitzik gabe gehitzen da",
        "the user {usuario} exists: it is added without a password",
    ),
    "quien creó el torneo es siempre su organizador": (
        "txapelketa sortu zuena beti da bere antolatzailea",
        "whoever created the tournament is always its organiser",
    ),
    "esa cuenta no es de este torneo": (
        "kontu hori ez da txapelketa honetakoa",
        "that account is not of this tournament",
    ),
    # inscripcion.py
    "la eliminatoria ya empezó: no se añaden parejas": (
        "kanporaketa hasi da: ez da bikoterik gehitzen",
        "the knockout has begun: no pairs are added",
    ),
    "los grupos ya empezaron: en un torneo por grupos una pareja solo se añade antes de la primera ronda": (
        "multzoak hasi dira: multzokako txapelketa batean bikote bat lehen txandaren aurretik bakarrik gehitzen da",
        "the groups have begun: in a groups tournament a pair is added only before the first round",
    ),
    "el torneo ha terminado: no se añaden parejas": (
        "txapelketa amaitu da: ez da bikoterik gehitzen",
        "the tournament is over: no pairs are added",
    ),
    "la contraseña debe tener de 8 a 256 caracteres": (
        "pasahitzak 8 eta 256 karaktere artean izan behar ditu",
        "the password must have 8 to 256 characters",
    ),
    "esa contraseña es demasiado fácil de adivinar: elige otra más larga y menos común": (
        "pasahitz hori errazegia da asmatzeko: aukeratu luzeago eta ez hain ohiko bat",
        "that password is too easy to guess: choose a longer, less common one",
    ),
    "con PostgreSQL, copia y restaura con pg_dump y pg_restore (docs/torneo.md)": (
        "PostgreSQLrekin, kopiatu eta leheneratu pg_dump eta pg_restore erabiliz (docs/torneo.md)",
        "with PostgreSQL, back up and restore with pg_dump and pg_restore (docs/torneo.md)",
    ),
    "no hay base de datos que copiar en {ruta}": (
        "ez dago kopiatzeko datu-baserik hemen: {ruta}",
        "there is no database to copy at {ruta}",
    ),
    "ya existe {ruta}: elige otro nombre": (
        "{ruta} badago lehendik: aukeratu beste izen bat",
        "{ruta} already exists: choose another name",
    ),
    "no existe la copia {ruta}": ("{ruta} kopia ez dago", "there is no backup {ruta}"),
    "{ruta} no es una copia de una base de mus torneo": (
        "{ruta} ez da mus torneo datu-base baten kopia",
        "{ruta} is not a backup of a mus torneo database",
    ),
    "la base actual tiene {n} torneos: añade --forzar para sustituirla": (
        "egungo datu-baseak {n} txapelketa ditu: gehitu --forzar ordezkatzeko",
        "the current database has {n} tournaments: add --forzar to replace it",
    ),
    "no existe esa pareja": ("bikote hori ez dago", "no such pair"),
    "esa pareja tiene una partida sin terminar: corrígela antes (incomparecencia)": (
        "bikote horrek amaitu gabeko partida bat du: zuzendu lehenago (ez agertzea)",
        "that pair has an unfinished match: correct it first (no-show)",
    ),
    "las dos contraseñas nuevas no coinciden": ("bi pasahitz berriak ez datoz bat", "the two new passwords differ"),
    "la contraseña actual no es correcta": ("egungo pasahitza ez da zuzena", "the current password is wrong"),
    "ya existe el usuario {usuario}": ("{usuario} erabiltzailea badago lehendik", "the user {usuario} already exists"),
    "usuario o contraseña incorrectos": ("erabiltzaile edo pasahitz okerra", "wrong user or password"),
    "no existe esa invitación": ("ez dago gonbidapen hori", "there is no such invitation"),
    "demasiados intentos fallidos con esta cuenta: espera {segundos} s y vuelve a intentarlo": (
        "huts egindako saiakera gehiegi kontu honekin: itxaron {segundos} s eta saiatu berriro",
        "too many failed attempts for this account: wait {segundos} s and try again",
    ),
    "el servidor está comprobando otras contraseñas: vuelve a intentarlo en un momento": (
        "zerbitzaria beste pasahitz batzuk egiaztatzen ari da: saiatu berriro une batean",
        "the server is checking other passwords: try again in a moment",
    ),
    "hay que iniciar sesión": ("saioa hasi behar da", "you must log in"),
    "la sesión no es válida o ha caducado: vuelve a entrar": (
        "saioa ez da baliozkoa edo iraungi da: sartu berriro",
        "the login is invalid or has expired: log in again",
    ),
    "cuerpo demasiado grande (más de {kib} KiB)": (
        "gorputz handiegia ({kib} KiB baino gehiago)",
        "body too large (more than {kib} KiB)",
    ),
    "formulario ilegible": ("inprimaki irakurtezina", "unreadable form"),
    # seguridad.py, cuerpo.py, estado.py: requests from another site, slow and non-JSON bodies
    "el formulario ha caducado o no viene de esta página: vuelve a cargarla e inténtalo de nuevo": (
        "inprimakia iraungi da edo ez dator orri honetatik: kargatu berriro eta saiatu berriz",
        "the form has expired or does not come from this page: reload it and try again",
    ),
    "petición rechazada: no viene de una página de este servidor": (
        "eskaera baztertua: ez dator zerbitzari honetako orri batetik",
        "request refused: it does not come from a page of this server",
    ),
    "el cuerpo de la petición tarda demasiado en llegar": (
        "eskaeraren gorputzak gehiegi behar du iristeko",
        "the request body is taking too long to arrive",
    ),
    "el cuerpo debe ser JSON (Content-Type: application/json)": (
        "gorputzak JSON izan behar du (Content-Type: application/json)",
        "the body must be JSON (Content-Type: application/json)",
    ),
    "el cuerpo no es texto UTF-8": ("gorputza ez da UTF-8 testua", "the body is not UTF-8 text"),
    "demasiadas peticiones: espera un momento": (
        "eskaera gehiegi: itxaron pixka bat",
        "too many requests: wait a moment",
    ),
    "falta el token de la mesa": ("mahaiaren tokena falta da", "the table token is missing"),
    "solo un organizador puede hacer esto": (
        "antolatzaile batek bakarrik egin dezake hau",
        "only an organiser can do this",
    ),
    "solo el organizador puede empezar una ronda": (
        "antolatzaileak bakarrik has dezake txanda bat",
        "only the organiser can start a round",
    ),
    "línea {linea} de parejas: escribe «Nombre: Jugador, Jugador»": (
        "bikoteen {linea}. lerroa: idatzi «Izena: Jokalaria, Jokalaria»",
        "line {linea} of pairs: write «Name: Player, Player»",
    ),
    "línea {linea} de parejas: nombre demasiado largo": (
        "bikoteen {linea}. lerroa: izen luzeegia",
        "line {linea} of pairs: name too long",
    ),
    "{campo} debe ser un número de {bajo} a {alto}": (
        "{campo} {bajo} eta {alto} arteko zenbakia izan behar da",
        "{campo} must be a number from {bajo} to {alto}",
    ),
    "perfil de reglas desconocido: {reglas}": ("arau-profil ezezaguna: {reglas}", "unknown rules profile: {reglas}"),
    "el torneo debe ser un objeto JSON": (
        "txapelketak JSON objektu bat izan behar du",
        "the tournament must be a JSON object",
    ),
    "no existe el organizador {usuario}": ("ez dago {usuario} antolatzailerik", "there is no organiser {usuario}"),
    # the request models' checks (api.error_de_validacion)
    "campo {campo}: falta": ("{campo} eremua: falta da", "field {campo}: missing"),
    "campo {campo}: no se admite": ("{campo} eremua: ez da onartzen", "field {campo}: not allowed"),
    "campo {campo}: debe tener al menos {n} caracteres": (
        "{campo} eremua: gutxienez {n} karaktere izan behar ditu",
        "field {campo}: must have at least {n} characters",
    ),
    "campo {campo}: debe tener como mucho {n} caracteres": (
        "{campo} eremua: gehienez {n} karaktere izan ditzake",
        "field {campo}: must have at most {n} characters",
    ),
    "campo {campo}: debe tener al menos {n} elementos": (
        "{campo} eremua: gutxienez {n} elementu izan behar ditu",
        "field {campo}: must have at least {n} items",
    ),
    "campo {campo}: debe tener como mucho {n} elementos": (
        "{campo} eremua: gehienez {n} elementu izan ditzake",
        "field {campo}: must have at most {n} items",
    ),
    "campo {campo}: formato no válido": ("{campo} eremua: formatu baliogabea", "field {campo}: invalid format"),
    "campo {campo}: debe ser {n} o más": (
        "{campo} eremua: {n} edo gehiago izan behar da",
        "field {campo}: must be {n} or more",
    ),
    "campo {campo}: debe ser {n} o menos": (
        "{campo} eremua: {n} edo gutxiago izan behar da",
        "field {campo}: must be {n} or less",
    ),
    "campo {campo}: debe ser un número entero": (
        "{campo} eremua: zenbaki osoa izan behar da",
        "field {campo}: must be a whole number",
    ),
    "campo {campo}: debe ser un texto": ("{campo} eremua: testua izan behar da", "field {campo}: must be text"),
    "campo {campo}: debe ser verdadero o falso": (
        "{campo} eremua: egia edo gezurra izan behar da",
        "field {campo}: must be true or false",
    ),
    "campo {campo}: debe ser una lista": (
        "{campo} eremua: zerrenda bat izan behar da",
        "field {campo}: must be a list",
    ),
    "campo {campo}: debe ser un objeto": (
        "{campo} eremua: objektu bat izan behar da",
        "field {campo}: must be an object",
    ),
    "campo {campo}: valor no válido": ("{campo} eremua: balio baliogabea", "field {campo}: invalid value"),
    # torneo.formato
    "formato desconocido {tipo} (liga, grupos)": (
        "formatu ezezaguna {tipo} (liga, grupos)",
        "unknown format {tipo} (liga, grupos)",
    ),
    "una partida se juega a juegos o a vacas, no a las dos": (
        "partida bat jokotara edo behietara jokatzen da, ez bietara",
        "a match is played to juegos or to vacas, not both",
    ),
    "{campo} debe ser un entero de 1 a {maximo}": (
        "{campo} 1 eta {maximo} arteko zenbaki osoa izan behar da",
        "{campo} must be a whole number from 1 to {maximo}",
    ),
    "desempate desconocido o repetido ({lista})": (
        "berdinketa-hausle ezezaguna edo errepikatua ({lista})",
        "unknown or repeated tie-break ({lista})",
    ),
    # scoring.inputs (the body's JSON)
    "{donde}: JSON anidado demasiado profundo (más de {n} niveles)": (
        "{donde}: JSON habiaratuegia ({n} maila baino gehiago)",
        "{donde}: JSON nested too deep (more than {n} levels)",
    ),
    "{donde}: demasiado grande ({n} caracteres; como mucho {maximo})": (
        "{donde}: handiegia ({n} karaktere; gehienez {maximo})",
        "{donde}: too large ({n} characters; at most {maximo})",
    ),
    "JSON inválido en {donde}: {motivo} (línea {linea})": (
        "JSON baliogabea {donde}-n: {motivo} ({linea}. lerroa)",
        "invalid JSON in {donde}: {motivo} (line {linea})",
    ),
    "{donde}: texto con caracteres no válidos: {texto}": (
        "{donde}: karaktere baliogabeak dituen testua: {texto}",
        "{donde}: text with invalid characters: {texto}",
    ),
    "número demasiado largo ({n} cifras)": ("zenbaki luzeegia ({n} zifra)", "number too long ({n} digits)"),
    # scoring.tanteo / scoring.cards / scoring.partida (the hand record)
    "manos debe ser una lista de 4 manos, una por asiento": (
        "manos 4 eskuko zerrenda izan behar da, eserleku bakoitzeko bat",
        "manos must be a list of 4 hands, one per seat",
    ),
    "la carta {carta} aparece en la mano {a} y en la mano {b}": (
        "{carta} karta {a}. eskuan eta {b}. eskuan agertzen da",
        "the card {carta} appears in hand {a} and in hand {b}",
    ),
    "mano {mano}: {motivo}": ("{mano} eskua: {motivo}", "hand {mano}: {motivo}"),
    "una mano tiene {n} cartas, no {m}": ("esku batek {n} karta ditu, ez {m}", "a hand has {n} cards, not {m}"),
    "carta repetida en la mano: {cartas}": (
        "karta errepikatua eskuan: {cartas}",
        "repeated card in the hand: {cartas}",
    ),
    "lance {lance}: resultado inválido {valor}": (
        "{lance} lancea: emaitza baliogabea {valor}",
        "lance {lance}: invalid outcome {valor}",
    ),
    "lance desconocido: {lances}": ("lance ezezaguna: {lances}", "unknown lance: {lances}"),
    "lances debe ser un objeto {lance: resultado}": (
        "lances objektu bat izan behar da {lance: emaitza}",
        "lances must be an object {lance: outcome}",
    ),
    "el cuarto lance es juego o punto, no los dos": (
        "laugarren lancea jokoa edo puntua da, ez biak",
        "the fourth lance is juego or punto, not both",
    ),
    "mano debe ser un asiento de 0 a 3, no {valor}": (
        "mano 0 eta 3 arteko eserlekua izan behar da, ez {valor}",
        "mano must be a seat from 0 to 3, not {valor}",
    ),
    "la partida ya terminó: ganó {pareja}": (
        "partida amaitu da: {pareja} bikoteak irabazi du",
        "the match is over: {pareja} won",
    ),
    "declaraciones debe ser un objeto": ("declaraciones objektu bat izan behar da", "declaraciones must be an object"),
    "declaraciones: {motivo}": ("declaraciones: {motivo}", "declaraciones: {motivo}"),
    # the day's running (issue 55)
    "esta mesa ya ha llamado al árbitro: espera a que venga": (
        "mahai honek epaileari deitu dio jada: itxaron etorri arte",
        "this table has already called the referee: wait until they come",
    ),
    "no existe esa llamada": ("dei hori ez dago", "there is no such call"),
    "aún no hay rondas": ("oraindik ez dago txandarik", "there are no rounds yet"),
    "esta ronda no tiene reloj": ("txanda honek ez du erlojurik", "this round has no clock"),
    "los minutos deben ser de 1 a {n}": ("minutuak 1etik {n}era izan behar dira", "the minutes must be 1 to {n}"),
    "el motivo debe tener de 3 a 500 caracteres": (
        "arrazoiak 3 eta 500 karaktere artean izan behar ditu",
        "the reason must have 3 to 500 characters",
    ),
    "regla de fin de tiempo desconocida: {regla}": (
        "denbora-amaierako arau ezezaguna: {regla}",
        "unknown time-up rule: {regla}",
    ),
    "el reloj de esta ronda ya está en marcha": (
        "txanda honen erlojua martxan dago jada",
        "this round's clock is already running",
    ),
    "la ronda ya se cerró por tiempo": ("txanda denboragatik itxi zen jada", "the round was already closed on time"),
    "el reloj ya está en pausa": ("erlojua pausan dago jada", "the clock is already paused"),
    "el reloj no está en pausa": ("erlojua ez dago pausan", "the clock is not paused"),
    "acción del reloj desconocida: {accion}": (
        "erlojuaren ekintza ezezaguna: {accion}",
        "unknown clock action: {accion}",
    ),
    "aún queda tiempo en esta ronda": (
        "txanda honetan denbora geratzen da oraindik",
        "there is still time left in this round",
    ),
    "faltan los minutos de la ronda": ("txandaren minutuak falta dira", "the round's minutes are missing"),
    "tiempo.al_acabar debe ser juegos_tantos o tantos": (
        "tiempo.al_acabar juegos_tantos edo tantos izan behar da",
        "tiempo.al_acabar must be juegos_tantos or tantos",
    ),
    "la mano {numero} espera la confirmación de la otra pareja": (
        "{numero}. eskua beste bikotearen berrespenaren zain dago",
        "hand {numero} is waiting for the other pair's confirmation",
    ),
    "no hay ninguna mano que confirmar con ese id": (
        "ez dago id horrekin berresteko eskurik",
        "there is no hand to confirm with that id",
    ),
}


def _patron(plantilla: str) -> re.Pattern[str]:
    """A template as a regex that reads its fields back from finished text."""
    partes = re.split(r"\{(\w+)\}", plantilla)
    out = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(partes))
    return re.compile(f"^{out}$", re.DOTALL)


_PATRONES: Final = [(_patron(k), k) for k in MENSAJES if "{" in k and re.search(r"\{\w+\}", k)]


def mensaje(plantilla: str, params: Mapping[str, Any], lang: str) -> str:
    """A ServicioError's words in ``lang``: its template translated and filled, or, for finished
    text from elsewhere, the template it matches; a ``motivo`` field is translated the same way."""
    texto = plantilla.format(**params) if params else plantilla
    if lang not in IDIOMAS[1:]:
        return texto
    i = IDIOMAS.index(lang) - 1
    if plantilla in MENSAJES and (params or not re.search(r"\{\w+\}", plantilla)):
        campos = {k: mensaje(str(v), {}, lang) if k == "motivo" else v for k, v in params.items()}
        return MENSAJES[plantilla][i].format(**campos)
    for patron, clave in _PATRONES:
        m = patron.match(texto)
        if m:
            campos = {k: mensaje(v, {}, lang) if k == "motivo" else v for k, v in m.groupdict().items()}
            return MENSAJES[clave][i].format(**campos)
    return MENSAJES[texto][i] if texto in MENSAJES else texto

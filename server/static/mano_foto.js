// The photo part of a hand: the whole table in one photo (POST /api/leer) or seat by seat
// (POST /api/leer/asiento, the page saying whose cards it wants). The read cards are drawn over
// the photo here, from their boxes: the server keeps no photo, and this page keeps it only in
// memory. A doubtful card shows its alternative and "está bien", one tap each ("todas bien" for
// the rest); a tap on a card corrects it (POST /api/leer/corregir, the 40 cards). Each phone
// says once whose it is (remembered per partida in localStorage): its photos are sent with
// abajo, that player's seat, so the answer's seats are the partida's wherever the photo was
// taken from; "girar asientos" turns a reading taken from another seat. Confirming the hand
// with doubtful cards left asks once. Everything read goes into the hand's draft through
// window.musMano (server/static/mano.js): lectura, cartas, correcciones, fotos_asiento. A seat's
// photo sends only its seat and photo, a correction only its card, with the draft version the
// server holds this phone's hand at: the server reads the seats so far and the reading from its
// stored draft; while a step is not stored yet, or another phone's came in between (409), the
// phone sends its own. A photo or a correction that finds no connection is kept in memory and
// sent again when the connection is back.
(function () {
  "use strict";
  var raiz = document.getElementById("foto");
  if (!raiz) { return; }
  var clave = raiz.dataset.clave, lang = raiz.dataset.lang;
  var T = JSON.parse(document.getElementById("foto_textos").textContent);
  var cfg = JSON.parse(document.getElementById("config").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  var modo = "mesa";
  var repetir = null;   // the seat asked for again, seat by seat
  var fotos = {};       // "mesa" or a seat -> the object URL of the photo taken on this phone
  var vista = null;     // what the drawing shows: {lectura, foto, tocable}
  var indice = null;    // the card being corrected
  var pendiente = null; // what found no connection (a photo to read, a correction): tried again
  var ultima = null;    // the last whole-table photo's File: a one-hand photo goes to a seat
  var visto = null;     // the draft object last drawn: mano.js replaces it with another phone's
  var rechazo = null;   // a seat's refused photo: {file, asiento, quitar, quedan} (what to take out)
  var avisado = false;  // the player chose to confirm with doubtful cards left
  var DUENO = "mus-telefono-de-" + clave;  // localStorage: whose phone this is, in this partida
  // the reader's warnings the page says otherwise: the doubtful cards (their count, live), the
  // unknown deck (its notice), no seats (the summary); vision/reader.py and vision/seats.py
  var DICHOS = ["confirma las cartas dudosas", "las cartas no se parecen", "no se asignan asientos"];

  function $(id) { return document.getElementById(id); }
  function estado() { return window.musMano && window.musMano.estado(); }

  function decir(id, texto) {
    $(id).textContent = texto || "";
    $(id).hidden = !texto;
  }

  function enviar(ruta, cuerpo) {
    return window.musFotos.enviar(ruta, cuerpo, lang, function () { $("foto_estado").textContent = T.ocupado; });
  }

  function sinRed(otraVez) {
    $("foto_estado").textContent = "";
    decir("foto_error", T.sin_conexion);
    pendiente = otraVez;
  }

  function reintentar() {
    if (!pendiente || !estado()) { return; }
    var hacer = pendiente;
    pendiente = null;
    hacer();
  }

  // -- whose phone: the seat at the bottom of its photos ------------------------------------------
  function dueno() {
    var v = null;
    try { v = localStorage.getItem(DUENO); } catch (e) { v = null; }
    var n = v === null ? NaN : parseInt(v, 10);
    return n >= 0 && n < 4 ? n : null;
  }

  function abajo() { var d = dueno(); return d === null ? 0 : d; }

  function elegirDueno(n) {
    try { localStorage.setItem(DUENO, String(n)); } catch (e) { /* private mode: asked again next time */ }
    pintarDueno(false);
  }

  function pintarDueno(preguntar) {
    var d = dueno();
    $("telefono_de").hidden = !(preguntar || d === null);
    $("telefono_es").hidden = !$("telefono_de").hidden;
    if (d !== null) { $("telefono_es_texto").textContent = T.es_de.replace("{jugador}", cfg.jugadores[d]); }
    var a = abajo();
    $("donde_ponerse").textContent = T.donde.replace("{jugador}", cfg.jugadores[a])
      .replace("{enfrente}", cfg.jugadores[(a + 2) % 4]);
    $("donde_ponerse").hidden = modo !== "mesa";
  }

  // -- seat by seat ------------------------------------------------------------------------------
  function leidos() {
    var e = estado();
    var lista = (e && e.fotos_asiento) || [];
    return [0, 1, 2, 3].map(function (s) { return lista[s] || null; });
  }

  function turno() {
    if (repetir !== null) { return repetir; }
    var l = leidos();
    for (var s = 0; s < 4; s++) { if (!l[s]) { return s; } }
    return null;
  }

  function pintarAsientos() {
    var l = leidos(), t = turno();
    for (var s = 0; s < 4; s++) {
      var li = $("asiento_foto-" + s);
      li.dataset.estado = s === t ? "ahora" : (l[s] ? "hecha" : "pendiente");
      $("asiento_foto-" + s + "-cartas").textContent = l[s] ? l[s].cartas.map(function (c) { return nombreCarta(c.carta); }).join(", ") :
        (s === t ? T.ahora : T.pendiente);
      $("repetir-" + s).hidden = !l[s] || s === t;
    }
    var pide = t === null ? T.todas : T.pide.replace("{jugador}", cfg.jugadores[t]).replace("{n}", String(t + 1));
    decir("pide_asiento", pide);
    $("hacer_foto").hidden = t === null;
  }

  // -- the photo and its cards -----------------------------------------------------------------
  function tomar(file, quitar, conLecturas) {
    // quitar (seat by seat): indices in this photo's reading of what the player said is no card;
    // conLecturas: send the seats read so far (the server's draft is not this phone's)
    var e = estado();
    if (!e) { return; }
    var form = new FormData();
    form.append("foto", file, file.name || "foto.jpg");
    form.append("partida", clave);
    form.append("abajo", String(abajo()));
    var ruta = "/api/leer", asiento = null;
    if (modo === "asientos") {
      asiento = turno();
      if (asiento === null) { return; }
      form.append("asiento", String(asiento));
      var v = window.musMano.versionGuardada();
      if (v === null || conLecturas) {
        form.append("fotos_asiento", JSON.stringify(leidos()));
      } else {  // the server reads the other seats from the draft it holds at that version
        form.append("version", String(v));
      }
      if (quitar && quitar.length) { form.append("quitar", JSON.stringify(quitar)); }
      ruta = "/api/leer/asiento";
    }
    var url = URL.createObjectURL(file);
    if (modo === "mesa") { ultima = file; }
    pendiente = null;  // a newer photo replaces one that waits
    decir("foto_error", "");
    $("foto_estado").textContent = T.leyendo;
    enviar(ruta, form).then(function (r) {
      $("foto_estado").textContent = "";
      if (r.estado === 409 && modo === "asientos" && !conLecturas) {  // its draft moved on: send ours
        URL.revokeObjectURL(url);
        return tomar(file, quitar, true);
      }
      if (modo === "asientos") { return asientoLeido(r, asiento, url, file, quitar || []); }
      return mesaLeida(r, url);
    }, function () {
      URL.revokeObjectURL(url);
      sinRed(function () { tomar(file, quitar, conLecturas); });
    });
  }

  function mesaLeida(r, url) {
    var e = estado();
    if (!r.ok) {
      decir("foto_error", r.doc.imagen !== undefined ? T.sin_cartas : r.doc.error);
      return;
    }
    fotos.mesa = url;
    avisado = false;
    e.lectura = r.doc;
    e.correcciones = [];
    e.fotos_asiento = [];
    if (r.doc.asientos) { e.cartas = r.doc.asientos.map(function (h) { return h.join(" "); }); }
    mostrar({lectura: r.doc, foto: url, tocable: true});
    window.musMano.cambiar();
  }

  function asientoLeido(r, asiento, url, file, quitar) {
    var e = estado();
    if (!r.ok) {  // refused (not four cards, a card of another seat): what was seen, and why
      decir("foto_error", r.doc.error);
      if (r.doc.lectura) {
        // more than four: what is no card (a cup) can be taken out with a tap, the photo kept
        var n = r.doc.lectura.cartas.length, todas = [];
        for (var k = 0; k < n + quitar.length; k++) { if (quitar.indexOf(k) < 0) { todas.push(k); } }
        rechazo = {file: file, asiento: asiento, quitar: quitar, quedan: todas};
        mostrar({lectura: r.doc.lectura, foto: url, tocable: false, quitable: n > 4 && n <= 6});
      }
      return;
    }
    rechazo = null;
    fotos[asiento] = url;
    repetir = null;
    e.fotos_asiento = r.doc.fotos_asiento;
    e.lectura = r.doc.mesa;
    if (r.doc.cartas) {
      e.cartas = r.doc.cartas;
    } else {
      e.cartas[asiento] = r.doc.lectura.cartas.map(function (c) { return c.carta; }).join(" ");
    }
    if (r.doc.mesa) {
      mostrar({lectura: r.doc.mesa, foto: null, tocable: true});
    } else {
      mostrar({lectura: r.doc.lectura, foto: url, tocable: false});
    }
    window.musMano.cambiar();
  }

  function mostrar(v) {
    vista = v;
    pintar();
  }

  function pintar() {
    var e = estado();
    if (!e) { return; }
    if (modo === "asientos") { pintarAsientos(); }
    if (!vista && e.lectura) { vista = {lectura: e.lectura, foto: fotos.mesa || null, tocable: true}; }
    var lec = vista && vista.lectura;
    // seat by seat, the four hands' boxes come from four photos: only their cards are shown
    var cajas = !!lec && !(modo === "asientos" && lec.asientos);
    $("lectura_vista").hidden = !cajas;
    $("lectura_resumen").hidden = !lec;
    var desconocida = !!(lec && lec.baraja_desconocida && vista.tocable);
    $("ofrecer_baraja").hidden = !desconocida;
    $("ir_baraja_p").hidden = desconocida;  // one offer at a time
    decir("foto_avisos", lang === "es" && lec ? avisosQueQuedan(lec).join(" · ") : "");
    $("leidas").textContent = "";
    var dudosas = lec && vista.tocable ? dudosasDe(lec).length : 0;
    $("todas_bien").hidden = !dudosas;
    $("girar_asientos").hidden = !(lec && vista.tocable && lec.asientos && modo === "mesa");
    $("de_quien").hidden = !(lec && vista.tocable && !lec.asientos && modo === "mesa" && ultima &&
      lec.cartas.length <= 6);
    if (!lec) { return; }
    var resumen = cuantas(T.cartas, lec.cartas.length) + " · ";
    if (!vista.tocable) {
      resumen += T.no_usada;  // a seat's photo refused: its cards are shown greyed, to see why
      if (vista.quitable) { resumen += " · " + T.quitar; }
    } else {
      resumen += dudosas ? cuantas(T.dudosas, dudosas) : T.toca;
    }
    if (vista.tocable && !lec.asientos) { resumen += " · " + T.sin_asientos; }
    if (vista.tocable && lec === e.lectura && !vista.foto && modo === "mesa") { resumen += " · " + T.sin_foto; }
    $("lectura_resumen").textContent = resumen;
    if (cajas) { dibujar(lec, vista.foto, vista.tocable); }
    fichas(lec, vista.tocable, !vista.tocable && !!vista.quitable);
  }

  function dudosasDe(lec) {
    return lec.cartas.map(function (c, i) { return c.dudosa ? i : -1; }).filter(function (i) { return i >= 0; });
  }

  function avisosQueQuedan(lec) {
    return (lec.avisos || []).filter(function (a) {
      return !DICHOS.some(function (d) { return a.indexOf(d) >= 0; });
    });
  }

  // a text with a count: the page gives its two forms (mano_foto.html's tn() for 1 and for 2; the
  // plural rule of es, eu and en is n != 1), the count chooses one and fills in {n}
  function cuantas(formas, n) { return formas[n === 1 ? 0 : 1].replace("{n}", String(n)); }

  // a card's name as the player reads it (window.musCartas, /cartas.js: mesa/cartas.py's names in
  // the page's language), never its notation; a label over the photo: its short name and suit
  function nombreCarta(id) { return window.musCartas ? window.musCartas.nombre(id) : id; }
  // (where it fits among the other labels, else its short name alone)
  function rotuloCarta(id, corto) {
    if (!window.musCartas || !window.musCartas.tabla[id]) { return id; }
    return window.musCartas.corta(id) + (corto ? "" : " " + window.musCartas.palo(id));
  }

  function dibujar(lec, foto, tocable) {
    var img = $("lectura_foto"), svg = $("lectura_cajas");
    function cajas(ancho, alto) {
      svg.setAttribute("viewBox", "0 0 " + ancho + " " + alto);
      svg.textContent = "";
      var grosor = Math.max(2, Math.round(Math.max(ancho, alto) / 300));
      // the labels are sized in screen pixels (a 4000 px photo shown 360 px wide made them 7 px)
      // and laid where they overlap no other label
      var visto = svg.getBoundingClientRect().width || Math.min(window.innerWidth, 640);
      var escala = ancho / Math.max(1, visto);
      var letra = ROTULO_PX * escala, puestos = [];
      lec.cartas.forEach(function (c, i) {
        var g = document.createElementNS(SVG, "g");
        g.setAttribute("class", "caja" + (c.asiento !== undefined ? " s" + c.asiento : "") + (c.dudosa ? " dudosa" : ""));
        g.setAttribute("id", "caja-" + i);
        g.dataset.i = String(i);
        g.dataset.carta = c.carta;
        var x = c.caja[0], y = c.caja[1], w = c.caja[2] - c.caja[0], h = c.caja[3] - c.caja[1];
        var rect = document.createElementNS(SVG, "rect");
        [["x", x], ["y", y], ["width", w], ["height", h], ["stroke-width", grosor]].forEach(function (a) { rect.setAttribute(a[0], a[1]); });
        var etiqueta = rotuloCarta(c.carta, false) + (c.dudosa ? "?" : "");
        var sitio = rotulo(puestos, x, y, w, h, letra * (0.62 * etiqueta.length + 0.5), letra * 1.3, ancho, alto, false);
        if (!sitio) {
          etiqueta = rotuloCarta(c.carta, true) + (c.dudosa ? "?" : "");
          sitio = rotulo(puestos, x, y, w, h, letra * (0.62 * etiqueta.length + 0.5), letra * 1.3, ancho, alto, true);
        }
        var fondo = document.createElementNS(SVG, "rect");
        [["x", sitio[0]], ["y", sitio[1]], ["width", sitio[2]], ["height", sitio[3]], ["rx", letra * 0.25]]
          .forEach(function (a) { fondo.setAttribute(a[0], a[1]); });
        fondo.setAttribute("class", "fondo-rotulo");
        var texto = document.createElementNS(SVG, "text");
        texto.setAttribute("x", sitio[0] + letra * 0.25);
        texto.setAttribute("y", sitio[1] + letra * 1.02);
        texto.setAttribute("font-size", letra);
        texto.textContent = etiqueta;
        g.appendChild(rect);
        g.appendChild(fondo);
        g.appendChild(texto);
        if (tocable) { g.addEventListener("click", function () { abrirCorreccion(i); }); }
        svg.appendChild(g);
      });
    }
    if (foto) {
      img.hidden = false;
      img.onload = function () { cajas(img.naturalWidth, img.naturalHeight); };
      if (img.getAttribute("src") !== foto) { img.src = foto; } else if (img.complete) { cajas(img.naturalWidth, img.naturalHeight); }
    } else {  // no photo on this phone (a reload, seat by seat): the boxes on their own
      img.hidden = true;
      img.removeAttribute("src");
      var ancho = 1, alto = 1;
      lec.cartas.forEach(function (c) { ancho = Math.max(ancho, c.caja[2]); alto = Math.max(alto, c.caja[3]); });
      cajas(Math.ceil(ancho * 1.02), Math.ceil(alto * 1.02));
    }
    $("lectura_vista").classList.toggle("sin-foto", !foto);
  }

  var ROTULO_PX = 15;  // a label's letters on the screen, CSS px

  function rotulo(puestos, x, y, w, h, lw, lh, ancho, alto, siempre) {
    // the first place down the card's box (then below it, then above it) where the label
    // overlaps no label already placed; when there is none, null, or with ``siempre`` the
    // card's top left corner
    function libre(r) {
      return puestos.every(function (p) {
        return r[0] >= p[0] + p[2] || p[0] >= r[0] + r[2] || r[1] >= p[1] + p[3] || p[1] >= r[1] + r[3];
      });
    }
    var x0 = Math.max(0, Math.min(x + 2, ancho - lw)), sitios = [];
    for (var dy = 0; dy + lh <= Math.max(h, lh); dy += lh / 2) { sitios.push([x0, y + dy]); }
    sitios.push([x0, y + h], [x0, y - lh]);
    var x1 = Math.max(0, x + w - lw);  // the box's right side
    for (var d = 0; d + lh <= h; d += lh / 2) { sitios.push([x1, y + d]); }
    for (var k = 0; k < sitios.length; k++) {
      var r = [sitios[k][0], Math.max(0, Math.min(sitios[k][1], alto - lh)), lw, lh];
      if (libre(r)) { puestos.push(r); return r; }
    }
    if (!siempre) { return null; }
    var r0 = [x0, Math.max(0, y), lw, lh];
    puestos.push(r0);
    return r0;
  }

  function centro(c) { return (c.caja[0] + c.caja[2]) / 2; }

  function fichas(lec, tocable, quitable) {
    // the cards as buttons, by seat when there are seats: a thumb finds them more easily than a box
    var caja = $("leidas");
    var grupos = lec.asientos ? [0, 1, 2, 3].map(function (s) {
      var filas = lec.cartas.map(function (c, i) { return c.asiento === s ? i : -1; }).filter(function (i) { return i >= 0; });
      filas.sort(function (a, b) { return centro(lec.cartas[a]) - centro(lec.cartas[b]); });  // as the hand is written
      return {nombre: cfg.jugadores[s], filas: filas};
    }) : [{nombre: "", filas: lec.cartas.map(function (c, i) { return i; })}];
    grupos.forEach(function (g) {
      var fila = document.createElement("div");
      fila.className = "fila-leida";
      if (g.nombre) {
        var n = document.createElement("span");
        n.className = "nombre";
        n.textContent = g.nombre;
        fila.appendChild(n);
      }
      var naipes = document.createElement("div");
      naipes.className = "naipes";
      g.filas.forEach(function (i) {
        var c = lec.cartas[i], col = document.createElement("div"), b = document.createElement("button");
        col.className = "naipe-col";
        b.type = "button";
        b.className = "naipe leida" + (c.dudosa ? " dudosa" : "");
        b.id = "leida-" + i;
        b.dataset.i = String(i);
        b.dataset.carta = c.carta;
        b.textContent = nombreCarta(c.carta);
        b.disabled = !tocable && !quitable;
        if (quitable) { b.classList.add("quitable"); }
        b.addEventListener("click", function () { if (quitable) { quitarCarta(i); } else { abrirCorreccion(i); } });
        col.appendChild(b);
        if (tocable && c.dudosa) {  // one tap: the reader's other guess, or this one is right
          if (c.alternativa && c.alternativa !== c.carta) {
            var alt = boton("alt-" + i, "opcion alternativa", T.o_es.replace("{carta}", nombreCarta(c.alternativa)),
              T.es_la.replace("{carta}", nombreCarta(c.alternativa)), function () { corregir(c.alternativa, i); });
            alt.dataset.carta = c.alternativa;
            col.appendChild(alt);
          }
          col.appendChild(boton("bien-" + i, "opcion bien", "✓ " + T.bien, T.bien + ": " + nombreCarta(c.carta),
            function () { bien([i]); }));
        }
        naipes.appendChild(col);
      });
      fila.appendChild(naipes);
      caja.appendChild(fila);
    });
  }

  function boton(id, clase, texto, etiqueta, alTocar) {
    var b = document.createElement("button");
    b.type = "button";
    b.id = id;
    b.className = clase;
    b.textContent = texto;
    b.setAttribute("aria-label", etiqueta);
    b.addEventListener("click", alTocar);
    return b;
  }

  // -- corrections -------------------------------------------------------------------------------
  function bien(indices) {
    // the player says these doubtful cards are right: no longer doubtful, nothing else changes
    var e = estado();
    if (!e || !e.lectura) { return; }
    indices.forEach(function (i) {
      var c = e.lectura.cartas[i];
      if (!c) { return; }
      c.dudosa = false;
      delete c.alternativa;
      var sitio = c.asiento === undefined ? null : (e.fotos_asiento || [])[c.asiento];
      (sitio ? sitio.cartas : []).forEach(function (d) {  // seat by seat: its seat's photo too
        if (d.carta === c.carta) { d.dudosa = false; delete d.alternativa; }
      });
    });
    vista = {lectura: e.lectura, foto: vista && vista.tocable ? vista.foto : null, tocable: true};
    window.musMano.cambiar();
    pintar();
  }

  function girar() {
    // the reading taken from the seat before: every hand one seat on (four taps: back)
    var e = estado(), lec = e && e.lectura;
    if (!lec || !lec.asientos) { return; }
    function uno(s) { return (s + 1) % 4; }
    lec.cartas.forEach(function (c) { if (c.asiento !== undefined && c.asiento !== null) { c.asiento = uno(c.asiento); } });
    var a = lec.asientos;
    lec.asientos = [a[3], a[0], a[1], a[2]];
    var m = e.cartas || [];
    e.cartas = [m[3], m[0], m[1], m[2]];
    (e.correcciones || []).forEach(function (k) { if (k.asiento !== null && k.asiento !== undefined) { k.asiento = uno(k.asiento); } });
    window.musMano.cambiar();
    pintar();
  }

  function quitarCarta(i) {
    // the refused seat photo read again without card i (no card: a cup, a coin)
    if (!rechazo || rechazo.quedan[i] === undefined) { return; }
    var r = rechazo;
    repetir = r.asiento;
    tomar(r.file, r.quitar.concat([r.quedan[i]]));
  }

  function seguirBorrador() {
    // another phone's draft taken in by mano.js (its "está bien", its corrections, its photo):
    // drawn here too, over this phone's photo only if it is the same reading's
    var e = estado();
    if (!e || e === visto || !raiz.dataset.listo) { return; }
    visto = e;
    if (vista && vista.tocable) {
      var mismo = !!(e.lectura && vista.lectura && cajasDe(e.lectura) === cajasDe(vista.lectura));
      vista = e.lectura ? {lectura: e.lectura, foto: mismo ? vista.foto : null, tocable: true} : null;
    }
    pintar();
  }

  function cajasDe(lec) { return JSON.stringify(lec.cartas.map(function (c) { return c.caja; })); }

  function manoDe(s) {
    // a whole-table photo that shows one hand: it goes to seat s, seat by seat
    var file = ultima;
    if (!file) { return; }
    cambiarModo("asientos");
    repetir = s;
    tomar(file);
  }

  // confirming with doubtful cards left asks once (the confirm button is mano.js's: this listener
  // on the document, in the capture phase, runs before it)
  function alConfirmar(ev) {
    var b = ev.target && ev.target.closest ? ev.target.closest("#confirmar") : null;
    var e = estado(), n = e && e.lectura ? dudosasDe(e.lectura).length : 0;
    if (!b || b.disabled || !n || avisado) { return; }
    ev.preventDefault();
    ev.stopPropagation();
    $("recordar_texto").textContent = cuantas(T.quedan, n);
    $("recordar_dudosas").hidden = false;
    $("confirmar_igual").focus();
  }

  function abrirCorreccion(i) {
    var e = estado(), c = e.lectura && e.lectura.cartas[i];
    if (!c) { return; }
    indice = i;
    $("corregir_titulo").textContent = T.corregir + " " + nombreCarta(c.carta) + ": " + T.elige;
    var alt = $("corregir_alternativa");
    alt.hidden = !c.alternativa;
    alt.textContent = c.alternativa ? nombreCarta(c.alternativa) : "";
    alt.dataset.corregir = c.alternativa || "";
    Array.prototype.forEach.call($("corregir_cartas").querySelectorAll("button"), function (b) {
      b.classList.toggle("actual", b.dataset.corregir === c.carta);
      b.classList.toggle("alternativa", b.dataset.corregir === c.alternativa);
    });
    $("corregir").hidden = false;
    $("corregir").scrollIntoView({block: "nearest"});
  }

  function corregir(carta, cual, conLectura) {
    // conLectura: send the reading (the server's draft is not this phone's)
    var e = estado(), i = cual === undefined ? indice : cual;
    $("corregir").hidden = true;
    if (i === null || !carta) { return; }
    var antes = e.lectura.cartas.map(function (c) { return c; });
    var cuerpo = {indice: i, carta: carta}, v = window.musMano.versionGuardada();
    if (v === null || conLectura) {
      cuerpo.lectura = e.lectura;
      if (modo === "asientos" && leidos().every(Boolean)) { cuerpo.fotos_asiento = leidos(); }
    } else {  // only the card: the server reads the rest from the draft it holds at that version
      cuerpo.partida = clave;
      cuerpo.version = v;
    }
    pendiente = null;
    enviar("/api/leer/corregir", cuerpo).then(function (r) {
      if (r.estado === 409 && !conLectura) { return corregir(carta, i, true); }  // its draft moved on
      if (!r.ok) { decir("foto_error", r.doc.error); return; }
      e.lectura = r.doc.lectura;
      if (r.doc.cartas) { e.cartas = r.doc.cartas; }
      if (r.doc.fotos_asiento) { e.fotos_asiento = r.doc.fotos_asiento; }
      r.doc.cambios.forEach(function (cambio) {
        var previa = antes[cambio[0]];
        e.correcciones.push({asiento: previa.asiento === undefined ? null : previa.asiento,
                             antes: cambio[1], despues: cambio[2], confianza: previa.confianza});
      });
      decir("foto_error", r.doc.cambios.length > 1 ? T.cambiadas : "");
      vista = {lectura: e.lectura, foto: vista && vista.tocable ? vista.foto : null, tocable: true};
      window.musMano.cambiar();
      pintar();
    }, function () { sinRed(function () { corregir(carta, i, conLectura); }); });
  }

  // -- wiring ------------------------------------------------------------------------------------
  function cambiarModo(nuevo) {
    var e = estado();
    if (!e || nuevo === modo) { return; }
    modo = nuevo;
    repetir = null;
    vista = null;
    e.lectura = null;  // what was read the other way is put aside, as on the tablet
    e.correcciones = [];
    e.fotos_asiento = nuevo === "asientos" ? [null, null, null, null] : [];
    ponerModo();
    window.musMano.cambiar();
    pintar();
  }

  function ponerModo() {
    ["mesa", "asientos"].forEach(function (m) {
      $("modo_" + m).classList.toggle("activo", m === modo);
      $("modo_" + m).setAttribute("aria-pressed", m === modo ? "true" : "false");
    });
    $("asientos_foto").hidden = modo !== "asientos";
    $("pide_asiento").hidden = modo !== "asientos";
    $("hacer_foto").hidden = false;
    $("donde_ponerse").hidden = modo !== "mesa";
  }

  function empezar() {
    var e = estado();
    if (!e || raiz.dataset.listo) { return; }
    raiz.dataset.listo = "si";
    modo = (e.fotos_asiento || []).length ? "asientos" : "mesa";
    ponerModo();
    $("modo_mesa").addEventListener("click", function () { cambiarModo("mesa"); });
    $("modo_asientos").addEventListener("click", function () { cambiarModo("asientos"); });
    $("foto_input").addEventListener("change", function () {
      var file = this.files && this.files[0];
      this.value = "";  // the same file may be chosen again
      if (file) { tomar(file); }
    });
    for (var s = 0; s < 4; s++) {
      $("repetir-" + s).addEventListener("click", function () {
        repetir = parseInt(this.dataset.repetir, 10);
        pintar();
      });
    }
    Array.prototype.forEach.call($("corregir").querySelectorAll("button[data-corregir]"), function (b) {
      b.addEventListener("click", function () { corregir(b.dataset.corregir); });
    });
    $("corregir_cerrar").addEventListener("click", function () { $("corregir").hidden = true; indice = null; });
    for (var k = 0; k < 4; k++) {
      $("mano_de-" + k).addEventListener("click", function () { manoDe(parseInt(this.dataset.manoDe, 10)); });
    }
    $("todas_bien").addEventListener("click", function () { var e = estado(); if (e && e.lectura) { bien(dudosasDe(e.lectura)); } });
    $("girar_asientos").addEventListener("click", girar);
    document.addEventListener("click", alConfirmar, true);
    $("revisar_dudosas").addEventListener("click", function () {
      $("recordar_dudosas").hidden = true;
      $("leidas").scrollIntoView({block: "center"});
    });
    $("confirmar_igual").addEventListener("click", function () {
      avisado = true;
      $("recordar_dudosas").hidden = true;
      $("confirmar").click();
    });
    window.addEventListener("resize", function () { if (vista) { pintar(); } });
    visto = e;
    setInterval(seguirBorrador, 1000);
    window.addEventListener("online", reintentar);
    setInterval(reintentar, 5000);
    pintar();
    // a photo chosen before the draft had come (a slow connection): read it now
    var antes = $("foto_input").files && $("foto_input").files[0];
    if (antes) {
      $("foto_input").value = "";
      tomar(antes);
    }
  }

  // whose phone is asked at once: it needs no draft
  for (var k = 0; k < 4; k++) {
    $("soy-" + k).addEventListener("click", function () { elegirDueno(parseInt(this.dataset.soy, 10)); });
  }
  $("cambiar_telefono").addEventListener("click", function () { pintarDueno(true); });
  pintarDueno(false);
  document.addEventListener("mus:borrador", empezar);
  empezar();  // the draft may have come before this script
}());

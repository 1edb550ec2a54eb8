// The photo part of a hand: the whole table in one photo (POST /api/leer) or seat by seat
// (POST /api/leer/asiento, the page saying whose cards it wants). The read cards are drawn over
// the photo here, from their boxes: the server keeps no photo, and this page keeps it only in
// memory. A tap on a card corrects it (POST /api/leer/corregir: the reader's alternative first,
// then the 40 cards). Everything read goes into the hand's draft through window.musMano
// (web/static/mano.js): lectura, cartas, correcciones, fotos_asiento. A photo or a correction
// that finds no connection is kept in memory and sent again when the connection is back.
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
      $("asiento_foto-" + s + "-cartas").textContent = l[s] ? l[s].cartas.map(function (c) { return c.carta; }).join(" ") :
        (s === t ? T.ahora : T.pendiente);
      $("repetir-" + s).hidden = !l[s] || s === t;
    }
    var pide = t === null ? T.todas : T.pide.replace("{jugador}", cfg.jugadores[t]).replace("{n}", String(t + 1));
    decir("pide_asiento", pide);
    $("hacer_foto").hidden = t === null;
  }

  // -- the photo and its cards -----------------------------------------------------------------
  function tomar(file) {
    var e = estado();
    if (!e) { return; }
    var form = new FormData();
    form.append("foto", file, file.name || "foto.jpg");
    form.append("partida", clave);
    var ruta = "/api/leer", asiento = null;
    if (modo === "asientos") {
      asiento = turno();
      if (asiento === null) { return; }
      form.append("asiento", String(asiento));
      form.append("fotos_asiento", JSON.stringify(leidos()));
      ruta = "/api/leer/asiento";
    }
    var url = URL.createObjectURL(file);
    pendiente = null;  // a newer photo replaces one that waits
    decir("foto_error", "");
    $("foto_estado").textContent = T.leyendo;
    enviar(ruta, form).then(function (r) {
      $("foto_estado").textContent = "";
      if (modo === "asientos") { return asientoLeido(r, asiento, url); }
      return mesaLeida(r, url);
    }, function () {
      URL.revokeObjectURL(url);
      sinRed(function () { tomar(file); });
    });
  }

  function mesaLeida(r, url) {
    var e = estado();
    if (!r.ok) {
      decir("foto_error", r.doc.imagen !== undefined ? T.sin_cartas : r.doc.error);
      return;
    }
    fotos.mesa = url;
    e.lectura = r.doc;
    e.correcciones = [];
    e.fotos_asiento = [];
    if (r.doc.asientos) { e.cartas = r.doc.asientos.map(function (h) { return h.join(" "); }); }
    mostrar({lectura: r.doc, foto: url, tocable: true});
    window.musMano.cambiar();
  }

  function asientoLeido(r, asiento, url) {
    var e = estado();
    if (!r.ok) {  // refused (not four cards, a card of another seat): what was seen, and why
      decir("foto_error", r.doc.error);
      if (r.doc.lectura) { mostrar({lectura: r.doc.lectura, foto: url, tocable: false}); }
      return;
    }
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
    $("ofrecer_baraja").hidden = !(lec && lec.baraja_desconocida);
    decir("foto_avisos", lang === "es" && lec && lec.avisos && lec.avisos.length ? lec.avisos.join(" · ") : "");
    $("leidas").textContent = "";
    if (!lec) { return; }
    var dudosas = lec.cartas.filter(function (c) { return c.dudosa; }).length;
    var resumen = lec.cartas.length + " " + T.cartas + " · " +
      (dudosas === 1 ? T.dudosa : (dudosas ? dudosas + " " + T.dudosas : T.toca));
    if (vista.tocable && !lec.asientos) { resumen += " · " + T.sin_asientos; }
    if (vista.tocable && lec === e.lectura && !vista.foto && modo === "mesa") { resumen += " · " + T.sin_foto; }
    $("lectura_resumen").textContent = resumen;
    if (cajas) { dibujar(lec, vista.foto, vista.tocable); }
    fichas(lec, vista.tocable);
  }

  function dibujar(lec, foto, tocable) {
    var img = $("lectura_foto"), svg = $("lectura_cajas");
    function cajas(ancho, alto) {
      svg.setAttribute("viewBox", "0 0 " + ancho + " " + alto);
      svg.textContent = "";
      var grosor = Math.max(2, Math.round(Math.max(ancho, alto) / 300));
      lec.cartas.forEach(function (c, i) {
        var g = document.createElementNS(SVG, "g");
        g.setAttribute("class", "caja" + (c.asiento !== undefined ? " s" + c.asiento : "") + (c.dudosa ? " dudosa" : ""));
        g.setAttribute("id", "caja-" + i);
        g.dataset.i = String(i);
        g.dataset.carta = c.carta;
        var x = c.caja[0], y = c.caja[1], w = c.caja[2] - c.caja[0], h = c.caja[3] - c.caja[1];
        var rect = document.createElementNS(SVG, "rect");
        [["x", x], ["y", y], ["width", w], ["height", h], ["stroke-width", grosor]].forEach(function (a) { rect.setAttribute(a[0], a[1]); });
        var texto = document.createElementNS(SVG, "text");
        texto.setAttribute("x", x + grosor);
        texto.setAttribute("y", y + Math.max(16, h * 0.22));
        texto.setAttribute("font-size", Math.max(14, Math.round(Math.min(w, h) * 0.3)));
        texto.textContent = c.carta + (c.dudosa ? "?" : "");
        g.appendChild(rect);
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

  function centro(c) { return (c.caja[0] + c.caja[2]) / 2; }

  function fichas(lec, tocable) {
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
      g.filas.forEach(function (i) {
        var c = lec.cartas[i], b = document.createElement("button");
        b.type = "button";
        b.className = "naipe leida" + (c.dudosa ? " dudosa" : "");
        b.id = "leida-" + i;
        b.dataset.i = String(i);
        b.dataset.carta = c.carta;
        b.textContent = c.carta;
        b.disabled = !tocable;
        b.addEventListener("click", function () { abrirCorreccion(i); });
        fila.appendChild(b);
      });
      caja.appendChild(fila);
    });
  }

  // -- corrections -------------------------------------------------------------------------------
  function abrirCorreccion(i) {
    var e = estado(), c = e.lectura && e.lectura.cartas[i];
    if (!c) { return; }
    indice = i;
    $("corregir_titulo").textContent = T.corregir + " " + c.carta + ": " + T.elige;
    var alt = $("corregir_alternativa");
    alt.hidden = !c.alternativa;
    alt.textContent = c.alternativa || "";
    alt.dataset.corregir = c.alternativa || "";
    Array.prototype.forEach.call($("corregir_cartas").querySelectorAll("button"), function (b) {
      b.classList.toggle("actual", b.dataset.corregir === c.carta);
      b.classList.toggle("alternativa", b.dataset.corregir === c.alternativa);
    });
    $("corregir").hidden = false;
    $("corregir").scrollIntoView({block: "nearest"});
  }

  function corregir(carta) {
    var e = estado(), i = indice;
    $("corregir").hidden = true;
    if (i === null || !carta) { return; }
    var antes = e.lectura.cartas.map(function (c) { return c; });
    var cuerpo = {lectura: e.lectura, indice: i, carta: carta};
    if (modo === "asientos" && leidos().every(Boolean)) { cuerpo.fotos_asiento = leidos(); }
    pendiente = null;
    enviar("/api/leer/corregir", cuerpo).then(function (r) {
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
    }, function () { sinRed(function () { indice = i; corregir(carta); }); });
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

  document.addEventListener("mus:borrador", empezar);
  empezar();  // the draft may have come before this script
}());

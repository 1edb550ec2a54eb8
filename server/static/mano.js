// A hand entered from a phone: the cards seat by seat on the 40-card grid, the lances with big
// buttons, the tanteo with its reasons, then confirm. Every step is saved to the server as the
// partida's draft (PUT /api/partidas/{clave}/borrador) and on this phone (localStorage, with the
// server version it extends), so a reload, a locked phone, another phone or a lost connection
// picks the hand up where it was: a step the server has not acknowledged is sent when the
// connection is back, and a 409 (another phone moved the hand on) shows theirs and says so.
// A confirmation that finds no connection waits in this phone's outbox (window.musSalida,
// server/static/marcador.js) and is sent again, with the same id_mano, until the server stores it.
// The photo block (server/static/mano_foto.js) uses window.musMano (estado, guardar, pintar) to
// read and change the same draft.
(function () {
  "use strict";
  var raiz = document.getElementById("pagina_mano");
  if (!raiz) { return; }
  var cfg = JSON.parse(document.getElementById("config").textContent);
  var S = JSON.parse(document.getElementById("sin_red_textos").textContent);
  var clave = cfg.clave, lang = cfg.lang, T = cfg.textos;
  var api = "/api/partidas/" + clave;
  var LOCAL = "mus-borrador-" + clave + "-";  // + the hand's number: this phone's copy of the draft
  var REINTENTO_MS = 3000;  // how soon a step or a confirmation that found no connection is tried again
  var PLAZO_MS = 15000;     // a request without an answer by then counts as no connection
  var estado = null;      // the draft (server.servicios.partidas.DatosBorrador)
  var version = 0;        // the server's version this draft extends
  var cola = Promise.resolve();
  var previa = null;      // the last preview: lance rows and tanteo
  var previaDe = null;    // the cards, lances and mano that preview is of (stable JSON)
  var previaPendiente = false;  // a change not previewed for want of connection: the tanteo shown would be stale
  var temporizador = null;
  var sucio = false;      // a step the server has not acknowledged yet
  var cambios = 0;        // steps taken on this page: tells whether an answer covers the last one
  var enviados = [];      // the drafts sent at `version` with no answer: one may be stored (its answer lost)
  var reintento = null;   // the timer of the next try while there is no connection
  var esperando = null;   // the id_mano of this hand's confirmation while it waits in the outbox
  var recuperada = false; // the draft shown came from this phone's copy, not from the server

  function $(id) { return document.getElementById(id); }
  function tr(texto) { return T[texto] || texto; }

  function mostrarError(texto) {
    $("error").textContent = texto || "";
    $("error").hidden = !texto;
  }

  function pedir(metodo, ruta, cuerpo) {
    var opciones = {method: metodo, headers: {"Content-Type": "application/json"}, cache: "no-store"};
    if (cuerpo !== undefined) { opciones.body = JSON.stringify(cuerpo); }
    // a phone that walks out of the wifi may get no answer at all rather than an error
    var control = window.AbortController ? new AbortController() : null;
    var plazo = control ? setTimeout(function () { control.abort(); }, PLAZO_MS) : null;
    if (control) { opciones.signal = control.signal; }
    return fetch(api + ruta + (ruta.indexOf("?") < 0 ? "?" : "&") + "lang=" + lang, opciones).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (doc) {
        clearTimeout(plazo);
        return {ok: r.ok, estado: r.status, doc: doc};
      });
    }, function (e) { clearTimeout(plazo); throw e; });
  }

  function decirGuardado(como, texto) {
    $("guardado").dataset.estado = como;
    $("guardado").textContent = texto;
  }

  function decirSalida(texto) {
    $("salida").textContent = texto || "";
    $("salida").hidden = !texto;
  }

  // -- this phone's copy ------------------------------------------------------------------------
  function estable(v) {
    // the same JSON for the same draft whatever the order of its keys (the server's or this page's)
    if (Array.isArray(v)) { return "[" + v.map(estable).join(",") + "]"; }
    if (v && typeof v === "object") {
      return "{" + Object.keys(v).sort().filter(function (k) { return v[k] !== undefined; }).map(function (k) {
        return JSON.stringify(k) + ":" + estable(v[k]);
      }).join(",") + "}";
    }
    return JSON.stringify(v === undefined ? null : v);
  }

  function copiaLocal(n) {
    try { return JSON.parse(localStorage.getItem(LOCAL + n) || "null"); } catch (e) { return null; }
  }

  function recordar() {
    if (!estado) { return; }
    try {
      localStorage.setItem(LOCAL + estado.n, JSON.stringify(
        {datos: estado, version: version, pendiente: sucio, enviados: enviados}));
    } catch (e) { /* private mode or a full storage: the server's copy is the only one */ }
  }

  function olvidar(salvo) {
    // the copies of this partida's other hands: stored, undone or replaced
    try {
      for (var i = localStorage.length - 1; i >= 0; i--) {
        var k = localStorage.key(i);
        if (k && k.indexOf(LOCAL) === 0 && k !== LOCAL + salvo) { localStorage.removeItem(k); }
      }
    } catch (e) { /* nothing kept, nothing to forget */ }
  }

  function retomar(copia) {
    estado = copia.datos;
    version = copia.version;
    enviados = copia.enviados || [];
    sucio = !!copia.pendiente;
  }

  // -- the draft ------------------------------------------------------------------------------
  function cartasDe(asiento) {
    var texto = estado.cartas[asiento];
    return texto ? texto.split(" ") : [];
  }

  function ponerCartas(asiento, lista) {
    estado.cartas[asiento] = lista.length ? lista.join(" ") : null;
  }

  function completas() {
    for (var i = 0; i < 4; i++) { if (cartasDe(i).length !== 4) { return false; } }
    return true;
  }

  function guardar() {
    // kept on this phone at once; sent one save at a time, in order, each with the version the
    // previous one left
    cambios += 1;
    sucio = true;
    recuperada = false;
    recordar();
    decirGuardado("guardando", tr("Guardando…"));
    enCola(enviarBorrador);
    return cola;
  }

  function enCola(paso) {
    cola = cola.then(paso).catch(function (e) {
      if (window.console) { window.console.error(e); }
      programar();
    });
  }

  function enviarBorrador() {
    if (!sucio || !estado) { return; }
    var hasta = cambios, datos = JSON.parse(JSON.stringify(estado)), firma = estable(datos);
    if (enviados[enviados.length - 1] !== firma) { enviados = enviados.concat([firma]).slice(-20); }
    recordar();
    return pedir("PUT", "/borrador", {datos: datos, version: version}).then(function (r) {
      if (r.ok) { return guardado(r.doc.version, hasta); }
      if (r.estado === 409) { return resolver(r.doc); }
      if (r.estado >= 500 || r.estado === 429) { return sinRed(); }
      sucio = false;  // refused for good (a card the server does not take): said, not retried
      recordar();
      decirGuardado("", "");
      mostrarError(r.doc.error);
    }, sinRed);
  }

  function guardado(nueva, hasta) {
    version = nueva;
    enviados = [];
    sucio = cambios !== hasta;  // a step taken while this one travelled goes next
    recordar();
    if (sucio) { return enviarBorrador(); }
    decirGuardado("guardado", recuperada ? S.recuperado_guardado : tr("Guardado"));
  }

  function resolver(doc) {
    var suyo = doc.borrador;
    if (!suyo || suyo.n !== estado.n) {
      // the server holds no draft of this hand (none at all, or a stale one of another hand):
      // this phone's is the one, based on what the server has
      var antes = version;
      version = doc.version || 0;
      return antes === version ? programar() : enviarBorrador();
    }
    if (enviados.indexOf(estable(suyo)) >= 0) {  // this phone's own step, whose answer was lost
      version = doc.version;
      enviados = [];
      if (estable(suyo) !== estable(estado)) { return enviarBorrador(); }
      sucio = false;
      recordar();
      decirGuardado("guardado", recuperada ? S.recuperado_guardado : tr("Guardado"));
      return;
    }
    // another phone moved the hand on: show theirs, and say so
    estado = suyo;
    version = doc.version;
    sucio = false;
    enviados = [];
    recordar();
    pintar();
    previsualizar();
    decirGuardado("", "");
    mostrarError(doc.error);
  }

  function sinRed() {
    decirGuardado("local", S.guardado_local);
    programar();
  }

  function programar() {
    if (reintento) { return; }
    reintento = setTimeout(function () { reintento = null; reintentar(); }, REINTENTO_MS);
  }

  function reintentar() {
    if (!estado) { return; }
    if (sucio) { enCola(enviarBorrador); }
    if (previaPendiente) { previsualizar(); }
    if (esperando) { enviarSalida(); }
  }

  function cambiar() {
    mostrarError("");
    pintar();
    guardar();
    previsualizar();
  }

  // -- cards ----------------------------------------------------------------------------------
  function usadas() {
    var todas = {};
    for (var i = 0; i < 4; i++) { cartasDe(i).forEach(function (c) { todas[c] = i; }); }
    return todas;
  }

  function tocarCarta(carta) {
    var asiento = estado.asiento;
    if (asiento === null || asiento === undefined) { mostrarError(tr("Elige un asiento")); return; }
    var lista = cartasDe(asiento);
    var donde = usadas()[carta];
    if (donde === asiento) {
      lista.splice(lista.indexOf(carta), 1);
    } else if (donde !== undefined || lista.length >= 4) {
      return;
    } else {
      lista.push(carta);
    }
    ponerCartas(asiento, lista);
    if (lista.length === 4) { estado.asiento = siguienteAsiento(asiento); }
    cambiar();
  }

  function siguienteAsiento(desde) {
    for (var k = 1; k <= 4; k++) {
      var i = (desde + k) % 4;
      if (cartasDe(i).length < 4) { return i; }
    }
    return desde;
  }

  // -- lances ---------------------------------------------------------------------------------
  function resultado(lance) { return estado.lances[lance] || "paso"; }

  function modoDe(valor) {
    if (valor === "paso") { return "paso"; }
    if (valor.quiero !== undefined) { return "quiero"; }
    if (valor.no_quiero !== undefined) { return "no_quiero"; }
    return "ordago";
  }

  function tocarModo(lance, modo) {
    if (modo === "paso") { delete estado.lances[lance]; }
    if (modo === "quiero") { estado.lances[lance] = {quiero: 2}; }
    if (modo === "no_quiero") { estado.lances[lance] = {no_quiero: 1, gana: 0}; }
    if (modo === "ordago") {
      // an accepted órdago ends the hand: the lances after it are not played (the server refuses them)
      estado.lances[lance] = {ordago: "quiero"};
      cfg.lances.slice(cfg.lances.indexOf(lance) + 1).forEach(function (l) { delete estado.lances[l]; });
    }
    cambiar();
  }

  function tocarDetalle(lance, boton) {
    var valor = estado.lances[lance];
    if (!valor || valor === "paso") { return; }
    if (boton.dataset.tantos) { valor.quiero = parseInt(boton.dataset.tantos, 10); }
    if (boton.dataset.gana) { valor.gana = parseInt(boton.dataset.gana, 10); }
    if (boton.dataset.nq) { valor.no_quiero = parseInt(boton.dataset.nq, 10); }
    if (boton.dataset.otro) {
      // any other size, typed on the number pad: an envite from 2, a refused one from 1
      var campo = $("lance-" + lance + "-otro-" + boton.dataset.otro);
      var n = Number(campo.value), bajo = parseInt(campo.min, 10), alto = parseInt(campo.max, 10);
      if (!campo.value || Math.floor(n) !== n || n < bajo || n > alto) {
        mostrarError(tr("Escribe un número de {bajo} a {alto}").replace("{bajo}", bajo).replace("{alto}", alto));
        campo.focus();
        return;
      }
      valor[boton.dataset.otro] = n;
    }
    cambiar();
  }

  function ordagoEn() {
    // the index of the lance an accepted órdago ended the hand at, or -1
    for (var i = 0; i < cfg.lances.length; i++) {
      var v = estado.lances[cfg.lances[i]];
      if (v && v.ordago === "quiero") { return i; }
    }
    return -1;
  }

  function cerrarTrasOrdago() {
    // the lances after an accepted órdago cannot be set: greyed, their buttons off, and why
    var hasta = ordagoEn();
    cfg.lances.forEach(function (lance, i) {
      var caja = $("lance-" + lance), tras = hasta >= 0 && i > hasta;
      var motivo = $("lance-" + lance + "-motivo");
      if (tras) {
        Array.prototype.forEach.call(caja.querySelectorAll("button, input"), function (b) { b.disabled = true; });
        motivo.textContent = tr("Después del órdago querido no se juega");
      } else if (caja.classList.contains("tras-ordago")) {
        motivo.textContent = "";
        if (!previa) {
          Array.prototype.forEach.call(caja.querySelectorAll("button, input"), function (b) { b.disabled = false; });
        }
      }
      caja.classList.toggle("tras-ordago", tras);
    });
  }

  function irAlPaso(paso) {
    // the step's own place on the page, not the top: the photo block may stand above the tabs
    estado.paso = paso;
    cambiar();
    var nav = $("pasos");
    if (nav.scrollIntoView) { nav.scrollIntoView({block: "start"}); }
  }

  // -- preview and confirm -----------------------------------------------------------------------
  function cuerpoPrevia() { return {cartas: estado.cartas, lances: estado.lances, mano: estado.mano}; }

  function previsualizar() {
    clearTimeout(temporizador);
    if (previa) { pintarPrevia(); }  // a tanteo of the hand before this change goes at once
    temporizador = setTimeout(function () {
      var cuerpo = cuerpoPrevia(), de = estable(cuerpo);
      pedir("POST", "/previsualizar", cuerpo).then(function (r) {
        previaPendiente = false;
        if (!r.ok) { mostrarError(r.doc.error); return; }
        previa = r.doc;
        previaDe = de;
        pintarPrevia();
      }, function () {
        if (de === previaDe) { return; }  // nothing changed since the tanteo shown: it stands
        previaPendiente = true;  // counted again when the connection is back
        pintarPrevia();
        programar();
      });
    }, 150);
  }

  // how the hand was entered, as the export says: photos seat by seat, one photo, or by hand
  function origen() {
    if ((estado.fotos_asiento || []).some(Boolean)) { return "asientos"; }
    return estado.lectura ? "camara" : "manual";
  }

  function confirmar() {
    var cuerpo = {id_mano: estado.id_mano, n: estado.n, cartas: estado.cartas, lances: estado.lances,
                  mano: estado.mano, origen: origen()};
    var total = previa && previa.tanteo ? previa.tanteo.total : ["?", "?"];
    var linea = S.por_enviar.replace("{n}", String(estado.n)).replace("{a}", String(total[0]))
      .replace("{b}", String(total[1])) + " · " + S.sin_red_mano;
    // in the outbox before it is sent: a page closed or a phone locked mid-send loses nothing
    window.musSalida.poner(clave, {cuerpo: cuerpo, n: estado.n, linea: linea, total: total});
    esperando = cuerpo.id_mano;
    enviarSalida();
  }

  function enviarSalida() {
    var boton = $("confirmar"), id = esperando;
    boton.disabled = true;
    boton.textContent = tr("Confirmando…");
    return cola.then(function () { return window.musSalida.enviar(clave, lang); }).then(function (respuestas) {
      var mia = respuestas.filter(function (r) { return r.entrada.cuerpo.id_mano === id; })[0];
      var guardada = window.musSalida.leer(clave).every(function (e) { return e.cuerpo.id_mano !== id; });
      if (!mia && guardada) {  // sent by this phone's marcador meanwhile: the hand is in
        window.location.href = "/p/" + clave;
        return;
      }
      if (!mia || !mia.hecha) {  // no connection, or the server is down: it waits, and says so
        decirSalida(S.sin_red_mano);
        boton.textContent = boton.dataset.texto;
        programar();
        return;
      }
      esperando = null;
      decirSalida("");
      if (mia.ok) {
        sucio = false;
        // the end of a juego, vaca or partida is announced on the marcador, on every phone
        try { localStorage.removeItem(LOCAL + mia.entrada.n); } catch (e) { /* private mode */ }
        window.location.href = "/p/" + clave;
        return;
      }
      if (mia.doc.guardada) {  // another phone's hand n went in first: the marcador shows both
        window.location.href = "/p/" + clave;
        return;
      }
      mostrarError(mia.doc.error);
      boton.disabled = false;
      boton.textContent = boton.dataset.texto;
    });
  }

  // -- drawing --------------------------------------------------------------------------------
  // a card's name in the page's language (window.musCartas, /cartas.js), never its notation
  function nombreCarta(id) { return window.musCartas ? window.musCartas.nombre(id) : id; }

  function pintar() {
    var secciones = ["cartas", "lances", "tanteo"];
    secciones.forEach(function (s) {
      $(s).hidden = estado.paso !== s;
      $("paso-" + s).classList.toggle("activo", estado.paso === s);
    });
    $("mano_select").value = String(estado.mano === null || estado.mano === undefined ? cfg.mano : estado.mano);
    var todas = usadas();
    for (var i = 0; i < 4; i++) {
      var lista = cartasDe(i);
      $("cartas-" + i).textContent = lista.length ? lista.map(nombreCarta).join(", ") : "—";
      $("cartas-" + i).dataset.cartas = lista.join(" ");  // the notation, for scripts and checks
      var b = $("asiento-" + i);
      b.classList.toggle("elegido", estado.asiento === i);
      b.classList.toggle("completo", lista.length === 4);
      b.setAttribute("aria-pressed", estado.asiento === i ? "true" : "false");
    }
    Array.prototype.forEach.call(document.querySelectorAll(".carta"), function (b) {
      var donde = todas[b.dataset.carta];
      b.classList.toggle("mia", donde !== undefined && donde === estado.asiento);
      b.classList.toggle("usada", donde !== undefined && donde !== estado.asiento);
      b.disabled = donde !== undefined && donde !== estado.asiento;
      b.setAttribute("aria-pressed", donde === estado.asiento ? "true" : "false");
    });
    cfg.lances.forEach(function (lance) {
      var valor = resultado(lance), modo = modoDe(valor);
      Array.prototype.forEach.call($("lance-" + lance).querySelectorAll(".modo"), function (b) {
        b.classList.toggle("activo", b.dataset.modo === modo);
        b.setAttribute("aria-pressed", b.dataset.modo === modo ? "true" : "false");
      });
      $("lance-" + lance + "-detalle-quiero").hidden = modo !== "quiero";
      $("lance-" + lance + "-detalle-no_quiero").hidden = modo !== "no_quiero";
      Array.prototype.forEach.call($("lance-" + lance).querySelectorAll(".chip"), function (b) {
        var activo = (b.dataset.tantos && valor.quiero === parseInt(b.dataset.tantos, 10)) ||
          (b.dataset.gana && valor.gana === parseInt(b.dataset.gana, 10)) ||
          (b.dataset.nq && valor.no_quiero === parseInt(b.dataset.nq, 10));
        b.classList.toggle("activo", !!activo);
        b.setAttribute("aria-pressed", activo ? "true" : "false");
      });
      $("lance-" + lance + "-gana-0").textContent = cfg.parejas[0];
      $("lance-" + lance + "-gana-1").textContent = cfg.parejas[1];
      // a size typed on the number pad shows there; one of the chips leaves it empty
      ["quiero", "no_quiero"].forEach(function (clase) {
        var campo = $("lance-" + lance + "-otro-" + clase), n = valor[clase];
        var chip = clase === "quiero" ? "-tantos-" : "-nq-";
        if (document.activeElement !== campo) {
          campo.value = modo === clase && n !== undefined && !$("lance-" + lance + chip + n) ? String(n) : "";
        }
      });
    });
    pintarPrevia();
  }

  function pintarPrevia() {
    var falta = $("tanteo_falta");
    falta.textContent = previaPendiente ? S.tanteo_sin_red : falta.dataset.texto;
    if (!previa) { cerrarTrasOrdago(); return; }
    var eraDe = previaDe === estable(cuerpoPrevia());
    previa.lances.forEach(function (fila) {
      var caja = $("lance-" + fila.fila);
      $("lance-" + fila.fila + "-nombre").textContent = fila.nombre;
      $("lance-" + fila.fila + "-motivo").textContent = fila.motivo;
      caja.classList.toggle("cerrado", !fila.apostable);
      Array.prototype.forEach.call(caja.querySelectorAll("button, input"), function (b) { b.disabled = !fila.apostable; });
      if (!fila.apostable && estado.lances[fila.fila]) { delete estado.lances[fila.fila]; }
    });
    cerrarTrasOrdago();
    if (eraDe) { previaDe = estable(cuerpoPrevia()); }  // a lance its cards close counted nothing
    // a change the server has not counted yet: its tanteo is on its way
    var contando = !previaPendiente && previaDe !== estable(cuerpoPrevia());
    if (contando) { falta.textContent = tr("Contando el tanteo…"); }
    var tan = previaPendiente || contando ? null : previa.tanteo;  // never a stale tanteo to confirm
    $("tanteo_falta").hidden = !!tan;
    $("tanteo_listo").hidden = !tan;
    if (!tan) { return; }
    $("tanteo_pareja_0").textContent = tan.parejas[0];
    $("tanteo_pareja_1").textContent = tan.parejas[1];
    var cuerpo = $("tabla_tanteo").querySelector("tbody");
    cuerpo.textContent = "";
    tan.filas.concat([{lance: "total", nombre: tr("Total"), tantos: tan.total}]).forEach(function (f) {
      var tr_ = document.createElement("tr");
      tr_.id = "tanteo-" + f.lance;
      [f.nombre, f.tantos[0], f.tantos[1]].forEach(function (v, i) {
        var celda = document.createElement(i ? "td" : "th");
        celda.textContent = String(v);
        tr_.appendChild(celda);
      });
      cuerpo.appendChild(tr_);
    });
    var razones = $("razones");
    razones.textContent = "";
    if (!tan.razones.length) {
      var nada = document.createElement("li");
      nada.textContent = tr("Nadie suma tantos en esta mano");
      razones.appendChild(nada);
    }
    tan.razones.forEach(function (r) {
      var li = document.createElement("li");
      li.textContent = "+" + r.tantos + " " + r.nombre + ": " + r.razon;
      razones.appendChild(li);
    });
    $("avisos").textContent = "";  // the end of a juego, a vaca, the partida: one line each
    tan.avisos.forEach(function (texto) {
      var linea = document.createElement("span");
      linea.className = "linea";
      linea.textContent = texto;
      $("avisos").appendChild(linea);
    });
    $("avisos").hidden = !tan.avisos.length;
    var m = tan.resultado.marcador;
    $("marcador_tras").textContent = tan.parejas[0] + " " + m[0] + " — " + m[1] + " " + tan.parejas[1];
  }

  // -- wiring ---------------------------------------------------------------------------------
  function enlazar() {
    Array.prototype.forEach.call(document.querySelectorAll(".asiento"), function (b) {
      b.addEventListener("click", function () {
        estado.asiento = parseInt(b.dataset.asiento, 10);
        cambiar();
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll(".carta"), function (b) {
      b.addEventListener("click", function () { tocarCarta(b.dataset.carta); });
    });
    $("borrar_asiento").addEventListener("click", function () {
      if (estado.asiento === null || estado.asiento === undefined) { return; }
      ponerCartas(estado.asiento, []);
      cambiar();
    });
    cfg.lances.forEach(function (lance) {
      Array.prototype.forEach.call($("lance-" + lance).querySelectorAll(".modo"), function (b) {
        b.addEventListener("click", function () { tocarModo(lance, b.dataset.modo); });
      });
      Array.prototype.forEach.call($("lance-" + lance).querySelectorAll(".chip"), function (b) {
        b.addEventListener("click", function () { tocarDetalle(lance, b); });
      });
      ["quiero", "no_quiero"].forEach(function (clase) {  // the number pad's "go" puts it too
        $("lance-" + lance + "-otro-" + clase).addEventListener("keydown", function (ev) {
          if (ev.key === "Enter") { ev.preventDefault(); $("lance-" + lance + "-otro-" + clase + "-ok").click(); }
        });
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll(".paso"), function (b) {
      b.addEventListener("click", function () { irAlPaso(b.dataset.paso); });
    });
    $("a_lances").addEventListener("click", function () { irAlPaso("lances"); });
    $("a_tanteo").addEventListener("click", function () { irAlPaso("tanteo"); });
    $("mano_select").addEventListener("change", function () {
      var v = parseInt(this.value, 10);
      estado.mano = v === cfg.mano ? null : v;
      cambiar();
    });
    $("confirmar").dataset.texto = $("confirmar").textContent;
    $("confirmar").addEventListener("click", confirmar);
    $("tanteo_falta").dataset.texto = $("tanteo_falta").textContent;
    window.addEventListener("online", reintentar);
  }

  function empezar() {
    pedir("GET", "/borrador").then(function (r) {
      if (!r.ok) { mostrarError(r.doc.error); return; }
      var copia = copiaLocal(r.doc.datos.n);
      estado = r.doc.datos;
      version = r.doc.version;
      if (copia && copia.pendiente && estable(copia.datos) !== estable(estado)) {
        // steps this phone took that never reached the server: they go now (a 409 if another
        // phone moved the hand on meanwhile)
        retomar(copia);
        recuperada = true;
        decirGuardado("recuperado", S.recuperado);
      }
      arrancar();
    }, function () {
      var copia = copiaLocal(cfg.n);
      if (!copia) { mostrarError(tr("Sin conexión: se reintenta")); setTimeout(empezar, REINTENTO_MS); return; }
      retomar(copia);  // no server now: this phone's copy, sent when the connection is back
      recuperada = sucio;
      arrancar();
      sinRed();
    });
  }

  function arrancar() {
    if (estado.asiento === null || estado.asiento === undefined) { estado.asiento = completas() ? null : 0; }
    olvidar(estado.n);
    enlazar();
    $("mano_controles").disabled = false;  // the buttons answer from now on
    $("mano_controles").removeAttribute("aria-busy");
    pintar();
    recordar();
    if (sucio) { enCola(enviarBorrador); }
    previsualizar();
    document.dispatchEvent(new CustomEvent("mus:borrador", {detail: estado}));
    // a confirmation of this hand still in the outbox (the page was left or reloaded): it waits
    var mia = window.musSalida.leer(clave).filter(function (e) { return e.n === estado.n; })[0];
    if (mia) {
      esperando = mia.cuerpo.id_mano;
      enviarSalida();
    } else if (window.musSalida.leer(clave).length) {
      window.musSalida.enviar(clave, lang);  // an older hand's: the server answers it as stored
    }
  }

  // another phone entering the same hand: its steps show here too; its confirmation takes this
  // phone back to the marcador (the hand is in)
  var enVuelo = 0;
  function seguirOtros() {
    if (!estado || enVuelo || document.hidden) { return; }
    if (sucio || esperando) { reintentar(); return; }  // this phone's steps go first: a 409 tells of another's
    enVuelo = 1;
    cola.then(function () { return pedir("GET", "/borrador"); }).then(function (r) {
      if (!r.ok) { return; }
      if (r.doc.datos.n !== estado.n) {
        window.location.href = "/p/" + clave;
      } else if (r.doc.version > version && !sucio) {
        estado = r.doc.datos;
        version = r.doc.version;
        recordar();
        pintar();
        previsualizar();
      }
    }).catch(function () { /* offline: the next round tries again */ }).then(function () { enVuelo = 0; });
  }
  setInterval(seguirOtros, 5000);
  document.addEventListener("visibilitychange", function () {  // a phone unlocked: news, and what waits
    if (!document.hidden) { seguirOtros(); }
  });

  window.musMano = {
    estado: function () { return estado; },
    // the draft version the server holds this phone's hand at, when all of it is stored there
    // (null while a step is not): a seat's photo and a correction then send only what changed
    versionGuardada: function () { return estado && !sucio ? version : null; },
    guardar: guardar,
    cambiar: cambiar,
    pintar: pintar,
    previsualizar: previsualizar
  };
  empezar();
}());

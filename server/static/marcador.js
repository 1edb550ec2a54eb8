// This phone's outbox of confirmed hands (window.musSalida), used by the hand page and the
// marcador: a hand confirmed while the server could not be reached is kept in localStorage and
// sent again, with the same id_mano (the server stores it once, and answers a repeat with the
// stored hand), until the server answers it.
(function () {
  "use strict";
  var enVuelo = {};  // clave -> the sending in progress, so two callers never send at once

  function nombre(clave) { return "mus-salida-" + clave; }

  function leer(clave) {
    try { return JSON.parse(localStorage.getItem(nombre(clave)) || "[]"); } catch (e) { return []; }
  }

  function escribir(clave, lista) {
    try {
      if (lista.length) { localStorage.setItem(nombre(clave), JSON.stringify(lista)); } else { localStorage.removeItem(nombre(clave)); }
    } catch (e) { /* private mode or full: the page that holds the hand keeps trying while open */ }
  }

  function quitar(clave, idMano) {
    escribir(clave, leer(clave).filter(function (e) { return e.cuerpo.id_mano !== idMano; }));
  }

  // entrada: {cuerpo: the POST /manos body, n, linea: what the marcador shows while it waits}
  function poner(clave, entrada) {
    quitar(clave, entrada.cuerpo.id_mano);
    escribir(clave, leer(clave).concat([entrada]).sort(function (a, b) { return a.n - b.n; }));
  }

  // A hand is settled by any answer but a passing one: stored (201, or a repeat), or refused
  // for good (409 another phone's hand, 422). No answer, a 5xx or a 429 keep it for later.
  function pasajero(estado) { return estado >= 500 || estado === 429 || estado === 408; }

  function enviarUna(clave, lang, entrada) {
    var control = window.AbortController ? new AbortController() : null;
    var plazo = control ? setTimeout(function () { control.abort(); }, 20000) : null;
    return fetch("/api/partidas/" + clave + "/manos?lang=" + lang, {
      method: "POST", headers: {"Content-Type": "application/json"}, cache: "no-store",
      body: JSON.stringify(entrada.cuerpo), signal: control ? control.signal : undefined
    }).then(function (r) {
      clearTimeout(plazo);
      return r.json().catch(function () { return {}; }).then(function (doc) {
        if (!pasajero(r.status)) { quitar(clave, entrada.cuerpo.id_mano); }
        if (r.status === 409 && doc.guardada) {  // another phone's hand n went in first: never dropped unsaid
          ponerPerdida(clave, {n: entrada.n, propia: entrada.cuerpo, total: entrada.total, guardada: doc.guardada});
        }
        return {ok: r.ok, estado: r.status, doc: doc, entrada: entrada, hecha: !pasajero(r.status)};
      });
    }, function () {
      clearTimeout(plazo);
      return {ok: false, estado: 0, doc: {}, entrada: entrada, hecha: false};
    });
  }

  // Send what waits, in hand order, one at a time; stop at the first that cannot go now.
  // Answers the answers got: [{ok, estado, doc, entrada, hecha}].
  function enviar(clave, lang) {
    if (enVuelo[clave]) { return enVuelo[clave]; }
    var respuestas = [];
    function siguiente() {
      var lista = leer(clave);
      if (!lista.length) { return respuestas; }
      return enviarUna(clave, lang, lista[0]).then(function (r) {
        respuestas.push(r);
        return r.hecha ? siguiente() : respuestas;
      });
    }
    enVuelo[clave] = Promise.resolve().then(siguiente).then(function (r) {
      delete enVuelo[clave];
      return r;
    });
    return enVuelo[clave];
  }

  // A hand this phone confirmed that lost to another phone's hand n: kept until the table
  // chooses (the marcador shows both, and keeps one in one tap).
  function nombrePerdidas(clave) { return "mus-perdidas-" + clave; }

  function leerPerdidas(clave) {
    try { return JSON.parse(localStorage.getItem(nombrePerdidas(clave)) || "[]"); } catch (e) { return []; }
  }

  function escribirPerdidas(clave, lista) {
    try {
      if (lista.length) { localStorage.setItem(nombrePerdidas(clave), JSON.stringify(lista)); } else { localStorage.removeItem(nombrePerdidas(clave)); }
    } catch (e) { /* private mode: the page says it while open */ }
  }

  function ponerPerdida(clave, perdida) {
    escribirPerdidas(clave, leerPerdidas(clave).filter(function (p) { return p.n !== perdida.n; }).concat([perdida]));
  }

  function quitarPerdida(clave, n) {
    escribirPerdidas(clave, leerPerdidas(clave).filter(function (p) { return p.n !== n; }));
  }

  window.musSalida = {
    leer: leer, poner: poner, quitar: quitar, enviar: enviar,
    perdidas: leerPerdidas, quitarPerdida: quitarPerdida
  };
}());

// The marcador follows the partida by itself: every few seconds it asks the server for its
// changing part (/p/{clave}/parte) and swaps it in, so the other phones see each hand.
// Undo asks for a confirmation first and names the hand, so two phones never undo two hands.
// A hand this phone confirmed without a connection shows above it (#por_enviar) and is sent
// from here too, at every refresh and when the network comes back, until the server stores it.
// A hand of this phone's that lost to another phone's hand n (#perdida-n) shows both and keeps
// one in one tap; once the partida ended, "otra partida" (#otra_partida) starts the next one.
(function () {
  "use strict";
  var pagina = document.getElementById("pagina_marcador");
  if (!pagina) { return; }
  var clave = pagina.dataset.clave, lang = pagina.dataset.lang;
  var cada = (parseInt(pagina.dataset.refresco, 10) || 4) * 1000;
  var error = document.getElementById("error");
  var panel = document.getElementById("confirmar_deshacer");
  var aDeshacer = null;
  var T = JSON.parse(document.getElementById("textos_marcador").textContent);

  function marcador() { return document.getElementById("marcador"); }
  function manos() { return parseInt(marcador().dataset.manos, 10) || 0; }

  function mostrarError(texto) {
    error.textContent = texto || "";
    error.hidden = !texto;
  }

  function ajustar() {
    var m = marcador();
    // once "otra partida" exists the ended one is closed: its last hand is no longer undone
    document.getElementById("deshacer_p").hidden = manos() === 0 || !!m.dataset.siguiente;
    if (m.dataset.siguiente) { panel.hidden = true; aDeshacer = null; }
    document.getElementById("nueva_mano_p").hidden = m.dataset.terminada === "si";
  }

  // the marcador's version (its ETag): the server answers 304, with nothing to read or draw,
  // while no hand changed it
  var version = null;

  function refrescar() {
    var cabeceras = version ? {"If-None-Match": version} : {};
    return fetch("/p/" + clave + "/parte?lang=" + lang, {cache: "no-store", headers: cabeceras}).then(function (r) {
      if (r.status === 304 || !r.ok) { return; }
      var etag = r.headers.get("ETag");
      return r.text().then(function (html) {
        version = etag;
        var viejo = marcador();
        if (viejo.outerHTML !== html.trim()) {
          viejo.outerHTML = html;
          ajustar();
        }
      });
    }).catch(function () { /* offline for a moment: the next round tries again */ });
  }

  document.getElementById("deshacer").addEventListener("click", function () {
    aDeshacer = manos();
    var texto = document.getElementById("confirmar_texto");
    texto.textContent = texto.dataset.plantilla.replace("{n}", aDeshacer);
    panel.hidden = false;
  });
  document.getElementById("deshacer_no").addEventListener("click", function () {
    panel.hidden = true;
    aDeshacer = null;
  });
  document.getElementById("deshacer_si").addEventListener("click", function () {
    if (!aDeshacer) { return; }
    var boton = this;
    boton.disabled = true;
    api("POST", "/deshacer", {n: aDeshacer}).then(function (r) {
      mostrarError(r.ok ? "" : r.doc.error);
    }).catch(function () {
      mostrarError(pagina.dataset.sinred || "");
    }).then(function () {
      panel.hidden = true;
      aDeshacer = null;
      boton.disabled = false;
      return refrescar();
    });
  });

  function api(metodo, ruta, cuerpo) {
    // one place for the marcador's calls to the server (JSON in, {ok, estado, doc} out)
    var opciones = {method: metodo, headers: {"Content-Type": "application/json"}, cache: "no-store"};
    if (cuerpo !== undefined) { opciones.body = JSON.stringify(cuerpo); }
    return fetch("/api/partidas/" + clave + ruta + "?lang=" + lang, opciones).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (doc) { return {ok: r.ok, estado: r.status, doc: doc}; });
    });
  }

  // -- the end: another partida with the same players and seats ----------------------------------
  document.addEventListener("click", function (ev) {
    var boton = ev.target.closest ? ev.target.closest("#otra_partida") : null;
    if (!boton) { return; }
    boton.disabled = true;
    api("POST", "/otra").then(function (r) {
      if (r.ok) { window.location.href = r.doc.url; return; }
      mostrarError(r.doc.error);
      boton.disabled = false;
    }, function () {
      mostrarError(T.sin_red);
      boton.disabled = false;
    });
  });

  // -- a hand this phone confirmed that lost to another phone's --------------------------------
  // a hand's cards ("11e 12o ...", the API's notation) by their names in the page's language
  function nombres(mano) {
    return mano.split(/\s+/).filter(Boolean).map(function (c) {
      return window.musCartas ? window.musCartas.nombre(c) : c;
    }).join(", ");
  }

  function describir(mano) {
    // its four hands by player, what was bet, and its tantos
    var partes = [];
    mano.cartas.forEach(function (c, i) { partes.push(T.jugadores[i] + ": " + (c ? nombres(c) : "—")); });
    var lances = Object.keys(mano.lances || {}).map(function (l) {
      var v = mano.lances[l], nombre = T.lances[l] || l;
      if (v.quiero !== undefined) { return nombre + ": " + T.envite.replace("{n}", v.quiero); }
      if (v.no_quiero !== undefined) { return nombre + ": " + T.no_quiero.replace("{n}", v.no_quiero); }
      if (v.ordago) { return nombre + ": " + T.ordago; }
      return null;
    }).filter(Boolean);
    var lineas = [partes.join(" · "), lances.length ? lances.join(" · ") : T.todo_paso];
    if (mano.total) { lineas.push(T.parejas[0] + " +" + mano.total[0] + " / +" + mano.total[1] + " " + T.parejas[1]); }
    return lineas;
  }

  function opcion(id, titulo, mano) {
    var caja = document.createElement("div");
    caja.className = "opcion-mano";
    caja.id = id;
    var h = document.createElement("p");
    h.innerHTML = "<b></b>";
    h.firstChild.textContent = titulo;
    caja.appendChild(h);
    describir(mano).forEach(function (linea) {
      var p = document.createElement("p");
      p.textContent = linea;
      caja.appendChild(p);
    });
    return caja;
  }

  function boton(id, texto, clase, accion) {
    var b = document.createElement("button");
    b.type = "button";
    b.id = id;
    b.className = "boton " + clase;
    b.textContent = texto;
    b.addEventListener("click", accion);
    return b;
  }

  function pintarPerdidas() {
    var viejas = document.querySelectorAll(".perdida");
    Array.prototype.forEach.call(viejas, function (c) { c.parentNode.removeChild(c); });
    window.musSalida.perdidas(clave).forEach(function (p) {
      var caja = document.createElement("section");
      caja.className = "tarjeta perdida";
      caja.id = "perdida-" + p.n;
      caja.setAttribute("role", "alert");
      var h = document.createElement("p");
      h.className = "aviso";
      h.id = "perdida-" + p.n + "-texto";
      h.textContent = T.perdida.replace(/\{n\}/g, p.n);
      caja.appendChild(h);
      var propia = {cartas: p.propia.cartas, lances: p.propia.lances, total: p.total};
      caja.appendChild(opcion("perdida-" + p.n + "-tuya", T.la_tuya, propia));
      caja.appendChild(opcion("perdida-" + p.n + "-guardada", T.la_guardada, p.guardada));
      if (p.guardada.ultima) {  // only the last hand can be undone: keep this phone's in one tap
        caja.appendChild(boton("perdida-" + p.n + "-mia", T.quedar_mia, "", function () { quedarseMia(p, this); }));
      }
      caja.appendChild(boton("perdida-" + p.n + "-suya", T.quedar_guardada, "secundario", function () {
        window.musSalida.quitarPerdida(clave, p.n);
        pintarPerdidas();
      }));
      marcador().parentNode.insertBefore(caja, marcador());
    });
  }

  function quedarseMia(p, b) {
    // undo the stored hand n, then this phone's goes in (with its own id_mano, never sent before)
    b.disabled = true;
    api("POST", "/deshacer", {n: p.n}).then(function (r) {
      if (!r.ok) { return r; }
      return api("POST", "/manos", p.propia);
    }).then(function (r) {
      if (r.ok) {
        window.musSalida.quitarPerdida(clave, p.n);
        mostrarError("");
      } else {
        mostrarError(r.doc.error);
      }
      b.disabled = false;
      pintarPerdidas();
      return refrescar();
    }, function () {
      mostrarError(T.sin_red);
      b.disabled = false;
    });
  }

  // -- this phone's hands not stored yet --------------------------------------------------------
  function pintarSalida() {
    var lista = window.musSalida.leer(clave);
    var caja = document.getElementById("por_enviar");
    if (!lista.length) {
      if (caja) { caja.parentNode.removeChild(caja); }
      return;
    }
    if (!caja) {
      caja = document.createElement("ul");
      caja.id = "por_enviar";
      caja.className = "por-enviar";
      caja.setAttribute("aria-live", "polite");
      marcador().parentNode.insertBefore(caja, marcador());
    }
    caja.textContent = "";
    lista.forEach(function (e) {
      var li = document.createElement("li");
      li.id = "por_enviar-" + e.n;
      li.dataset.idMano = e.cuerpo.id_mano;
      li.textContent = e.linea;
      caja.appendChild(li);
    });
  }

  function enviarSalida() {
    pintarSalida();
    if (!window.musSalida.leer(clave).length) { return Promise.resolve(); }
    return window.musSalida.enviar(clave, lang).then(function (respuestas) {
      respuestas.forEach(function (r) {
        if (r.hecha && !r.ok && !r.doc.guardada) { mostrarError(r.doc.error); }  // refused for good
      });
      pintarSalida();
      pintarPerdidas();
    });
  }

  function ronda() {
    return enviarSalida().then(refrescar);
  }

  ajustar();
  pintarSalida();
  pintarPerdidas();
  if (window.musSalida.leer(clave).length) { ronda(); }
  setInterval(ronda, cada);
  window.addEventListener("online", ronda);
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { ronda(); }
  });
}());

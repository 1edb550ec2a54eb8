// A hand entered from a phone: the cards seat by seat on the 40-card grid, the lances with big
// buttons, the tanteo with its reasons, then confirm. Every step is saved to the server as the
// partida's draft (PUT /api/partidas/{clave}/borrador), so a reload, a locked phone or another
// phone picks the hand up where it was. W2's photo block and W3's tournament block use
// window.musMano (estado, guardar, pintar) to read and change the same draft.
(function () {
  "use strict";
  var raiz = document.getElementById("pagina_mano");
  if (!raiz) { return; }
  var cfg = JSON.parse(document.getElementById("config").textContent);
  var clave = cfg.clave, lang = cfg.lang, T = cfg.textos;
  var api = "/api/partidas/" + clave;
  var estado = null;      // the draft (web.servicio.DatosBorrador)
  var version = 0;        // the draft's version as last read or written
  var cola = Promise.resolve();
  var previa = null;      // the last preview: lance rows and tanteo
  var temporizador = null;

  function $(id) { return document.getElementById(id); }
  function tr(texto) { return T[texto] || texto; }

  function mostrarError(texto) {
    $("error").textContent = texto || "";
    $("error").hidden = !texto;
  }

  function pedir(metodo, ruta, cuerpo) {
    var opciones = {method: metodo, headers: {"Content-Type": "application/json"}, cache: "no-store"};
    if (cuerpo !== undefined) { opciones.body = JSON.stringify(cuerpo); }
    return fetch(api + ruta + (ruta.indexOf("?") < 0 ? "?" : "&") + "lang=" + lang, opciones).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (doc) { return {ok: r.ok, estado: r.status, doc: doc}; });
    });
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
    // one save at a time, in order, each with the version the previous one left
    $("guardado").textContent = tr("Guardando…");
    cola = cola.then(function () {
      return pedir("PUT", "/borrador", {datos: estado, version: version}).then(function (r) {
        if (r.ok) {
          version = r.doc.version;
          $("guardado").textContent = tr("Guardado");
          return;
        }
        if (r.estado === 409 && r.doc.borrador) {  // another phone moved the hand on: show theirs
          estado = r.doc.borrador;
          version = r.doc.version;
          pintar();
          previsualizar();
        }
        $("guardado").textContent = "";
        mostrarError(r.doc.error);
      });
    }).catch(function () {
      $("guardado").textContent = tr("Sin conexión: se reintenta");
      setTimeout(guardar, 3000);
    });
    return cola;
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
    if (modo === "ordago") { estado.lances[lance] = {ordago: "quiero"}; }
    cambiar();
  }

  function tocarDetalle(lance, boton) {
    var valor = estado.lances[lance];
    if (!valor || valor === "paso") { return; }
    if (boton.dataset.tantos) { valor.quiero = parseInt(boton.dataset.tantos, 10); }
    if (boton.dataset.gana) { valor.gana = parseInt(boton.dataset.gana, 10); }
    if (boton.dataset.nq) { valor.no_quiero = parseInt(boton.dataset.nq, 10); }
    cambiar();
  }

  // -- preview and confirm -----------------------------------------------------------------------
  function previsualizar() {
    clearTimeout(temporizador);
    temporizador = setTimeout(function () {
      var cuerpo = {cartas: estado.cartas, lances: estado.lances, mano: estado.mano};
      pedir("POST", "/previsualizar", cuerpo).then(function (r) {
        if (!r.ok) { mostrarError(r.doc.error); return; }
        previa = r.doc;
        pintarPrevia();
      }).catch(function () { /* the preview comes with the next change */ });
    }, 150);
  }

  function confirmar() {
    var boton = $("confirmar");
    boton.disabled = true;
    boton.textContent = tr("Confirmando…");
    var cuerpo = {id_mano: estado.id_mano, n: estado.n, cartas: estado.cartas, lances: estado.lances,
                  mano: estado.mano, origen: estado.lectura ? "camara" : "manual"};
    cola.then(function () { return pedir("POST", "/manos", cuerpo); }).then(function (r) {
      if (r.ok) {
        // the end of a juego, vaca or partida is announced on the marcador the page goes back to
        try { sessionStorage.setItem("mus-avisos-" + clave, JSON.stringify(r.doc.tanteo.avisos)); } catch (e) { /* private mode */ }
        window.location.href = "/p/" + clave;
        return;
      }
      mostrarError(r.doc.error);
      boton.disabled = false;
      boton.textContent = boton.dataset.texto;
    }).catch(function () {
      mostrarError(tr("Sin conexión: se reintenta"));
      boton.disabled = false;
      boton.textContent = boton.dataset.texto;
    });
  }

  // -- drawing --------------------------------------------------------------------------------
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
      $("cartas-" + i).textContent = lista.length ? lista.join(" ") : "—";
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
    });
    pintarPrevia();
  }

  function pintarPrevia() {
    if (!previa) { return; }
    previa.lances.forEach(function (fila) {
      var caja = $("lance-" + fila.fila);
      $("lance-" + fila.fila + "-nombre").textContent = fila.nombre;
      $("lance-" + fila.fila + "-motivo").textContent = fila.motivo;
      caja.classList.toggle("cerrado", !fila.apostable);
      Array.prototype.forEach.call(caja.querySelectorAll("button"), function (b) { b.disabled = !fila.apostable; });
      if (!fila.apostable && estado.lances[fila.fila]) { delete estado.lances[fila.fila]; }
    });
    var tan = previa.tanteo;
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
    $("avisos").textContent = tan.avisos.join(" ");
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
    });
    Array.prototype.forEach.call(document.querySelectorAll(".paso"), function (b) {
      b.addEventListener("click", function () { estado.paso = b.dataset.paso; cambiar(); window.scrollTo(0, 0); });
    });
    $("a_lances").addEventListener("click", function () { estado.paso = "lances"; cambiar(); window.scrollTo(0, 0); });
    $("a_tanteo").addEventListener("click", function () { estado.paso = "tanteo"; cambiar(); window.scrollTo(0, 0); });
    $("mano_select").addEventListener("change", function () {
      var v = parseInt(this.value, 10);
      estado.mano = v === cfg.mano ? null : v;
      cambiar();
    });
    $("confirmar").dataset.texto = $("confirmar").textContent;
    $("confirmar").addEventListener("click", confirmar);
  }

  function empezar() {
    pedir("GET", "/borrador").then(function (r) {
      if (!r.ok) { mostrarError(r.doc.error); return; }
      estado = r.doc.datos;
      version = r.doc.version;
      if (estado.asiento === null || estado.asiento === undefined) { estado.asiento = completas() ? null : 0; }
      enlazar();
      pintar();
      previsualizar();
      document.dispatchEvent(new CustomEvent("mus:borrador", {detail: estado}));
    }).catch(function () { mostrarError(tr("Sin conexión: se reintenta")); setTimeout(empezar, 3000); });
  }

  // another phone entering the same hand: its steps show here too; its confirmation takes this
  // phone back to the marcador (the hand is in)
  var enVuelo = 0;
  function seguirOtros() {
    if (!estado || enVuelo || document.hidden) { return; }
    enVuelo = 1;
    cola.then(function () { return pedir("GET", "/borrador"); }).then(function (r) {
      if (!r.ok) { return; }
      if (r.doc.datos.n !== estado.n) {
        window.location.href = "/p/" + clave;
      } else if (r.doc.version > version) {
        estado = r.doc.datos;
        version = r.doc.version;
        pintar();
        previsualizar();
      }
    }).catch(function () { /* offline: the next round tries again */ }).then(function () { enVuelo = 0; });
  }
  setInterval(seguirOtros, 5000);

  window.musMano = {
    estado: function () { return estado; },
    guardar: guardar,
    cambiar: cambiar,
    pintar: pintar,
    previsualizar: previsualizar
  };
  empezar();
}());

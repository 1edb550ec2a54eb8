// The marcador follows the partida by itself: every few seconds it asks the server for its
// changing part (/p/{clave}/parte) and swaps it in, so the other phones see each hand.
// Undo asks for a confirmation first and names the hand, so two phones never undo two hands.
(function () {
  "use strict";
  var pagina = document.getElementById("pagina_marcador");
  if (!pagina) { return; }
  var clave = pagina.dataset.clave, lang = pagina.dataset.lang;
  var cada = (parseInt(pagina.dataset.refresco, 10) || 4) * 1000;
  var error = document.getElementById("error");
  var panel = document.getElementById("confirmar_deshacer");
  var aDeshacer = null;

  function marcador() { return document.getElementById("marcador"); }
  function manos() { return parseInt(marcador().dataset.manos, 10) || 0; }

  function mostrarError(texto) {
    error.textContent = texto || "";
    error.hidden = !texto;
  }

  function ajustar() {
    var m = marcador();
    document.getElementById("deshacer_p").hidden = manos() === 0;
    document.getElementById("nueva_mano_p").hidden = m.dataset.terminada === "si";
  }

  function refrescar() {
    return fetch("/p/" + clave + "/parte?lang=" + lang, {cache: "no-store"}).then(function (r) {
      if (!r.ok) { return; }
      return r.text().then(function (html) {
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
    fetch("/api/partidas/" + clave + "/deshacer?lang=" + lang, {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({n: aDeshacer})
    }).then(function (r) {
      return r.json().then(function (doc) {
        mostrarError(r.ok ? "" : doc.error);
      });
    }).catch(function () {
      mostrarError(pagina.dataset.sinred || "");
    }).then(function () {
      panel.hidden = true;
      aDeshacer = null;
      boton.disabled = false;
      return refrescar();
    });
  });

  function anunciar() {
    var aviso = document.getElementById("avisos");
    var guardados = null;
    try {
      guardados = JSON.parse(sessionStorage.getItem("mus-avisos-" + clave) || "null");
      sessionStorage.removeItem("mus-avisos-" + clave);
    } catch (e) { guardados = null; }
    if (guardados && guardados.length) {
      aviso.textContent = guardados.join(" ");
      aviso.hidden = false;
    }
  }

  anunciar();
  ajustar();
  setInterval(refrescar, cada);
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { refrescar(); }
  });
}());

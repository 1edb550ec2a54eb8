// A tournament table from a phone (the join form needs no script: the server reads the code, a
// table's QR link too, and answers a wrong one with the form as typed). The table's page:
// every few seconds it asks for its changing part (/mesa/{clave}/parte): the server's marcador,
// the hands waiting or refused; each such request also makes the server send what waits. The
// sending itself runs in the server (server/servicios/mesa_torneo.py says why): nothing here to lose.
(function () {
  "use strict";

  var pagina = document.getElementById("pagina_mesa");
  if (!pagina) { return; }
  var clave = pagina.dataset.clave, lang = pagina.dataset.lang;
  var cada = (parseInt(pagina.dataset.refresco, 10) || 4) * 1000;
  var red = document.getElementById("red");

  function refrescar() {
    return fetch("/mesa/" + clave + "/parte?lang=" + lang, {cache: "no-store"}).then(function (r) {
      if (!r.ok) { return; }
      return r.text().then(function (html) {
        red.textContent = "";
        var viejo = document.getElementById("mesa_estado");
        if (viejo.outerHTML !== html.trim()) { viejo.outerHTML = html; }
        var terminada = document.getElementById("mesa_estado").dataset.terminada === "si";
        document.getElementById("nueva_mano_p").hidden = terminada;
      });
    }).catch(function () { red.textContent = pagina.dataset.sinred; });
  }

  setInterval(refrescar, cada);
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { refrescar(); }
  });
}());

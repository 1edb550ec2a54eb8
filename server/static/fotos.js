// What the photo pages share (the hand's photo part, the deck's registration): a POST of a
// photo form or a JSON body that waits and tries again by itself while the readers are busy
// (503 with Retry-After), answering {ok, estado, doc}.
(function () {
  "use strict";
  function enviar(ruta, cuerpo, lang, alEsperar) {
    var json = !(cuerpo instanceof FormData);
    var opciones = {method: "POST", body: json ? JSON.stringify(cuerpo) : cuerpo, cache: "no-store"};
    if (json) { opciones.headers = {"Content-Type": "application/json"}; }
    return fetch(ruta + "?lang=" + lang, opciones).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (doc) {
        if (r.status === 503) {
          if (alEsperar) { alEsperar(); }
          var espera = (parseInt(r.headers.get("Retry-After"), 10) || 2) * 1000;
          return new Promise(function (hecho) { setTimeout(hecho, espera); }).then(function () {
            return enviar(ruta, cuerpo, lang, alEsperar);
          });
        }
        return {ok: r.ok, estado: r.status, doc: doc};
      });
    });
  }
  window.musFotos = {enviar: enviar};
}());

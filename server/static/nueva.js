// The new partida form: a TOML file is read into the text box (nothing is uploaded apart from
// the form), the TOML box shows only for custom rules, and "es mano" lists the names typed.
(function () {
  "use strict";
  var form = document.getElementById("nueva_form");
  if (!form) { return; }
  var bloque = document.getElementById("toml_bloque");
  var toml = document.getElementById("toml");
  var mano = document.getElementById("mano");
  var etiquetas = Array.prototype.map.call(mano.options, function (o) { return o.textContent; });

  function reglas() {
    var elegido = form.querySelector("input[name=reglas]:checked");
    bloque.hidden = !(elegido && elegido.value === "propio");
  }

  function nombres() {
    for (var i = 0; i < 4; i++) {
      var nombre = document.getElementById("jugador" + i).value.trim();
      mano.options[i].textContent = nombre || etiquetas[i];
    }
  }

  form.addEventListener("change", reglas);
  form.addEventListener("input", nombres);
  document.getElementById("toml_fichero").addEventListener("change", function () {
    var fichero = this.files && this.files[0];
    if (!fichero) { return; }
    var lector = new FileReader();
    lector.onload = function () { toml.value = String(lector.result || ""); };
    lector.readAsText(fichero);
  });
  reglas();
  nombres();
}());

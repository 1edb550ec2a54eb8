// The players' deck registered from the phone: one photo per suit (oros, copas, espadas,
// bastos), each sent at once to be checked as the app checks it (POST /api/baraja/comprobar),
// kept only in this page's memory; with the fourth, the four go together to the partida
// (POST /api/partidas/{clave}/baraja) and every later reading of the partida uses the deck.
(function () {
  "use strict";
  var raiz = document.getElementById("pagina_baraja");
  if (!raiz) { return; }
  var clave = raiz.dataset.clave, lang = raiz.dataset.lang;
  var T = JSON.parse(document.getElementById("textos").textContent);
  var filas = Array.prototype.slice.call(document.querySelectorAll("#palos li"));
  var palos = filas.map(function (li) { return li.dataset.palo; });
  var fotos = {};   // suit -> the File checked good (never stored anywhere else)
  var turno = 0;    // the suit asked for now; palos.length when all four are taken

  function $(id) { return document.getElementById(id); }

  function decir(id, texto) {
    $(id).textContent = texto || "";
    $(id).hidden = !texto;
    // said where the eye is: a message under the guide and the photo went unseen
    if (texto && $(id).scrollIntoView) { $(id).scrollIntoView({block: "nearest"}); }
  }

  function pintar() {
    filas.forEach(function (li, i) {
      var estado = fotos[li.dataset.palo] ? "hecha" : (i === turno ? "ahora" : "pendiente");
      li.dataset.estado = estado;
      $("palo-" + li.dataset.palo + "-estado").textContent = T[estado] || "";
    });
    $("pide").textContent = turno < palos.length ? filas[turno].dataset.pide : "";
    $("foto_label").hidden = turno >= palos.length;
  }

  function enviar(ruta, form) {
    return window.musFotos.enviar(ruta, form, lang, function () { $("estado").textContent = T.ocupado; });
  }

  function mostrarFoto(file) {
    // the photo as taken, the guide's frame over it, so a wrong framing is seen at once
    if (!window.createImageBitmap) { return; }
    createImageBitmap(file).then(function (bmp) {
      var lienzo = $("vista"), ancho = Math.min(1000, bmp.width);
      lienzo.width = ancho;
      lienzo.height = Math.round(bmp.height * ancho / bmp.width);
      var g = lienzo.getContext("2d");
      g.drawImage(bmp, 0, 0, lienzo.width, lienzo.height);
      lienzo.hidden = false;
    }).catch(function () { $("vista").hidden = true; });
  }

  function tomar(file) {
    var palo = palos[turno];
    var form = new FormData();
    form.append("foto", file, file.name || (palo + ".jpg"));
    form.append("palo", palo);
    decir("error", "");
    $("estado").textContent = T.comprobando;
    mostrarFoto(file);
    enviar("/api/baraja/comprobar", form).then(function (r) {
      $("estado").textContent = "";
      if (!r.ok) { decir("error", r.doc.error); return; }
      fotos[palo] = file;
      turno += 1;
      pintar();
      if (turno >= palos.length) { registrar(); }
    }).catch(function () { $("estado").textContent = ""; decir("error", T.sin_conexion); });
  }

  function registrar() {
    var form = new FormData();
    palos.forEach(function (p) { form.append(p, fotos[p], fotos[p].name || (p + ".jpg")); });
    $("estado").textContent = T.registrando;
    enviar("/api/partidas/" + clave + "/baraja", form).then(function (r) {
      $("estado").textContent = "";
      if (!r.ok) {  // e.g. a row of another suit: the four are taken again
        decir("error", r.doc.error);
        empezarOtraVez();
        return;
      }
      $("estado").textContent = T.registrada;
      $("estado").scrollIntoView({block: "nearest"});
      decir("avisos", (r.doc.avisos || []).join(" · "));
      $("ya_registrada").hidden = false;
      $("aprendida").hidden = true;
      raiz.dataset.registrada = "si";
    }).catch(function () { $("estado").textContent = ""; decir("error", T.sin_conexion); });
  }

  function empezarOtraVez() {
    fotos = {};
    turno = 0;
    $("vista").hidden = true;
    pintar();
  }

  $("foto").addEventListener("change", function () {
    var file = this.files && this.files[0];
    this.value = "";  // the same file may be chosen again after a refusal
    if (file && turno < palos.length) { tomar(file); }
  });
  $("empezar_otra_vez").addEventListener("click", function () { decir("error", ""); empezarOtraVez(); });
  $("sin_baraja").addEventListener("click", function () {
    fetch("/api/partidas/" + clave + "/baraja?lang=" + lang, {method: "DELETE"}).then(function (r) {
      if (r.ok) { $("ya_registrada").hidden = true; raiz.dataset.registrada = "no"; $("estado").textContent = T.general; }
    });
  });
  pintar();
}());

/* Colonia: keep live fragments in order.
 *
 * Socket messages are hints: every fragment carries data-version.  A message for a version
 * we already show is dropped; a message that skips versions (we missed one) or a socket
 * that reopens after a close makes us refetch the current view over HTTP instead.
 */
(function () {
  "use strict";

  function root() { return document.getElementById("play-root"); }

  function currentVersion() {
    var input = document.getElementById("game-version");
    return input ? parseInt(input.value, 10) : -1;
  }

  function refetch() {
    var r = root();
    if (!r || !window.htmx) return;
    htmx.ajax("GET", r.dataset.fragmentsUrl, { swap: "none", source: r });
  }

  function setConn(text, offline) {
    var el = document.getElementById("conn-state");
    if (!el) return;
    el.textContent = text;
    el.classList.toggle("offline", !!offline);
  }

  var hadClose = false;

  document.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var r = root();
    if (!r) return; // lobby: always swap
    var message = evt.detail.message || "";
    if (document.getElementById("table-waiting")) {
      // Waiting for players: swap seat changes; once the game starts, load the board.
      if (message.indexOf('id="table-waiting"') === -1) {
        evt.preventDefault();
        window.location.reload();
      }
      return;
    }
    var match = /data-version="(\d+)"/.exec(message);
    if (!match) return;
    var incoming = parseInt(match[1], 10);
    var current = currentVersion();
    if (incoming <= current) {
      evt.preventDefault(); // already shown (e.g. our own move's response came first)
    } else if (incoming > current + 1) {
      evt.preventDefault(); // a gap: we missed a message
      refetch();
    }
  });

  document.addEventListener("htmx:wsOpen", function () {
    setConn("", false);
    if (hadClose) {
      hadClose = false;
      if (root()) refetch();
    }
  });

  document.addEventListener("htmx:wsClose", function () {
    hadClose = true;
    var el = document.getElementById("conn-state");
    setConn(el ? el.dataset.offline || "…" : "…", true);
  });
})();

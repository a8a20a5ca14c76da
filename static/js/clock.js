/* Colonia clocks: count down the server's remaining time of the seats to move.
 *
 * The server keeps the time; a clock element carries the seconds left when it was rendered
 * ([data-remaining]), and this script counts them down from the moment it first sees the
 * element (no trust in the browser's wall clock).  When a clock reaches zero the page asks
 * the server for its fragments once: the server applies the table's rule (the AI takes the
 * seat, or the player loses) and the new fragments say so.  Without JavaScript the clocks
 * are static text, correct when the page was loaded.
 */
(function () {
  "use strict";

  var seen = new WeakMap(); // element -> performance.now() when first seen

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function format(seconds) {
    var total = Math.max(0, Math.ceil(seconds - 0.001));
    var h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
    return h ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s);
  }

  function refresh() {
    var root = document.getElementById("play-root");
    if (!root || !window.htmx) return;
    window.htmx.ajax("GET", root.getAttribute("data-fragments-url"), { swap: "none", source: root });
  }

  function tick() {
    var now = performance.now();
    document.querySelectorAll("#play-root [data-remaining]").forEach(function (el) {
      if (!seen.has(el)) seen.set(el, now);
      var left = parseFloat(el.getAttribute("data-remaining")) - (now - seen.get(el)) / 1000;
      if (left < 2 * 86400) el.textContent = format(left); // longer: the server's "2 d 3 h"
      el.classList.toggle("low", left < 30);
      if (left <= 0 && !el.hasAttribute("data-expired")) {
        el.setAttribute("data-expired", "");
        setTimeout(refresh, 750); // the server decides; its answer replaces this element
      }
    });
  }

  setInterval(tick, 250);
  document.addEventListener("DOMContentLoaded", tick);
})();

/* Colonia table extras: the chat log stays scrolled to the newest message.
 *
 * The chat log (#chat-log) is replaced whole by socket pushes and HTMX answers; when the
 * reader was at the bottom (or it is their own message), the new log is scrolled down too.
 */
(function () {
  "use strict";

  var atBottom = true;

  function log() { return document.getElementById("chat-log"); }

  function nearBottom(el) { return el.scrollHeight - el.scrollTop - el.clientHeight < 24; }

  function toBottom() {
    var el = log();
    if (el) el.scrollTop = el.scrollHeight;
  }

  document.addEventListener("DOMContentLoaded", toBottom);
  document.addEventListener("scroll", function (evt) {
    if (evt.target && evt.target.id === "chat-log") atBottom = nearBottom(evt.target);
  }, true);
  document.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var el = log();
    if (evt.detail.target === el && el) atBottom = nearBottom(el);
  });
  document.addEventListener("htmx:oobAfterSwap", function (evt) {
    var target = evt.detail.target || evt.detail.elt;
    if (target && target.id === "chat-log" && atBottom) toBottom();
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var elt = evt.detail.elt;
    if (elt && elt.id === "chat-form" && evt.detail.successful) { atBottom = true; toBottom(); }
  });
})();

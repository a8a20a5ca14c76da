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

/* "Your turn": when the status fragment says it is my move (#your-turn), the tab title
 * gets a mark and the favicon a red badge; when the tab is hidden and the person opted in
 * (the "Notify me" button: Notification API, remembered in this browser), a browser
 * notification too.  Driven by the fragments the socket pushes (no polling).
 */
(function () {
  "use strict";

  var root = document.getElementById("play-root");
  if (!root) return;
  var KEY = "colonia.notifyTurns";
  var baseTitle = document.title;
  var icon = document.querySelector("link[rel~='icon']");
  var baseIcon = icon ? icon.getAttribute("href") : "";
  var wasMine = null;

  function optedIn() {
    try { return window.localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
  }

  function setOptIn(on) {
    try {
      if (on) window.localStorage.setItem(KEY, "1"); else window.localStorage.removeItem(KEY);
    } catch (e) { /* storage refused: the button simply stays off */ }
  }

  function notify() {
    if (!("Notification" in window) || Notification.permission !== "granted" || !optedIn()) return;
    try {
      var n = new Notification(root.dataset.turnTitle || "", {
        body: baseTitle, tag: "colonia-turn-" + root.dataset.game, icon: root.dataset.turnIcon,
      });
      n.onclick = function () { window.focus(); n.close(); };
    } catch (e) { /* some browsers only notify from a service worker */ }
  }

  function update() {
    var mine = !!document.getElementById("your-turn");
    document.title = mine ? "● " + (root.dataset.turnTitle || "") + " — " + baseTitle : baseTitle;
    if (icon) icon.setAttribute("href", mine ? root.dataset.turnIcon : baseIcon);
    root.toggleAttribute("data-my-turn", mine);
    if (mine && wasMine === false && document.hidden) notify();
    wasMine = mine;
  }

  function button() { return document.getElementById("notify-turns"); }

  function showButton() {
    var b = button();
    if (!b) return;
    if (!("Notification" in window) || Notification.permission === "denied") {
      b.hidden = true;
      return;
    }
    var on = optedIn() && Notification.permission === "granted";
    b.textContent = on ? b.dataset.on : b.dataset.off;
    b.setAttribute("aria-pressed", on ? "true" : "false");
    b.hidden = false;
  }

  document.addEventListener("click", function (evt) {
    var b = evt.target.closest ? evt.target.closest("#notify-turns") : null;
    if (!b) return;
    if (optedIn()) {
      setOptIn(false);
      showButton();
      return;
    }
    Notification.requestPermission().then(function (permission) {
      setOptIn(permission === "granted");
      showButton();
    });
  });

  update();
  showButton();
  document.addEventListener("htmx:oobAfterSwap", update);
  document.addEventListener("htmx:afterSettle", update);
})();

/* A confirmation fetched into #resign-slot (resigning) opens as a modal dialog; without
   JavaScript the same confirmation is a page of its own. */
(function () {
  "use strict";
  document.addEventListener("htmx:afterSwap", function (evt) {
    var target = evt.detail && evt.detail.target;
    if (!target || target.id !== "resign-slot") return;
    var dialog = target.querySelector("dialog");
    if (!dialog || typeof dialog.showModal !== "function") return;
    if (dialog.open) dialog.close();
    dialog.showModal();
  });
})();

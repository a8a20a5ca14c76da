/* Colonia play page: keep the player's place while fragments are swapped.
 *
 * - Focus: elements carry a stable data-focus key.  When a swap removes the focused element,
 *   focus goes to the element with the same key in the new fragments (the "Place" button of
 *   a tile becomes its "Rotate" button), else to the fragment's [data-autofocus] element,
 *   right after the update's last fragment is in.
 * - Reveal: what needs the player's action is in view after every update.  The board
 *   marks it with [data-act] (the prompt with its buttons: a market's buttons when the
 *   draws open, the board while placing...); at the end of the game it is the final
 *   scores.  When an update (a swap of a response or of a socket push, or the page load)
 *   brings a new one (another element, version or selection) and it is not wholly on
 *   screen, the page scrolls just enough to show it (its top, when taller than the
 *   screen).  Scrolling, rather than a sticky action bar: the targets are often on the
 *   drawings (cells, spots), which no bar can hold, and a bar would cover a phone's
 *   little screen for good.  It never moves the focus, and it does not fight the
 *   player: once shown, the same one is not shown again when they scroll away from it
 *   (a refetch of the same version leaves the page alone), and while they scroll or
 *   touch the page it waits until they stop (REST ms), then shows it if it is still
 *   off screen.
 * - Order: an HTTP response older than what the page shows, or overtaken by a later request
 *   of the player, is not swapped in; log rows already shown are not appended twice
 *   (socket pushes and responses may cross).
 * - Hints (practice games): the board's buttons of the hint's moves get class "hinted".
 * - Copy buttons: [data-copy-from="#selector"] copies that input's value.  (Not data-copy:
 *   boards put their choices' data there, e.g. the number of a piece's copy.)
 */
(function () {
  "use strict";

  var lastKey = null; // data-focus key of the last element focused in the play area
  var inPlay = false; // the keyboard focus was last in the play area
  var timer = null;
  var REST = 800; // ms without the player's own scrolling before the page scrolls for them
  var shown = null; // key of the last [data-act] element brought into view
  var handled = 0; // time of the player's last own scroll or touch
  var later = null; // a reveal waiting for the player to stop scrolling

  function shownVersion() {
    var input = document.getElementById("game-version");
    return input ? parseInt(input.value, 10) : -1;
  }

  function versionOf(node) {
    if (!node) return null;
    var holder = node.getAttribute ? node : null;
    if (holder && holder.hasAttribute("data-version")) return parseInt(holder.getAttribute("data-version"), 10);
    var inner = node.querySelector ? node.querySelector("[data-version]") : null;
    return inner ? parseInt(inner.getAttribute("data-version"), 10) : null;
  }

  function keyOf(el) {
    var holder = el && el.closest ? el.closest("[data-focus]") : null;
    return holder ? holder.getAttribute("data-focus") : null;
  }

  function screenHeight() {
    return window.innerHeight || document.documentElement.clientHeight;
  }

  // Wholly on screen; one taller than the screen: its top at the top of the screen.
  function visible(el) {
    var r = el.getBoundingClientRect();
    var h = screenHeight();
    if (r.height > h) return r.top >= -2 && r.top <= h * 0.1;
    return r.top >= -2 && r.bottom <= h + 2;
  }

  function actElement() {
    return document.getElementById("final-scores") ||
      document.querySelector("#play-root [data-act]");
  }

  function reveal() {
    if (later) { clearTimeout(later); later = null; }
    var el = actElement();
    if (!el) { shown = null; return; }
    var key = (el.id || "") + "|" + el.getAttribute("data-act") + "|" + shownVersion() +
      "|" + window.location.search;
    if (key === shown) return; // shown once already: the player may look elsewhere now
    var wait = handled + REST - Date.now();
    if (wait > 0) { later = setTimeout(reveal, wait); return; } // the player is scrolling
    shown = key;
    if (visible(el)) return;
    var tall = el.getBoundingClientRect().height > screenHeight();
    el.scrollIntoView({ block: tall ? "start" : "nearest", behavior: "auto" });
  }

  // The player's own scrolling and touching (not the page's scrollIntoView).
  function byHand() { handled = Date.now(); }
  window.addEventListener("wheel", byHand, { passive: true });
  window.addEventListener("touchmove", byHand, { passive: true });
  document.addEventListener("keydown", function (evt) {
    var scrollKeys = ["PageUp", "PageDown", "Home", "End", "ArrowUp", "ArrowDown", " "];
    var t = evt.target;
    var typing = t && t.closest && t.closest("input, textarea, select, [contenteditable]");
    if (!typing && scrollKeys.indexOf(evt.key) !== -1 && !(t && t.closest && t.closest("button, a"))) byHand();
  });

  function settle() {
    timer = null;
    var active = document.activeElement;
    // Focus is lost when its element was swapped out, or disabled while its form was sent.
    var focusLost = !active || active === document.body || !document.contains(active);
    if (inPlay && focusLost) {
      var target = null;
      if (lastKey) target = document.querySelector('[data-focus="' + CSS.escape(lastKey) + '"]');
      if (!target) target = document.querySelector("#play-root [data-autofocus]");
      if (target) target.focus();
    }
    reveal();
  }

  // The page as loaded (a new game, a reload) shows it too.
  if (document.readyState === "complete") reveal();
  else window.addEventListener("load", reveal);

  document.addEventListener("focusin", function (evt) {
    var root = document.getElementById("play-root");
    inPlay = !!(root && root.contains(evt.target));
    lastKey = inPlay ? keyOf(evt.target) : null;
  });

  document.addEventListener("pointerdown", function (evt) {
    // A click on nothing focusable: the player has left the controls alone.
    if (!(evt.target.closest && evt.target.closest("a, button, input, select, textarea, [tabindex]"))) {
      inPlay = false;
      // Whatever they touch now (a spot on the board) is where they are: an answer on its
      // way waits until they are done before it moves the page.
      byHand();
    }
  });

  var issued = 0; // requests sent; a response to an older one than the last is dropped

  // The chat and the practice hint's panel (it polls) are not moves: they neither order
  // the player's requests nor reveal anything.
  function fromChat(evt) {
    var elt = evt.detail && evt.detail.elt;
    return !!(elt && elt.closest && elt.closest("[data-chat], [data-aside]"));
  }

  document.addEventListener("htmx:beforeRequest", function (evt) {
    if (fromChat(evt)) return; // the chat is not a move: it neither orders nor reveals
    if (evt.detail.xhr) evt.detail.xhr.coloniaSeq = ++issued;
  });

  document.addEventListener("htmx:beforeSwap", function (evt) {
    // A hint's answer for a panel an update has replaced since (a version it left).
    var target = evt.detail.target;
    if (target && !target.isConnected) { evt.detail.shouldSwap = false; return; }
    if (fromChat(evt)) return;
    var seq = evt.detail.xhr && evt.detail.xhr.coloniaSeq;
    if (seq && seq < issued) evt.detail.shouldSwap = false; // the player has moved on
  });

  document.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var detail = evt.detail;
    var incoming = versionOf(detail.fragment);
    if (incoming !== null && incoming < shownVersion()) {
      detail.shouldSwap = false; // an old response: the socket already showed a newer version
      return;
    }
    var fragment = detail.fragment;
    if (detail.target && detail.target.id === "game-log" && fragment.querySelectorAll) {
      fragment.querySelectorAll("[data-seq]").forEach(function (row) {
        if (document.getElementById("log-" + row.getAttribute("data-seq"))) row.remove();
      });
    }
    if (!timer) timer = setTimeout(settle, 0);
  });

  // Put the focus back as soon as the whole update is in (every fragment of a response or
  // a socket message), in the same task: a key pressed before a timer ran would go to the
  // body.  The timer stays for swaps that end without either event.
  function settleNow() {
    if (!timer) return;
    clearTimeout(timer);
    settle();
  }
  document.addEventListener("htmx:afterSettle", settleNow);
  document.addEventListener("htmx:wsAfterMessage", settleNow);

  // A practice hint's moves light up on the board: each button posting the same action
  // as a row of the hint gets the class "hinted" (and the row's rank).
  function markHints() {
    var rows = document.querySelectorAll("#hint-moves [data-hint-action]");
    var ranks = {};
    rows.forEach(function (row) {
      var action = row.getAttribute("data-hint-action");
      if (!(action in ranks)) ranks[action] = row.getAttribute("data-hint-rank");
    });
    document.querySelectorAll("#play-root button[data-action]").forEach(function (button) {
      var rank = ranks[button.getAttribute("data-action")];
      button.classList.toggle("hinted", !!rank);
      if (rank) button.setAttribute("data-hinted", rank);
      else button.removeAttribute("data-hinted");
    });
  }
  document.addEventListener("htmx:afterSettle", markHints);
  document.addEventListener("htmx:wsAfterMessage", markHints);
  if (document.readyState !== "loading") markHints();
  else document.addEventListener("DOMContentLoaded", markHints);

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest("[data-copy-from]") : null;
    if (!button) return;
    var input = document.getElementById(button.getAttribute("data-copy-from").replace(/^#/, ""));
    if (!input) return;
    var done = function () {
      var label = button.textContent;
      button.textContent = button.getAttribute("data-copied") || label;
      setTimeout(function () { button.textContent = label; }, 2000);
    };
    input.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () {
        document.execCommand("copy");
        done();
      });
    } else {
      document.execCommand("copy");
      done();
    }
  });
})();

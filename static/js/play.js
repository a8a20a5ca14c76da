/* Colonia play page: keep the player's place while fragments are swapped.
 *
 * - Focus: elements carry a stable data-focus key.  When a swap removes the focused element,
 *   focus goes to the element with the same key in the new fragments (the "Place" button of
 *   a tile becomes its "Rotate" button), else to the fragment's [data-autofocus] element,
 *   right after the update's last fragment is in.
 * - Reveal: after a pick, the part that now needs the player ([data-reveal], e.g. the
 *   placement bar above the board) is scrolled into view when it is off screen; not after
 *   the page's own refetch, nor once the player has touched the page since the pick.
 * - Order: an HTTP response older than what the page shows, or overtaken by a later request
 *   of the player, is not swapped in; log rows already shown are not appended twice
 *   (socket pushes and responses may cross).
 * - Copy buttons: [data-copy-from="#selector"] copies that input's value.  (Not data-copy:
 *   boards put their choices' data there, e.g. a Nouvelle-France copy's number.)
 */
(function () {
  "use strict";

  var lastKey = null; // data-focus key of the last element focused in the play area
  var inPlay = false; // the keyboard focus was last in the play area
  var picked = false; // the swap answers the player's own request
  var timer = null;

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

  function visible(el) {
    var r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= (window.innerHeight || document.documentElement.clientHeight);
  }

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
    if (picked) {
      var reveal = document.querySelector("#play-root [data-reveal]");
      if (reveal && !visible(reveal)) reveal.scrollIntoView({ block: "nearest" });
    }
    picked = false;
  }

  document.addEventListener("focusin", function (evt) {
    var root = document.getElementById("play-root");
    inPlay = !!(root && root.contains(evt.target));
    lastKey = inPlay ? keyOf(evt.target) : null;
  });

  document.addEventListener("pointerdown", function (evt) {
    // A click on nothing focusable: the player has left the controls alone.
    if (!(evt.target.closest && evt.target.closest("a, button, input, select, textarea, [tabindex]"))) {
      inPlay = false;
    }
    // Whatever they touch now (a spot on the board) is where they are: an answer still on
    // its way must not scroll the page to the part it reveals.
    picked = false;
  });

  var issued = 0; // requests sent; a response to an older one than the last is dropped

  function fromChat(evt) {
    var elt = evt.detail && evt.detail.elt;
    return !!(elt && elt.closest && elt.closest("[data-chat]"));
  }

  document.addEventListener("htmx:beforeRequest", function (evt) {
    if (fromChat(evt)) return; // the chat is not a move: it neither orders nor reveals
    // The page's own refetch (colonia.js, after a gap or a reconnect: its source is the
    // root) is no pick of the player's: it does not reveal anything either.
    var elt = evt.detail && evt.detail.elt;
    if (!(elt && elt.id === "play-root")) picked = true;
    if (evt.detail.xhr) evt.detail.xhr.coloniaSeq = ++issued;
  });

  document.addEventListener("htmx:beforeSwap", function (evt) {
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

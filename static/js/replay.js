/* Colonia replay page: keyboard steps, autoplay, and keeping the place across swaps.
 *
 * Every control is a link or a GET form (the page works without this script); HTMX swaps
 * the page's fragments out of band.  This script adds:
 * - keys: ArrowLeft / ArrowRight (previous / next), Home / End (the deal / the last move),
 *   unless the focus is in a text field or on the slider (which has its own arrows);
 * - autoplay: the Play button follows "Next" every second until the last move;
 * - focus: after a swap the element with the same data-focus key gets the focus back;
 *   the current move of the list is scrolled into view (inside the list only);
 * - Back / Forward: a whole-page load of the step's address (no HTMX snapshots).
 */
(function () {
  "use strict";

  var KEYS = { ArrowLeft: "replay-prev", ArrowRight: "replay-next", Home: "replay-first", End: "replay-last" };
  var DELAY = 1000;
  var playing = false;
  var timer = null;
  var focusKey = null;
  var settleTimer = null;

  function byId(id) { return document.getElementById(id); }

  function go(id) {
    var link = byId(id);
    if (link) { link.click(); return true; }
    return false;
  }

  function typing(el) {
    if (!el || !el.tagName) return false;
    var tag = el.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || el.isContentEditable;
  }

  document.addEventListener("keydown", function (evt) {
    if (!byId("replay-root") || evt.altKey || evt.ctrlKey || evt.metaKey || evt.shiftKey) return;
    var id = KEYS[evt.key];
    if (!id || typing(evt.target)) return;
    evt.preventDefault();
    stop();
    go(id);
  });

  function syncButton() {
    var button = byId("replay-autoplay");
    if (!button) return;
    button.hidden = false;
    button.textContent = playing ? button.getAttribute("data-pause") : button.getAttribute("data-play");
    button.setAttribute("aria-pressed", playing ? "true" : "false");
  }

  function tick() {
    timer = null;
    if (!playing) return;
    if (!go("replay-next")) stop();
  }

  function schedule() {
    if (playing && !timer) timer = window.setTimeout(tick, DELAY);
  }

  function stop() {
    playing = false;
    if (timer) { window.clearTimeout(timer); timer = null; }
    syncButton();
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest("#replay-autoplay") : null;
    if (!button) return;
    if (playing) { stop(); return; }
    if (!byId("replay-next")) go("replay-first"); // at the end: start again from the deal
    playing = true;
    syncButton();
    schedule();
  });

  document.addEventListener("input", function (evt) {
    if (evt.target && evt.target.id === "replay-slider") {
      var out = evt.target.form && evt.target.form.querySelector("output");
      if (out) out.textContent = evt.target.value + " / " + evt.target.max;
    }
  });

  function showCurrent() {
    var list = byId("replay-events");
    var current = list && list.querySelector("li.current");
    if (!current) return;
    var top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }

  // The focus at the time of a request (a link, the slider, a key press elsewhere).
  document.addEventListener("htmx:beforeRequest", function () {
    var active = document.activeElement;
    var holder = active && active.closest ? active.closest("[data-focus]") : null;
    focusKey = holder ? holder.getAttribute("data-focus") : null;
  });

  function settle() {
    settleTimer = null;
    var active = document.activeElement;
    var lost = !active || active === document.body || !document.contains(active);
    if (focusKey && lost) {
      var target = document.querySelector('[data-focus="' + CSS.escape(focusKey) + '"]');
      if (!target && /^replay-(next|last)$/.test(focusKey)) target = byId("replay-prev");
      if (!target && /^replay-(prev|first)$/.test(focusKey)) target = byId("replay-next");
      if (target) target.focus();
    }
    syncButton();
    showCurrent();
    schedule();
  }

  // Responses are out-of-band swaps (the link that asked is replaced): settle once after them.
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (!settleTimer) settleTimer = window.setTimeout(settle, 0);
  });

  // Back and Forward: the page keeps no HTMX snapshot (hx-history="false": a restored board
  // layout would lose its style's nonce), so the browser loads the step's address anew.
  document.addEventListener("htmx:historyCacheMiss", function (evt) {
    if (!byId("replay-root") && !document.querySelector(".page-replay")) return;
    evt.preventDefault();
    window.location.reload();
  });

  document.addEventListener("DOMContentLoaded", function () {
    syncButton();
    showCurrent();
  });
})();

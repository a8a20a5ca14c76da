/* Nouvelle-France: a ghost of the piece follows the pointer over the construction sites.
 *
 * While a piece is being placed, every legal landing spot is a circle in the site's drawing
 * (class "spot", data-spot = the key of its button in #spot-list, data-tx/ty = where the
 * ghost goes, data-k = its depth).  The ghost's cubes wait hidden in the site's ".ghost"
 * group; shown, each moves in among the placed cubes at its depth (data-k: the spot's plus
 * its own), so the cubes in front of it still hide it.  Moving the pointer over a site shows the piece at the nearest spot; a click
 * presses that spot's button (the page's form, so nothing here is needed to play).  On a
 * touch screen the first tap shows the ghost and a second tap on the same spot places it.
 * Focusing or hovering a button of the list shows its ghost too.  Fragments are replaced on
 * every update, so everything is delegated from the document, and a ghost shown before an
 * update shows again after it at the same spot if it is still offered.
 */
(function () {
  "use strict";

  var shown = null; // the spot circle whose ghost is visible
  var touch = false; // the last pointer was a finger or a pen

  function siteOf(node) {
    return node && node.closest ? node.closest("svg.nf-site") : null;
  }

  function nearest(svg, evt) {
    var matrix = svg.getScreenCTM();
    if (!matrix) return null;
    var pt = svg.createSVGPoint();
    pt.x = evt.clientX;
    pt.y = evt.clientY;
    var p = pt.matrixTransform(matrix.inverse());
    var best = null;
    var bestD = 36 * 36; // within about two cubes
    svg.querySelectorAll(".spot").forEach(function (spot) {
      var dx = spot.cx.baseVal.value - p.x;
      var dy = spot.cy.baseVal.value - p.y;
      var d = dx * dx + dy * dy;
      if (d < bestD) { bestD = d; best = spot; }
    });
    return best;
  }

  function hide() {
    if (!shown) return;
    var svg = siteOf(shown);
    var ghost = svg && svg.querySelector(".ghost");
    if (ghost) {
      svg.querySelectorAll(".cubes .ghost-cube").forEach(function (cube) {
        cube.removeAttribute("transform");
        ghost.appendChild(cube);
      });
    }
    shown.classList.remove("on");
    var button = buttonOf(shown);
    if (button) button.classList.remove("ghosted");
    shown = null;
  }

  function show(spot) {
    if (spot === shown) return;
    hide();
    if (!spot) return;
    var svg = siteOf(spot);
    var ghost = svg && svg.querySelector(".ghost");
    var cubes = svg && svg.querySelector(".cubes");
    if (!ghost || !cubes) return;
    var move = "translate(" + spot.getAttribute("data-tx") + " " +
               spot.getAttribute("data-ty") + ")";
    var base = Number(spot.getAttribute("data-k"));
    var placed = Array.prototype.slice.call(cubes.querySelectorAll("use:not(.ghost-cube)"));
    Array.prototype.slice.call(ghost.querySelectorAll(".ghost-cube")).forEach(function (cube) {
      var k = base + Number(cube.getAttribute("data-k"));
      var before = null;
      for (var i = 0; i < placed.length; i++) {
        if (Number(placed[i].getAttribute("data-k")) > k) { before = placed[i]; break; }
      }
      cube.setAttribute("transform", move);
      cubes.insertBefore(cube, before);
    });
    spot.classList.add("on");
    var button = buttonOf(spot);
    if (button) button.classList.add("ghosted");
    shown = spot;
  }

  function buttonOf(spot) {
    var key = spot.getAttribute("data-spot");
    return document.querySelector('#spot-list button[data-spot="' + CSS.escape(key) + '"]');
  }

  function spotOf(button) {
    var key = button.getAttribute("data-spot");
    return document.querySelector('svg.nf-site .spot[data-spot="' + CSS.escape(key) + '"]');
  }

  document.addEventListener("pointerdown", function (evt) {
    touch = evt.pointerType === "touch" || evt.pointerType === "pen";
  });

  document.addEventListener("pointermove", function (evt) {
    if (evt.pointerType === "touch") return;
    var svg = siteOf(evt.target);
    if (svg && svg.querySelector(".spot")) {
      show(nearest(svg, evt));
    } else if (shown && !(evt.target.closest && evt.target.closest("#spot-list"))) {
      hide();
    }
  });

  document.addEventListener("click", function (evt) {
    var svg = siteOf(evt.target);
    if (!svg || !svg.querySelector(".spot")) return;
    var spot = nearest(svg, evt);
    if (!spot) { hide(); return; }
    if (touch && spot !== shown) { show(spot); return; } // a first tap only shows it
    show(spot);
    var button = buttonOf(spot);
    if (button && !button.disabled) button.click();
  });

  function fromButton(evt) {
    var button = evt.target.closest ? evt.target.closest("#spot-list button[data-spot]") : null;
    if (!button) return;
    var spot = spotOf(button);
    if (spot) show(spot);
  }
  document.addEventListener("focusin", fromButton);
  document.addEventListener("mouseover", fromButton);

  // A swap replaces the drawings (and the list): the piece shows again at the same spot
  // when the new drawings still offer it, so that an update (often the answer to the
  // player's own last move, after the socket had shown it) does not undo a first tap.
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (!shown) return;
    if (document.contains(shown)) {
      var button = buttonOf(shown); // the list may have been swapped on its own
      if (button) button.classList.add("ghosted");
      return;
    }
    var key = shown.getAttribute("data-spot");
    shown = null;
    show(document.querySelector('svg.nf-site .spot[data-spot="' + CSS.escape(key) + '"]'));
  });
})();

/* Snowstorm notices: a live update that brought a storm carries a .storm-banner in the sites
 * fragment (rendered from the engine's draw event).  It moves into #nf-storm-notice, a live
 * region outside the fragments, so that the next update (an AI's move a second later) does
 * not wipe it; it leaves after half a minute or on Close (a link to the page, so that it
 * closes without this script too).
 */
(function () {
  "use strict";

  var timer = null;

  function clear() {
    var notice = document.getElementById("nf-storm-notice");
    if (notice) notice.textContent = "";
    if (timer) clearTimeout(timer);
    timer = null;
  }

  document.addEventListener("htmx:oobAfterSwap", function () {
    var notice = document.getElementById("nf-storm-notice");
    var banners = document.querySelectorAll("#nf-sites .storm-banner");
    if (!notice || !banners.length) return;
    clear();
    banners.forEach(function (banner) {
      notice.appendChild(banner);
    });
    timer = setTimeout(clear, 30000);
  });

  // Close is a link to the page (what closes it without a script): here, in place.
  document.addEventListener("click", function (evt) {
    var close = evt.target.closest && evt.target.closest(".storm-banner .storm-close");
    if (!close) return;
    evt.preventDefault();
    if (close.closest("#nf-storm-notice")) clear();
    else close.closest(".storm-banner").remove();
  });
})();

/* The site up close (phones, while placing: its drawing is wider than its box, which pans
 * under the thumb).  When it first shows, its box scrolls to the landing spots (their
 * middle, or the first spot when they do not all fit); when an update replaces it with the
 * same spots (a refetch, the answer to a move that crossed a push), the box stays where the
 * player had panned it, so a spot under the thumb stays there.
 */
(function () {
  "use strict";

  var kept = null; // {spots, left, top} of the box before a swap

  function box() {
    return document.querySelector("#nf-sites.placing-now .site.zoomed .site-draw");
  }

  function pans(el) {
    return el && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
  }

  function spotKeys(el) {
    return Array.prototype.map.call(el.querySelectorAll(".spot"), function (spot) {
      return spot.getAttribute("data-spot");
    }).join(",");
  }

  function toSpots(el) {
    var spots = el.querySelectorAll(".spot");
    if (!spots.length) return;
    var frame = el.getBoundingClientRect();
    var left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    spots.forEach(function (spot) {
      var r = spot.getBoundingClientRect();
      left = Math.min(left, r.left); top = Math.min(top, r.top);
      right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
    });
    if (right - left > el.clientWidth || bottom - top > el.clientHeight) {
      var first = spots[0].getBoundingClientRect();
      left = right = (first.left + first.right) / 2;
      top = bottom = (first.top + first.bottom) / 2;
    }
    el.scrollLeft += (left + right) / 2 - (frame.left + el.clientWidth / 2);
    el.scrollTop += (top + bottom) / 2 - (frame.top + el.clientHeight / 2);
  }

  function place() {
    var el = box();
    if (!pans(el)) { kept = null; return; }
    if (kept && kept.spots === spotKeys(el)) {
      el.scrollLeft = kept.left;
      el.scrollTop = kept.top;
    } else {
      toSpots(el);
    }
    kept = null;
  }

  document.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var target = evt.detail && evt.detail.target;
    if (!target || target.id !== "nf-sites") return;
    var el = box();
    kept = pans(el) ? { spots: spotKeys(el), left: el.scrollLeft, top: el.scrollTop } : null;
  });
  // After colonia.js has given the new drawing its width (data-pos, on htmx:load).
  document.addEventListener("htmx:load", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (elt && elt.id === "nf-sites") place();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", place);
  else place();
})();

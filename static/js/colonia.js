/* Colonia: keep live fragments in order.
 *
 * Socket messages are hints: every fragment carries data-version.  A message for a version
 * we already show is dropped; a message that skips versions (we missed one) and a socket
 * that reopens after a close make us refetch the current view over HTTP instead.  (What
 * changed between the page's render and the socket's first open, the socket sends.)
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
    // The query string holds what the player has picked: keep it.
    htmx.ajax("GET", r.dataset.fragmentsUrl + window.location.search, { swap: "none", source: r });
    // Chat messages posted while the socket was closed.
    var chat = document.getElementById("chat-panel");
    if (chat && r.dataset.chatUrl) htmx.ajax("GET", r.dataset.chatUrl, { swap: "none", source: chat });
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
    // The table chat is not versioned (no data-version): always swap it.
    if (/^\s*<ol id="chat-log"/.test(message)) return;
    // Nor is the nav's count of games waiting for me (any game of mine changed).
    if (/^\s*<a [^>]*id="nav-turns"/.test(message)) return;
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
    // The log part says which version it follows (data-since): a message may skip versions
    // as long as it follows what we show.
    var since = /data-since="(\d+)"/.exec(message);
    var follows = since ? parseInt(since[1], 10) <= current : incoming === current + 1;
    if (incoming <= current) {
      evt.preventDefault(); // already shown (e.g. our own move's response came first)
    } else if (!follows) {
      evt.preventDefault(); // a gap: we missed a message
      refetch();
    }
  });

  // A waiting table reloads when a socket hint says the game started; a seat taken before
  // our socket opened sent that hint to nobody, so ask once the socket is open.
  function reloadIfStarted() {
    if (!document.getElementById("table-waiting") || !window.fetch) return;
    fetch(window.location.href, { credentials: "same-origin" }).then(function (resp) {
      return resp.ok ? resp.text() : "";
    }).then(function (html) {
      if (html && html.indexOf('id="table-waiting"') === -1) window.location.reload();
    }).catch(function () {});
  }

  document.addEventListener("htmx:wsOpen", function () {
    setConn("", false);
    document.body.setAttribute("data-socket", "open"); // for people's tools and tests
    reloadIfStarted();
    // After a reconnect, ask for the current view: hints of the gap reached nobody.  The
    // first open does not: the socket's address says which version and chat the page
    // shows, and the socket sends what changed since (games.play.consumers), so the panels
    // are not redrawn under a click the person is making.
    if (hadClose) {
      hadClose = false;
      if (root()) refetch();
    }
  });

  document.addEventListener("htmx:wsClose", function (evt) {
    hadClose = true;
    document.body.setAttribute("data-socket", "closed");
    var code = evt.detail && evt.detail.event ? evt.detail.event.code : 0;
    if (code === 4401 || code === 4404) {
      // The session logged out (4401) or the game is gone (4404): the page as it stands
      // is no longer ours to show; reload it (sign-in state, or the 404 page).
      window.location.reload();
      return;
    }
    var el = document.getElementById("conn-state");
    setConn(el ? el.dataset.offline || "…" : "…", true);
  });
})();

/* Connection and server failures of HTMX requests: say so, never fail silently.
 *
 * A 5xx (e.g. 503 while Redis or the database restarts), a 4xx without fragments, or
 * no answer at all shows the #net-error banner (its texts are translated in base.html);
 * the next successful request hides it.  Kept apart from the live-fragment code above.
 */
(function () {
  "use strict";

  function banner() { return document.getElementById("net-error"); }

  function show(kind) {
    var el = banner();
    if (!el) return;
    el.textContent = el.dataset[kind] || el.dataset.server || "";
    el.hidden = false;
  }

  // A refusal the server explained (413 too large, 408 timed out): a small fragment
  // marked X-Colonia-Error whose text (translated by the server) the banner shows.
  function explained(xhr) {
    if (!xhr || !xhr.getResponseHeader("X-Colonia-Error") || !window.DOMParser) return "";
    var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    var el = doc.getElementById("request-error");
    return el ? el.textContent.trim() : "";
  }

  document.addEventListener("htmx:responseError", function (evt) {
    var xhr = evt.detail.xhr;
    var status = xhr ? xhr.status : 0;
    var text = explained(xhr);
    if (text && banner()) {
      banner().textContent = text;
      banner().hidden = false;
      return;
    }
    show(status === 429 ? "busy" : status >= 500 ? "server" : "refused");
  });
  document.addEventListener("htmx:sendError", function () { show("network"); });
  document.addEventListener("htmx:timeout", function () { show("network"); });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var el = banner();
    if (el && evt.detail.successful) el.hidden = true;
  });
})();

/* Positions of overlay targets: the Content-Security-Policy forbids style="" attributes,
 * so templates write them as data-pos="left:1%;top:2%" and this applies them through the
 * CSSOM (which the policy allows), on load and on every swapped fragment.
 */
(function () {
  "use strict";

  function place(root) {
    var nodes = root.querySelectorAll ? root.querySelectorAll("[data-pos]") : [];
    var list = Array.prototype.slice.call(nodes);
    if (root.hasAttribute && root.hasAttribute("data-pos")) list.push(root);
    list.forEach(function (el) {
      el.getAttribute("data-pos").split(";").forEach(function (decl) {
        var i = decl.indexOf(":");
        if (i > 0) el.style.setProperty(decl.slice(0, i).trim(), decl.slice(i + 1).trim());
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () { place(document); });
  document.addEventListener("htmx:load", function (evt) { place(evt.detail.elt); });
  document.addEventListener("htmx:oobAfterSwap", function (evt) {
    place(evt.detail.target || evt.detail.elt);
  });
})();

/* A <select data-autosubmit> (the language switcher) submits its form when changed; its
 * button stays for pages without JavaScript. */
(function () {
  "use strict";
  document.addEventListener("change", function (evt) {
    var el = evt.target;
    if (!el.matches || !el.matches("select[data-autosubmit]") || !el.form) return;
    if (el.form.requestSubmit) el.form.requestSubmit(); else el.form.submit();
  });
  document.querySelectorAll("select[data-autosubmit]").forEach(function (el) {
    if (!el.form) return;
    el.form.querySelectorAll("input[type=submit]").forEach(function (b) { b.hidden = true; });
  });
})();

/* The nav's count polls every minute on pages whose socket does not push it: not while
 * the tab is hidden (the window's focus refetches it when the person comes back). */
(function () {
  "use strict";
  document.addEventListener("htmx:confirm", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (document.hidden && elt && elt.id === "nav-turns") evt.preventDefault();
  });
})();

/* A menu the reader opened (<details id=…>, e.g. "Resign or leave…") stays open when a
 * live update redraws the fragment around it: a move arriving while the reader is
 * choosing must not fold the menu under their pointer. */
(function () {
  "use strict";

  var open = new Set();

  document.addEventListener("toggle", function (evt) {
    var el = evt.target;
    if (!el.id || el.tagName !== "DETAILS") return;
    if (el.open) open.add(el.id); else open.delete(el.id);
  }, true);

  function reopen() {
    open.forEach(function (id) {
      var el = document.getElementById(id);
      if (el && el.tagName === "DETAILS" && !el.open) el.open = true;
    });
  }

  document.addEventListener("htmx:oobAfterSwap", reopen);
  document.addEventListener("htmx:afterSwap", reopen);
})();

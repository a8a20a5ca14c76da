/* Lessons: after a move is judged (an HTMX swap of the lesson panel), bring the verdict into
 * view and put the keyboard focus on what comes next (the "Next step" link, else the
 * explanation).  The page works without it: every control is a link or a form. */
(function () {
  "use strict";
  document.addEventListener("htmx:afterSettle", function (evt) {
    var path = evt.detail && evt.detail.requestConfig ? evt.detail.requestConfig.path : "";
    if (!/\/move\/$/.test(path || "")) return;
    var panel = document.getElementById("game-status");
    if (!panel) return;
    var rect = panel.getBoundingClientRect();
    if (rect.top < 0 || rect.top > window.innerHeight - 80) panel.scrollIntoView({ block: "start" });
    var next = document.getElementById("lesson-next") || document.getElementById("lesson-wrong");
    if (next) {
      if (!next.hasAttribute("tabindex") && next.tagName !== "A") next.setAttribute("tabindex", "-1");
      next.focus({ preventScroll: true });
    }
  });
})();

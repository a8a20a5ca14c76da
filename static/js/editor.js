/* Colonia rules editor: field errors beside their fields, unsaved-changes guard.
 *
 * The server checks the form as you type (HTMX posts it to .../validate/ and swaps
 * #form-errors, a summary whose items name the slot of their field); this script copies
 * each message next to its field and marks the input aria-invalid.  Without JavaScript
 * the summary still lists every problem with a link to its field.
 */
(function () {
  "use strict";

  var dirty = false;

  function form() { return document.getElementById("variant-form"); }

  function distributeErrors() {
    var f = form();
    var summary = document.getElementById("form-errors");
    if (!f || !summary) return;
    f.querySelectorAll(".field-errors").forEach(function (ul) { ul.textContent = ""; });
    f.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
    f.querySelectorAll(".has-error").forEach(function (el) { el.classList.remove("has-error"); });
    summary.querySelectorAll("li[data-slot]").forEach(function (li) {
      var slot = li.getAttribute("data-slot");
      var target = document.getElementById("err-" + slot);
      if (!target) return;
      var item = document.createElement("li");
      var msg = li.querySelector(".msg");
      item.textContent = msg ? msg.textContent : li.textContent;
      target.appendChild(item);
      var input = document.getElementById(slot);
      if (input) input.setAttribute("aria-invalid", "true");
      var wrap = target.closest(".field, .cell-input, fieldset, .widget");
      if (wrap) wrap.classList.add("has-error");
    });
    var save = document.getElementById("save-draft");
    if (save) save.classList.toggle("blocked", summary.getAttribute("data-count") !== "0");
  }

  function setDirty(value) {
    dirty = value;
    var flag = document.getElementById("dirty-flag");
    if (flag) flag.textContent = value ? (flag.getAttribute("data-text") || "Unsaved changes") : "";
  }

  document.addEventListener("input", function (evt) {
    if (evt.target && evt.target.closest && evt.target.closest("#variant-form")) setDirty(true);
  });

  document.addEventListener("htmx:afterSettle", function (evt) {
    var target = evt.detail && evt.detail.target;
    if (!target) return;
    if (target.id === "form-errors" || target.id === "variant-form") distributeErrors();
    if (target.id === "variant-form" && form() && form().dataset.dirty) setDirty(true);
  });

  document.addEventListener("submit", function (evt) {
    if (evt.target && (evt.target.id === "variant-form" || evt.target.id === "sim-form")) {
      setDirty(false);
    }
  });

  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (elt && elt.id === "sim-form") setDirty(false);
  });

  window.addEventListener("beforeunload", function (evt) {
    if (dirty) { evt.preventDefault(); evt.returnValue = ""; }
  });
})();

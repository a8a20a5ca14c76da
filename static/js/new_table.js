/* Colonia: forms that show only what applies (the lobby's "New table" form).
 *
 * In a form with data-dependent, a row with data-when="NAME" is shown while the control
 * NAME has one of the row's data-values (space-separated) or, with data-min, a number from
 * data-min on; a hidden row's controls are disabled, so they are not sent (the server
 * ignores them anyway).  A <select data-counts-of="NAME"> offers only the numbers listed in
 * data-counts of the checked radio button NAME.  The server renders the same state at
 * first (without JavaScript an "Update the form" button asks it again); this keeps it as
 * the choices change.  Generic: it names no game and no field.
 */
(function () {
  "use strict";

  function controls(form, name) {
    return Array.prototype.filter.call(form.elements, function (el) { return el.name === name; });
  }

  function valueOf(form, name) {
    var found = controls(form, name);
    for (var i = 0; i < found.length; i++) {
      var el = found[i];
      if (el.type === "radio" || el.type === "checkbox") {
        if (el.checked) return el.value;
      } else {
        return el.value;
      }
    }
    return "";
  }

  function offerCounts(form) {
    form.querySelectorAll("select[data-counts-of]").forEach(function (select) {
      var chosen = controls(form, select.getAttribute("data-counts-of")).filter(function (el) {
        return el.checked && el.hasAttribute("data-counts");
      })[0];
      if (!chosen) return;
      var counts = chosen.getAttribute("data-counts").split(" ");
      var first = null;
      Array.prototype.forEach.call(select.options, function (option) {
        option.disabled = counts.indexOf(option.value) === -1;
        if (!option.disabled && first === null) first = option;
      });
      var current = select.options[select.selectedIndex];
      if ((!current || current.disabled) && first) first.selected = true;
    });
  }

  function update(form) {
    offerCounts(form);
    form.querySelectorAll("[data-when]").forEach(function (row) {
      var value = valueOf(form, row.getAttribute("data-when"));
      var min = row.getAttribute("data-min");
      var shown = min !== null
        ? Number(value) >= Number(min)
        : (row.getAttribute("data-values") || "").split(" ").indexOf(value) !== -1;
      row.hidden = !shown;
      row.querySelectorAll("input, select, textarea").forEach(function (el) { el.disabled = !shown; });
    });
  }

  function all() {
    document.querySelectorAll("form[data-dependent]").forEach(update);
  }

  document.addEventListener("change", function (evt) {
    var form = evt.target && evt.target.form;
    if (form && form.hasAttribute("data-dependent")) update(form);
  });
  // The browser may restore the choices of a page it shows again (Back): follow them.
  document.addEventListener("DOMContentLoaded", all);
  window.addEventListener("pageshow", all);
})();

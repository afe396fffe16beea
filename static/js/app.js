// The portal's small behaviours, all without inline scripts (the CSP forbids them):
// - forms marked data-autosubmit submit when a select changes (company switcher);
// - buttons marked data-copy copy the text of the element they name to the clipboard;
// - <dialog> elements open from buttons marked data-open-dialog and close on data-close-dialog.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  document.addEventListener("change", function (event) {
    var form = event.target.closest("form[data-autosubmit]");
    if (form && event.target.tagName === "SELECT") { form.requestSubmit(); }
  });

  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var source = document.getElementById(copy.dataset.copy);
      if (source && navigator.clipboard) {
        navigator.clipboard.writeText(source.value || source.textContent.trim()).then(function () {
          copy.dataset.copied = "true";
          copy.textContent = copy.dataset.copiedLabel || copy.textContent;
        });
      }
    }
    var opener = event.target.closest("[data-open-dialog]");
    if (opener) {
      var dialog = document.getElementById(opener.dataset.openDialog);
      if (dialog) { dialog.showModal(); }
    }
    var closer = event.target.closest("[data-close-dialog]");
    if (closer) {
      var owner = closer.closest("dialog");
      if (owner) { owner.close(); }
    }
  });
})();

// More behaviours, same rules (data attributes only):
// - content htmx brings in marked data-close-dialog-on-load closes the <dialog> it lands in (a dialog's
//   form that succeeded), and an element marked data-autofocus in it takes the focus;
// - buttons marked data-clear empty the element they name (e.g. a secret shown once, once it is saved).
(function () {
  "use strict";

  function within(root, selector) {
    var found = Array.prototype.slice.call(root.querySelectorAll ? root.querySelectorAll(selector) : []);
    if (root.matches && root.matches(selector)) { found.unshift(root); }
    return found;
  }

  document.addEventListener("htmx:load", function (event) {
    var root = event.detail.elt;
    within(root, "[data-close-dialog-on-load]").forEach(function (element) {
      element.removeAttribute("data-close-dialog-on-load");
      var dialog = element.closest("dialog");
      if (dialog && dialog.open) { dialog.close(); }
    });
    within(root, "[data-autofocus]").forEach(function (element) {
      // After the dialog above has closed and handed the focus back to its opener.
      window.setTimeout(function () {
        element.focus();
        if (element.select) { element.select(); }
      }, 0);
    });
  });

  document.addEventListener("click", function (event) {
    var clearer = event.target.closest("[data-clear]");
    if (clearer) {
      var target = document.getElementById(clearer.dataset.clear);
      if (target) { target.replaceChildren(); }
    }
  });
})();

// ---- Comprobantes area (portal/web/comprobantes) ----
// Content that htmx swaps in and that marks itself data-scroll-into-view (a form's error banner, the
// receipt preview) is scrolled into view, so the answer to "Preview" or "Issue" is never off screen.
(function () {
  "use strict";
  document.addEventListener("htmx:load", function (event) {
    var root = event.detail && event.detail.elt;
    if (!root || root === document.body || !root.querySelector) { return; }
    var target = root.matches("[data-scroll-into-view]") ? root : root.querySelector("[data-scroll-into-view]");
    if (target) { target.scrollIntoView({block: "start"}); }
  });
})();
// ---- end of comprobantes area ----

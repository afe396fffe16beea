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

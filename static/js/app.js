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
      // An opener may be a form's button that, without script, goes to the same question on a page of its own.
      if (dialog) { event.preventDefault(); dialog.showModal(); }
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
// The receiver fields (templates/comprobantes/new.html):
// - elements marked data-fill-field that the document check brings in put DGI's data in that field, but
//   only if it still holds data-fill-if (what the server saw) and the person is not in it: what the person
//   typed meanwhile stays;
// - a button marked data-receiver-pick (a past receiver) fills every receiver field, then asks the
//   document check again so DGI's warnings for that receiver show; arrows move through the suggestions.
(function () {
  "use strict";
  var RECEIVER_FIELDS = ["tipo_doc_recep", "cod_pais_recep", "doc_recep", "rzn_soc_recep", "dir_recep",
    "ciudad_recep", "depto_recep"];

  function closeSuggestions() {
    Array.prototype.forEach.call(document.querySelectorAll(".receiver-suggestions"), closeAfterPick);
  }

  // A list closed by a pick stays closed while its field holds what the pick put there: suggestions asked for
  // while the person typed may still be on their way (a field waits 250 ms after a key), and their answer is
  // to a question no longer asked. Typing again in the field asks again.
  function closeAfterPick(box) {
    box.replaceChildren();
    var owner = document.querySelector("[data-suggest='" + box.id + "']");
    if (owner) { box.dataset.pickedFor = owner.value; }
  }
  window.closeSuggestionsAfterPick = closeAfterPick;

  document.addEventListener("htmx:beforeSwap", function (event) {
    var box = event.detail.target;
    if (!box || !box.classList.contains("receiver-suggestions") || box.dataset.pickedFor === undefined) { return; }
    var owner = document.querySelector("[data-suggest='" + box.id + "']");
    if (owner && owner.value === box.dataset.pickedFor) {
      event.detail.shouldSwap = false;
    } else {
      delete box.dataset.pickedFor;
    }
  });

  document.addEventListener("htmx:load", function (event) {
    var root = event.detail && event.detail.elt;
    if (!root || root === document.body || !root.querySelectorAll) { return; }
    var items = Array.prototype.slice.call(root.querySelectorAll("[data-fill-field]"));
    if (root.matches("[data-fill-field]")) { items.unshift(root); }  // a top-level node of an innerHTML swap
    items.forEach(function (item) {
      var field = document.getElementById(item.dataset.fillField);
      if (!field || field.value !== item.dataset.fillIf) { item.remove(); return; }
      // The field the person is in is theirs: a fill landing as they start typing would glue their text to it.
      if (field === document.activeElement && field.tagName !== "SELECT") { item.remove(); return; }
      var changed = field.value !== item.dataset.fillValue;
      field.value = item.dataset.fillValue;
      // A select filled (the customer's currency) tells who listens: the currency asks for the day's rate.
      if (changed && field.tagName === "SELECT") { field.dispatchEvent(new Event("change", {bubbles: true})); }
    });
    Array.prototype.forEach.call(root.querySelectorAll("[data-dgi-filled]"), function (note) {
      if (!note.querySelector("[data-fill-field]:not([hidden])")) { note.remove(); }
    });
  });

  document.addEventListener("click", function (event) {
    var pick = event.target.closest("[data-receiver-pick]");
    if (!pick) { return; }
    var chosen = JSON.parse(pick.dataset.receiverPick);
    RECEIVER_FIELDS.forEach(function (name) {
      var field = document.getElementById(name);
      if (field && name in chosen) { field.value = chosen[name]; }
    });
    var record = document.getElementById("dgi_completado");
    if (record) { record.value = ""; }  // these are the person's choice now, not DGI's
    closeSuggestions();
    var doc = document.getElementById("doc_recep");
    if (doc) {
      doc.dispatchEvent(new Event("change", {bubbles: true}));
      doc.focus();
    }
  });

  document.addEventListener("keydown", function (event) {
    var box = event.target.dataset && event.target.dataset.suggest
      ? document.getElementById(event.target.dataset.suggest)
      : event.target.closest(".receiver-suggestions");
    if (!box) { return; }
    var buttons = Array.prototype.slice.call(box.querySelectorAll("button"));
    if (event.key === "Escape" && buttons.length) { closeSuggestions(); return; }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") { return; }
    if (!buttons.length) { return; }
    var at = buttons.indexOf(document.activeElement);
    var next = event.key === "ArrowDown" ? Math.min(at + 1, buttons.length - 1) : at - 1;
    event.preventDefault();
    if (next < 0) {
      var owner = document.querySelector("[data-suggest='" + box.id + "']");
      if (owner) { owner.focus(); }
    } else {
      buttons[next].focus();
    }
  });
})();
// A line's product (templates/comprobantes/new.html, issuing.product_suggestions): a button marked
// data-product-pick fills that line only (code, description, unit, IVA indicator, price in the receipt's currency,
// and beside it how that price was converted), gives the focus to its
// quantity and says so in the live region. Its price goes as the form's "Los precios incluyen IVA" says: when no
// other line has anything yet, the switch takes the product's way; otherwise the price is given the form's way.
(function () {
  "use strict";

  function lineField(line, name) { return document.getElementById("lines-" + line + "-" + name); }

  function otherLinesUsed(line) {
    return Array.prototype.some.call(document.querySelectorAll("[id$='-nom_item'], [id$='-precio_unitario']"), function (field) {
      return field.id.indexOf("lines-" + line + "-") !== 0 && field.value.trim() !== "";
    });
  }

  document.addEventListener("click", function (event) {
    var pick = event.target.closest("[data-product-pick]");
    if (!pick) { return; }
    var product = JSON.parse(pick.dataset.productPick);
    var line = pick.dataset.line;
    ["cod_item", "nom_item", "uni_med"].forEach(function (name) {
      var field = lineField(line, name);
      if (field) { field.value = product[name]; }
    });
    var indicator = lineField(line, "ind_fact");
    if (indicator && indicator.querySelector("option[value='" + product.ind_fact + "']")) { indicator.value = product.ind_fact; }
    var price = product.precio;
    var gross = document.getElementById("mnt_bruto");
    if (gross && gross.type === "checkbox" && gross.checked !== product.con_iva) {
      if (otherLinesUsed(line)) { price = product.precio_otro; } else { gross.checked = product.con_iva; }
    }
    var priceField = lineField(line, "precio_unitario");
    if (priceField && price !== null) { priceField.value = price; }
    // How the price was converted to the receipt's currency, or that no rate was known to (catalogue.py).
    var note = lineField(line, "price_note");
    if (note) { note.textContent = product.nota || ""; }
    var box = document.getElementById("products-" + line);
    if (box) { window.closeSuggestionsAfterPick(box); }
    var region = document.getElementById("announcer");
    if (region) {
      region.textContent = "";
      window.setTimeout(function () { region.textContent = pick.dataset.announce || ""; }, 50);
    }
    var quantity = lineField(line, "cantidad") || lineField(line, "nom_item");
    if (quantity) { quantity.focus(); if (quantity.select) { quantity.select(); } }
  });

  // A note says how a price was converted at the currency and rate of the moment it was picked: once either
  // changes, it no longer describes the price beside it.
  document.addEventListener("change", function (event) {
    if (!event.target.matches || !event.target.matches("#tpo_moneda, #tpo_cambio")) { return; }
    Array.prototype.forEach.call(document.querySelectorAll("[id$='-price_note']"), function (note) {
      note.textContent = "";
    });
  });
})();
// A form htmx re-renders (another receipt type, a line added) is swapped in about 100 ms after it was sent:
// what the person typed in that window went into the old form and was lost. Inside an element marked
// data-keep-typing, the values sent are noted as the request leaves; those that changed before the answer
// is swapped in are put into the new form's fields of the same name (what the person typed wins). A request
// from an element marked data-renumbers (a line's remove button) is left alone: after it, a name means
// another line.
(function () {
  "use strict";
  var sent = new WeakMap();  // the swap target -> its values when the request left

  function keyOf(field) {
    return field.type === "checkbox" || field.type === "radio" ? field.name + "=" + field.value : field.name;
  }

  function valuesIn(root) {
    var values = {};
    Array.prototype.forEach.call(root.querySelectorAll("input[name], select[name], textarea[name]"), function (field) {
      if (/^(hidden|submit|button|file|image|reset)$/.test(field.type)) { return; }
      values[keyOf(field)] = field.type === "checkbox" || field.type === "radio" ? field.checked : field.value;
    });
    return values;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var target = event.detail.target;
    var renumbers = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("[data-renumbers]");
    if (renumbers) { sent.delete(target); return; }
    if (target && target.closest && target.closest("[data-keep-typing]")) { sent.set(target, valuesIn(target)); }
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    var before = sent.get(target);
    if (!before) { return; }
    sent.delete(target);
    var now = valuesIn(target);
    var typed = Object.keys(now).filter(function (key) { return key in before && now[key] !== before[key]; });
    if (!typed.length || !target.id || !event.detail.shouldSwap) { return; }
    // Once swapped in: the new content carries the target's id (outerHTML) or sits inside it (innerHTML).
    document.addEventListener("htmx:afterSwap", function restore() {
      document.removeEventListener("htmx:afterSwap", restore);
      var root = document.getElementById(target.id);
      if (!root) { return; }
      Array.prototype.forEach.call(root.querySelectorAll("input[name], select[name], textarea[name]"), function (field) {
        var key = keyOf(field);
        if (typed.indexOf(key) < 0) { return; }
        var offered = field.tagName !== "SELECT" || Array.prototype.some.call(field.options, function (option) {
          return option.value === now[key];
        });
        if (!offered) { return; }  // a choice the new form no longer has
        if (field.type === "checkbox" || field.type === "radio") { field.checked = now[key]; } else { field.value = now[key]; }
      });
    });
  });
})();
// ---- end of comprobantes area ----

// ---- Focus, announcements and progress after htmx updates (accessibility; portalfix) ----
// - an error summary ([data-error-summary], the form_errors macro) or an error banner htmx brings in takes the
//   focus, and the page's <title> says "Error: " while a form shows errors (as GOV.UK services do); without a
//   summary, the first field marked invalid takes it;
// - an element marked data-focus-after-swap (a lookup's result, a dialog's outcome) takes the focus;
// - text marked data-announce is read out in the page's live region (#announcer), e.g. a DGI state that changed;
// - an error the service gives a form (the 503 banner, retargeted to #alerts at the top) lands instead in the
//   form's own slot beside its buttons ([data-form-alert]), where the person is looking;
// - the button that sent a request is aria-busy until the answer (Pico draws a spinner) and says so;
// - a <dialog> rendered open with data-show-modal is a real modal: reopened with showModal() (Escape closes it,
//   the page behind is inert);
// - a link with role="button" responds to Space as a button does.
(function () {
  "use strict";
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";

  function focusOn(element) {
    if (!element) { return; }
    if (!element.matches(FOCUSABLE)) { element.setAttribute("tabindex", "-1"); }
    element.focus({preventScroll: true});
    element.scrollIntoView({block: "center"});
  }

  function errorTitle() {
    var prefix = document.body.dataset.errorTitle;
    if (!prefix) { return; }
    // A field marked invalid is an error shown too: a form whose errors are all beside their fields has no
    // summary, and the server's "Error: " (base.html, on a 422) was taken off its title.
    var shown = document.querySelector(
      "[data-error-summary], #alerts .error-banner, [data-form-alert] .error-banner, [aria-invalid=true]");
    var has = document.title.indexOf(prefix) === 0;
    if (shown && !has) { document.title = prefix + document.title; }
    if (!shown && has) { document.title = document.title.slice(prefix.length); }
  }

  function announce(text) {
    var region = document.getElementById("announcer");
    if (!region || !text) { return; }
    region.textContent = "";
    window.setTimeout(function () { region.textContent = text; }, 50);
  }

  function showModals(root) {
    var dialogs = root.querySelectorAll ? root.querySelectorAll("dialog[open][data-show-modal]") : [];
    Array.prototype.forEach.call(dialogs, function (dialog) {
      dialog.close();
      dialog.showModal();
      var invalid = dialog.querySelector("[aria-invalid=true]");
      if (invalid) { invalid.focus(); }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    showModals(document);
    errorTitle();
    // A page sent back with errors beside its fields and no summary (a long page on a phone: the reject form at
    // its foot) opens at its first invalid field, as after an htmx update, not at its top with the error unseen.
    var summary = document.querySelector("[data-error-summary]") || document.querySelector("[aria-invalid=true]");
    if (summary && !document.querySelector("dialog[open]")) { focusOn(summary); }
  });

  var lastStatus = 0;  // of the answer being swapped in (htmx:load comes between beforeSwap and afterSwap)
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    lastStatus = detail.xhr ? detail.xhr.status : 0;
    if (!detail.isError || !detail.target || detail.target.id !== "alerts") { return; }
    var elt = detail.requestConfig && detail.requestConfig.elt;
    var form = elt && elt.closest && elt.closest("form");
    var slot = form && form.querySelector("[data-form-alert]");
    if (slot) { detail.target = slot; }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target && (target.id === "alerts" || target.hasAttribute("data-form-alert"))) {
      focusOn(target.querySelector(".error-banner"));
    }
  });

  document.addEventListener("htmx:load", function (event) {
    var root = event.detail && event.detail.elt;
    if (!root || root === document.body || !root.querySelectorAll) { return; }
    showModals(root.parentElement || root);
    errorTitle();
    var pick = function (selector) { return root.matches(selector) ? root : root.querySelector(selector); };
    var summary = pick("[data-error-summary]");
    var invalid = pick("[aria-invalid=true]");
    var wanted = pick("[data-focus-after-swap]");
    if (lastStatus >= 400 && summary) { focusOn(summary); } else if (lastStatus >= 400 && invalid) { focusOn(invalid); } else if (wanted) { focusOn(wanted); }
    var said = root.matches("[data-announce]") ? [root] : Array.prototype.slice.call(root.querySelectorAll("[data-announce]"));
    if (said.length) { announce(said.map(function (e) { return e.dataset.announce || e.textContent.trim(); }).join(" ")); }
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.tagName === "BUTTON") { elt.setAttribute("aria-busy", "true"); }
    var form = elt && elt.closest && elt.closest("form");
    var slot = form && form.querySelector("[data-form-alert]");
    if (slot && elt.tagName === "BUTTON") { slot.replaceChildren(); }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.removeAttribute) { elt.removeAttribute("aria-busy"); }
  });

  // A swap that took away the element that had the focus (a revoked key's row and its dialog, a re-rendered card)
  // leaves it on <body>: it goes to what replaced it, to its status or alert message if it has one.
  var focusedIn = null;  // the id of the swap target that held the focus when its answer came
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target, active = document.activeElement;
    focusedIn = target && target.id && active && active !== document.body && target.contains(active) ? target.id : null;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    if (document.activeElement && document.activeElement !== document.body) { return; }
    if (document.querySelector("dialog:modal")) { return; }
    var id = event.detail.target && event.detail.target.id;
    if (!id || id !== focusedIn) { return; }  // a poll or another part of the page: the focus was not there
    var replaced = id && document.getElementById(id);
    if (!replaced || replaced.id === "alerts" || replaced.id === "announcer") { return; }
    focusOn(replaced.querySelector("[role=status], [role=alert]") || replaced);
  });

  // Tab and Shift+Tab go round inside a modal dialog instead of leaving the page.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Tab") { return; }
    var dialog = document.querySelector("dialog:modal");
    if (!dialog) { return; }
    var stops = Array.prototype.filter.call(dialog.querySelectorAll(FOCUSABLE), function (element) {
      return !element.disabled && element.tabIndex >= 0 && element.getClientRects().length > 0;
    });
    if (!stops.length) { return; }
    var first = stops[0], last = stops[stops.length - 1];
    if (!event.shiftKey && (document.activeElement === last || !dialog.contains(document.activeElement))) {
      event.preventDefault();
      first.focus();
    } else if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    }
  });

  // A frame that took the focus (a PDF's) is marked, for its ring (app.css): Chromium does not match :focus on it.
  // The page's window loses the focus to the frame's document, and gets it back when the focus comes out.
  window.addEventListener("blur", function () {
    window.setTimeout(function () {
      var frame = document.activeElement;
      if (frame && frame.tagName === "IFRAME") { frame.setAttribute("data-frame-focused", ""); }
    }, 0);
  });
  window.addEventListener("focus", function () {
    Array.prototype.forEach.call(document.querySelectorAll("iframe[data-frame-focused]"), function (frame) {
      frame.removeAttribute("data-frame-focused");
    });
  });

  // An error summary's link to its field (the form_errors macro): the field takes the focus, in view (a link to
  // a fragment only scrolls to it; the focus stayed on the link), its closed <details> opened.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-focus-field]");
    var field = link && document.getElementById(link.getAttribute("href").slice(1));
    if (!field) { return; }
    event.preventDefault();
    var closed = field.closest("details:not([open])");
    if (closed) { closed.open = true; }
    focusOn(field);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== " " || event.defaultPrevented) { return; }
    var link = event.target.closest && event.target.closest("a[role=button][href]");
    if (!link) { return; }
    event.preventDefault();  // Space scrolls the page otherwise
    link.click();
  });
})();
// ---- end of focus, announcements and progress ----

// The phone header's Menú button opens and closes the areas and tools (a disclosure: aria-expanded); Escape
// closes it and gives the focus back to the button.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var toggle = event.target.closest("[data-menu-toggle]");
    if (!toggle) { return; }
    var header = toggle.closest(".site-header");
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    header.classList.toggle("menu-open", open);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var header = event.target.closest && event.target.closest(".site-header.menu-open");
    var toggle = header && header.querySelector("[data-menu-toggle]");
    if (!toggle) { return; }
    toggle.click();
    toggle.focus();
  });
})();
// ---- recibidos area: drop envelope files on the upload's zone (the file input stays the way without JS) ----
(function () {
  "use strict";
  function zoneOf(event) { return event.target.closest && event.target.closest("[data-dropzone-area]"); }
  ["dragenter", "dragover"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var zone = zoneOf(event);
      if (!zone) { return; }
      event.preventDefault();
      zone.classList.add("is-dragging");
    });
  });
  document.addEventListener("dragleave", function (event) {
    var zone = zoneOf(event);
    if (zone && !zone.contains(event.relatedTarget)) { zone.classList.remove("is-dragging"); }
  });
  document.addEventListener("drop", function (event) {
    var zone = zoneOf(event);
    if (!zone || !event.dataTransfer || !event.dataTransfer.files.length) { return; }
    event.preventDefault();
    zone.classList.remove("is-dragging");
    var input = zone.querySelector("input[type=file]");
    var form = zone.closest("form[data-dropzone]");
    if (!input || !form) { return; }
    input.files = event.dataTransfer.files;
    form.requestSubmit ? form.requestSubmit() : form.submit();
  });
})();
// The list's "choose all" box (templates/recibidos/index.html): a checkbox marked data-check-all="FORM" ticks or
// clears every box of that form on the page (the rows' boxes belong to it by their form attribute), and shows
// whether all, some or none are ticked. Its label (data-check-all-label) is hidden until this script is there:
// without it, the box would do nothing.
(function () {
  function boxes(formId) {
    return Array.prototype.slice.call(
      document.querySelectorAll('input[type=checkbox][form="' + formId + '"]:not([data-check-all])'));
  }
  function reveal(root) {
    Array.prototype.forEach.call((root || document).querySelectorAll("[data-check-all-label][hidden]"), function (label) {
      label.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:load", function (event) { reveal(event.detail.elt); });
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (!(target instanceof HTMLInputElement) || target.type !== "checkbox") { return; }
    var formId = target.getAttribute("data-check-all") || target.getAttribute("form");
    var all = formId && document.querySelector('[data-check-all="' + formId + '"]');
    if (!all) { return; }
    var rows = boxes(formId);
    if (target === all) {
      rows.forEach(function (box) { box.checked = all.checked; });
    }
    var ticked = rows.filter(function (box) { return box.checked; }).length;
    all.checked = ticked > 0 && ticked === rows.length;
    all.indeterminate = ticked > 0 && ticked < rows.length;
  });
})();
// ---- end of recibidos area ----

// A report's period (form[data-period-form]): a day typed in [data-period-day] chooses the range of days in its
// [data-period-choice] select (whose data-period-choice is that option's value), and choosing a month, quarter or
// year empties the days: the form never sends days beside a period that would not show them.
(function () {
  "use strict";

  document.addEventListener("input", function (event) {
    var day = event.target.closest && event.target.closest("[data-period-day]");
    var form = day && day.closest("form[data-period-form]");
    var choice = form && form.querySelector("[data-period-choice]");
    if (choice && day.value.trim()) { choice.value = choice.dataset.periodChoice; }
  });

  document.addEventListener("change", function (event) {
    var choice = event.target.closest && event.target.closest("[data-period-choice]");
    var form = choice && choice.closest("form[data-period-form]");
    if (!form || choice.value === choice.dataset.periodChoice) { return; }
    Array.prototype.forEach.call(form.querySelectorAll("[data-period-day]"), function (day) { day.value = ""; });
  });
})();

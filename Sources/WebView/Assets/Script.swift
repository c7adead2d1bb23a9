/// The web view's one script, served from `/-/static/app.js`: live updates, and the editing
/// grid's cell editor. Every page works without it; with it, a page follows the store as
/// other processes commit (the live events of `/-/events`, which `watch` feeds): counts
/// update, an object's changed values are marked, a grid says that its rows changed. In an
/// editing grid (`browse --write`) a cell edits in place: double-click or Enter opens it,
/// Enter sets it, Tab sets it and opens the next, Escape cancels; a to-one offers its
/// destination's objects as the user types; a refusal shows beside the cell. It also keeps
/// count, on the document, of script errors and of what the content-security policy refused
/// (`data-script-errors`, `data-csp-refusals`): what a browser without a console a test can
/// read (WebKit's, Firefox's drivers) still tells. It inserts text only (`textContent`),
/// never markup.
enum Script {
    static let text = """
        "use strict";
        (function () {
          var root = document.documentElement, errors = 0, refusals = 0;
          window.addEventListener("error", function (e) {
            errors += 1;
            root.setAttribute("data-script-errors", errors + " error(s), the last: " + (e.message || ("no " + ((e.target && (e.target.src || e.target.href)) || "resource"))));
          }, true);
          document.addEventListener("securitypolicyviolation", function (e) {
            refusals += 1;
            root.setAttribute("data-csp-refusals", refusals + " refused by the content-security policy, the last: " + e.violatedDirective + " " + (e.blockedURI || ""));
          });
        })();
        (function () {
          var kind = document.body.getAttribute("data-live");
          if (!kind || !window.EventSource) return;
          var status = document.getElementById("live-status");
          function say(text) { if (status) { status.hidden = false; status.textContent = text; } }
          var twin = document.querySelector("link[rel=alternate][type='application/json']");
          var pending = false;
          function refresh(done) {
            if (!twin || pending) return;
            pending = true;
            fetch(twin.getAttribute("href"), { credentials: "same-origin", cache: "no-store" })
              .then(function (r) { return r.ok ? r.json() : null; })
              .then(function (data) { pending = false; if (data) done(data); })
              .catch(function () { pending = false; });
          }
          function show(value) {
            if (value === null || value === undefined) return "nil";
            if (typeof value === "object") return JSON.stringify(value);
            return String(value);
          }
          var source = new EventSource("/-/events");
          source.addEventListener("change", function (message) {
            var event;
            try { event = JSON.parse(message.data); } catch (e) { return; }
            if (kind === "store") {
              refresh(function (data) {
                (data.entities || []).forEach(function (e) {
                  var cell = document.querySelector("[data-count='" + CSS.escape(e.name) + "']");
                  if (cell && cell.textContent !== String(e.count)) { cell.textContent = String(e.count); cell.classList.add("changed"); }
                });
              });
              say("live: " + event.type + " " + event.objectID);
            } else if (kind === "object") {
              var id = document.body.getAttribute("data-object");
              if (event.objectID !== id) return;
              if (event.type === "deleted") { say("this object was deleted by another process"); return; }
              Object.keys(event.changes || {}).forEach(function (key) {
                var cell = document.querySelector("[data-key='" + CSS.escape(key) + "']");
                if (cell) { cell.textContent = show(event.changes[key].new); cell.classList.add("changed"); }
              });
              say("live: changed by " + (event.author || "another process"));
            } else if (kind === "grid") {
              var entity = document.body.getAttribute("data-entity");
              if (event.entity && entity && event.entity !== entity && (event.entities || []).indexOf(entity) < 0) return;
              var row = document.querySelector("tr[data-object='" + CSS.escape(event.objectID) + "']");
              if (row) row.classList.add("changed");
              say("live: the store changed (" + event.type + " " + event.objectID + "); reload to see it");
            } else {
              say("live: " + event.type + " " + event.objectID);
            }
          });
          source.addEventListener("resync", function () { say("live: many changes; reload to see them"); });
          source.onerror = function () { say("live updates paused"); };
          source.onopen = function () { document.body.setAttribute("data-live-open", "1"); };
        })();
        (function () {
          var cells = Array.prototype.slice.call(document.querySelectorAll("table.grid.editable td[data-key]"));
          var token = document.querySelector("input[name=csrf]");
          if (!cells.length || !token) return;
          var editing = null, lists = 0;
          cells[0].tabIndex = 0;
          function focusCell(td) {
            cells.forEach(function (c) { c.tabIndex = -1; });
            td.tabIndex = 0;
            td.focus();
          }
          function neighbour(td, step) {
            var i = cells.indexOf(td) + step;
            return i >= 0 && i < cells.length ? cells[i] : null;
          }
          function say(td, text) {
            var old = td.querySelector(".cell-error");
            if (old) old.remove();
            if (!text) return;
            var error = document.createElement("span");
            error.className = "cell-error";
            error.setAttribute("role", "alert");
            error.textContent = text;
            td.appendChild(error);
          }
          function counted(n) {
            var banner = document.querySelector("section.pending"), count = document.getElementById("pending-count");
            if (!banner || !count || typeof n !== "number") return;
            count.textContent = n + " unsaved change" + (n === 1 ? "" : "s");
            banner.hidden = n === 0;
          }
          function close() {
            if (!editing) return;
            editing.input.remove();
            editing.td.classList.remove("editing");
            if (editing.list) editing.list.remove();
            editing.shown.hidden = false;
            editing = null;
          }
          var asked = 0;
          function choices(target, input, list) {
            // Answers can come back out of order: only the latest question's is shown.
            var question = ++asked;
            var query = "?entity=" + encodeURIComponent(target) + "&q=" + encodeURIComponent(input.value);
            fetch("/-/choices" + query, { credentials: "same-origin", cache: "no-store" })
              .then(function (r) { return r.ok ? r.json() : []; })
              .then(function (found) {
                if (question !== asked) return;
                while (list.firstChild) list.removeChild(list.firstChild);
                found.forEach(function (choice) {
                  var option = document.createElement("option");
                  option.value = choice.id;
                  option.label = choice.label ? choice.id + " " + choice.label : choice.id;
                  option.textContent = option.label;
                  list.appendChild(option);
                });
                list.setAttribute("data-count", String(found.length));
              })
              .catch(function () {});
          }
          function open(td) {
            if (editing) return;
            var shown = td.querySelector(".cell-value");
            var old = shown.textContent;
            var key = td.getAttribute("data-key"), id = td.parentNode.getAttribute("data-id");
            var input = document.createElement("input");
            input.type = "text";
            input.className = "cell-editor";
            input.value = old === "nil" ? "" : old;
            input.setAttribute("aria-label", "new value of " + key + " of " + id);
            var target = td.getAttribute("data-target"), list = null;
            if (target) {
              list = document.createElement("datalist");
              list.id = "choices-" + (++lists);
              input.setAttribute("list", list.id);
              input.setAttribute("placeholder", "a " + target + ": type to search, or " + target + "/pN; nil for none");
              td.appendChild(list);
              input.addEventListener("input", function () { choices(target, input, list); });
              choices(target, input, list);
            }
            shown.hidden = true;
            td.classList.add("editing");
            td.appendChild(input);
            editing = { td: td, input: input, shown: shown, old: input.value, list: list };
            input.focus();
            input.select();
            input.addEventListener("keydown", function (e) {
              if (e.key === "Escape") { e.preventDefault(); close(); focusCell(td); }
              else if (e.key === "Enter") { e.preventDefault(); commit(td, function () { focusCell(td); }); }
              else if (e.key === "Tab") {
                e.preventDefault();
                var next = neighbour(td, e.shiftKey ? -1 : 1);
                commit(td, function (ok) { if (ok && next) { focusCell(next); open(next); } else { focusCell(td); } });
              }
            });
          }
          function commit(td, done) {
            var value = editing.input.value, shown = editing.shown;
            if (value === editing.old) { close(); done(true); return; }
            var form = new URLSearchParams();
            form.set("csrf", token.value);
            form.set("object", td.parentNode.getAttribute("data-id"));
            form.set("key", td.getAttribute("data-key"));
            form.set("value", value === "" ? "nil" : value);
            form.set("reply", "json");
            td.setAttribute("aria-busy", "true");
            fetch("/-/edit", { method: "POST", credentials: "same-origin", body: form,
                               headers: { "Content-Type": "application/x-www-form-urlencoded" } })
              .then(function (r) { return r.json(); })
              .then(function (data) {
                td.removeAttribute("aria-busy");
                close();
                if (data.ok) {
                  shown.textContent = data.value;
                  td.classList.add("pending-cell");
                  say(td, null);
                } else {
                  say(td, data.error || "refused");
                }
                counted(data.pending);
                done(!!data.ok);
              })
              .catch(function () { td.removeAttribute("aria-busy"); close(); say(td, "the edit did not reach the server"); done(false); });
          }
          cells.forEach(function (td) {
            td.addEventListener("dblclick", function () { focusCell(td); open(td); });
            td.addEventListener("click", function () { if (!editing) focusCell(td); });
            td.addEventListener("keydown", function (e) {
              if (editing || e.target !== td) return;
              if (e.key === "Enter" || e.key === "F2") { e.preventDefault(); open(td); }
              else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
                var next = neighbour(td, e.key === "ArrowRight" ? 1 : -1);
                if (next) { e.preventDefault(); focusCell(next); }
              } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                var row = td.parentNode, other = e.key === "ArrowDown" ? row.nextElementSibling : row.previousElementSibling;
                var below = other && other.querySelector("td[data-key='" + CSS.escape(td.getAttribute("data-key")) + "']");
                if (below) { e.preventDefault(); focusCell(below); }
              }
            });
          });
        })();

        """
}

/// The web view's one script, served from `/-/static/app.js`: live updates only. Every page
/// works without it; with it, a page follows the store as other processes commit (the live
/// events of `/-/events`, which `watch` feeds): counts update, an object's changed values are
/// marked, a grid says that its rows changed. It inserts text only (`textContent`), never
/// markup.
enum Script {
    static let text = """
        "use strict";
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

        """
}

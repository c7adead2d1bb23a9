/// The script and style of every MCP Apps view, inline in its document (a view loads
/// nothing). The script speaks the extension's protocol with the host over `postMessage`
/// (JSON-RPC 2.0): `ui/initialize`, then `ui/notifications/initialized`; the tool's input and
/// result as the host sends them; the host's theme and style variables where it gives them; its
/// size as it changes (the content's height, so a frame shrinks with a shorter answer). It
/// draws the grid's rows from the result's structured content, every value set as text; the
/// model's, doctor's and history's drawings from the markup the server drew into the result's
/// `_meta` (`AppView.fragment`), parsed in an inert document and cleaned of anything that could
/// run (scripts, frames, event handlers, `javascript:` links) before it is shown, though the
/// server's renderers already escape every store value, and from the structured content where
/// the host passed on no `_meta`. A request it does not
/// handle gets JSON-RPC's -32601. A link to an object, an entity or a
/// transaction, and the next page, are asked of the host as tool calls (`fetch`, `history`, the
/// same tool with the cursor): a view reaches the store no other way.
enum AppScript {
    static let style = """
        body.app { background: var(--color-background-primary, var(--bg)); color: var(--color-text-primary, var(--fg));
          font-family: var(--font-sans, -apple-system, "Segoe UI", system-ui, sans-serif); }
        body.app main { padding: 8px 10px 12px; }
        body.app a { color: var(--color-text-info, var(--accent)); cursor: pointer; }
        :root[data-theme="dark"] { --fg: #e4e6ea; --muted: #9aa3ad; --line: #3a3f47; --bg: #16181c; --soft: #1f2228; --accent: #7aa7f0; --bad: #f2827a; --warn: #e0b050; --ok: #7ccf93; color-scheme: dark; }
        :root[data-theme="light"] { --fg: #1d1f23; --muted: #5f6670; --line: #d9dde3; --bg: #ffffff; --soft: #f4f6f9; --accent: #2a5db0; --bad: #b3261e; --warn: #8a5a00; --ok: #1e6b34; color-scheme: light; }
        body.app .app-view { overflow-x: auto; }
        body.app table.grid { width: max-content; }
        body.app th, body.app td { overflow-wrap: break-word; }
        body.app table.grid td { max-width: 24em; }
        body.app table.grid th:first-child, body.app table.grid td:first-child { position: sticky; left: 0; z-index: 1;
          background: var(--color-background-primary, var(--bg)); }
        body.app table.grid th:first-child { background: var(--color-background-secondary, var(--soft)); }
        .pager button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--soft); color: var(--fg); cursor: pointer; }
        """

    static let text = #"""
        (function () {
          "use strict";
          var META = "io.github.cdinspect/view";
          var view = document.getElementById("view");
          var nextId = 1;
          var pending = {};
          var input = {};
          window.cdinspectView = { calls: [], rendered: 0 };

          function send(message) { window.parent.postMessage(message, "*"); }
          function request(method, params) {
            var id = nextId++;
            send({ jsonrpc: "2.0", id: id, method: method, params: params });
            return new Promise(function (resolve, reject) { pending[id] = { resolve: resolve, reject: reject }; });
          }
          function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params || {} }); }
          function say(text) {
            var p = document.createElement("p");
            p.className = "muted";
            p.textContent = text;
            view.replaceChildren(p);
            resized();
          }
          function textOf(result) {
            var parts = (result && result.content) || [];
            return parts.filter(function (c) { return c && c.type === "text"; }).map(function (c) { return c.text; }).join("\n");
          }

          // Anything that could run, load or navigate is taken out before a node is shown.
          var BANNED = ["script", "iframe", "frame", "object", "embed", "link", "meta", "base", "form", "style", "template",
                        "foreignobject", "animate", "set", "animatemotion", "animatetransform", "handler", "audio", "video", "source"];
          function clean(root) {
            var all = root.querySelectorAll("*");
            for (var i = all.length - 1; i >= 0; i--) {
              var el = all[i];
              if (BANNED.indexOf(el.localName.toLowerCase()) >= 0) { el.remove(); continue; }
              for (var j = el.attributes.length - 1; j >= 0; j--) {
                var name = el.attributes[j].name.toLowerCase();
                var value = el.attributes[j].value.replace(/[\s\u0000-\u001f]+/g, "").toLowerCase();
                var link = name === "href" || name === "xlink:href" || name === "src" || name === "action" || name === "formaction" || name === "srcset";
                if (name.indexOf("on") === 0 || name === "style" || (link && !/^(#|\/)/.test(value))) el.removeAttribute(el.attributes[j].name);
              }
            }
          }
          // A host may pass on only `content` and `structuredContent` (the extension lets it
          // drop `_meta`): the answer is then drawn from its structured content, every value
          // as text, so the view is still whole. An object's URI links to the object, a list
          // of records is a table, a record a list of its keys, the next page a button.
          function el(name, className, text) {
            var node = document.createElement(name);
            if (className) node.className = className;
            if (text !== undefined) node.textContent = text;
            return node;
          }
          var OBJECT = /^x-coredata:\/\/[^\/]+\/([^\/]+)\/p(\d+)$/;
          function isRecord(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
          function scalar(v) {
            if (v === null || v === undefined) return el("span", "null", "nil");
            var text = typeof v === "string" ? v : JSON.stringify(v);
            var m = typeof v === "string" && OBJECT.exec(v);
            if (m) { var a = el("a", "", text); a.setAttribute("href", "/" + encodeURIComponent(m[1]) + "/p" + m[2]); return a; }
            return el("span", typeof v === "number" ? "num" : "", text);
          }
          function drawValue(v, depth) {
            if (depth > 12) return el("span", "muted", "…");
            if (Array.isArray(v)) {
              if (v.length && v.every(isRecord)) return drawTable(v, depth);
              var list = el("ul");
              v.forEach(function (item) { var li = el("li"); li.appendChild(drawValue(item, depth + 1)); list.appendChild(li); });
              return list;
            }
            if (isRecord(v)) {
              var dl = el("dl", "record");
              Object.keys(v).forEach(function (key) {
                if (key === "nextCursor") return;
                dl.appendChild(el("dt", "", key));
                var dd = el("dd");
                dd.appendChild(drawValue(v[key], depth + 1));
                dl.appendChild(dd);
              });
              return dl;
            }
            return scalar(v);
          }
          function drawTable(rows, depth) {
            var keys = [];
            rows.forEach(function (row) { Object.keys(row).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
            var table = el("table", "grid"), head = el("tr");
            keys.forEach(function (k) { head.appendChild(el("th", "", k)); });
            var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
            var body = el("tbody");
            rows.forEach(function (row) {
              var tr = el("tr");
              if (typeof row.objectID === "string") tr.setAttribute("data-object", row.objectID);
              keys.forEach(function (k) {
                var td = el("td");
                var v = row[k];
                td.appendChild(isRecord(v) || Array.isArray(v) ? drawValue(v, depth + 1) : scalar(v));
                // A number right-aligned; one word (an ID, a date) kept on one line.
                if (typeof v === "number") td.className = "num";
                else if (typeof v === "string" && !/\s/.test(v)) td.className = "token";
                tr.appendChild(td);
              });
              body.appendChild(tr);
            });
            table.appendChild(body);
            return table;
          }
          function drawStructured(tool, content) {
            var wrap = el("div", "app-view");
            wrap.setAttribute("data-drawn", "structured");
            var rows = isRecord(content) && (content.objects || content.rows || content.transactions);
            if (Array.isArray(rows)) {
              var noun = content.objects ? "object" : content.rows ? "row" : "transaction";
              wrap.appendChild(el("p", "muted", rows.length + " " + noun + (rows.length === 1 ? "" : "s") + " on this page."));
            }
            wrap.appendChild(drawValue(content, 0));
            tool = tool || (rows && (content.objects ? "fetch" : content.rows ? "sql" : "history"));
            if (isRecord(content) && typeof content.nextCursor === "string" && tool) {
              var pager = el("p", "pager"), button = el("button", "", "next page ›");
              button.setAttribute("type", "button");
              button.dataset.tool = tool;
              button.dataset.cursor = content.nextCursor;
              pager.appendChild(button);
              wrap.appendChild(pager);
            }
            return wrap;
          }
          // The grid draws its rows from the structured content, template and data apart as
          // the extension intends; the views whose drawing needs the server's renderers (the
          // model's diagram, doctor's and history's charts) show the markup it drew into
          // `_meta`, and their structured content where a host dropped that.
          var DATA_FIRST = document.body.getAttribute("data-view") === "grid";
          function render(result) {
            if (!result) return;
            var drawn = result._meta && result._meta[META];
            var hasMarkup = drawn && typeof drawn.html === "string";
            if (!result.isError && (DATA_FIRST || !hasMarkup) && result.structuredContent !== undefined) {
              view.replaceChildren(drawStructured(lastTool, result.structuredContent));
              window.cdinspectView.rendered += 1;
              resized();
              return;
            }
            if (result.isError || !drawn || typeof drawn.html !== "string") { say(textOf(result) || "No view for this answer."); return; }
            var doc = new DOMParser().parseFromString("<!DOCTYPE html><html><body>" + drawn.html + "</body></html>", "text/html");
            clean(doc.body);
            var nodes = Array.prototype.map.call(doc.body.childNodes, function (n) { return document.importNode(n, true); });
            view.replaceChildren.apply(view, nodes);
            window.cdinspectView.rendered += 1;
            resized();
          }
          // The tool whose answers this view shows: the host says so in its context
          // (`toolInfo`); a link or a page asked for since names its own.
          var lastTool = "";
          function call(tool, args) {
            lastTool = tool;
            window.cdinspectView.calls.push({ name: tool, arguments: args });
            say("Asking the host for " + tool + "…");
            request("tools/call", { name: tool, arguments: args }).then(render, function (error) {
              say("The host did not run " + tool + ": " + ((error && error.message) || error));
            });
          }

          view.addEventListener("click", function (event) {
            var target = event.target.closest("a, button");
            if (!target) return;
            if (target.localName === "button") {
              if (target.dataset.cursor && target.dataset.tool) { event.preventDefault(); call(target.dataset.tool, { cursor: target.dataset.cursor }); }
              return;
            }
            var href = target.getAttribute("href") || target.getAttribute("xlink:href") || "";
            if (href.charAt(0) === "#") return;
            event.preventDefault();
            var path = href.split("#")[0].split("?")[0];
            var m = /^\/(?:-\/entity\/)?([^\/]+)\/p(\d+)$/.exec(path);
            if (m) {
              var entity = decodeURIComponent(m[1]);
              call("fetch", { entity: entity, predicate: "SELF == %@", arguments: [entity + "/p" + m[2]] });
              return;
            }
            m = /^\/history\/(\d+)$/.exec(path);
            if (m) { call("history", { after: String(Number(m[1]) - 1), changes: true, limit: 500 }); return; }
            m = /^\/(?:-\/entity\/)?([^\/]+)$/.exec(path);
            if (m && ["model", "history", "doctor", "changes"].indexOf(m[1]) < 0) call("fetch", { entity: decodeURIComponent(m[1]) });
          });

          function applyContext(context) {
            if (!context) return;
            if (context.theme === "dark" || context.theme === "light") document.documentElement.setAttribute("data-theme", context.theme);
            var variables = context.styles && context.styles.variables;
            if (variables) {
              Object.keys(variables).forEach(function (key) {
                if (/^--[a-z0-9-]+$/.test(key) && typeof variables[key] === "string") document.documentElement.style.setProperty(key, variables[key]);
              });
            }
          }

          // Nothing but ui/initialize goes to the host before the handshake is done: the size
          // is told from then on, whoever asks (the observer, a drawn answer, a message).
          var initialized = false;
          var lastSize = "";
          // The content's own height, as the extension's SDK measures it: the document made
          // only as tall as its content for the measure, so that a frame the host grew for a
          // long answer does not keep the next, shorter one as tall (its scrollHeight would).
          function resized() {
            if (!initialized) return;
            var html = document.documentElement, kept = html.style.height;
            html.style.height = "max-content";
            var height = Math.ceil(html.getBoundingClientRect().height);
            html.style.height = kept;
            var width = Math.ceil(html.scrollWidth);
            var size = width + "x" + height;
            if (size === lastSize) return;
            lastSize = size;
            notify("ui/notifications/size-changed", { width: width, height: height });
          }

          window.addEventListener("message", function (event) {
            if (event.source !== window.parent) return;
            var m = event.data;
            if (!m || m.jsonrpc !== "2.0") return;
            if (m.method === undefined && m.id !== undefined) {
              var waiting = pending[m.id];
              if (!waiting) return;
              delete pending[m.id];
              if (m.error) waiting.reject(m.error); else waiting.resolve(m.result);
              return;
            }
            switch (m.method) {
              case "ui/notifications/tool-input": input = (m.params && m.params.arguments) || {}; break;
              case "ui/notifications/tool-result": render(m.params); break;
              case "ui/notifications/tool-cancelled": say("The call was cancelled" + (m.params && m.params.reason ? ": " + m.params.reason : ".")); break;
              case "ui/notifications/host-context-changed": applyContext(m.params); break;
              case "ui/resource-teardown": send({ jsonrpc: "2.0", id: m.id, result: {} }); break;
              case "ping": send({ jsonrpc: "2.0", id: m.id, result: {} }); break;
              default:
                // A request this view does not handle is answered, as JSON-RPC asks, never left waiting.
                if (m.id !== undefined && m.id !== null) send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
            }
          });

          request("ui/initialize", { appCapabilities: { availableDisplayModes: ["inline"] }, appInfo: { name: "cdinspect", version: "1" },
                                     protocolVersion: "2026-01-26" })
            .then(function (result) {
              var context = result && result.hostContext;
              applyContext(context);
              var named = context && context.toolInfo && context.toolInfo.tool && context.toolInfo.tool.name;
              if (typeof named === "string") lastTool = named;
              notify("ui/notifications/initialized", {});
              initialized = true;
              if (window.ResizeObserver) new ResizeObserver(resized).observe(document.documentElement);
              else resized();
            }, function () { say("The host did not answer ui/initialize."); });
        })();
        """#
}

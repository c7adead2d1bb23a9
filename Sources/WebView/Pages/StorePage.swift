import Foundation
import Inspector
import ManagedStore

/// `/`: the store at a glance. `info`; the entities with their counts as the tree their
/// inheritance makes (`entities`); doctor's verdict (on a store small enough to check at once,
/// else a link); the persistent history's and the CloudKit mirroring's summary where the store
/// has them. Every other page is reached from here.
struct StorePage {
    let page: PageRequest
    /// The largest store whose doctor runs for this page (the whole store is read).
    static let doctorBytes: Int64 = 64 << 20

    func response() throws -> WebResponse {
        let info = try page.run(["info"]).json
        let entities = try page.run(["entities"]).rows
        var value: [(String, OutputValue)] = [("info", info), ("entities", .array(entities))]
        let size = Int64(info["fileSize"]?.intValue ?? 0) + Int64(info["walSize"]?.intValue ?? 0)
        var doctor: OutputValue?
        if size <= Self.doctorBytes, page.store.schema.isCoreDataStore {
            doctor = try? page.run(["doctor"]).json
            if let doctor { value.append(("doctor", .object([("verdict", doctor["verdict"] ?? .null), ("errors", doctor["errors"] ?? .null),
                                                              ("warnings", doctor["warnings"] ?? .null)]))) }
        }
        var history: CommandAnswer?
        if info["persistentHistory"] == .bool(true) {
            history = try? page.run(["history"], rowLimit: 10_000)
            if let history {
                value.append(("history", .object([("transactions", .integer(Int64(history.rows.count))), ("more", .bool(history.truncated)),
                                                  ("latest", history.rows.last ?? .null)])))
            }
        }
        var cloudKit: OutputValue?
        if info["cloudKitMirroring"] == .bool(true) {
            cloudKit = try? page.run(["cloudkit", "status"]).json
            if let cloudKit { value.append(("cloudkit", cloudKit)) }
        }
        return try page.answer(title: "Store", crumbs: [page.storeCrumb], value: .object(value), attributes: [("data-live", "store")]) {
            var body: HTML = "<h1>\(page.storeCrumb.0)</h1>"
            if let past = page.pastGeneration {
                body += "<p class=\"notice\">As it was at \(past), a past save the store's files hold (entity pages show the newest): "
                    + "<a href=\"\(Paths.store)\">the store now</a> · <a href=\"\(Paths.generations)\">every save</a></p>"
            }
            body += infoSection(info)
            body += "<h2>Entities</h2>" + tree(entities)
            body += "<h2>Health</h2>"
            if let doctor {
                let errors = doctor["errors"]?.intValue ?? 0
                body += "<p class=\"\(errors > 0 ? "error" : "")\">\(doctor["verdict"]?.text ?? "") (<a href=\"\(Paths.doctor)\">doctor</a>)</p>"
            } else {
                body += "<p>The <a href=\"\(Paths.doctor)\">doctor</a> checks the whole store and shows where its space goes.</p>"
            }
            body += "<h2>History</h2>"
            if let history {
                let latest = history.rows.last
                body += "<p><a href=\"\(Paths.history)\">\(history.rows.count)\(history.truncated ? "+" : "") transactions</a>"
                if let latest { body += "; the latest at \(latest["timestamp"]?.text ?? "") by \(latest["author"]?.text ?? "no author")" }
                body += ".</p>"
            } else {
                body += "<p class=\"muted\">The store keeps no persistent history (<a href=\"\(Paths.history)\">history</a>).</p>"
            }
            if let cloudKit {
                body += "<h2>CloudKit</h2><p>\(cloudKit["verdict"]?.text ?? cloudKit.text)</p>"
            }
            let saves = (try? StoreTimeline.read(path: page.store.path))?.commits.count ?? 0
            body += "<h2>Generations</h2><p><a href=\"\(Paths.generations)\">\(saves == 0 ? "No save" : "\(saves) save\(saves == 1 ? "" : "s")") in the -wal</a>: "
                + "each readable as the store was right after it.</p>"
            body += "<h2>Model</h2><p><a href=\"\(Paths.model)\">The model</a>: its diagram, entities and version hashes.</p>"
            return body
        }
    }

    func infoSection(_ info: OutputValue) -> HTML {
        let shown = ["path", "uuid", "type", "journalMode", "fileSize", "walSize", "model", "frameworkVersion", "entities",
                     "persistentHistory", "cloudKitMirroring", "modelMatchesMetadata"]
        let rows = HTML.joined(shown.compactMap { key in info[key].map { "<dt>\(key)</dt><dd>\(ValueView.html($0))</dd>" as HTML } })
        return "<dl class=\"record\">\(rows)</dl>"
    }

    /// The entities under their parents, each with its count (its own and its sub-entities'
    /// objects, as a fetch counts them).
    func tree(_ entities: [OutputValue]) -> HTML {
        let names = Set(entities.compactMap { $0["name"]?.stringValue })
        // A hand-edited model may make its parents a loop: each entity is listed once.
        var listed: Set<String> = []
        func items(parent: String?) -> HTML {
            let children = entities.filter { e in
                let p = e["parent"]?.stringValue
                let name = e["name"]?.stringValue ?? ""
                return !listed.contains(name) && (parent == nil ? (p == nil || !names.contains(p ?? "")) : p == parent)
            }
            for child in children { listed.insert(child["name"]?.stringValue ?? "") }
            guard !children.isEmpty else { return .empty }
            return HTML.joined(children.compactMap { e -> HTML? in
                guard let name = e["name"]?.stringValue else { return nil }
                let abstract: HTML = e["abstract"] == .bool(true) ? " <span class=\"muted\">abstract</span>" : .empty
                let nested = items(parent: name)
                return "<li><a href=\"\(Paths.entity(name))\">\(name)</a> <span class=\"count\" data-count=\"\(name)\">\(e["count"]?.text ?? "")</span>\(abstract)"
                    + (nested == .empty ? "" : "<ul class=\"tree\">\(nested)</ul>") + "</li>"
            })
        }
        var roots = items(parent: nil)
        // Entities whose parents loop among themselves have no root: listed at the top.
        for e in entities {
            guard let name = e["name"]?.stringValue, !listed.contains(name) else { continue }
            listed.insert(name)
            roots += "<li><a href=\"\(Paths.entity(name))\">\(name)</a> <span class=\"count\" data-count=\"\(name)\">\(e["count"]?.text ?? "")</span></li>"
        }
        return "<ul class=\"tree root\">\(roots)</ul>"
    }
}

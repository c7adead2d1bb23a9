import Foundation
import Inspector
import ManagedStore

/// `/generations`: the timeline of every save the store's files hold (the `generations`
/// command's rows): each commit of the `-wal` with its time, author and context where the
/// store keeps history, and per entity the objects it inserted, updated and deleted, each
/// linked to what it did (`/generations/wN`); then what lies past the `-wal`'s end.
struct GenerationsPage {
    let page: PageRequest

    func response() throws -> WebResponse {
        let answer = try page.run(["generations"])
        let rows = answer.rows.filter { $0["kind"]?.stringValue != "live" }
        return try page.answer(title: "Generations", crumbs: [page.storeCrumb, ("generations", nil)],
                               value: .object([("generations", .array(rows))])) {
            var body: HTML = "<h1>Generations</h1>"
            let commits = rows.filter { $0["kind"]?.stringValue == "commit" }.count
            body += commits == 0
                ? "<p class=\"muted\">The store's -wal holds no committed save: the main file is its only state.</p>"
                : "<p>The store's -wal holds \(commits) save\(commits == 1 ? "" : "s") beside the main file, each readable as the store was right after it.</p>"
            body += "<table class=\"grid\"><thead><tr><th>token</th><th>kind</th><th>time</th><th>author</th><th>context</th>"
                + "<th>inserted</th><th>updated</th><th>deleted</th><th>note</th></tr></thead><tbody>"
            for row in rows {
                let token = row["token"]?.stringValue ?? ""
                let kind = row["kind"]?.stringValue ?? ""
                let readable = kind == "commit" || kind == "main-file"
                let tokenCell: HTML = kind == "commit" ? "<a href=\"\(Paths.generation(token))\">\(token)</a>" : "\(token)"
                let storeLink: HTML = readable ? " <a class=\"muted\" href=\"\(Paths.store + QueryItems.string([("generation", token)]))\">store then</a>" : .empty
                body += "<tr><td>\(tokenCell)\(storeLink)</td><td>\(kind)</td>"
                for key in ["time", "author", "contextName", "inserted", "updated", "deleted", "note"] {
                    body += "<td>\(Self.cell(row[key] ?? .null))</td>"
                }
                body += "</tr>"
            }
            return body + "</tbody></table>"
        }
    }

    static func cell(_ value: OutputValue) -> HTML {
        switch value {
        case .null: return .empty
        case .object(let pairs): return HTML.joined(pairs.map { "\($0.0) \($0.1.text)" }, separator: ", ")
        default: return ValueView.html(value)
        }
    }
}

/// `/generations/w3`: what one save did: the objects it inserted, updated and deleted (the
/// session's `diff w2 w3`), each linked to the object as it was then (a deleted one as it was
/// before).
struct GenerationPage {
    let page: PageRequest
    let token: String
    static let shown = 2000

    func response() throws -> WebResponse {
        guard let ordinal = Int(token.dropFirst()), ordinal > 0 else {
            throw PageNotFound(description: "\(token) is the main file: it did nothing; see the generations.")
        }
        let timeline = try StoreTimeline.read(path: page.store.path)
        guard ordinal <= timeline.commits.count else { throw PageNotFound(description: "No save \(token) in the store's files (they hold \(timeline.knownTokens)).") }
        let before = "w\(ordinal - 1)"
        let answer = try page.run(["diff", before, token], rowLimit: Self.shown)
        return try page.answer(title: "Save \(token)", crumbs: [page.storeCrumb, ("generations", Paths.generations), (token, nil)],
                               value: .object([("token", .string(token)), ("changes", .array(answer.rows)), ("truncated", .bool(answer.truncated))])) {
            var body: HTML = "<h1>Save \(token)</h1><p>What the \(Self.ordinalWord(ordinal)) save of the -wal changed, from \(before) to \(token). "
                + "<a href=\"\(Paths.store + QueryItems.string([("generation", token)]))\">The store as it was then</a>.</p>"
            if answer.rows.isEmpty { return body + "<p class=\"muted\">No object changed (the save wrote other rows: history, metadata, join rows).</p>" }
            body += "<table class=\"grid\"><thead><tr><th>change</th><th>object</th><th>Z_OPT before</th><th>after</th></tr></thead><tbody>"
            for row in answer.rows {
                let change = row["change"]?.stringValue ?? ""
                let id = row["objectID"]?.stringValue ?? ""
                var link: HTML = "\(ValueView.shortID(id))"
                if let parsed = ObjectID.parse(id) {
                    let at = change == "deleted" ? before : token
                    link = "<a href=\"\(Paths.object(parsed.entityName, parsed.primaryKey, generation: at))\">\(ValueView.shortID(id))</a>"
                }
                body += "<tr><td>\(change)</td><td>\(link)</td><td>\(GenerationsPage.cell(row["before"] ?? .null))</td>"
                    + "<td>\(GenerationsPage.cell(row["after"] ?? .null))</td></tr>"
            }
            body += "</tbody></table>"
            if answer.truncated { body += "<p class=\"muted\">The first \(Self.shown) changes.</p>" }
            return body
        }
    }

    static func ordinalWord(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }
}

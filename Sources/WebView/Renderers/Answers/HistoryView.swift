import Foundation
import Inspector

/// `history`'s transactions drawn: a timeline of how many there were, stacked by author (or
/// bundle, context, process), and their list, each with its changes when the answer holds them
/// (`history --changes`), every object linked. The web view's history page and the MCP history
/// view are this.
enum HistoryView {
    static let series = ["author", "bundleID", "contextName", "processID"]

    /// The timeline of `transactions`, stacked by `by`.
    static func chart(_ transactions: [OutputValue], by: String) -> HTML {
        let points = transactions.compactMap { row -> (Date, String, Int)? in
            guard let time = row["timestamp"]?.text, let date = ISO8601.date(time) else { return nil }
            let series = row[by].map { $0 == .null ? "(none)" : $0.text } ?? "(none)"
            return (date, series, 1)
        }
        return Charts.timeline(points.map { (time: $0.0, series: $0.1, count: $0.2) })
    }

    /// The transactions as a table, each linked to its page; a transaction's changes, when
    /// the answer holds them, under it.
    static func transactions(_ list: [OutputValue]) -> HTML {
        var body: HTML = "<table><tr><th>token</th><th>time</th><th>author</th><th>context</th><th>bundle</th><th>process</th><th>inserts</th><th>updates</th><th>deletes</th></tr>"
        for t in list {
            let token = t["token"]?.intValue ?? 0
            body += "<tr><td><a href=\"\(Paths.transaction(token))\">\(token)</a></td><td>\(t["timestamp"]?.text ?? "")</td>"
            for key in ["author", "contextName", "bundleID", "processID"] { body += "<td>\(ValueView.html(t[key] ?? .null))</td>" }
            for key in ["inserts", "updates", "deletes"] { body += "<td class=\"num\">\(t[key]?.text ?? "")</td>" }
            body += "</tr>"
            if let changes = t["changes"]?.items, !changes.isEmpty {
                body += "<tr class=\"changes\"><td></td><td colspan=\"8\">\(self.changes(changes))</td></tr>"
            }
        }
        return body + "</table>"
    }

    /// Changes as a table: the type, the object (linked), the keys it updated, its tombstone.
    static func changes(_ changes: [OutputValue]) -> HTML {
        var body: HTML = "<table><tr><th>type</th><th>object</th><th>updated</th><th>tombstone</th></tr>"
        for change in changes {
            let updated = (change["updated"]?.items ?? []).map(\.text).joined(separator: ", ")
            body += "<tr><td>\(change["type"]?.text ?? "")</td><td>\(ValueView.html(change["objectID"] ?? .null))</td><td>\(updated)</td>"
                + "<td>\(ValueView.html(change["tombstone"] ?? .null))</td></tr>"
        }
        return body + "</table>"
    }
}

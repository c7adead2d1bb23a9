import Foundation
import Inspector
import ManagedStore

/// `/history`: the persistent history's transactions over time as a chart, by author, bundle
/// or context (`?by=`), and their list a hundred at a time (`?after=TOKEN`), each linked to its
/// changes.
struct HistoryPage {
    let page: PageRequest
    /// Transactions the chart counts.
    static let charted = 10_000
    static let listed = 100

    func response() throws -> WebResponse {
        guard page.store.schema.hasPersistentHistory else {
            return try page.answer(title: "History", crumbs: [page.storeCrumb, ("history", nil)], value: .object([("transactions", .array([]))])) {
                "<h1>History</h1><p class=\"muted\">The store keeps no persistent history: the app did not set NSPersistentHistoryTrackingKey.</p>"
            }
        }
        let by = page.request.query("by") ?? "author"
        guard HistoryView.series.contains(by) else {
            throw CommandError.usage("by takes author, bundleID, contextName or processID")
        }
        let after = page.request.query("after").flatMap { $0.isEmpty ? nil : $0 }
        if let after, Int64(after) == nil { throw CommandError.usage("after takes a transaction's token (a number)") }
        let all = try page.run(["history"], rowLimit: Self.charted)
        var list = try page.run(["history", "--limit", String(Self.listed + 1)] + (after.map { ["--after=" + $0] } ?? [])).rows
        let more = list.count > Self.listed
        if more { list.removeLast() }
        let next = more ? list.last?["token"]?.intValue : nil
        let value = OutputValue.object([("transactions", .array(list)), ("next", next.map(OutputValue.integer) ?? .null),
                                        ("charted", .integer(Int64(all.rows.count))), ("chartedAll", .bool(!all.truncated))])
        return try page.answer(title: "History", crumbs: [page.storeCrumb, ("history", nil)], value: value) {
            var body: HTML = "<h1>History</h1>"
            body += "<p>\(all.rows.count)\(all.truncated ? "+" : "") transaction\(all.rows.count == 1 && !all.truncated ? "" : "s"), by "
            body += HTML.joined(HistoryView.series.map { key in
                key == by ? "<strong>\(key)</strong>" : "<a href=\"\(Paths.history)?by=\(key)\">\(key)</a>"
            }, separator: " · ") + ":</p>"
            body += HistoryView.chart(all.rows, by: by)
            body += "<h2>Transactions</h2>" + HistoryView.transactions(list)
            body += "<p class=\"pager\">"
            if after != nil { body += "<a href=\"\(Paths.history)\">first page</a>" }
            if let next { body += "<a rel=\"next\" href=\"\(Paths.history)?after=\(next)\">next \(Self.listed) ›</a>" }
            return body + "</p>"
        }
    }
}

/// `/history/TOKEN`: one transaction and its changes, each linked to its object.
struct TransactionPage {
    let page: PageRequest
    let token: Int64
    static let changesShown = 2000

    func response() throws -> WebResponse {
        guard page.store.schema.hasPersistentHistory else { throw PageNotFound(description: "The store keeps no persistent history.") }
        let answer: CommandAnswer
        do {
            answer = try page.run(["history", "--changes", "--after=\(token - 1)"], rowLimit: Self.changesShown)
        } catch let failure as HistoryError {
            // A token past the history's: no such transaction.
            throw PageNotFound(description: "No transaction \(token) in the history: \(failure)")
        }
        let rows = answer.rows.filter { ($0["transaction"]?["token"] ?? $0["token"])?.intValue == token }
        guard let first = rows.first else { throw PageNotFound(description: "No transaction \(token) in the history.") }
        let transaction = first["transaction"] ?? first
        let changes = rows.compactMap { $0["change"] }
        let truncated = answer.truncated && rows.count == answer.rows.count
        let value = OutputValue.object(transaction.pairs.setting("changes", .array(changes)))
        return try page.answer(title: "Transaction \(token)", crumbs: [page.storeCrumb, ("history", Paths.history), ("\(token)", nil)], value: value) {
            var body: HTML = "<h1>Transaction \(token)</h1><dl class=\"record\">"
            for (key, item) in transaction.pairs { body += "<dt>\(key)</dt><dd>\(ValueView.html(item))</dd>" }
            body += "</dl><h2>Changes</h2>" + HistoryView.changes(changes)
            if truncated { body += "<p class=\"muted\">The first \(Self.changesShown) changes.</p>" }
            return body
        }
    }
}

/// The history's timestamps (`2026-11-28T10:53:36.617Z`) as dates.
enum ISO8601 {
    // Made once: a formatter costs more to make than a thousand dates to read. Used by one
    // page at a time (the lock), as formatters are not safe to share between threads.
    nonisolated(unsafe) private static let withFraction: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    nonisolated(unsafe) private static let whole = ISO8601DateFormatter()
    private static let lock = NSLock()

    static func date(_ text: String) -> Date? {
        lock.withLock { withFraction.date(from: text) ?? whole.date(from: text) }
    }
}

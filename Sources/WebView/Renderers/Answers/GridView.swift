import Foundation
import Inspector
import ManagedStore

/// Rows as a table: an entity's objects on its page, and `fetch`'s or `sql`'s page in an
/// assistant's view. One renderer for both: the web page gives its columns (sort links in the
/// headers, binary values as their lengths), the MCP view the keys the rows hold. Every cell
/// goes through `ValueView`; an object's ID links to its object.
enum GridView {
    struct Column {
        let key: String
        /// The header cell's content: the key, or a sort link.
        let heading: HTML
        /// A binary value, shown as its length (`{"length": N}`), linked to the object's preview.
        let bytes: Bool

        init(key: String, heading: HTML? = nil, bytes: Bool = false) {
            self.key = key
            self.heading = heading ?? "\(key)"
            self.bytes = bytes
        }
    }

    /// The columns of rows that bring their own keys: every key in the order first seen,
    /// the object's ID left to the first column.
    static func columns(of rows: [OutputValue]) -> [Column] {
        var keys: [String] = []
        var seen: Set<String> = ["objectID"]
        for row in rows {
            for (key, _) in row.pairs where !seen.contains(key) {
                seen.insert(key)
                keys.append(key)
            }
        }
        return keys.map { Column(key: $0) }
    }

    static func html(_ rows: [OutputValue], columns: [Column]) -> HTML {
        let hasObjects = rows.contains { $0["objectID"] != nil }
        var head: HTML = hasObjects ? "<tr><th>object</th>" : "<tr>"
        for column in columns { head += "<th>\(column.heading)</th>" }
        head += "</tr>"
        var body: [HTML] = []
        for row in rows {
            let id = row["objectID"]?.stringValue
            var cells: HTML = id.map { "<tr data-object=\"\($0)\"><td>\(ValueView.html(.objectID($0)))</td>" } ?? (hasObjects ? "<tr><td></td>" : "<tr>")
            for column in columns {
                let value = value(row, column.key)
                if column.bytes {
                    let length = value["length"]?.intValue
                    let path = id.flatMap(Paths.object) ?? "#"
                    cells += length.map { "<td class=\"num\"><a class=\"muted\" href=\"\(path)#\(column.key)\">\(Int($0).formatted()) bytes</a></td>" as HTML }
                        ?? "<td>\(ValueView.html(.null))</td>"
                    continue
                }
                cells += "<td\(ValueView.isNumber(value) ? " class=\"num\"" as HTML : .empty)>\(ValueView.html(value))</td>"
            }
            body.append(cells + "</tr>")
        }
        if rows.isEmpty { return "<table>\(head)</table><p class=\"muted\">No object matches.</p>" }
        return "<table class=\"grid\">\(head)\(body)</table>"
    }

    /// The value of a column's key in a row: a composite's element nested in its composite
    /// (`address.city`), a count under its own key (`cars.@count`).
    static func value(_ record: OutputValue, _ key: String) -> OutputValue {
        if let direct = record[key] { return direct }
        var current = record
        for part in key.split(separator: ".") {
            guard let next = current[String(part)] else { return .null }
            current = next
        }
        return current
    }
}

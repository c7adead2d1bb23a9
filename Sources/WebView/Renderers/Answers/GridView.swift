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

    /// What an editing grid (`browse --write`) adds: which columns edit (attributes, and
    /// to-ones by their destination entity), the pending values and problems to mark, and
    /// a box per row that selects it for a delete.
    struct Editing {
        /// Editable column keys; a to-one's value is its destination entity, else nil.
        var editable: [String: String?] = [:]
        /// Pending values, by `Person/p3` then key.
        var pending: [String: [String: OutputValue]] = [:]
        /// Objects deleted in the pending changes (`Person/p3`).
        var deleted: Set<String> = []
        /// Problems beside cells, by `Person/p3.key`.
        var problems: [String: String] = [:]
        /// The form the rows' boxes belong to.
        var selectForm = "delete-selected"
    }

    static func html(_ rows: [OutputValue], columns: [Column], editing: Editing? = nil, caption: String? = nil) -> HTML {
        let hasObjects = rows.contains { $0["objectID"] != nil }
        var head: HTML = hasObjects ? "<tr><th>object</th>" : "<tr>"
        for column in columns { head += "<th>\(column.heading)</th>" }
        head += "</tr>"
        var body: [HTML] = []
        for row in rows {
            let id = row["objectID"]?.stringValue
            let short = id.map(ValueView.shortID)
            var cells: HTML
            if let id, let short, let editing {
                // A saved object links to its page; a new one has none until it is saved.
                let link: HTML = Paths.object(id) == nil ? "<span class=\"new-object\">\(short)</span>" : ValueView.html(.objectID(id))
                cells = "<tr data-object=\"\(id)\" data-id=\"\(short)\"\(editing.deleted.contains(short) ? " class=\"deleted\"" as HTML : .empty)>"
                cells += "<th scope=\"row\"><input type=\"checkbox\" form=\"\(editing.selectForm)\" name=\"object\" value=\"\(short)\" aria-label=\"select \(short)\"> \(link)</th>"
            } else {
                cells = id.map { "<tr data-object=\"\($0)\"><td>\(ValueView.html(.objectID($0)))</td>" } ?? (hasObjects ? "<tr><td></td>" : "<tr>")
            }
            for column in columns {
                let value = value(row, column.key)
                let pending = short.flatMap { editing?.pending[$0]?[column.key] }
                // The value as an edit takes it (text, not a link: a click edits); an object's
                // page is the arrow beside it. One too long for a cell edits on its object's
                // page, where it shows whole.
                let current = pending ?? value
                if let editing, let short, let target = editing.editable[column.key], editText(current).count <= ValueView.cellCharacters {
                    let problem = editing.problems["\(short).\(column.key)"]
                    var classes = cellClasses(current)
                    if pending != nil { classes.append("pending-cell") }
                    cells += "<td data-key=\"\(column.key)\"\(target.map { " data-target=\"\($0)\"" as HTML } ?? .empty) tabindex=\"-1\" aria-readonly=\"false\""
                    cells += "\(classes.isEmpty ? .empty : " class=\"\(classes.joined(separator: " "))\"" as HTML)><span class=\"cell-value\">\(editText(current))</span>"
                    if target != nil, let path = Paths.object(current.text) {
                        cells += " <a class=\"go\" href=\"\(path)\" aria-label=\"open \(editText(current))\">↗</a>"
                    }
                    if let problem { cells += "<span class=\"cell-error\" role=\"alert\">\(problem)</span>" }
                    cells += "</td>"
                    continue
                }
                if column.bytes {
                    let length = value["length"]?.intValue
                    let path = id.flatMap(Paths.object) ?? "#"
                    cells += length.map { "<td class=\"num\"><a class=\"muted\" href=\"\(path)#\(column.key)\">\(Int($0).groupedDigits) bytes</a></td>" as HTML }
                        ?? "<td>\(ValueView.html(.null))</td>"
                    continue
                }
                let kind = cellClasses(value)
                cells += "<td\(kind.isEmpty ? .empty : " class=\"\(kind.joined(separator: " "))\"" as HTML)>\(ValueView.html(value))</td>"
            }
            body.append(cells + "</tr>")
        }
        let captionHTML: HTML = caption.map { "<caption>\($0)</caption>" } ?? .empty
        if rows.isEmpty { return "<table>\(captionHTML)\(head)</table><p class=\"muted\">No object matches.</p>" }
        if editing != nil {
            return "<div class=\"grid-scroll\"><table class=\"grid editable\" role=\"grid\" aria-label=\"\(caption ?? "objects"): double-click a cell or press Enter to edit it\">\(captionHTML)\(head)\(body)</table></div>"
        }
        // Wide grids scroll sideways in their box, the object column kept in view; a word
        // (a UUID, a date) is never broken to fit.
        return "<div class=\"grid-scroll\"><table class=\"grid\">\(captionHTML)\(head)\(body)</table></div>"
    }

    /// A number is right-aligned; a value of one word (an identifier, a date, a URL) is a
    /// token, kept on one line (hyphens would break a UUID or a date into pieces), while
    /// text with spaces wraps at them.
    static func cellClasses(_ value: OutputValue) -> [String] {
        if ValueView.isNumber(value) { return ["num"] }
        switch value {
        case .string(let text) where !text.contains(where: \.isWhitespace): return ["token"]
        case .date, .uuid, .objectID, .objectURI: return ["token"]
        default: return []
        }
    }

    /// A value as an edit of it is typed: nil, text as it is, an object as `Person/p3`.
    static func editText(_ value: OutputValue) -> String {
        switch value {
        case .null: return "nil"
        case .objectID, .objectURI: return ValueView.shortID(value.text)
        default: return value.text
        }
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

import Foundation
import Inspector
import ManagedStore

/// A value as a page shows it: as the command line shows it (`OutputValue.text`), escaped;
/// an object ID as a link to its object; nil marked as nil; a composite, a decoded archive
/// or SwiftData's JSON as a tree. Bounded: a long text is cut (its whole is on the object
/// page, or in the JSON twin), a tree stops after a few thousand nodes, bytes show their size
/// and first bytes.
enum ValueView {
    /// How much of a text a grid cell shows, and an object page.
    static let cellCharacters = 300
    static let pageCharacters = 64 << 10
    static let treeNodes = 2000

    static func html(_ value: OutputValue, characters: Int = cellCharacters) -> HTML {
        var budget = treeNodes
        return html(value, characters: characters, budget: &budget)
    }

    private static func html(_ value: OutputValue, characters: Int, budget: inout Int) -> HTML {
        budget -= 1
        guard budget > 0 else { return "<span class=\"muted\">…</span>" }
        switch value {
        case .null:
            return "<span class=\"null\">nil</span>"
        case .objectID, .objectURI:
            let id = value.text
            guard let path = Paths.object(id) else { return "\(cut(id, characters))" }
            return "<a href=\"\(path)\">\(shortID(id))</a>"
        case .data(let bytes):
            return "<span class=\"muted\">\(bytes.count) bytes</span> <code>\(hex(bytes.prefix(32)))\(bytes.count > 32 ? "…" : "")</code>"
        case .array(let items):
            if items.isEmpty { return "<span class=\"muted\">[]</span>" }
            var parts: [HTML] = []
            for item in items {
                if budget <= 0 { parts.append("<li class=\"muted\">… \(items.count - parts.count) more</li>"); break }
                parts.append("<li>\(html(item, characters: characters, budget: &budget))</li>")
            }
            return "<ul class=\"tree\">\(parts)</ul>"
        case .object(let pairs):
            if pairs.isEmpty { return "<span class=\"muted\">{}</span>" }
            var parts: [HTML] = []
            for (key, item) in pairs {
                if budget <= 0 { parts.append("<dt class=\"muted\">…</dt><dd></dd>"); break }
                parts.append("<dt>\(key)</dt><dd>\(html(item, characters: characters, budget: &budget))</dd>")
            }
            return "<dl class=\"record\">\(parts)</dl>"
        case .archive:
            return html(value.archivesDecoded, characters: characters, budget: &budget)
        case .json(let bytes):
            // SwiftData's JSON as the tree it encodes, its text where it does not decode.
            if bytes.count <= 1 << 20, let decoded = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) {
                return html(OutputValue(jsonObject: decoded), characters: characters, budget: &budget)
            }
            return "<code>\(cut(String(decoding: bytes.prefix(characters * 4), as: UTF8.self), characters))</code>"
        case .integer, .real:
            return "\(value.text)"
        default:
            return "\(cut(value.text, characters))"
        }
    }

    /// `text` cut at `characters`, with how much more there is.
    static func cut(_ text: String, _ characters: Int) -> HTML {
        guard text.count > characters else { return "\(text)" }
        return "\(String(text.prefix(characters)))<span class=\"muted\">… (\(text.count - characters) more characters)</span>"
    }

    /// `x-coredata://UUID/Person/p3` → `Person/p3`; a temporary ID → `Person/t2`.
    static func shortID(_ id: String) -> String {
        guard let parsed = ObjectID.parse(id) else { return id }
        if parsed.primaryKey < 0 { return "\(parsed.entityName)/t\(-parsed.primaryKey)" }
        return "\(parsed.entityName)/p\(parsed.primaryKey)"
    }

    static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined(separator: " ")
    }

    /// Whether a value is shown right-aligned (a number).
    static func isNumber(_ value: OutputValue) -> Bool {
        switch value {
        case .integer, .real: return true
        default: return false
        }
    }
}

extension OutputValue {
    /// A value `JSONSerialization` decoded, as the command layer holds values.
    init(jsonObject: Any) {
        switch jsonObject {
        case is NSNull: self = .null
        case let s as String: self = .string(s)
        case let n as NSNumber:
            let text = "\(n)"
            if text == "true" || text == "false", String(cString: n.objCType) == "c" { self = .bool(n.boolValue) } else if
                let i = Int64(text) { self = .integer(i) } else { self = .real(n.doubleValue) }
        case let array as [Any]: self = .array(array.map(OutputValue.init(jsonObject:)))
        case let object as [String: Any]: self = .object(object.keys.sorted().map { ($0, OutputValue(jsonObject: object[$0] as Any)) })
        default: self = .string("\(jsonObject)")
        }
    }
}

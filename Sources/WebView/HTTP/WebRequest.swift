import Foundation

/// A request as the site sees it, whatever server read it: the method, the path (still
/// percent-encoded, split into segments by `Paths`), the query's items, the headers (names in
/// lower case, every occurrence kept: two `Host` headers are two) and the body.
public struct WebRequest: Sendable {
    public var method: String
    /// The path as sent, without the query (`/Person/p3`).
    public var path: String
    public var query: [(name: String, value: String)]
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8] = []) {
        self.method = method
        let (path, query) = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init).pair
        self.path = path
        self.query = QueryItems.parse(query ?? "")
        self.headers = headers.map { ($0.name.lowercased(), $0.value) }
        self.body = body
    }

    /// Every value of a header.
    public func headers(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }

    /// A header's one value; nil when it is missing (or given twice).
    public func header(_ name: String) -> String? {
        let all = headers(name)
        return all.count == 1 ? all[0] : nil
    }

    /// A query item's value (the first, when it is given twice).
    public func query(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// A form body's fields (`application/x-www-form-urlencoded`).
    public var form: [(name: String, value: String)] { QueryItems.parse(String(decoding: body, as: UTF8.self)) }

    public func field(_ name: String) -> String? { form.first { $0.name == name }?.value }

    /// Every value of a field given more than once (the selected rows' checkboxes).
    public func fields(_ name: String) -> [String] { form.filter { $0.name == name }.map(\.value) }
}

extension Array where Element == String {
    /// The first element and the second, if any.
    fileprivate var pair: (String, String?) { (first ?? "", count > 1 ? self[1] : nil) }
}

/// Query strings and form bodies: `a=1&b=x%20y`, `+` for a space.
public enum QueryItems {
    public static func parse(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").compactMap { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(String(parts[0])), !name.isEmpty else { return nil }
            return (name, parts.count > 1 ? decode(String(parts[1])) ?? "" : "")
        }
    }

    /// Percent-decoding (and `+` as a space): nil when an escape is broken or the bytes are
    /// not UTF-8.
    public static func decode(_ text: String, plusIsSpace: Bool = true) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let b = iterator.next() {
            switch b {
            case UInt8(ascii: "%"):
                guard let h = iterator.next(), let l = iterator.next(), let hi = hex(h), let lo = hex(l) else { return nil }
                bytes.append(hi << 4 | lo)
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(32)
            default: bytes.append(b)
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: return b - 48
        case 65...70: return b - 55
        case 97...102: return b - 87
        default: return nil
        }
    }

    /// `text` for a path segment or a query value: everything but unreserved characters escaped.
    public static func encode(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            switch b {
            case 48...57, 65...90, 97...122, UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// A query string of `items`, with `?` before it, or nothing for none.
    public static func string(_ items: [(String, String)]) -> String {
        items.isEmpty ? "" : "?" + items.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}

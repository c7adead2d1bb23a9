import Foundation

/// How Swift spells the names and constants of a model and a predicate: a type from an
/// entity name, a parameter name, a property name (back-quoted when it is a keyword), and
/// literals.
public enum SwiftNames {
    /// Words Swift reserves; a property of that name is written back-quoted.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_",
    ]

    /// Types of the standard library and Foundation an app's own type of the same name would
    /// shadow in its module (a SwiftData enum named `Collection`).
    static let standardLibraryTypes: Set<String> = [
        "Any", "AnyObject", "Array", "Bool", "Character", "ClosedRange", "Codable", "Collection", "Comparable", "Data", "Date",
        "Decimal", "Decodable", "Dictionary", "Double", "Encodable", "Equatable", "Error", "Float", "Hashable", "Identifiable",
        "Index", "Int", "Int16", "Int32", "Int64", "Int8", "Iterator", "Never", "Numeric", "Optional", "Range", "Result",
        "Sequence", "Set", "String", "Substring", "Type", "UInt", "URL", "UUID", "Void",
    ]

    public static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    /// A class name without its module: `MyApp.Person` → `Person`.
    public static func unqualified(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }

    /// A property or parameter name as code writes it.
    public static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`" + name + "`" : name
    }

    /// The class for an entity: its name, made an identifier.
    public static func typeName(_ entity: String) -> String {
        let cleaned = String(String.UnicodeScalarView(entity.unicodeScalars.map { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) ? $0 : "_" }))
        guard let first = cleaned.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return "E" + cleaned }
        return keywords.contains(cleaned) ? "`" + cleaned + "`" : cleaned
    }

    /// A closure parameter for an object of an entity: `Person` → `person`,
    /// `CartItemModel` → `cartItemModel`.
    public static func parameterName(for entity: String) -> String {
        var name = typeName(entity).replacingOccurrences(of: "`", with: "")
        // Lower the leading capitals: `URLRecord` → `urlRecord`.
        let scalars = Array(name.unicodeScalars)
        var upper = 0
        while upper < scalars.count, scalars[upper].properties.isUppercase { upper += 1 }
        if upper > 1, upper < scalars.count { upper -= 1 }
        name = String(String.UnicodeScalarView(scalars[..<upper])).lowercased() + String(String.UnicodeScalarView(scalars[upper...]))
        return keywords.contains(name) || name.isEmpty ? "object" : name
    }

    /// A constant as a Swift literal.
    public static func literal(_ value: PredicateValue) throws -> String {
        switch value {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d):
            guard d.isFinite else { throw PredicateCodeError("the number \(d)", "Swift has no literal for it") }
            return number(d)
        case .string(let s): return stringLiteral(s)
        case .date(let d): return "Date(timeIntervalSinceReferenceDate: \(number(d)))"
        case .array(let items): return "[" + (try items.map(literal).joined(separator: ", ")) + "]"
        }
    }

    /// A double as Swift reads it back exactly: `30.0`, `1e-05`.
    static func number(_ d: Double) -> String {
        d.rounded() == d && abs(d) < 1e15 ? String(format: "%.1f", d) : "\(d)"
    }

    public static func stringLiteral(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default:
                if c.value < 0x20 || c.value == 0x7F {
                    out += "\\u{" + String(c.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out + "\""
    }
}

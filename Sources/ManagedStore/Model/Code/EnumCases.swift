import GRDB

/// An enum SwiftData keeps as a composite of one element (`ice.ice`), declared with the raw
/// values its rows hold: the model keeps no cases, but an enum with a raw type and no cases is
/// no Swift. Each case is named after its raw value (`case doubleOldFashioned = "Double Old
/// Fashioned"`, `case value2 = 2`), since the store has no case names; where no row holds a
/// value, one stand-in case says so.
struct EnumCases {
    let element: AttributeDescription
    let rawType: String
    /// The distinct values the rows hold; nil when no store was read.
    let held: [DatabaseValue]?

    /// Raw types Swift takes for an enum (a literal type).
    static let literalTypes: Set<String> = ["String", "Int", "Int16", "Int32", "Int64", "Double", "Float"]

    func declaration(named name: String, indent: String) -> [String] {
        guard Self.literalTypes.contains(rawType) else {
            // No enum of this raw type compiles: its value, in a struct of the same shape.
            return [indent + "/// Stored as its raw value, \(rawType), which no Swift enum takes as a raw type.",
                    indent + "struct \(name): Codable {", indent + "    var rawValue: \(rawType)", indent + "}"]
        }
        var cases: [String] = []
        var names: Set<String> = []
        for value in held ?? [] {
            guard let (caseName, literal) = self.case(value) else { continue }
            var unique = caseName
            var n = 2
            while names.contains(unique) { unique = caseName + String(n); n += 1 }
            names.insert(unique)
            let escaped = SwiftNames.escaped(unique)
            cases.append(indent + "    case \(escaped)" + (literal.map { " = " + $0 } ?? ""))
        }
        var lines = [indent + "/// Stored as its raw value; the model keeps no cases, so these are the values the rows hold, "
                     + "named after them (rename them to the app's)."]
        if cases.isEmpty {
            lines[0] = indent + "/// Stored as its raw value; the model keeps no cases and no row holds one: a stand-in case (the app's go here)."
            cases = [indent + "    case unknown" + (rawType == "String" ? "" : " = 0")]
        }
        if held.map({ $0.count >= ModelRowSample.limit }) == true {
            cases.append(indent + "    // … and more: the first \(ModelRowSample.limit) values the rows hold are listed")
        }
        return lines + [indent + "enum \(name): \(rawType), Codable {"] + cases + [indent + "}"]
    }

    /// A case's name and its raw-value literal (nil where the name is the raw value itself).
    func `case`(_ value: DatabaseValue) -> (String, String?)? {
        switch (rawType, value.storage) {
        case ("String", .string(let s)):
            let name = Self.caseName(s)
            return (name, name == s ? nil : SwiftNames.stringLiteral(s))
        case ("Double", _), ("Float", _):
            guard let d = Double.fromDatabaseValue(value), d.isFinite else { return nil }
            let text = SwiftNames.number(d)
            return ("value" + text.replacingOccurrences(of: "-", with: "Minus").replacingOccurrences(of: ".", with: "_"), text)
        case (_, .int64(let i)) where rawType != "String":
            return ("value" + (i < 0 ? "Minus\(i.magnitude)" : String(i)), String(i))
        default:
            return nil
        }
    }

    /// `Double Old Fashioned` → `doubleOldFashioned`; a value that is no name yet gets one
    /// (`2 for 1` → `_2For1`, `` → `empty`).
    static func caseName(_ raw: String) -> String {
        let words = raw.unicodeScalars.split { !($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
            .map { String(String.UnicodeScalarView($0)) }
        guard let first = words.first else { return "empty" }
        var name = first.count > 1 && first == first.uppercased() ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        for word in words.dropFirst() { name += word.prefix(1).uppercased() + word.dropFirst() }
        if words.count == 1, SwiftNames.isIdentifier(raw) { return raw }
        if let initial = name.unicodeScalars.first, ("0"..."9").contains(initial) { name = "_" + name }
        return name
    }
}

/// Swift types for the JSON a store holds, as SwiftData encoded the app's values: arrays of
/// strings or numbers, and Codable structs named after the property holding them. What no one
/// Swift type decodes (values of several kinds) stays `Data`, said in a comment.
enum JSONShapeTypes {
    /// The type of a value of `shape`; a struct's is `named`.
    static func type(of shape: JSONShape, named name: String) -> String {
        switch shape {
        case .string: return "String"
        case .integer: return "Int"
        case .double: return "Double"
        case .boolean: return "Bool"
        case .null, .mixed: return "Data"
        case .array(let element?): return "[" + type(of: element, named: singular(name)) + "]"
        case .array(nil): return "[String]"
        case .object: return name
        }
    }

    /// The structs a value of `shape` needs declared: one per object, nested objects inside.
    static func declarations(_ shape: JSONShape, named name: String, indent: String) -> [String] {
        switch shape {
        case .array(let element?): return declarations(element, named: singular(name), indent: indent)
        case .array(nil): return [indent + "// \(name): only empty arrays in the rows; [String] is a guess"]
        case .mixed: return [indent + "// \(name): values of several kinds in the rows; no one Swift type decodes them, so Data"]
        case .object(let members):
            var lines = [indent + "struct \(name): Codable {"]
            var inner: [String] = []
            for member in members {
                let memberType = SwiftNames.typeName(member.key.prefix(1).uppercased() + member.key.dropFirst())
                let declared = SwiftNames.isIdentifier(member.key) ? SwiftNames.escaped(member.key) : nil
                guard let declared else {
                    lines.append(indent + "    // \(SwiftNames.stringLiteral(member.key)): a key no Swift property can be named without CodingKeys")
                    continue
                }
                lines.append(indent + "    var \(declared): \(type(of: member.shape, named: memberType))\(member.optional || member.shape == .null ? "?" : "")")
                inner += declarations(member.shape, named: memberType, indent: indent + "    ")
            }
            if !inner.isEmpty { lines += [""] + inner }
            return lines + [indent + "}"]
        default:
            return []
        }
    }

    /// The element type's name of an array property: `Ingredients` → `Ingredient`,
    /// `Garnishes` → `Garnish`, `Berries` → `Berry`; `Staff` → `StaffElement`.
    static func singular(_ name: String) -> String {
        guard name.count > 3 else { return name + "Element" }
        if name.hasSuffix("ies") { return name.dropLast(3) + "y" }
        if ["sses", "shes", "ches", "xes", "zes"].contains(where: name.hasSuffix) { return String(name.dropLast(2)) }
        if name.hasSuffix("s"), !name.hasSuffix("ss") { return String(name.dropLast()) }
        return name + "Element"
    }
}

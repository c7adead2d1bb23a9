/// `NSAttributeType`, with the raw codes the model cache stores.
public enum AttributeType: Int, Sendable, CaseIterable {
    case undefined = 0
    case integer16 = 100
    case integer32 = 200
    case integer64 = 300
    case decimal = 400
    case double = 500
    case float = 600
    case string = 700
    case boolean = 800
    case date = 900
    case binaryData = 1000
    case uuid = 1100
    case uri = 1200
    case transformable = 1800
    case objectID = 2000
    case composite = 2100
    /// iOS 26's codable attribute: a value stored through a codable adapter as a BLOB, JSON
    /// by default (sql-entity.md §4; no genuine store seen).
    case codable = 2200

    /// The names Xcode's model editor uses (and `.xcdatamodel` XML stores in `attributeType`).
    public var modelName: String {
        switch self {
        case .undefined: return "Undefined"
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        case .objectID: return "ObjectID"
        case .composite: return "Composite"
        case .codable: return "Codable"
        }
    }

    public init?(modelName: String) {
        let key = modelName.replacingOccurrences(of: " ", with: "").lowercased()
        let match = AttributeType.allCases.first {
            $0.modelName.replacingOccurrences(of: " ", with: "").lowercased() == key
        }
        if let match { self = match } else if key == "binarydata" { self = .binaryData } else { return nil }
    }

    /// The affinity-level type a schema declares for a column of unknown model type.
    public init(declaredSQLType: String) {
        let t = declaredSQLType.uppercased()
        if t.hasPrefix("INT") || t.contains("INTEGER") { self = .integer64 }
        else if t.contains("CHAR") || t.contains("TEXT") || t.contains("CLOB") { self = .string }
        else if t.contains("TIMESTAMP") || t.contains("DATE") { self = .date }
        else if t.contains("DECIMAL") { self = .decimal }
        else if t.contains("FLOAT") || t.contains("REAL") || t.contains("DOUB") { self = .double }
        else if t.contains("BLOB") || t.isEmpty { self = .binaryData }
        else if t.contains("BOOL") { self = .boolean }
        else { self = .undefined }
    }

    /// The name with its article, for messages: "an Integer 16", "a String".
    public var withArticle: String {
        switch self {
        case .integer16, .integer32, .integer64, .undefined, .objectID: return "an " + modelName
        default: return "a " + modelName
        }
    }

    /// The values an Integer 16, 32 or 64 attribute holds; nil for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }

    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float || self == .boolean }
}

/// `NSDeleteRule`.
public enum DeleteRule: Int, Sendable {
    case noAction = 0, nullify = 1, cascade = 2, deny = 3

    public var name: String {
        switch self {
        case .noAction: return "no action"
        case .nullify: return "nullify"
        case .cascade: return "cascade"
        case .deny: return "deny"
        }
    }

    public init?(modelName: String) {
        switch modelName.lowercased().replacingOccurrences(of: " ", with: "") {
        case "noaction": self = .noAction
        case "nullify": self = .nullify
        case "cascade": self = .cascade
        case "deny": self = .deny
        default: return nil
        }
    }
}

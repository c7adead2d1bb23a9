import Foundation

/// Turns the text of `K=V` (a predicate-language literal) into a property value, checked
/// against the model: the attribute's type, its integer range, and for relationships the
/// destination entity. For a string attribute, text that is no literal is the string itself
/// (`name=dave` sets "dave"): callers often hand over values whose quotes were already taken
/// off.
public enum ValueParsing {
    public static func value(_ text: String, for key: String, in entity: EntityMapping,
                             coordinator: Coordinator) throws -> (name: String, value: ObjectValue) {
        if let relationship = entity.relationship(key) {
            let r = relationship.relationship
            let ids = try objectIDs(text, relationship: r, entity: entity, coordinator: coordinator)
            if r.isToMany { return (r.name, .toMany(ids)) }
            guard ids.count <= 1 else {
                throw ContextError.badValue(entity: entity.name, key: r.name, why: "a to-one relationship takes one object ID or nil")
            }
            return (r.name, .toOne(ids.first))
        }
        let a = try writableAttribute(key, in: entity).attribute
        return (a.name, .attribute(try attributeValue(text, a, entity: entity.name)))
    }

    /// The attribute `key` names, if a value may be written to it: fetched properties and
    /// derived attributes (the store computes them) are refused.
    static func writableAttribute(_ key: String, in entity: EntityMapping) throws -> AttributeMapping {
        guard let attribute = entity.attribute(key) else {
            if entity.fetchedProperties.contains(where: { $0.name == key }) {
                throw ContextError.readOnlyProperty(entity: entity.name, key: key, why: "it is a fetched property")
            }
            throw StoreError.unknownProperty(entity: entity.name, name: key)
        }
        if attribute.attribute.isDerived {
            throw ContextError.readOnlyProperty(entity: entity.name, key: attribute.attribute.name, why: "it is derived; the store computes it")
        }
        return attribute
    }

    /// The value `text` gives the attribute, refused when the attribute could not hold it
    /// (an Integer 16's range, a Float's, 0 or 1 for a Boolean). `nil` is accepted for a
    /// non-optional attribute when `nilUntilSave`, as Core Data accepts it on an object until
    /// the save validates; a batch update, which no save follows, refuses it here.
    static func attributeValue(_ text: String, _ a: AttributeDescription, entity: String,
                               nilUntilSave: Bool = true) throws -> AttributeValue {
        let value = try parsedValue(text, a, entity: entity)
        if !(nilUntilSave && value == .null), let encoded = StoreWriter.encode(.attribute(value), a),
           let why = StoredValueRule(attribute: a).violation(StoredValue(encoded)) {
            throw ContextError.badValue(entity: entity, key: a.name, why: why)
        }
        return value
    }

    private static func parsedValue(_ text: String, _ a: AttributeDescription, entity: String) throws -> AttributeValue {
        func bad(_ why: String) -> ContextError { .badValue(entity: entity, key: a.name, why: why) }
        let literal = try? PredicateParser.parseLiteral(text)
        if literal == .null { return .null }
        if a.holdsJSON {
            // JSON as the value shows it (`'["Mole","Lime"]'`), kept byte for byte, or a
            // literal (`{"Mole", "Lime"}`) written as JSONEncoder writes it.
            if case .string(let s)? = literal, JSONText.isValid(Array(s.utf8)) { return .json(Array(s.utf8)) }
            if JSONText.isValid(Array(text.utf8)), literal == nil || text.first == "[" { return .json(Array(text.utf8)) }
            if case .array? = literal, let bytes = literal.flatMap(JSONText.encode) { return .json(bytes) }
            if a.type == .codable { throw bad("expects JSON text, such as '[\"a\", \"b\"]'") }
        }
        switch a.type {
        case .string:
            if case .string(let s)? = literal { return .string(s) }
            return .string(text)
        case .boolean:
            switch literal {
            case .bool(let b)?: return .bool(b)
            case .integer(let i)? where i == 0 || i == 1: return .bool(i == 1)
            default: throw bad("expects YES or NO, not \(text)")
            }
        case .integer16, .integer32, .integer64:
            guard case .integer(let i)? = literal else { throw bad("expects an integer, not \(text)") }
            return .integer(i)
        case .double, .float, .decimal:
            switch literal {
            case .integer(let i)?: return .double(Double(i))
            case .double(let d)?: return .double(d)
            default: throw bad("expects a number, not \(text)")
            }
        case .date:
            switch literal {
            case .integer(let i)?: return .date(Double(i))
            case .double(let d)?, .date(let d)?: return .date(d)
            case .string(let s)?:
                if let date = parseDate(s) { return .date(date) }
                throw bad("expects a date: seconds since 2001-01-01, or ISO 8601 text such as \"2024-05-01T12:00:00Z\"")
            default:
                if let date = parseDate(text) { return .date(date) }
                throw bad("expects a date: seconds since 2001-01-01, or ISO 8601 text such as \"2024-05-01T12:00:00Z\"")
            }
        case .uuid:
            let s: String
            if case .string(let q)? = literal { s = q } else { s = text }
            guard let uuid = UUID(uuidString: s) else { throw bad("expects a UUID, not \(text)") }
            return .uuid(uuid)
        case .uri:
            if case .string(let s)? = literal { return .uri(s) }
            return .uri(text)
        case .binaryData:
            let s: String
            if case .string(let q)? = literal { s = q } else { s = text }
            guard let data = Data(base64Encoded: s) else { throw bad("expects base64 text") }
            return .data([UInt8](data))
        case .undefined:
            switch literal {
            case .integer(let i)?: return .integer(i)
            case .double(let d)?: return .double(d)
            case .bool(let b)?: return .bool(b)
            case .string(let s)?: return .string(s)
            default: return .string(text)
            }
        default:
            throw ContextError.readOnlyProperty(entity: entity, key: a.name,
                                                why: "\(a.type.modelName) values need the app's own classes, which Linux does not have")
        }
    }

    static func parseDate(_ text: String) -> Double? {
        // The formatter keeps milliseconds only; history times are finer, so the fraction
        // is read here, whole, and added to the moment parsed without it.
        var whole = text
        var fraction = 0.0
        if let dot = text.firstIndex(of: "."), text[..<dot].contains("T") {
            let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Double("0." + digits) else { return nil }
            fraction = value
            whole = String(text[..<dot]) + String(text[text.index(dot, offsetBy: digits.count + 1)...])
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: whole) { return date.timeIntervalSinceReferenceDate + fraction }
        }
        return nil
    }

    /// `Car/p3`, a URI, `nil`, or `{Car/p1, Car/p2}` for a to-many relationship.
    static func objectIDs(_ text: String, relationship r: RelationshipDescription, entity: EntityMapping,
                          coordinator: Coordinator) throws -> [ObjectID] {
        var body = text.trimmingCharacters(in: .whitespaces)
        if ["nil", "null"].contains(body.lowercased()) { return [] }
        if body.hasPrefix("{") && body.hasSuffix("}") { body = String(body.dropFirst().dropLast()) }
        let items = body.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }.filter { !$0.isEmpty }
        guard let destination = coordinator.mapping.entity(named: r.destinationEntityName) else {
            throw ContextError.badValue(entity: entity.name, key: r.name, why: "its destination \(r.destinationEntityName) is not in the model")
        }
        return try items.map { item in
            let id = try coordinator.objectID(parsing: item)
            guard let target = coordinator.mapping.entity(named: id.entityName), let targetID = target.entityID,
                  destination.entityIDs.contains(targetID) else {
                throw ContextError.wrongEntity(id: item, expected: destination.name)
            }
            return id
        }
    }
}

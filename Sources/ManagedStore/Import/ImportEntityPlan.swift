import Foundation
import GRDB

/// What an import needs of one entity, worked out once: the row's columns in the order a
/// save writes them (`StoreWriter.rowKeys`), the `INSERT` statement, the model's default
/// values in their stored form, and the checks a save makes.
final class ImportEntityPlan {
    enum Column {
        /// `slot`: the attribute's place in `Values.attributes`.
        case attribute(name: String, column: String, slot: Int)
        case toOne(name: String, column: String, entityColumn: String?)
    }

    /// An incoming object's values, converted and resolved.
    struct Values {
        /// By slot (the plan's `attributeSlots`): nil where the object gives no value.
        var attributes: [DatabaseValue?]
        /// A to-one given as nil is `.some(nil)`; one not given is absent.
        var toOnes: [String: ImportMember?] = [:]
        var toManys: [String: [ImportMember]] = [:]
    }

    let entity: EntityMapping
    let rowColumns: [Column]
    let insertSQL: String
    /// The prepared `INSERT`, kept for the import's transaction.
    var insertStatement: Statement?
    /// The stored attributes' names by slot, and their slots by name.
    let attributeNames: [String]
    let attributeSlots: [String: Int]
    /// The root entity, whose `Z_MAX` hands out this entity's keys, and its counter.
    let rootName: String
    let rootKeys: RootKeys
    /// The stored attributes by slot, as the conversions take them.
    let attributes: [ImportAttribute]
    /// Slots of Binary attributes that allow external storage: a large value goes to a file.
    let externalSlots: [Int]
    private let defaults: [DatabaseValue?]
    private let required: [(slot: Int, name: String)]
    /// The attributes with validation rules (the model's minimum, maximum, pattern), by slot.
    private let ruled: [(slot: Int, attribute: AttributeDescription)]
    /// The relationships a save's checks can fail on: a required to-one, a to-many that is
    /// required or has a count bound. An optional, unbounded to-many cannot fail.
    private let checkedRelationships: [RelationshipDescription]

    func emptyValues() -> Values {
        Values(attributes: [DatabaseValue?](repeating: nil, count: attributeNames.count))
    }

    init(_ entity: EntityMapping, mapping: StoreMapping, rootKeys: RootKeys) throws {
        self.entity = entity
        self.rootKeys = rootKeys
        var columns: [Column] = []
        var names = ["Z_PK", "Z_ENT", "Z_OPT"]
        var defaults: [DatabaseValue?] = []
        var attributeNames: [String] = []
        var attributes: [ImportAttribute] = []
        var required: [(slot: Int, name: String)] = []
        var ruled: [(slot: Int, attribute: AttributeDescription)] = []
        for key in StoreWriter.rowKeys(entity) {
            if let a = entity.attribute(key), let column = a.column {
                let slot = attributeNames.count
                attributeNames.append(key)
                attributes.append(ImportAttribute(a.attribute))
                columns.append(.attribute(name: key, column: column, slot: slot))
                names.append(column)
                defaults.append(StoreWriter.storedDefault(of: a.attribute))
                if !a.attribute.isOptional && !a.attribute.isTransient { required.append((slot, key)) }
                if !a.attribute.validationRules.isEmpty && !a.attribute.isTransient { ruled.append((slot, a.attribute)) }
            } else if let r = entity.relationship(key), case .foreignKey(let column, let entityColumn) = r.storage {
                columns.append(.toOne(name: key, column: column, entityColumn: entityColumn))
                names.append(column)
                if let entityColumn { names.append(entityColumn) }
            }
        }
        rowColumns = columns
        checkedRelationships = entity.relationships.map(\.relationship).filter { rel in
            !rel.isTransient && (!rel.isOptional || (rel.isToMany && (rel.minCount > 0 || rel.maxCount > 0)))
        }
        self.defaults = defaults
        self.attributeNames = attributeNames
        self.required = required
        self.ruled = ruled
        self.attributes = attributes
        externalSlots = attributes.indices.filter {
            attributes[$0].type == .binaryData && attributes[$0].description.allowsExternalBinaryDataStorage
        }
        attributeSlots = Dictionary(attributeNames.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        rootName = mapping.rootEntity(of: entity).name
        insertSQL = "INSERT INTO \(SQL.identifier(entity.table))(\(names.map(SQL.identifier).joined(separator: ", "))) "
            + "VALUES(\(names.map { _ in "?" }.joined(separator: ", ")))"
    }

    /// Attributes the object does not give take the model's default, as on insert.
    func fillDefaults(_ values: inout Values) throws {
        for slot in defaults.indices where values.attributes[slot] == nil { values.attributes[slot] = defaults[slot] }
    }

    /// The checks of a save (`validateForInsert`): required attributes and relationships,
    /// the attributes' validation rules, to-many counts; what `values` break of them, in the
    /// model's order (empty: none).
    /// `toManysGiven`: false when an update leaves the to-manys as stored.
    func brokenRules(_ values: Values, toManysGiven: Bool = true) -> [String] {
        var broken: [String] = []
        for (slot, name) in required where (values.attributes[slot] ?? .null).isNull {
            broken.append("\(name) is required")
        }
        for (slot, attribute) in ruled {
            guard let stored = values.attributes[slot], !stored.isNull else { continue }
            let value = AttributeValueDecoder.decode(StoredValue(stored), as: attribute, store: nil)
            for rule in attribute.validationRules {
                if let problem = rule.problem(with: value) { broken.append("\(attribute.name) \(problem)") }
            }
        }
        for rel in checkedRelationships {
            if !rel.isToMany {
                if !rel.isOptional, (values.toOnes[rel.name] ?? nil) == nil { broken.append("\(rel.name) is required") }
                continue
            }
            guard toManysGiven else { continue }
            let count = values.toManys[rel.name]?.count ?? 0
            if count == 0 && rel.isOptional { continue }
            if count < rel.minCount {
                broken.append("\(rel.name) needs at least \(rel.minCount) object(s), has \(count)")
            }
            if rel.maxCount > 0 && count > rel.maxCount {
                broken.append("\(rel.name) allows at most \(rel.maxCount) object(s), has \(count)")
            }
        }
        return broken
    }

    /// A stored row's values by column.
    func read(_ key: Int64, db: Database) throws -> (values: [String: DatabaseValue], version: Int64) {
        var names: [String] = []
        for column in rowColumns {
            switch column {
            case .attribute(_, let c, _): names.append(c)
            case .toOne(_, let c, let e): names.append(c); if let e { names.append(e) }
            }
        }
        let sql = "SELECT Z_OPT" + names.map { ", \(SQL.identifier($0))" }.joined() + " FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: [key]) else { return ([:], 0) }
        var values: [String: DatabaseValue] = [:]
        for (i, name) in names.enumerated() { values[name] = row[i + 1] }
        return (values, Int64.fromDatabaseValue(row[0]) ?? 0)
    }

    /// A refused row's reason in the model's words: a uniqueness constraint names its
    /// attributes.
    func constraintReason(_ error: DatabaseError) -> String {
        let message = error.message ?? "a constraint failed"
        if message.contains("UNIQUE"), message.contains(".Z_PK") { return "its object ID is taken in the store" }
        if message.contains("UNIQUE") {
            // `UNIQUE constraint failed: ZPERSON.ZNAME, ZPERSON.ZEMAIL`
            let columns = message.split(separator: ":").last.map { $0.split(separator: ",").map { $0.split(separator: ".").last.map(String.init) ?? "" } } ?? []
            let names = columns.compactMap { column in
                entity.attributes.first { $0.column == column.trimmingCharacters(in: .whitespaces) }?.attribute.name
            }
            return "another \(entity.name) has the same " + (names.isEmpty ? "unique values" : names.joined(separator: " and "))
                + " (a uniqueness constraint of the model)"
        }
        return message
    }
}

/// An attribute as the conversions take it: a reference, so that a million rows of slots
/// copy a pointer, not the description's strings.
final class ImportAttribute {
    let description: AttributeDescription
    let name: String
    let type: AttributeType
    let holdsJSON: Bool

    init(_ description: AttributeDescription) {
        self.description = description
        name = description.name
        type = description.type
        holdsJSON = description.holdsJSON
    }
}

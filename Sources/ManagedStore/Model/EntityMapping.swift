/// How one relationship is stored in SQL (coredata-store-format.md §3).
public enum RelationshipStorage: Sendable, Equatable {
    /// To-one: a key column in the source's table, plus `Z<n>_<R>` naming the destination's
    /// concrete entity when the destination has sub-entities.
    case foreignKey(column: String, entityColumn: String?)
    /// To-many whose inverse is to-one: the inverse's key column in the destination table;
    /// ordered relationships keep the position in `Z_FOK_…`.
    case inverseForeignKey(table: String, column: String, orderColumn: String?)
    /// To-many without an inverse: a hidden key column `Z<id><R>` in the destination table.
    case hiddenForeignKey(table: String, column: String, orderColumn: String?)
    /// Many-to-many: a join table of source and destination keys.
    case joinTable(table: String, sourceColumn: String, destinationColumn: String, orderColumn: String?)
    /// Transient, or no storage could be found in the schema (the reason says which).
    case none(reason: String)

    public var summary: String {
        switch self {
        case .foreignKey(let column, let entityColumn):
            return "foreign key \(column)" + (entityColumn.map { " (entity in \($0))" } ?? "")
        case .inverseForeignKey(let table, let column, let order):
            return "inverse key \(table).\(column)" + (order.map { ", order \($0)" } ?? "")
        case .hiddenForeignKey(let table, let column, let order):
            return "hidden key \(table).\(column)" + (order.map { ", order \($0)" } ?? "")
        case .joinTable(let table, let source, let destination, let order):
            return "join table \(table)(\(source), \(destination)" + (order.map { ", \($0)" } ?? "") + ")"
        case .none(let reason):
            return reason
        }
    }
}

public struct AttributeMapping: Sendable {
    public let attribute: AttributeDescription
    public let declaredBy: String
    /// `nil` for transient attributes and for columns the schema does not have.
    public let column: String?
}

public struct RelationshipMapping: Sendable {
    public let relationship: RelationshipDescription
    public let declaredBy: String
    public let storage: RelationshipStorage
}

/// An entity as it lives in SQL: its root table, the `Z_ENT` values a fetch of it must
/// match, and the column or storage of every property, inherited ones included.
///
/// A class, immutable: it is handed to every row a fetch, an export or an import touches,
/// and a reference costs one retain where a copy of these fields cost one per field.
public final class EntityMapping: Sendable {
    public let name: String
    public let entityID: Int?
    public let superentityName: String?
    public let isAbstract: Bool
    public let table: String
    /// `Z_ENT` values of this entity and every entity below it.
    public let entityIDs: [Int]
    /// The root of the table has sub-entities: rows carry a meaningful `Z_ENT`.
    public let tableHasSubentities: Bool
    public let primaryKeyColumn: String
    public let entityColumn: String?
    public let versionColumn: String?
    public let attributes: [AttributeMapping]
    public let relationships: [RelationshipMapping]
    public let fetchedProperties: [FetchedPropertyDescription]
    /// Attribute positions by name, and by lowercased name (the first of each), and the dotted
    /// prefixes of composite leaves (`address` of `address.city`), as written and lowercased:
    /// a fetch looks up every attribute it selects, and on an entity of hundreds of
    /// attributes (a store's schema read without its model) scanning them each time made a
    /// first fetch quadratic (FuzzWholeStore).
    private let attributeIndex: [String: Int]
    private let foldedAttributeIndex: [String: Int]
    private let compositePrefixes: Set<String>
    private let foldedCompositePrefixes: Set<String>

    public init(name: String, entityID: Int?, superentityName: String?, isAbstract: Bool, table: String, entityIDs: [Int],
                tableHasSubentities: Bool, primaryKeyColumn: String, entityColumn: String?, versionColumn: String?,
                attributes: [AttributeMapping], relationships: [RelationshipMapping], fetchedProperties: [FetchedPropertyDescription]) {
        self.name = name
        self.entityID = entityID
        self.superentityName = superentityName
        self.isAbstract = isAbstract
        self.table = table
        self.entityIDs = entityIDs
        self.tableHasSubentities = tableHasSubentities
        self.primaryKeyColumn = primaryKeyColumn
        self.entityColumn = entityColumn
        self.versionColumn = versionColumn
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        var index: [String: Int] = [:], folded: [String: Int] = [:]
        var prefixes = Set<String>(), foldedPrefixes = Set<String>()
        for (i, mapping) in attributes.enumerated() {
            let name = mapping.attribute.name, lowered = name.lowercased()
            if index[name] == nil { index[name] = i }
            if folded[lowered] == nil { folded[lowered] = i }
            for dot in name.indices where name[dot] == "." { prefixes.insert(String(name[..<dot])) }
            for dot in lowered.indices where lowered[dot] == "." { foldedPrefixes.insert(String(lowered[..<dot])) }
        }
        attributeIndex = index
        foldedAttributeIndex = folded
        compositePrefixes = prefixes
        foldedCompositePrefixes = foldedPrefixes
    }

    public func attribute(_ name: String) -> AttributeMapping? {
        if let i = attributeIndex[name] ?? foldedAttributeIndex[name.lowercased()] { return attributes[i] }
        // Case folding lowercasing does not do (`ß` and `SS`).
        return attributes.first { $0.attribute.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    public func relationship(_ name: String) -> RelationshipMapping? {
        relationships.first { $0.relationship.name == name }
            ?? relationships.first { $0.relationship.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// A composite attribute's leaf at the start of `keys[start...]`: the longest run of keys
    /// whose dotted join names an attribute (`address`, `city` → `address.city`), with the
    /// index of the run's last key. nil when `keys[start]` is not a composite here.
    public func compositeLeaf(_ keys: [String], from start: Int) -> (leaf: AttributeMapping, last: Int)? {
        guard start + 1 < keys.count, isComposite(keys[start]) else { return nil }
        for end in stride(from: keys.count - 1, to: start, by: -1) {
            if let leaf = attribute(keys[start...end].joined(separator: ".")) { return (leaf, end) }
        }
        return nil
    }

    /// Whether `key` names a composite attribute (or a composite inside one): some leaf
    /// attribute's name starts with `key.`.
    public func isComposite(_ key: String) -> Bool {
        compositePrefixes.contains(key) || foldedCompositePrefixes.contains(key.lowercased())
    }

    /// The columns of a uniqueness constraint's members (attributes, or to-one
    /// relationships by their key); nil when one has none.
    public func columns(of constraint: [String]) -> [String]? {
        let columns = constraint.compactMap { name -> String? in
            if let column = attribute(name)?.column { return column }
            if let r = relationship(name), case .foreignKey(let column, _) = r.storage { return column }
            return nil
        }
        return columns.count == constraint.count ? columns : nil
    }

    /// Stored attributes that have a column, in a stable order for fetches and output.
    public var storedAttributes: [AttributeMapping] {
        attributes.filter { $0.column != nil }
    }
}

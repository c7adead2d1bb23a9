import GRDB

/// A fetch request compiled to SQL for one store, with what each selected column means,
/// so rows can be decoded as they stream past.
public struct FetchPlan: Sendable {
    public struct Property: Sendable {
        public let name: String
        /// The attribute to decode the column as; nil for a to-one relationship.
        public let attribute: AttributeDescription?
        /// A to-one relationship's destination entity.
        public let destination: String?
        let index: Int
        let entityIndex: Int?
    }

    public let request: FetchRequest
    public let entity: EntityMapping
    /// The statement a fetch (or count) runs.
    public let statement: SQLFragment
    /// For a batched fetch: the statement for one batch, with `?` list appended by the executor.
    let batchStatement: String?
    public let properties: [Property]
    public let warnings: [String]
    /// What `decode` needs per property, kept small: rows are decoded a million at a time.
    struct Decoder {
        let index: Int
        let type: AttributeType?
        let external: Bool
        /// The column may hold SwiftData's JSON (`AttributeDescription.holdsJSON`).
        let json: Bool
        let destination: String
        let entityIndex: Int?

        /// A plain attribute, which a row can hand over as it sits (`RowValue`) rather
        /// than decoded: the one shape a million-row fetch of a few keys spends its time on.
        var readsInPlace: Bool {
            guard !external, let type else { return false }
            switch type {
            case .string, .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean, .date: return true
            default: return false
            }
        }
    }
    let decoders: [Decoder]
    let entityIndex: Int?
    let primaryKeyIndex: Int?
    let versionIndex: Int?
    /// The table's entities' names by entity ID (`Z_ENT`, a small number): looked up on
    /// every row, so an array rather than a hashed dictionary.
    let entityNames: [String?]
    let storeUUID: String
    let storeFile: StoreFile?
    let log: SQLDebugLog?

    public init(_ request: FetchRequest, store: PersistentStore) throws {
        let entity = try store.entity(request.entityName)
        log = store.log
        self.request = request
        self.entity = entity
        storeUUID = store.uuid
        storeFile = store.file
        var names: [String?] = []
        for e in store.mapping.entities where e.table == entity.table {
            guard let id = e.entityID, (0..<65_536).contains(id) else { continue }
            if names.count <= id { names += Array(repeating: nil, count: id + 1 - names.count) }
            names[id] = e.name
        }
        entityNames = names

        let compiler = PredicateCompiler(mapping: store.mapping, text: request.predicateText)
        let root = compiler.rootScope(entity)
        var conditions: [SQLFragment] = []
        if let filter = compiler.entityFilter(alias: "t0", entity) { conditions.append(SQLFragment(filter)) }
        if let keys = request.primaryKeys {
            conditions.append(SQLFragment("\(root.primaryKey) IN (\(keys.map { _ in "?" }.joined(separator: ", ")))", keys.map(\.databaseValue)))
        }
        if !request.excludedPrimaryKeys.isEmpty {
            let keys = request.excludedPrimaryKeys
            conditions.append(SQLFragment("\(root.primaryKey) NOT IN (\(keys.map { _ in "?" }.joined(separator: ", ")))", keys.map(\.databaseValue)))
        }
        if let predicate = request.predicate {
            switch predicate {
            case .constant(true): break
            default: conditions.append(try compiler.condition(predicate, in: root))
            }
        }
        var order: [SQLFragment] = []
        var terms: [SQLFragment] = []
        if request.after != nil, request.sortDescriptors.count > 1 { throw FetchError.badOption(FetchError.keysetSortKeys) }
        for sort in request.sortDescriptors {
            do {
                let term = try compiler.orderTerm(sort.keyPath, in: root)
                terms.append(term)
                order.append(term + (sort.ascending ? "" : " DESC"))
            } catch let e as PredicateFormatError {
                throw FetchError.badSortKey(sort.keyPath, e.message)
            }
        }
        if let after = request.after {
            // The primary key breaks ties, so the order is total and a page follows its last row.
            if let condition = after.condition(term: terms.first, ascending: request.sortDescriptors.first?.ascending ?? true,
                                               primaryKey: root.primaryKey) {
                conditions.append(condition)
            }
            order.append(SQLFragment(root.primaryKey))
        }

        // The selected columns, in Core Data's order: entity, key, version, then properties.
        var columns: [String] = []
        var properties: [Property] = []
        var entityIndex: Int?
        var primaryKeyIndex: Int?
        var versionIndex: Int?
        let wantsObjectID = request.resultType == .objects || request.resultType == .ids
        if wantsObjectID {
            entityIndex = 0
            columns.append(entity.tableHasSubentities ? root.column(entity.entityColumn ?? "Z_ENT") : "0")
            primaryKeyIndex = 1
            columns.append(root.primaryKey)
            if request.resultType == .objects, let version = entity.versionColumn {
                columns.append(root.column(version))
                versionIndex = columns.count - 1
            }
        }
        if request.resultType == .objects || request.resultType == .dicts {
            let keys = request.propertiesToFetch.map { FetchPlan.expandingComposites($0, entity) } ?? FetchPlan.defaultProperties(entity)
            for key in keys {
                let selected: PredicateCompiler.Selected
                do { selected = try compiler.selectable(key, in: root, toManyKeys: request.resultType == .objects) } catch let e as PredicateFormatError {
                    throw FetchError.badKey(key, e.message)
                }
                columns.append(selected.sql)
                var entityColumnIndex: Int?
                if let sql = selected.entityColumnSQL {
                    columns.append(sql)
                    entityColumnIndex = columns.count - 1
                }
                properties.append(Property(name: key, attribute: selected.attribute, destination: selected.destination,
                                           index: columns.count - 1 - (entityColumnIndex == nil ? 0 : 1), entityIndex: entityColumnIndex))
            }
        }
        self.properties = properties
        decoders = properties.map {
            Decoder(index: $0.index, type: $0.attribute?.type, external: $0.attribute?.allowsExternalBinaryDataStorage ?? false,
                    json: $0.attribute?.holdsJSON ?? false, destination: $0.destination ?? "", entityIndex: $0.entityIndex)
        }
        self.entityIndex = entityIndex
        self.primaryKeyIndex = primaryKeyIndex
        self.versionIndex = versionIndex

        let from = root.from.sql
        let whereClause = conditions.isEmpty ? SQLFragment("") : " WHERE " + SQLFragment.joined(conditions, separator: " AND ")
        var tail = ""
        if !order.isEmpty { tail += " ORDER BY " + order.map(\.sql).joined(separator: ", ") }
        let orderArguments = order.flatMap(\.arguments)
        if let limit = request.fetchLimit { tail += " LIMIT \(limit)" }
        if let offset = request.fetchOffset, offset > 0 { tail += (request.fetchLimit == nil ? " LIMIT -1" : "") + " OFFSET \(offset)" }

        switch request.resultType {
        case .count:
            if conditions.isEmpty && from == root.from.base && tail.isEmpty {
                statement = SQLFragment("SELECT COUNT(*) FROM \(SQL.identifier(entity.table))")
            } else if tail.isEmpty {
                statement = "SELECT COUNT(*) FROM \(from)" + whereClause
            } else {
                statement = "SELECT COUNT(*) FROM (SELECT 1 FROM \(from)" + whereClause + SQLFragment(tail, orderArguments) + ")"
            }
            batchStatement = nil
        default:
            if let batch = request.batchSize, batch > 0, wantsObjectID {
                statement = "SELECT 0, \(root.primaryKey) FROM \(from)" + whereClause + SQLFragment(tail, orderArguments)
                batchStatement = "SELECT \(columns.joined(separator: ", ")) FROM \(from) WHERE \(root.primaryKey) IN "
            } else {
                statement = "SELECT \(columns.joined(separator: ", ")) FROM \(from)" + whereClause + SQLFragment(tail, orderArguments)
                batchStatement = nil
            }
        }
        warnings = compiler.warnings
    }

    /// Stored attributes, then to-one relationships, in model order.
    /// A composite named whole (`--keys name,glasswareType`) stands for its stored leaves, in
    /// the model's order: the composite shows whole, as a fetch of every property shows it.
    static func expandingComposites(_ keys: [String], _ entity: EntityMapping) -> [String] {
        keys.flatMap { key -> [String] in
            guard entity.attribute(key) == nil, entity.relationship(key) == nil, entity.isComposite(key) else { return [key] }
            let leaves = entity.storedAttributes.map(\.attribute.name).filter { $0.hasPrefix(key + ".") }
            return leaves.isEmpty ? [key] : leaves
        }
    }

    static func defaultProperties(_ entity: EntityMapping) -> [String] {
        entity.storedAttributes.map(\.attribute.name)
            + entity.relationships.compactMap {
                if case .foreignKey = $0.storage { return $0.relationship.name }
                return nil
            }
    }
}

public enum FetchError: Error, CustomStringConvertible, Equatable {
    case badSortKey(String, String)
    case badKey(String, String)
    case badOption(String)
    /// A keyset page's object is gone from the store (its URI).
    case objectGone(String)

    /// Why paging by key is refused with several sort keys.
    static let keysetSortKeys = "paging by key follows one sort key (and the primary key); sort by one key"
    /// A row read after its fetch stepped past it: only the current row can be completed.
    case rowNoLongerCurrent

    public var description: String {
        switch self {
        case .rowNoLongerCurrent: return "a fetched row was read after the fetch had moved past it"
        case .badSortKey(let key, let why): return "cannot sort by \(key): \(why)"
        case .badKey(let key, let why): return "cannot fetch key \(key): \(why)"
        case .badOption(let why): return why
        case .objectGone(let uri): return "\(uri) is no longer in the store, so no page can start after it"
        }
    }
}

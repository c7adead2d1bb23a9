import GRDB

/// Which classes a store's transformable attributes actually hold, counted over their rows:
/// the list an `NSSecureUnarchiveFromDataTransformer` subclass must allow
/// (`allowedTopLevelClasses`, and every class nested inside) for the app to read them.
public struct ArchivedClassCensus: Sendable {
    /// What a transformable column's bytes turned out to be.
    public enum Content: Hashable, Sendable {
        /// A keyed archive holding instances of the class.
        case archivedClass(String)
        /// A plain binary property list (no keyed archive around it).
        case propertyList
        /// Bytes in a custom transformer's own format.
        case otherFormat
        /// A keyed archive or property list that does not read: the reason.
        case damaged(String)
        /// Not a blob at all (a hand-edited row).
        case notBytes
    }

    public struct Line: Sendable, Equatable {
        public let entityName: String
        public let attributeName: String
        public let transformerName: String?
        public let content: Content
        /// Rows whose value contains the class (a row with an array of dates counts once
        /// for NSArray and once for NSDate).
        public let rows: Int
    }

    public let lines: [Line]

    /// Every transformable attribute of the given entities (all, when nil), each counted
    /// once under the entity that declares it, over that entity's rows and its sub-entities'.
    public init(store: PersistentStore, entities: [EntityMapping]? = nil, _ db: Database) throws {
        var lines: [Line] = []
        for entity in entities ?? store.mapping.entities {
            guard store.schema.table(entity.table) != nil else { continue }
            for mapping in entity.attributes where mapping.declaredBy == entity.name && mapping.attribute.type == .transformable {
                guard let column = mapping.column else { continue }
                var counts: [Content: Int] = [:]
                var sql = "SELECT \(SQL.identifier(column)) FROM \(SQL.identifier(entity.table)) WHERE \(SQL.identifier(column)) IS NOT NULL"
                if entity.tableHasSubentities, let entityColumn = entity.entityColumn, !entity.entityIDs.isEmpty {
                    sql += " AND \(entityColumn) IN (\(entity.entityIDs.map(String.init).joined(separator: ",")))"
                }
                let cursor = try Row.fetchCursor(db, sql: sql)
                while let row = try cursor.next() {
                    try Cancellation.check()
                    for content in Self.contents(of: StoredValue(row[0] as DatabaseValue)) { counts[content, default: 0] += 1 }
                }
                let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : Self.order($0.key) < Self.order($1.key) }
                for (content, rows) in sorted {
                    lines.append(Line(entityName: entity.name, attributeName: mapping.attribute.name,
                                      transformerName: mapping.attribute.valueTransformerName, content: content, rows: rows))
                }
            }
        }
        self.lines = lines
    }

    /// The kinds of content one value holds: each archived class once.
    static func contents(of value: StoredValue) -> [Content] {
        guard case .blob(let bytes) = value else { return [.notBytes] }
        do {
            // Decoded in full, not only listed: the class list alone could hide a damaged graph.
            let names = try KeyedUnarchiver.decode(bytes).classNames
            return names.isEmpty ? [.propertyList] : names.sorted().map(Content.archivedClass)
        } catch KeyedUnarchiver.Error.notAnArchive {
            return [.otherFormat]
        } catch {
            return [.damaged(String(describing: error))]
        }
    }

    private static func order(_ content: Content) -> String {
        switch content {
        case .archivedClass(let name): return "0" + name
        case .propertyList: return "1"
        case .otherFormat: return "2"
        case .damaged(let why): return "3" + why
        case .notBytes: return "4"
        }
    }
}

import Foundation
import GRDB

/// A store's objects, entity by entity and in primary key order, each with every stored
/// attribute and relationship: what `export` writes as one JSON document. Each concrete
/// entity's own rows are read in one pass, and each to-many's (owner, member) pairs in
/// owner order beside it, so nothing is held but the row at hand and its members.
///
/// Values are the stored ones, so that an import gives them back: binary data and
/// externally stored data as their bytes (read from the external data folder), a
/// transformable as its archived bytes, not decoded.
public struct StoreExport {
    public let store: PersistentStore
    /// The entities exported, in the model's order: the named ones and every entity their
    /// relationships reach (and their sub-entities), or all.
    public let entities: [EntityMapping]
    /// Per entity name, the only primary keys exported (`recover`'s objects); nil: every object.
    public let keys: [String: [Int64]]?

    /// The objects of `keys` only (per entity name, their primary keys), each entity's in key order.
    public init(_ store: PersistentStore, keys: [String: [Int64]]) {
        self.store = store
        self.keys = keys
        entities = store.mapping.entities.filter { keys[$0.name]?.isEmpty == false && !$0.isAbstract && $0.entityID != nil }
    }

    /// `follows`: the entities the named ones' relationships reach come along (with their
    /// sub-entities); without it, only the named ones and their sub-entities.
    public init(_ store: PersistentStore, entities names: [String] = [], follows: Bool = true) throws {
        self.store = store
        keys = nil
        let all = store.mapping.entities
        guard !names.isEmpty else {
            entities = all.filter { !$0.isAbstract && $0.entityID != nil }
            return
        }
        var wanted: Set<String> = []
        var pending = try names.map { name -> String in
            guard let entity = store.mapping.entity(named: name) else { throw StoreError.unknownEntity(name: name, suggestion: nil) }
            return entity.name
        }
        while let name = pending.popLast() {
            guard wanted.insert(name).inserted, let entity = store.mapping.entity(named: name) else { continue }
            if follows { pending += entity.relationships.map(\.relationship.destinationEntityName) }
            pending += all.filter { $0.superentityName == name }.map(\.name)
        }
        entities = all.filter { wanted.contains($0.name) && !$0.isAbstract && $0.entityID != nil }
    }

    /// Hands each entity, then each of its objects, to the closures.
    public func run(entity: (EntityMapping) throws -> Void, object: (StoreDiff.Object) throws -> Void) throws {
        do {
            try store.reader.read { db in
                for mapping in entities {
                    try Cancellation.check()
                    try entity(mapping)
                    try walk(mapping, db, object)
                }
            }
        } catch {
            throw StoreConnection.translate(error, file: store.file)
        }
    }

    private func walk(_ mapping: EntityMapping, _ db: Database, _ body: (StoreDiff.Object) throws -> Void) throws {
        let plan = EntityPlan(mapping, mapping, matching: .primaryKey)
        var columns = plan.attributes.map { "x.\(SQL.identifier($0.columnA))" }
        for toOne in plan.toOnes {
            columns.append("x.\(SQL.identifier(toOne.columnA))")
            columns.append(toOne.entityColumn.map { "x.\(SQL.identifier($0))" } ?? "NULL")
        }
        // Keys are integers: written into the text as numbers, they need no binding.
        let only = keys.map { " AND x.Z_PK IN (" + ($0[mapping.name] ?? []).sorted().map(String.init).joined(separator: ",") + ")" } ?? ""
        let sql = "SELECT x.Z_PK" + columns.map { ", " + $0 }.joined() + " FROM \(plan.table("main", "x")) WHERE \(plan.own("main", "x"))\(only) ORDER BY x.Z_PK"
        var members = try plan.toManys.map { try MemberCursor($0, store: store, db: db) }
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            let key: Int64 = row[0]
            var values: [(key: String, value: ObjectValue)] = []
            for (i, attribute) in plan.attributes.enumerated() {
                values.append((attribute.name, .attribute(inline(AttributeValueDecoder.decode(StoredValue(row[i + 1] as DatabaseValue),
                                                                                              as: attribute.description, store: store.file)))))
            }
            var column = plan.attributes.count + 1
            for toOne in plan.toOnes {
                let target: DatabaseValue = row[column], entityNumber: DatabaseValue = row[column + 1]
                column += 2
                guard case .int64(let pk) = target.storage else {
                    values.append((toOne.name, .toOne(nil)))
                    continue
                }
                values.append((toOne.name, .toOne(Naming(store: store).objectID(toOne.destination, pk, entityNumber))))
            }
            for i in members.indices {
                values.append((members[i].toMany.name, .toMany(try members[i].members(of: key))))
            }
            try body(StoreDiff.Object(objectID: ObjectID(storeUUID: store.uuid, entityName: mapping.name, primaryKey: key), values: values))
        }
    }

    /// Externally stored data read in; a transformable as its archived bytes.
    private func inline(_ value: AttributeValue) -> AttributeValue {
        switch value {
        case .externalFile(let path, _):
            guard let data = FileManager.default.contents(atPath: path) else { return value }
            return .data([UInt8](data))
        case .transformable(_, let bytes): return .data(bytes)
        default: return value
        }
    }
}

/// One to-many's (owner, member) pairs in owner order (then the relationship's own order),
/// read alongside the owners' rows.
struct MemberCursor {
    let toMany: EntityPlan.ToMany
    private let rows: RowCursor
    private var pending: (owner: Int64, member: Int64, entity: DatabaseValue)?
    private let export: (String, Int64, DatabaseValue) -> ObjectID

    init(_ toMany: EntityPlan.ToMany, store: PersistentStore, db: Database) throws {
        self.toMany = toMany
        let destination = store.mapping.entity(named: toMany.destination)
        let entityColumn = destination?.tableHasSubentities == true ? destination?.entityColumn : nil
        let order = toMany.order.map { ", p.\(SQL.identifier($0))" } ?? ""
        let sql: String
        if let entityColumn, let table = destination?.table {
            sql = "SELECT p.\(SQL.identifier(toMany.owner)), p.\(SQL.identifier(toMany.member)), d.\(SQL.identifier(entityColumn))"
                + " FROM \(SQL.identifier(toMany.table)) p LEFT JOIN \(SQL.identifier(table)) d ON d.Z_PK = p.\(SQL.identifier(toMany.member))"
                + " WHERE p.\(SQL.identifier(toMany.owner)) IS NOT NULL ORDER BY 1\(order), 2"
        } else {
            sql = "SELECT p.\(SQL.identifier(toMany.owner)), p.\(SQL.identifier(toMany.member)), NULL FROM \(SQL.identifier(toMany.table)) p"
                + " WHERE p.\(SQL.identifier(toMany.owner)) IS NOT NULL ORDER BY 1\(order), 2"
        }
        rows = try Row.fetchCursor(db, sql: sql)
        let exporter = StoreExport.Naming(store: store)
        export = { exporter.objectID($0, $1, $2) }
    }

    /// The members of `owner`; owners before it (rows of another entity in the table) are passed over.
    mutating func members(of owner: Int64) throws -> [ObjectID] {
        var found: [ObjectID] = []
        while true {
            if pending == nil {
                guard let row = try rows.next() else { return found }
                pending = (row[0], row[1], row[2])
            }
            guard let next = pending else { return found }
            if next.owner < owner {
                pending = nil
                continue
            }
            guard next.owner == owner else { return found }
            found.append(export(toMany.destination, next.member, next.entity))
            pending = nil
        }
    }
}

extension StoreExport {
    /// The object a key names: of the entity its entity column says, when it says one.
    struct Naming {
        let store: PersistentStore
        func objectID(_ destination: String, _ pk: Int64, _ entityNumber: DatabaseValue) -> ObjectID {
            var entity = destination
            if case .int64(let number) = entityNumber.storage, let named = store.mapping.entity(withID: Int(number)) { entity = named.name }
            return ObjectID(storeUUID: store.uuid, entityName: entity, primaryKey: pk)
        }
    }
}

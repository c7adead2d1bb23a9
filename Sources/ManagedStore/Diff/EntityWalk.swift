import Foundation
import GRDB

/// One entity's comparison, as three queries on the joined connection: objects only B has,
/// only A has, and both have with a difference; to-many members first, gathered by owner.
struct EntityWalk {
    let plan: EntityPlan
    let a: PersistentStore
    let b: PersistentStore
    let db: Database
    /// Per owner key in A: each to-many's added and removed members.
    private var members: [Int64: [(key: String, change: StoreDiff.Change)]] = [:]
    /// The owners in `members`, in key order, and how far the walk has passed them: an
    /// object whose only changes are members is handed over when the walk reaches its key.
    private var owners: [Int64] = []
    private var nextOwner = 0

    init(plan: EntityPlan, a: PersistentStore, b: PersistentStore, db: Database) {
        self.plan = plan
        self.a = a
        self.b = b
        self.db = db
    }

    private var keyColumns: [(a: String, b: String)] {
        switch plan.matching {
        case .primaryKey: return [("Z_PK", "Z_PK")]
        case .keys(let keys):
            return keys.compactMap { key in
                guard let x = plan.entity.attribute(key)?.column, let y = plan.other.attribute(key)?.column else { return nil }
                return (x, y)
            }
        }
    }

    /// `x.K1 IS y.K1 AND …`: the key matches (NULL matching NULL, as a key can be).
    private func keyMatch(_ x: String, _ y: String, flipped: Bool = false) -> String {
        keyColumns.map { "\(x).\(SQL.identifier(flipped ? $0.b : $0.a)) IS \(y).\(SQL.identifier(flipped ? $0.a : $0.b))" }
            .joined(separator: " AND ")
    }

    mutating func run(_ body: (StoreDiff.Event) throws -> Void) throws -> Bool {
        try checkKeysAreUnique("main")
        try checkKeysAreUnique("other")
        var differs = false
        if plan.matching == .primaryKey { try gatherMembers() }
        var inserted: Set<Int64> = []
        var deleted: Set<Int64> = []
        for (side, schema, otherSchema) in [(true, "other", "main"), (false, "main", "other")] {
            let store = side ? b : a
            let mapping = side ? plan.other : plan.entity
            let columns = plan.attributes.map { side ? $0.columnB : $0.columnA } + plan.toOnes.map { side ? $0.columnB : $0.columnA }
            let sql = "SELECT x.Z_PK" + columns.map { ", x.\(SQL.identifier($0))" }.joined()
                + " FROM \(plan.table(schema, "x")) WHERE \(plan.own(schema, "x"))"
                + " AND NOT EXISTS (SELECT 1 FROM \(plan.table(otherSchema, "y")) WHERE \(plan.own(otherSchema, "y"))"
                + " AND \(keyMatch("x", "y", flipped: side))) ORDER BY x.Z_PK"
            let cursor = try Row.fetchCursor(db, sql: sql)
            while let row = try cursor.next() {
                differs = true
                let key: Int64 = row[0]
                if side { inserted.insert(key) } else { deleted.insert(key) }
                let id = ObjectID(storeUUID: store.uuid, entityName: mapping.name, primaryKey: key)
                var values: [(String, ObjectValue)] = []
                for (i, attribute) in plan.attributes.enumerated() {
                    values.append((attribute.name, .attribute(decode(row[i + 1], attribute, store))))
                }
                for (i, toOne) in plan.toOnes.enumerated() {
                    values.append((toOne.name, reference(row[plan.attributes.count + i + 1], toOne.destination, store)))
                }
                let object = StoreDiff.Object(objectID: id, values: values)
                try body(side ? .inserted(object) : .deleted(object))
            }
        }
        if try updated(body, skipping: inserted.union(deleted)) { differs = true }
        return differs
    }

    /// Both sides' objects whose compared columns differ, and those whose only change is
    /// in a to-many.
    private mutating func updated(_ body: (StoreDiff.Event) throws -> Void, skipping: Set<Int64>) throws -> Bool {
        var differs = false
        let pairs = plan.attributes.map { ($0.columnA, $0.columnB) } + plan.toOnes.map { ($0.columnA, $0.columnB) }
        let differing = pairs.map { "x.\(SQL.identifier($0.0)) IS NOT y.\(SQL.identifier($0.1))" }
        let selected: String = pairs.map { ", x.\(SQL.identifier($0.0)), y.\(SQL.identifier($0.1))" }.joined()
        let join: String = "\(plan.table("main", "x")) JOIN \(plan.table("other", "y")) ON \(plan.own("other", "y")) AND \(keyMatch("x", "y"))"
        let condition: String = differing.isEmpty ? "0" : "(" + differing.joined(separator: " OR ") + ")"
        let sql = "SELECT x.Z_PK, y.Z_PK\(selected) FROM \(join) WHERE \(plan.own("main", "x")) AND \(condition) ORDER BY x.Z_PK"
        let cursor = try Row.fetchCursor(db, sql: sql)
        while let row = try cursor.next() {
            let key: Int64 = row[0]
            let otherKey: Int64 = row[1]
            var changes: [(key: String, change: StoreDiff.Change)] = []
            for (i, attribute) in plan.attributes.enumerated() {
                let old: DatabaseValue = row[2 + 2 * i], new: DatabaseValue = row[3 + 2 * i]
                if old != new || !sameStorage(old, new) {
                    changes.append((attribute.name, .value(old: .attribute(decode(old, attribute, a)), new: .attribute(decode(new, attribute, b)))))
                }
            }
            for (j, toOne) in plan.toOnes.enumerated() {
                let i = plan.attributes.count + j
                let old: DatabaseValue = row[2 + 2 * i], new: DatabaseValue = row[3 + 2 * i]
                if old != new { changes.append((toOne.name, .value(old: reference(old, toOne.destination, a), new: reference(new, toOne.destination, b)))) }
            }
            try flushMembers(before: key, body, skipping: skipping, differs: &differs)
            changes += members.removeValue(forKey: key) ?? []
            guard !changes.isEmpty else { continue }
            differs = true
            try body(.updated(objectID: ObjectID(storeUUID: a.uuid, entityName: plan.entity.name, primaryKey: key),
                              otherID: ObjectID(storeUUID: b.uuid, entityName: plan.other.name, primaryKey: otherKey), changes: changes))
        }
        try flushMembers(before: .max, body, skipping: skipping, differs: &differs)
        return differs
    }

    /// GRDB's `DatabaseValue` equality takes 1 and 1.0 for one value; SQLite's `IS NOT`
    /// does too. Both are kept apart only by their storage class, which a hand edit changes.
    private func sameStorage(_ x: DatabaseValue, _ y: DatabaseValue) -> Bool {
        switch (x.storage, y.storage) {
        case (.int64, .int64), (.double, .double), (.string, .string), (.blob, .blob), (.null, .null): return true
        default: return false
        }
    }

    /// Objects whose only changes are to-many members, with keys below `key`, in key order.
    private mutating func flushMembers(before key: Int64, _ body: (StoreDiff.Event) throws -> Void, skipping: Set<Int64>,
                                       differs: inout Bool) throws {
        while nextOwner < owners.count, owners[nextOwner] < key {
            let owner = owners[nextOwner]
            nextOwner += 1
            let changes = members.removeValue(forKey: owner) ?? []
            guard !skipping.contains(owner), !changes.isEmpty else { continue }
            differs = true
            try body(.updated(objectID: ObjectID(storeUUID: a.uuid, entityName: plan.entity.name, primaryKey: owner),
                              otherID: ObjectID(storeUUID: b.uuid, entityName: plan.other.name, primaryKey: owner), changes: changes))
        }
    }

    /// Each to-many's members added and removed, by owner: pairs one side has and the other not.
    private mutating func gatherMembers() throws {
        for toMany in plan.toManys {
            var added: [Int64: [Int64]] = [:]
            var removed: [Int64: [Int64]] = [:]
            for (into, first, second) in [(true, "other", "main"), (false, "main", "other")] {
                let pairs = { (schema: String) in
                    "SELECT \(SQL.identifier(toMany.owner)), \(SQL.identifier(toMany.member)) FROM \(schema).\(SQL.identifier(toMany.table))"
                        + " WHERE \(SQL.identifier(toMany.owner)) IS NOT NULL"
                }
                let cursor = try Row.fetchCursor(db, sql: pairs(first) + " EXCEPT " + pairs(second) + " ORDER BY 1, 2")
                while let row = try cursor.next() {
                    let owner: Int64 = row[0], member: Int64 = row[1]
                    if into { added[owner, default: []].append(member) } else { removed[owner, default: []].append(member) }
                }
            }
            for owner in Set(added.keys).union(removed.keys) {
                let ids = { (keys: [Int64]?, store: PersistentStore) in
                    (keys ?? []).map { ObjectID(storeUUID: store.uuid, entityName: toMany.destination, primaryKey: $0) }
                }
                members[owner, default: []].append((toMany.name, .members(added: ids(added[owner], b), removed: ids(removed[owner], a))))
            }
        }
        owners = members.keys.sorted()
    }

    /// Two objects sharing a key cannot be matched: said, rather than pairing one at random.
    private func checkKeysAreUnique(_ schema: String) throws {
        guard case .keys(let keys) = plan.matching else { return }
        let columns = keyColumns.map { "x.\(SQL.identifier(schema == "main" ? $0.a : $0.b))" }.joined(separator: ", ")
        let repeated = try Row.fetchOne(db, sql: "SELECT count(*) FROM \(plan.table(schema, "x")) WHERE \(plan.own(schema, "x"))"
                                        + " GROUP BY \(columns) HAVING count(*) > 1 LIMIT 1")
        if repeated != nil {
            throw StoreDiffError.keyRepeats(entity: plan.entity.name, keys: keys, store: schema == "main" ? a.path : b.path)
        }
    }

    private func decode(_ value: DatabaseValue, _ attribute: EntityPlan.Attribute, _ store: PersistentStore) -> AttributeValue {
        AttributeValueDecoder.decode(StoredValue(value), as: attribute.description, store: store.file)
    }

    private func reference(_ value: DatabaseValue, _ destination: String, _ store: PersistentStore) -> ObjectValue {
        guard case .int64(let key) = value.storage else { return .toOne(nil) }
        return .toOne(ObjectID(storeUUID: store.uuid, entityName: destination, primaryKey: key))
    }
}

/// A key given (or found) to match objects by repeats in a store.
public enum StoreDiffError: Error, CustomStringConvertible, Equatable {
    case keyRepeats(entity: String, keys: [String], store: String)

    public var description: String {
        switch self {
        case .keyRepeats(let entity, let keys, let store):
            return "\(entity) objects share one \(keys.joined(separator: ", ")) in \(store): that key cannot match objects one to one"
        }
    }
}

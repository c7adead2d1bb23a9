import Foundation
import GRDB

/// The numbering of an entity's to-many bits as the store's own history shows it, where it
/// contradicts the order computed from Core Data's dictionary (`SQLEntity`, whose emulation
/// misses a few entities: Notes' ICFolder on macOS 12).
///
/// The evidence is the inverse-update case the rule was measured with: when Core Data
/// inserts an object whose to-one has a to-many inverse, the same transaction records an
/// update of the object it points at, with the inverse's bit set. An update with exactly one
/// bit set among the to-many bits says where that relationship is. An entity's learned order
/// is used only when its cases agree with each other and disagree with the computed order.
public struct LearnedToManyOrder: Sendable {
    /// Entity → its to-many relationships (plain, then many-to-many) in bit order.
    public let orders: [String: [String]]
    /// One sentence per entity whose order was learned, for a warning said once.
    public let notes: [String]

    public static let none = LearnedToManyOrder(orders: [:], notes: [])

    /// At most this many inserts are looked at: the evidence is in the first of them, and a
    /// history of millions must not make reading it slow.
    static let insertLimit = 20_000

    public static func learn(_ store: PersistentStore, _ db: Database) throws -> LearnedToManyOrder {
        guard store.schema.table("ACHANGE")?.hasColumn("ZCOLUMNS") == true else { return .none }
        var computed: [String: SQLEntity] = [:]
        func sqlEntity(_ name: String) -> SQLEntity {
            if let known = computed[name] { return known }
            let entity = SQLEntity(entity: name, model: store.model)
            computed[name] = entity
            return entity
        }
        // Entities with two to-manys or more: the only ones with an order to get wrong.
        let candidates = Set(store.model.entities.map(\.name).filter { sqlEntity($0).toManyRange.count > 1 })
        // Only inserts of entities with a to-one into one of them carry evidence.
        let sources = store.mapping.entities.filter { entity in
            entity.relationships.contains { r in
                !r.relationship.isToMany && r.relationship.inverseName != nil
                    && store.model.entityTree(r.relationship.destinationEntityName).contains { candidates.contains($0.name) }
            }
        }.compactMap(\.entityID)
        guard !candidates.isEmpty, !sources.isEmpty else { return .none }
        var seen: [String: [String: [Int: Int]]] = [:]
        let updates = try db.makeStatement(sql: """
            SELECT ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = ? AND ZENTITY = ? AND ZENTITYPK = ? AND ZCHANGETYPE = 1
            """)
        let inserts = try Row.fetchCursor(db, sql: "SELECT ZTRANSACTIONID, ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZCHANGETYPE = 0 "
                                          + "AND ZENTITY IN (\(sources.map(String.init).joined(separator: ", "))) LIMIT \(insertLimit)")
        while let insert = try inserts.next() {
            let (transaction, number, key): (Int64?, Int?, Int64?) = (insert[0], insert[1], insert[2])
            guard let transaction, let key, let entity = number.flatMap({ store.mapping.entity(withID: $0) }) else { continue }
            for r in entity.relationships where !r.relationship.isToMany && !r.relationship.isTransient {
                guard let inverse = r.relationship.inverseName, case .foreignKey(let column, let entityColumn) = r.storage,
                      let destination = store.mapping.entity(named: r.relationship.destinationEntityName) else { continue }
                let targetSQL = "SELECT \(SQL.identifier(column))" + (entityColumn.map { ", \(SQL.identifier($0))" } ?? "")
                    + " FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?"
                guard let target = try Row.fetchOne(db, sql: targetSQL, arguments: [key]), let targetKey = target[0] as Int64? else { continue }
                let targetEntities: [Int] = entityColumn != nil ? [target[1] as Int? ?? -1] : destination.entityIDs
                for targetEntity in targetEntities {
                    guard let updated = store.mapping.entity(withID: targetEntity), candidates.contains(updated.name) else { continue }
                    let range = sqlEntity(updated.name).toManyRange
                    for row in try Row.fetchAll(updates, arguments: [transaction, targetEntity, targetKey]) {
                        guard let bitmap = row[0] as Data? else { continue }
                        let set = range.filter { $0 / 8 < bitmap.count && bitmap[bitmap.startIndex + $0 / 8] & (0x80 >> UInt8($0 % 8)) != 0 }
                        guard set.count == 1, let position = set.first else { continue }
                        seen[updated.name, default: [:]][inverse, default: [:]][position - range.lowerBound, default: 0] += 1
                    }
                }
            }
        }
        var orders: [String: [String]] = [:]
        var notes: [String] = []
        for (entity, observations) in seen.sorted(by: { $0.key < $1.key }) {
            let names = sqlEntity(entity).toManyNames
            // Each relationship where most of its cases put it; two in one place is no order.
            let placed = observations.compactMapValues { positions in positions.max { $0.value < $1.value }?.key }
            guard Set(placed.values).count == placed.count, placed.allSatisfy({ names.contains($0.key) && $0.value < names.count }) else { continue }
            guard placed.contains(where: { names.firstIndex(of: $0.key) != $0.value }) else { continue }
            var order = [String?](repeating: nil, count: names.count)
            for (name, position) in placed { order[position] = name }
            var rest = names.filter { placed[$0] == nil }.makeIterator()
            for index in order.indices where order[index] == nil { order[index] = rest.next() }
            orders[entity] = order.compactMap { $0 }
            let cases = observations.values.reduce(0) { $0 + $1.values.reduce(0, +) }
            notes.append("the store's history numbers \(entity)'s to-many relationships in another order than Core Data's "
                         + "dictionary gives (\(cases) inverse updates show it): its bits are read and written in the history's order")
        }
        return LearnedToManyOrder(orders: orders, notes: notes)
    }
}

/// The learned order, computed once per open store (it reads the history).
final class LearnedToManyOrderCache: @unchecked Sendable {
    private let lock = NSLock()
    private var value: LearnedToManyOrder?

    func get(_ compute: () throws -> LearnedToManyOrder) -> LearnedToManyOrder {
        lock.lock()
        defer { lock.unlock() }
        if let value { return value }
        let learned = (try? compute()) ?? .none
        value = learned
        return learned
    }
}

extension PersistentStore {
    /// The to-many numbering the store's own history shows where it contradicts the
    /// computed one (`LearnedToManyOrder`); read once, on `db` (any connection to the store).
    public func learnedToManyOrder(_ db: Database) -> LearnedToManyOrder {
        learnedOrders.get { try LearnedToManyOrder.learn(self, db) }
    }
}

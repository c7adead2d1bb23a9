import Foundation
import GRDB

/// What differs between two stores, object by object: the objects only B has (inserted),
/// those only A has (deleted), and those both have whose values differ (updated: each
/// changed attribute and to-one old → new, each to-many's added and removed members).
///
/// Both stores are read on one read-only connection, B attached to A, and SQLite does the
/// matching (a join on the key, `NOT EXISTS` for the objects one side lacks, `EXCEPT` for
/// relationship members): rows stream through in key order and nothing of a store is held
/// but the changes of one entity's to-many relationships.
///
/// Objects are matched by primary key when B descends from A (the same store UUID: a
/// snapshot, a copy); otherwise by a key: the caller's, the entity's uniqueness constraint,
/// or a UUID attribute `id`. Matched by key, attributes are compared; relationships, whose
/// values are primary keys, only when matched by primary key.
public struct StoreDiff {
    public enum Matching: Equatable, Sendable, CustomStringConvertible {
        case primaryKey
        case keys([String])

        public var description: String {
            switch self {
            case .primaryKey: return "primary key"
            case .keys(let keys): return keys.joined(separator: ", ")
            }
        }
    }

    /// A changed property of an updated object.
    public enum Change: Sendable {
        case value(old: ObjectValue, new: ObjectValue)
        case members(added: [ObjectID], removed: [ObjectID])
    }

    /// An object as one side holds it: its ID and its compared properties' values.
    public struct Object: Sendable {
        public let objectID: ObjectID
        public let values: [(key: String, value: ObjectValue)]
    }

    /// What the walk hands over, entity by entity, in this order.
    public enum Event {
        case beginEntity(name: String, matching: Matching)
        case inserted(Object)
        case deleted(Object)
        /// `objectID` is A's; `otherID` B's (the same key unless matched by a key).
        case updated(objectID: ObjectID, otherID: ObjectID, changes: [(key: String, change: Change)])
        case endEntity
    }

    public let a: PersistentStore
    public let b: PersistentStore
    /// `ENTITY → keys` given by the caller.
    public let matches: [String: [String]]
    /// Only these entities, when given.
    public let only: Set<String>
    public let sameStore: Bool
    /// The models' differences; empty when B's model is A's.
    public let modelChanges: [ModelDiff.Change]
    /// Why an entity is not compared.
    public enum NotCompared: Sendable, Equatable, CustomStringConvertible {
        case onlyA, onlyB, noEntityNumber
        /// The stores are not one store's, and the entity has no key to match objects by.
        case noKey

        public var description: String {
            switch self {
            case .onlyA: return "only A has it"
            case .onlyB: return "only B has it"
            case .noEntityNumber: return "it has no Z_ENT number in one of the stores"
            case .noKey: return "the stores are not one store's and it has no key to match objects by"
            }
        }
    }

    /// Entities one side has and the other does not, or that cannot be matched, with why.
    public private(set) var notCompared: [(entity: String, reason: NotCompared)] = []
    private var plans: [EntityPlan] = []

    public init(_ a: PersistentStore, _ b: PersistentStore, matches: [String: [String]] = [:], only: [String] = []) throws {
        self.a = a
        self.b = b
        self.matches = matches
        self.only = Set(only)
        sameStore = !a.uuid.isEmpty && a.uuid == b.uuid
        modelChanges = ModelDiff(from: a.model, to: b.model).changes
        for name in only where a.mapping.entity(named: name) == nil && b.mapping.entity(named: name) == nil {
            throw StoreError.unknownEntity(name: name, suggestion: nil)
        }
        for (name, _) in matches where a.mapping.entity(named: name) == nil {
            throw StoreError.unknownEntity(name: name, suggestion: nil)
        }
        for entity in a.mapping.entities where !entity.isAbstract && (only.isEmpty || only.contains(entity.name)) {
            guard let other = b.mapping.entity(named: entity.name) else {
                notCompared.append((entity.name, .onlyA))
                continue
            }
            guard entity.entityID != nil, other.entityID != nil else {
                notCompared.append((entity.name, .noEntityNumber))
                continue
            }
            let matching: Matching
            if sameStore {
                matching = .primaryKey
            } else if let keys = inheritedMatch(entity) ?? Self.naturalKey(entity, a.model.entity(named: entity.name)) {
                for key in keys where entity.attribute(key)?.column == nil || other.attribute(key)?.column == nil {
                    throw StoreError.unknownProperty(entity: entity.name, name: key)
                }
                matching = .keys(keys)
            } else {
                notCompared.append((entity.name, .noKey))
                continue
            }
            plans.append(EntityPlan(entity, other, matching: matching))
        }
        for entity in b.mapping.entities where !entity.isAbstract && a.mapping.entity(named: entity.name) == nil
            && (only.isEmpty || only.contains(entity.name)) {
            notCompared.append((entity.name, .onlyB))
        }
    }

    /// The key given for the entity, or for the nearest entity above it.
    private func inheritedMatch(_ entity: EntityMapping) -> [String]? {
        var name: String? = entity.name
        while let current = name {
            if let keys = matches[current] { return keys }
            name = a.mapping.entity(named: current)?.superentityName
        }
        return nil
    }

    /// The entity's uniqueness constraint (the first made of attributes), or a UUID `id`.
    static func naturalKey(_ entity: EntityMapping, _ description: EntityDescription?) -> [String]? {
        if let constraint = description?.uniquenessConstraints.first(where: { $0.allSatisfy { entity.attribute($0)?.column != nil } }) {
            return constraint
        }
        if let id = entity.attribute("id"), id.attribute.type == .uuid, id.column != nil { return ["id"] }
        return nil
    }

    /// Walks every compared entity, handing each change to `body`. Returns whether anything
    /// differs, or could not be compared (the models included).
    @discardableResult
    public func run(_ body: (Event) throws -> Void) throws -> Bool {
        // An entity left out is no evidence of sameness: the stores are not called equal.
        var differs = !modelChanges.isEmpty || !notCompared.isEmpty
        let connection = try Self.connect(a, b)
        defer { try? StoreConnection.close(connection) }
        do {
            try connection.read { db in
                for plan in plans {
                    try Cancellation.check()
                    try body(.beginEntity(name: plan.entity.name, matching: plan.matching))
                    var walk = EntityWalk(plan: plan, a: a, b: b, db: db)
                    if try walk.run(body) { differs = true }
                    try body(.endEntity)
                }
            }
        } catch {
            throw StoreConnection.translate(error, file: a.file)
        }
        return differs
    }

    /// A's file on a read-only connection of its own, B attached to it as `other`.
    static func connect(_ a: PersistentStore, _ b: PersistentStore) throws -> DatabaseQueue {
        let connection = try StoreConnection.open(a.file, readonly: true)
        do {
            try connection.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS other", arguments: [b.file.openName])
            }
        } catch {
            throw StoreConnection.translate(error, file: b.file)
        }
        return connection
    }
}

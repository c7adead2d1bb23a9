import Foundation
import GRDB
import ManagedStore
import StoreCreation

/// Builds a Core Data store for conformance data: a model inferred from the objects (and
/// from the key paths a predicate uses that the data leaves open), then the objects loaded
/// into it.
///
/// An object is an instance of its entity; a nested object is a to-one relationship to an
/// entity named after the key path; an array of objects is a to-many relationship with a
/// to-one inverse; `null` is nil.
final class ConformanceModel {
    struct Entity {
        var attributes: [String: AttributeType] = [:]
        var toOne: [String: String] = [:]
        var toMany: [String: (destination: String, inverse: String)] = [:]
        var nullKeys: Set<String> = []
    }

    private(set) var entities: [String: Entity] = [:]
    let root: String

    init(root: String = "Root") {
        self.root = root
        entities[root] = Entity()
    }

    static func type(of value: JSONValue) -> AttributeType? {
        if value.referenceDate != nil { return .date }
        switch value {
        case .bool: return .boolean
        case .integer: return .integer64
        case .double: return .double
        case .string: return .string
        default: return nil
        }
    }

    func describe(_ object: [String: JSONValue], as entity: String) {
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            if let type = ConformanceModel.type(of: value) {
                entities[entity]!.attributes[key] = entities[entity]!.attributes[key] ?? type
                continue
            }
            switch value {
            case .object(let nested):
                let destination = entities[entity]!.toOne[key] ?? "\(entity)_\(key)"
                entities[entity]!.toOne[key] = destination
                if entities[destination] == nil { entities[destination] = Entity() }
                describe(nested, as: destination)
            case .array(let items):
                let destination = entities[entity]!.toMany[key]?.destination ?? "\(entity)_\(key)"
                entities[entity]!.toMany[key] = (destination, "inv_\(key)")
                if entities[destination] == nil { entities[destination] = Entity() }
                entities[destination]!.toOne["inv_\(key)"] = entity
                for case .object(let element) in items { describe(element, as: destination) }
            default:
                entities[entity]!.nullKeys.insert(key)
            }
        }
    }

    /// Makes room for key paths the data does not settle (a key missing, or only ever nil):
    /// an attribute of `type` where the predicate compares the key with a constant of that
    /// type, as the app's model would declare it, and a String otherwise.
    func require(_ keys: [String], type: AttributeType = .string) {
        var entity = root
        var i = 0
        while i < keys.count {
            let key = keys[i]
            let last = i == keys.count - 1
            i += 1
            if key.hasPrefix("@") {
                if key == "@count" { return }
                continue
            }
            let e = entities[entity]!
            if e.attributes[key] != nil { return }
            if let next = e.toOne[key] { entity = next; continue }
            if let next = e.toMany[key] { entity = next.destination; continue }
            if last {
                entities[entity]!.attributes[key] = type
                return
            }
            let destination = "\(entity)_\(key)"
            entities[entity]!.toOne[key] = destination
            entities[entity]!.nullKeys.remove(key)
            if entities[destination] == nil { entities[destination] = Entity() }
            entity = destination
        }
    }

    var model: ManagedObjectModel {
        var descriptions: [EntityDescription] = []
        for (name, entity) in entities.sorted(by: { $0.key < $1.key }) {
            var properties: [PropertyDescription] = []
            var attributes = entity.attributes
            for key in entity.nullKeys where attributes[key] == nil && entity.toOne[key] == nil && entity.toMany[key] == nil {
                attributes[key] = .string
            }
            for (key, type) in attributes.sorted(by: { $0.key < $1.key }) {
                properties.append(.attribute(AttributeDescription(name: key, type: type)))
            }
            for (key, destination) in entity.toOne.sorted(by: { $0.key < $1.key }) {
                let inverse = key.hasPrefix("inv_") ? String(key.dropFirst(4)) : nil
                properties.append(.relationship(RelationshipDescription(name: key, destinationEntityName: destination, inverseName: inverse)))
            }
            for (key, target) in entity.toMany.sorted(by: { $0.key < $1.key }) {
                properties.append(.relationship(RelationshipDescription(name: key, destinationEntityName: target.destination,
                                                                        inverseName: target.inverse, maxCount: 0)))
            }
            descriptions.append(EntityDescription(name: name, properties: properties))
        }
        return ManagedObjectModel(entities: descriptions, source: .modelCache)
    }

    static func storageValue(_ value: JSONValue) -> DatabaseValueConvertible? {
        if let date = value.referenceDate { return date }
        switch value {
        case .bool(let b): return b
        case .integer(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        default: return nil
        }
    }

    /// Creates the store and loads `object` as the one instance of the root entity.
    func createStore(at path: String, object: [String: JSONValue]) throws {
        try StoreCreator.create(at: path, model: model)
        try StoreLoader.load(path) { loader in
            _ = try insert(object, as: root, loader: loader, inverse: nil)
        }
    }

    private func insert(_ object: [String: JSONValue], as entity: String, loader: StoreLoader, inverse: (String, Int64)?) throws -> Int64 {
        var values: [String: DatabaseValueConvertible?] = [:]
        for (key, value) in object {
            if let stored = ConformanceModel.storageValue(value) { values[key] = stored }
            if case .object(let nested) = value, let destination = entities[entity]!.toOne[key] {
                values[key] = try insert(nested, as: destination, loader: loader, inverse: nil)
            }
        }
        if let (key, pk) = inverse { values[key] = pk }
        let pk = try loader.insert(entity, values)
        for (key, value) in object {
            guard case .array(let items) = value, let target = entities[entity]!.toMany[key] else { continue }
            for case .object(let element) in items {
                _ = try insert(element, as: target.destination, loader: loader, inverse: (target.inverse, pk))
            }
        }
        return pk
    }
}

/// The key paths (from SELF) a predicate uses, so a model can be made to hold them. A
/// SUBQUERY variable's paths continue its collection's.
enum PredicateKeyPaths {
    /// Each key path with the type of the constant it is compared with (==, !=, <, <=, >,
    /// >=), where there is one.
    static func typed(_ predicate: ManagedStore.Predicate, _ variables: [String: [String]] = [:]) -> [(keys: [String], type: AttributeType)] {
        switch predicate {
        case .constant: return []
        case .not(let p): return typed(p, variables)
        case .and(let ps), .or(let ps): return ps.flatMap { typed($0, variables) }
        case .comparison(let c):
            let ordered: Set<ComparisonOperator> = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
            var found: [(keys: [String], type: AttributeType)] = []
            for (side, other) in [(c.left, c.right), (c.right, c.left)] where ordered.contains(c.op) {
                guard case .constant(let value) = other.kind, let type = type(of: value) else { continue }
                found += of(side, variables).map { ($0, type) }
            }
            for side in [c.left, c.right] {
                if case .subquery(let collection, let variable, let inner) = side.kind,
                   let (base, keys) = collection.keyPathComponents, case .evaluatedObject = base.kind {
                    var scoped = variables
                    scoped[variable] = keys
                    found += typed(inner, scoped)
                }
                if case .keyPath(let base, _) = side.kind, case .subquery(let collection, let variable, let inner) = base.kind,
                   let (root, keys) = collection.keyPathComponents, case .evaluatedObject = root.kind {
                    var scoped = variables
                    scoped[variable] = keys
                    found += typed(inner, scoped)
                }
            }
            return found
        }
    }

    static func type(of value: PredicateValue) -> AttributeType? {
        switch value {
        case .integer: return .integer64
        case .double: return .double
        case .bool: return .boolean
        case .date: return .date
        case .string: return .string
        default: return nil
        }
    }

    static func of(_ predicate: ManagedStore.Predicate, _ variables: [String: [String]] = [:]) -> [[String]] {
        switch predicate {
        case .constant: return []
        case .not(let p): return of(p, variables)
        case .and(let ps), .or(let ps): return ps.flatMap { of($0, variables) }
        case .comparison(let c): return of(c.left, variables) + of(c.right, variables)
        }
    }

    static func of(_ e: PredicateOperand, _ variables: [String: [String]]) -> [[String]] {
        if let (base, keys) = e.keyPathComponents {
            switch base.kind {
            case .evaluatedObject: return [keys]
            case .variable(let name): return variables[name].map { [$0 + keys] } ?? []
            default: return of(base, variables)
            }
        }
        switch e.kind {
        case .aggregate(let items): return items.flatMap { of($0, variables) }
        case .arithmetic(_, let a, let b): return of(a, variables) + of(b, variables)
        case .negate(let a), .cast(let a, _), .index(let a, _): return of(a, variables)
        case .function(_, let args): return args.flatMap { of($0, variables) }
        case .selectorCall(let r, _, let args): return of(r, variables) + args.flatMap { of($0, variables) }
        case .subquery(let collection, let variable, let p):
            var inner = variables
            if let (base, keys) = collection.keyPathComponents, case .evaluatedObject = base.kind { inner[variable] = keys }
            return of(collection, variables) + of(p, inner)
        default: return []
        }
    }
}

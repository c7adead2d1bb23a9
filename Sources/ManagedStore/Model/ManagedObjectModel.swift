/// Where a store's model came from, best source first.
public enum ModelSource: Sendable, Equatable {
    /// `Z_MODELCACHE`: the model Core Data itself wrote into the store.
    case modelCache
    /// An `.xcdatamodeld` or `.xcdatamodel` given with `--model`.
    case modelFile(String)
    /// `Z_PRIMARYKEY` and the schema: entity names keep their case, property names do not.
    case schema
    /// `Z_PRIMARYKEY` and the schema, because `Z_MODELCACHE` is there but does not decode.
    case schemaAfterUnreadableCache(String)
    /// Not a Core Data store: tables are entities, columns attributes.
    case plainSQLite

    public var description: String {
        switch self {
        case .modelCache: return "Z_MODELCACHE"
        case .modelFile(let path): return "model file \(path)"
        case .schema: return "schema (no model cache; property names are uppercase guesses)"
        case .schemaAfterUnreadableCache(let why):
            return "schema (Z_MODELCACHE is there but cannot be read: \(why); property names are uppercase guesses)"
        case .plainSQLite: return "SQLite schema (not a Core Data store)"
        }
    }

    /// Property names from this source are only known up to case.
    public var namesAreCaseInsensitive: Bool {
        switch self {
        case .schema, .schemaAfterUnreadableCache, .plainSQLite: return true
        case .modelCache, .modelFile: return false
        }
    }
}

/// The entities of a store, with inheritance resolved on demand.
public struct ManagedObjectModel: Sendable {
    public private(set) var entities: [EntityDescription]
    public let source: ModelSource
    /// The model's version identifier (`userDefinedModelVersionIdentifier`), which a store's
    /// metadata keeps as `NSStoreModelVersionIdentifiers`; nil where the source has none.
    public var versionIdentifier: String?
    private let index: [String: Int]

    public init(entities: [EntityDescription], source: ModelSource) {
        self.entities = entities.sorted { $0.name < $1.name }
        self.source = source
        var index: [String: Int] = [:]
        for (i, e) in self.entities.enumerated() { index[e.name] = i }
        self.index = index
    }

    /// Exact name first; a case-insensitive match when exactly one entity fits.
    public func entity(named name: String) -> EntityDescription? {
        if let i = index[name] { return entities[i] }
        let folded = entities.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        return folded.count == 1 ? folded[0] : nil
    }

    public func subentities(of name: String) -> [EntityDescription] {
        entities.filter { $0.superentityName == name }
    }

    /// The entity and all entities below it, depth first. An entity already in the tree is
    /// not entered again, so a model whose parents form a loop cannot recurse forever.
    public func entityTree(_ name: String) -> [EntityDescription] {
        var seen: Set<String> = []
        func tree(_ name: String) -> [EntityDescription] {
            guard let e = entity(named: name), seen.insert(e.name).inserted else { return [] }
            return [e] + subentities(of: e.name).flatMap { tree($0.name) }
        }
        return tree(name)
    }

    /// Each entity whose chain of parents leads back to itself, with the chain: no model
    /// Xcode or Core Data writes has one, so a model that does is damaged. `ancestors(of:)`
    /// stops at the first repeat, so an entity on a loop ends its own list of ancestors.
    public var inheritanceLoops: [String] {
        entities.compactMap { e in
            let chain = ancestors(of: e.name).map(\.name)
            return chain.last == e.name ? ([e.name] + chain).joined(separator: " → ") : nil
        }
    }

    public func ancestors(of name: String) -> [EntityDescription] {
        var chain: [EntityDescription] = []
        var current = entity(named: name)?.superentityName
        while let parent = current, let e = entity(named: parent), !chain.contains(where: { $0.name == e.name }) {
            chain.append(e)
            current = e.superentityName
        }
        return chain
    }

    public func rootEntity(of name: String) -> EntityDescription? {
        ancestors(of: name).last ?? entity(named: name)
    }

    /// Inherited properties first (root down), then the entity's own; a redeclared name
    /// replaces the inherited one.
    public func allProperties(of name: String) -> [(property: PropertyDescription, declaredBy: String)] {
        guard let e = entity(named: name) else { return [] }
        // A property a sub-entity declares again replaces its ancestor's and moves to the
        // end: found by name in one pass (a scan per property made this quadratic, and it is
        // called once per key a fetch selects).
        var entries: [(property: PropertyDescription, declaredBy: String)?] = []
        var position: [String: Int] = [:]
        for owner in (ancestors(of: name).reversed() + [e]) {
            for p in owner.properties {
                if let earlier = position[p.name] { entries[earlier] = nil }
                position[p.name] = entries.count
                entries.append((p, owner.name))
            }
        }
        return entries.compactMap { $0 }
    }

    /// `allProperties(of:)` as the store lays them out: each composite attribute replaced by
    /// its leaves (`address.city`), which is how rows, fetches and predicates see them.
    public func flattenedProperties(of name: String) -> [(property: PropertyDescription, declaredBy: String)] {
        allProperties(of: name).flatMap { entry in entry.property.flattened.map { ($0, entry.declaredBy) } }
    }

    public func property(_ name: String, of entityName: String) -> (property: PropertyDescription, declaredBy: String)? {
        let all = allProperties(of: entityName)
        if let exact = all.first(where: { $0.property.name == name }) { return exact }
        let folded = all.filter { $0.property.name.caseInsensitiveCompare(name) == .orderedSame }
        return folded.count == 1 ? folded[0] : nil
    }
}

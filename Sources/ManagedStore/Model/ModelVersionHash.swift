/// Core Data's entity version hashes: what `Z_METADATA`'s `NSStoreModelVersionHashes`
/// holds, and what Core Data compares with an app's model on every open. Equal hashes for
/// every entity: the store opens as is; any difference: it must migrate (or fails, 134100).
///
/// The recipe (sql-entity.md §3) reproduces every stored hash of every fixture with a model
/// cache, Core Data and SwiftData alike (`ModelVersionHashTests`): each hash is SHA-256;
/// strings go in as their UTF-8 bytes, integers as little-endian bytes.
public enum ModelVersionHash {
    /// `NSStoreModelVersionHashesDigest`: SHA-512 over each entity's name (its UTF-8 bytes)
    /// followed by its hash, entities in the byte order of their names. It reproduces the
    /// digest of every fixture store that has one (CoreDataPlus, Notes, Photos, whose 68
    /// entities rule out a case-insensitive order); `ModelVersionHashTests`.
    public static func digest(_ hashes: [String: [UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for name in hashes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            bytes += Array(name.utf8) + (hashes[name] ?? [])
        }
        return SHA512.digest(bytes)
    }

    /// Each entity's hash; nil for an entity whose hash needs a fact the model does not
    /// give (a derived attribute whose expression is in a form not spelled here).

    public static func entityHashes(_ model: ManagedObjectModel) -> [String: [UInt8]?] {
        var memo: [String: [UInt8]?] = [:]
        for entity in model.entities { _ = entityHash(entity.name, model: model, memo: &memo, depth: 0) }
        return memo
    }

    private static func entityHash(_ name: String, model: ManagedObjectModel, memo: inout [String: [UInt8]?], depth: Int) -> [UInt8]? {
        if let known = memo[name] { return known }
        guard depth < 64, let entity = model.entity(named: name) else { return nil }
        var hasher = SHA256()
        hasher.update(entity.name)
        hasher.update([entity.isAbstract ? 1 : 0])
        if let parent = entity.superentityName, model.entity(named: parent) != nil {
            guard let parentHash = entityHash(parent, model: model, memo: &memo, depth: depth + 1) else {
                memo[name] = .some(nil)
                return nil
            }
            hasher.update(parentHash)
        }
        // Every persistent attribute and relationship, inherited ones too, by code point.
        let members = model.allProperties(of: name).map(\.property).filter { property in
            switch property {
            case .attribute(let a): return !a.isTransient
            case .relationship(let r): return !r.isTransient
            case .fetched: return false
            }
        }.sorted { codePointOrder($0.name, $1.name) }
        for member in members {
            guard let hash = propertyHash(member, entity: name) else {
                memo[name] = .some(nil)
                return nil
            }
            hasher.update(hash)
        }
        if let modifier = entity.versionHashModifier, !modifier.isEmpty { hasher.update(modifier) }
        for constraint in entity.uniquenessConstraints.map({ $0.joined(separator: ".") }).filter({ !$0.isEmpty }).sorted() {
            hasher.update(constraint)
        }
        let hash = hasher.finalize()
        memo[name] = hash
        return hash
    }

    /// A property's version hash (`NSPropertyDescription.versionHash`).
    public static func propertyHash(_ property: PropertyDescription, entity: String) -> [UInt8]? {
        switch property {
        case .attribute(let a): return attributeHash(a)
        case .relationship(let r): return relationshipHash(r, entity: entity)
        case .fetched: return nil
        }
    }

    /// Name, a two-byte flags word (optional, transient, read-only), the modifier.
    private static func commonHash(name: String, optional: Bool, transient: Bool, readOnly: Bool, modifier: String?) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(name)
        hasher.update([(optional ? 1 : 0) | (transient ? 2 : 0) | (readOnly ? 4 : 0), 0])
        if let modifier, !modifier.isEmpty { hasher.update(modifier) }
        return hasher.finalize()
    }

    static func attributeHash(_ a: AttributeDescription) -> [UInt8]? {
        if a.isDerived {
            // The derivation's text alone, nothing of the attribute (sql-entity.md §3).
            return a.derivation.map { SHA256.digest(Array($0.utf8)) }
        }
        if a.type == .composite {
            // Only the elements, by name; nothing of the composite itself. [unconfirmed on
            // a genuine store here: the fixtures with composites are held out]
            var hasher = SHA256()
            for element in a.elements.sorted(by: { codePointOrder($0.name, $1.name) }) {
                guard let hash = attributeHash(element) else { return nil }
                hasher.update(hash)
            }
            return hasher.finalize()
        }
        var hasher = SHA256()
        hasher.update(commonHash(name: a.name, optional: a.isOptional, transient: a.isTransient, readOnly: a.isReadOnly,
                                 modifier: a.versionHashModifier))
        hasher.update(littleEndian(Int32(truncatingIfNeeded: a.type.rawValue)))
        if a.allowsExternalBinaryDataStorage { hasher.update([1]) }
        if a.preservesValueInHistoryOnDeletion { hasher.update([1]) }
        return hasher.finalize()
    }

    static func relationshipHash(_ r: RelationshipDescription, entity: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(commonHash(name: r.name, optional: r.isOptional, transient: r.isTransient, readOnly: r.isReadOnly,
                                 modifier: r.versionHashModifier))
        hasher.update(r.destinationEntityName)
        // A relationship that is its own inverse does not name it.
        if let inverse = r.inverseName, !(inverse == r.name && r.destinationEntityName == entity) { hasher.update(inverse) }
        hasher.update(littleEndian(Int32(truncatingIfNeeded: r.maxCount)))
        hasher.update(littleEndian(Int32(truncatingIfNeeded: r.minCount)))
        if r.isOrdered { hasher.update([1, 0]) }
        return hasher.finalize()
    }

    /// `compare:` without options, as Core Data sorts the names it hashes: by UTF-16 unit,
    /// not case-insensitively and not by Swift's `<` on `Character`s.
    private static func codePointOrder(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    private static func littleEndian(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: bits >> UInt32($0)) }
    }
}

/// One entity's computed hash beside the one a store's metadata holds.
public struct EntityHashComparison: Sendable, Equatable {
    public let entity: String
    /// nil when the model does not give what the hash needs.
    public let computed: [UInt8]?
    /// nil when the store's metadata has no hash for the entity.
    public let stored: [UInt8]?

    public var matches: Bool { computed != nil && computed == stored }

    /// Per entity of the model and of the metadata, by name: computed against stored.
    public static func compare(_ model: ManagedObjectModel, with metadata: StoreMetadata?) -> [EntityHashComparison] {
        let computed = ModelVersionHash.entityHashes(model)
        let stored = metadata?.versionHashes ?? [:]
        let names = Set(computed.keys).union(stored.keys).sorted()
        return names.map { EntityHashComparison(entity: $0, computed: computed[$0] ?? nil, stored: stored[$0]) }
    }

    /// Whether Core Data would open the store with the model as is: every entity on both
    /// sides, each hash equal.
    public static func opensWithoutMigration(_ comparisons: [EntityHashComparison]) -> Bool {
        !comparisons.isEmpty && comparisons.allSatisfy(\.matches)
    }
}

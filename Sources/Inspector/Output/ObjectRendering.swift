import ManagedStore

/// How managed objects print: the same columns a fetch prints, plus to-many
/// relationships as arrays of object IDs where an object is shown whole (`get`).
enum ObjectRendering {
    static func output(_ value: ObjectValue) -> OutputValue {
        switch value {
        case .attribute(let a): return OutputValue(a)
        case .toOne(let id): return id.map { .objectID($0.uri) } ?? .null
        case .toMany(let ids): return .array(ids.map { .objectID($0.uri) })
        }
    }

    /// Every property of the entity: attributes (transient ones too), then relationships.
    static func allProperties(_ entity: EntityMapping) -> [String] {
        entity.attributes.map(\.attribute.name) + entity.relationships.map(\.relationship.name)
    }
}

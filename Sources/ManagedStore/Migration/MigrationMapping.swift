/// Where each entity and property of the destination model takes its values from: the
/// mapping a migration follows. Inferred as Core Data infers a lightweight mapping (by
/// renaming identifier, else by name, `ModelDiff.match`), or read from a mapping model the
/// app ships (`MappingModel`).
public struct MigrationMapping: Sendable {
    /// Where one destination property's values come from.
    public enum Source: Sendable, Equatable {
        /// The source entity's property of this name (its column, its relationship's keys).
        case property(String)
        /// A constant, as the model file writes a default (`"NO"`, `"0"`, text).
        case value(String)
        /// Nothing: a new property, NULL or its default.
        case none
    }

    /// Destination entity → the source entity its rows come from (absent: a new entity).
    public private(set) var entitySources: [String: String] = [:]
    /// Destination entity → destination property → its source; a property not listed takes
    /// the inferred source.
    public private(set) var propertySources: [String: [String: Source]] = [:]
    /// Whether it came from a mapping model (what the plan says it followed).
    public let fromMappingModel: Bool

    init(fromMappingModel: Bool) { self.fromMappingModel = fromMappingModel }

    /// The lightweight migration's mapping: every entity and property matched as Core Data
    /// matches them.
    public static func inferred(from old: ManagedObjectModel, to new: ManagedObjectModel) -> MigrationMapping {
        var mapping = MigrationMapping(fromMappingModel: false)
        let oldNames = old.entities.map(\.name)
        for entity in new.entities {
            if let source = ModelDiff.match(entity.name, entity.renamingIdentifier, in: oldNames) { mapping.entitySources[entity.name] = source }
        }
        return mapping
    }

    mutating func setEntity(_ destination: String, from source: String?) { entitySources[destination] = source }

    mutating func setProperty(_ destination: String, of entity: String, from source: Source) {
        propertySources[entity, default: [:]][destination] = source
    }

    /// The source of `property` of destination `entity`, whose source entity has the
    /// properties `sourceNames`: the mapping's own, else by renaming identifier or name.
    func source(of property: String, renamingIdentifier: String?, entity: String, sourceNames: [String]) -> Source {
        if let given = propertySources[entity]?[property] { return given }
        // A mapping model maps what it lists: a property it leaves out gets no value.
        if fromMappingModel { return .none }
        return ModelDiff.match(property, renamingIdentifier, in: sourceNames).map(Source.property) ?? .none
    }
}

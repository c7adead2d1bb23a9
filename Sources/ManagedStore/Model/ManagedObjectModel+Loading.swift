/// What stops Core Data loading a model: what Xcode's model compiler refuses and what an
/// `NSManagedObjectModel` cannot hold (FuzzModelXML's round trip through a cache found the
/// property a sub-entity declares again). One judgment, made where a model is read (a model
/// file, a store's cache), so that `create`, `model diff`, `doctor --model`, `cloudkit` and
/// every command opening a store with `--model` refuse the same models with the same words.
extension ManagedObjectModel {
    /// The first problem found, as the end of "cannot read the model: …"; nil for a model
    /// Core Data loads.
    public var loadProblem: String? {
        if let loop = inheritanceLoops.first { return "the parent entities form a loop: \(loop)" }
        var names: Set<String> = []
        for entity in entities where !names.insert(entity.name).inserted {
            return "the model names the entity \(entity.name) twice"
        }
        for entity in entities {
            var properties: Set<String> = []
            for property in entity.properties where !properties.insert(property.name).inserted {
                return "\(entity.name) has two properties named \(property.name)"
            }
            // Names exactly as written: `entity(named:)` forgives case for what a user types,
            // Core Data does not (FuzzModelXML: a parent `ChecklIst` of `Checklist`).
            if let parent = entity.superentityName, !names.contains(parent) {
                return "\(entity.name)'s parent entity \(parent) is not in the model"
            }
            // A sub-entity inherits its parents' properties and cannot declare one again
            // (Xcode's compiler refuses it; a cache, keyed by name, could not hold both).
            for ancestor in ancestors(of: entity.name) {
                let inherited = Set(ancestor.properties.map(\.name))
                if let again = entity.properties.first(where: { inherited.contains($0.name) }) {
                    return "\(entity.name) declares \(again.name) again, which it inherits from \(ancestor.name)"
                }
            }
            for case .relationship(let r) in entity.properties where !names.contains(r.destinationEntityName) {
                return "\(entity.name).\(r.name) leads to \(r.destinationEntityName), which is not in the model"
            }
        }
        return nil
    }
}

/// What changed between two versions of a model, and for each change whether Core Data can
/// migrate a store across it without a mapping model.
///
/// Elements are matched as Core Data matches them: an entity or property of the new model
/// corresponds to the old one named by its renaming identifier, else to the old one of the
/// same name. Each change's verdict cites the rule that decides it: Apple's list of changes
/// an inferred mapping model handles ("Migrating your data model automatically", and the
/// older "Lightweight Migration" guide for relationships and hierarchies), or the version
/// hash documentation for changes that need no migration at all. A change neither covers
/// is reported as such rather than guessed.
public struct ModelDiff: Sendable {
    public enum Migration: String, Sendable, Comparable {
        /// The version hashes do not change: a store opens with the new model as it is.
        case none
        /// An inferred (lightweight) mapping model handles it.
        case lightweight
        /// Not covered by Apple's documented rules either way.
        case undocumented
        /// Needs a mapping model (or a staged migration): Core Data cannot infer it.
        case mappingModel

        private var rank: Int {
            switch self {
            case .none: return 0
            case .lightweight: return 1
            case .undocumented: return 2
            case .mappingModel: return 3
            }
        }

        public static func < (a: Migration, b: Migration) -> Bool { a.rank < b.rank }
    }

    public enum Kind: String, Sendable {
        case added, removed, renamed, moved, changed
    }

    public struct Change: Sendable, Equatable {
        /// The entity's name in the new model (in the old one for a removal).
        public let entity: String
        /// nil for a change to the entity itself.
        public let property: String?
        public let kind: Kind
        public let detail: String
        public let migration: Migration
        /// The rule that decides `migration`.
        public let rule: String
    }

    public let changes: [Change]

    public var isEquivalent: Bool { changes.isEmpty }
    /// The strictest migration any change needs.
    public var migration: Migration { changes.map(\.migration).max() ?? .none }

    /// One sentence for the end of a report.
    public var verdict: String {
        switch (isEquivalent, migration) {
        case (true, _):
            return "The models are equivalent."
        case (_, .none):
            return "The models differ only in what version hashes leave out: a store opens with either model without migration."
        case (_, .lightweight):
            return "Core Data can infer a lightweight migration for every change."
        case (_, .undocumented):
            let n = changes.filter { $0.migration == .undocumented }.count
            return "No change needs a mapping model by Apple's rules, but \(n) change\(n == 1 ? " is" : "s are") not covered by them: test the migration."
        case (_, .mappingModel):
            let n = changes.filter { $0.migration == .mappingModel }.count
            return "Core Data cannot infer a lightweight migration: \(n) change\(n == 1 ? " needs" : "s need") a mapping model."
        }
    }

    public init(from old: ManagedObjectModel, to new: ManagedObjectModel) {
        var changes: [Change] = []
        var matchedOld: Set<String> = []
        var oldNameOf: [String: String] = [:]
        for entity in new.entities {
            guard let before = Self.match(entity.name, entity.renamingIdentifier, in: old.entities.map(\.name)).flatMap(old.entity(named:)) else { continue }
            matchedOld.insert(before.name)
            oldNameOf[entity.name] = before.name
        }
        let models = Models(old: old, new: new, oldNameOf: oldNameOf)
        for entity in new.entities {
            guard let oldName = oldNameOf[entity.name], let before = old.entity(named: oldName) else {
                changes.append(Change(entity: entity.name, property: nil, kind: .added, detail: "new entity",
                                      migration: .lightweight, rule: Rules.entityAddRemoveRename))
                continue
            }
            if before.name != entity.name {
                changes.append(Change(entity: entity.name, property: nil, kind: .renamed, detail: "renamed from \(before.name)",
                                      migration: .lightweight, rule: Rules.entityAddRemoveRename))
            }
            changes += Self.entityChanges(before, entity, models)
            changes += Self.propertyChanges(before, entity, models)
        }
        for entity in old.entities where !matchedOld.contains(entity.name) {
            changes.append(Change(entity: entity.name, property: nil, kind: .removed, detail: "entity removed (its rows are dropped)",
                                  migration: .lightweight, rule: Rules.entityAddRemoveRename))
        }
        self.changes = Self.movedProperties(changes, old: old, new: new)
    }

    /// The old name an element of the new model corresponds to: its renaming identifier when
    /// the old model has that name, else its own name when the old model has that.
    static func match(_ name: String, _ renamingIdentifier: String?, in oldNames: [String]) -> String? {
        if let renamed = renamingIdentifier, oldNames.contains(renamed) { return renamed }
        return oldNames.contains(name) ? name : nil
    }

    // MARK: Entities

    private static func entityChanges(_ a: EntityDescription, _ b: EntityDescription, _ models: Models) -> [Change] {
        let old = models.old
        var changes: [Change] = []
        func change(_ detail: String, _ migration: Migration, _ rule: String) {
            changes.append(Change(entity: b.name, property: nil, kind: .changed, detail: detail, migration: migration, rule: rule))
        }
        let newParentInOld = b.superentityName.flatMap { models.oldNameOf[$0] }
        if a.superentityName != newParentInOld || (a.superentityName == nil) != (b.superentityName == nil) {
            let from = a.superentityName ?? "no parent", to = b.superentityName ?? "no parent"
            // Joining an entity that existed before to another old hierarchy merges two
            // hierarchies, which the guide rules out; a new parent, or none, is allowed.
            let oldRoot = old.rootEntity(of: a.name)?.name
            let mergesHierarchies = newParentInOld.map { old.rootEntity(of: $0)?.name != oldRoot } ?? false
            change("parent \(from) → \(to)", mergesHierarchies ? .mappingModel : .lightweight,
                   mergesHierarchies ? Rules.mergeHierarchies : Rules.hierarchy)
        }
        if a.isAbstract != b.isAbstract {
            change(b.isAbstract ? "made abstract" : "no longer abstract", .undocumented, Rules.entityHashOnly)
        }
        // A cache Core Data's migration wrote names no classes (`StoreCreator.Options.migrated`):
        // no class there says nothing about the model's.
        let unnamedInCache = (a.className == nil && old.source == .modelCache) || (b.className == nil && models.new.source == .modelCache)
        if a.className != b.className && !unnamedInCache {
            change("class \(a.className ?? "none") → \(b.className ?? "none")", .none, Rules.entityHashLeavesOut)
        }
        if a.versionHashModifier != b.versionHashModifier {
            change("version hash modifier \(a.versionHashModifier ?? "none") → \(b.versionHashModifier ?? "none")", .undocumented, Rules.hashModifier)
        }
        if a.uniquenessConstraints != b.uniquenessConstraints {
            change("uniqueness constraints \(constraints(a.uniquenessConstraints)) → \(constraints(b.uniquenessConstraints))", .undocumented, Rules.notListed)
        }
        // Compared by what they index, not by name: an older form (`indexed="YES"`, a
        // compound index, a cache's `NSIsIndexed`) and the fetch index Core Data makes of it
        // are one index; so are a parent's and the copy of it on a sub-entity, which some
        // caches hold (Wire's 2.52.0 and 2.67.0, not their neighbours from the same model
        // source): both index the same columns of the one table.
        func indexed(_ e: EntityDescription, _ model: ManagedObjectModel) -> Set<[FetchIndexDescription.Element]> {
            var inherited: Set<[FetchIndexDescription.Element]> = []
            var parent = e.superentityName.flatMap { model.entity(named: $0) }
            while let p = parent {
                inherited.formUnion(p.fetchIndexes.map(\.elements))
                parent = p.superentityName.flatMap { model.entity(named: $0) }
            }
            return Set(e.fetchIndexes.map(\.elements)).subtracting(inherited)
        }
        if indexed(a, old) != indexed(b, models.new) {
            change("fetch indexes \(indexes(a.fetchIndexes)) → \(indexes(b.fetchIndexes))", .undocumented, Rules.notListed)
        }
        return changes
    }

    private static func constraints(_ c: [[String]]) -> String {
        c.isEmpty ? "none" : c.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: " ")
    }

    private static func indexes(_ i: [FetchIndexDescription]) -> String {
        i.isEmpty ? "none" : i.map { $0.name + "(" + $0.elements.map(\.propertyName).joined(separator: ", ") + ")" }.joined(separator: " ")
    }

    // MARK: Properties

    /// Both models, and the old name of each entity of the new one: what comparing a parent,
    /// or a relationship whose destination or inverse was renamed or replaced, needs.
    struct Models {
        let old: ManagedObjectModel
        let new: ManagedObjectModel
        let oldNameOf: [String: String]

        /// Whether the old model's destination entity had a property of this name.
        func oldEntity(_ oldName: String, had property: String) -> Bool {
            old.allProperties(of: oldName).contains { $0.property.name == property }
        }

        func newEntity(_ name: String, has property: String) -> Bool {
            new.allProperties(of: name).contains { $0.property.name == property }
        }
    }

    private static func propertyChanges(_ a: EntityDescription, _ b: EntityDescription, _ models: Models) -> [Change] {
        var changes: [Change] = []
        var matched: Set<String> = []
        // Composites compare leaf by leaf: each is a column, added or removed on its own.
        let oldProperties = a.flattenedProperties, newProperties = b.flattenedProperties
        let oldNames = oldProperties.map(\.name)
        for p in newProperties {
            guard let oldName = match(p.name, p.renamingIdentifier, in: oldNames), !matched.contains(oldName),
                  let before = oldProperties.first(where: { $0.name == oldName }) else {
                changes.append(added(p, entity: b.name))
                continue
            }
            matched.insert(oldName)
            if oldName != p.name {
                changes.append(Change(entity: b.name, property: p.name, kind: .renamed, detail: "renamed from \(oldName)",
                                      migration: .lightweight, rule: Rules.propertyRename))
            }
            changes += propertyChanges(before, p, entity: b.name, models)
        }
        for p in oldProperties where !matched.contains(p.name) {
            let what = kindName(p)
            changes.append(Change(entity: b.name, property: p.name, kind: .removed,
                                  detail: p.isStoredAnywhere ? "\(what) removed (its stored values are dropped)" : "\(what) removed",
                                  migration: p.isStoredAnywhere ? .lightweight : .none,
                                  rule: p.isStoredAnywhere ? (isRelationship(p) ? Rules.relationshipAddRemove : Rules.attributeRemove) : Rules.transientOnly))
        }
        return changes
    }

    private static func added(_ p: PropertyDescription, entity: String) -> Change {
        let what = kindName(p)
        switch p {
        case .attribute(let a) where !a.isTransient && !a.isOptional && a.defaultValue == nil:
            return Change(entity: entity, property: p.name, kind: .added, detail: "non-optional \(what) without a default value",
                          migration: .mappingModel, rule: Rules.attributeAddNonOptional)
        case .attribute(let a) where !a.isTransient:
            return Change(entity: entity, property: p.name, kind: .added, detail: "\(what) (\(a.type.modelName))",
                          migration: .lightweight, rule: Rules.attributeAdd)
        case .relationship(let r) where !r.isTransient:
            return Change(entity: entity, property: p.name, kind: .added, detail: "\(what) to \(r.destinationEntityName)",
                          migration: .lightweight, rule: Rules.relationshipAddRemove)
        default:
            return Change(entity: entity, property: p.name, kind: .added, detail: "\(what) (not stored)", migration: .none, rule: Rules.transientOnly)
        }
    }

    private static func propertyChanges(_ a: PropertyDescription, _ b: PropertyDescription, entity: String, _ models: Models?) -> [Change] {
        var changes: [Change] = []
        func change(_ detail: String, _ migration: Migration, _ rule: String) {
            changes.append(Change(entity: entity, property: b.name, kind: .changed, detail: detail, migration: migration, rule: rule))
        }
        switch (a, b) {
        case let (.attribute(x), .attribute(y)):
            if x.type != y.type { change("type \(x.type.modelName) → \(y.type.modelName)", .mappingModel, Rules.typeChange) }
            if x.isTransient != y.isTransient {
                change(y.isTransient ? "now transient (its column is dropped)" : "now stored", .lightweight,
                       y.isTransient ? Rules.attributeRemove : Rules.attributeAdd)
            }
            if x.isOptional && !y.isOptional {
                if y.defaultValue != nil {
                    change("now non-optional, default \(y.defaultValue ?? "")", .lightweight, Rules.optionalToRequiredWithDefault)
                } else {
                    change("now non-optional, without a default value", .mappingModel, Rules.optionalToRequiredWithDefault)
                }
            }
            if !x.isOptional && y.isOptional { change("now optional", .lightweight, Rules.requiredToOptional) }
            if x.isDerived != y.isDerived { change(y.isDerived ? "now derived" : "no longer derived", .undocumented, Rules.notListed) }
            // A default given with becoming non-optional is said there.
            // By the value Core Data holds: `NO` and `0` are one default of an integer.
            let sameDefault = x.type == y.type && x.defaultValue != nil && y.defaultValue != nil
                && AttributeDefault.value(of: x) != nil && AttributeDefault.value(of: x) == AttributeDefault.value(of: y)
            if x.defaultValue != y.defaultValue && !sameDefault && !(x.isOptional && !y.isOptional) {
                change("default \(x.defaultValue ?? "none") → \(y.defaultValue ?? "none")", .none, Rules.propertyHashLeavesOut)
            }
            if x.valueTransformerName != y.valueTransformerName {
                change("transformer \(x.valueTransformerName ?? "none") → \(y.valueTransformerName ?? "none") (stored values are not converted)",
                       .none, Rules.propertyHashLeavesOut)
            }
            if x.type == .transformable && y.type == .transformable && x.valueClassName != y.valueClassName {
                change("value class \(x.valueClassName ?? "none") → \(y.valueClassName ?? "none")", .none, Rules.propertyHashLeavesOut)
            }
            if x.allowsExternalBinaryDataStorage != y.allowsExternalBinaryDataStorage {
                change(y.allowsExternalBinaryDataStorage ? "now allows external storage" : "no longer allows external storage", .undocumented, Rules.notListed)
            }
            if x.preservesValueInHistoryOnDeletion != y.preservesValueInHistoryOnDeletion {
                change(y.preservesValueInHistoryOnDeletion ? "now preserved in history on deletion" : "no longer preserved in history on deletion",
                       .none, Rules.propertyHashLeavesOut)
            }
        case let (.relationship(x), .relationship(y)):
            let destinationInOld = models?.oldNameOf[y.destinationEntityName] ?? y.destinationEntityName
            if x.destinationEntityName != destinationInOld {
                change("destination \(x.destinationEntityName) → \(y.destinationEntityName)", .mappingModel, Rules.notListedNeedsMapping)
            }
            if !x.isToMany && y.isToMany { change("to-one → to-many", .lightweight, Rules.toOneToMany) }
            if x.isToMany && !y.isToMany { change("to-many → to-one", .mappingModel, Rules.toManyToOne) }
            if x.isToMany && y.isToMany && x.isOrdered != y.isOrdered {
                change(y.isOrdered ? "now ordered" : "no longer ordered", .lightweight, Rules.ordering)
            }
            if x.inverseName != y.inverseName {
                // An inverse replaced by a new relationship (the old one removed, a new one
                // added on the destination) follows from that add and removal.
                let replaced = models.map { m in
                    (x.inverseName.map { !m.newEntity(y.destinationEntityName, has: $0) } ?? true)
                        && (y.inverseName.map { !m.oldEntity(x.destinationEntityName, had: $0) } ?? true)
                } ?? false
                change("inverse \(x.inverseName ?? "none") → \(y.inverseName ?? "none")", replaced ? .lightweight : .undocumented,
                       replaced ? Rules.relationshipAddRemove : Rules.notListed)
            }
            if x.minCount != y.minCount || normalizedMax(x) != normalizedMax(y), x.isToMany && y.isToMany {
                change("count \(bounds(x)) → \(bounds(y))", .undocumented, Rules.notListed)
            }
            if x.isOptional != y.isOptional { change(y.isOptional ? "now optional" : "now non-optional", .undocumented, Rules.notListed) }
            if x.isTransient != y.isTransient {
                change(y.isTransient ? "now transient" : "now stored", .lightweight, Rules.relationshipAddRemove)
            }
            if x.deleteRule != y.deleteRule { change("delete rule \(x.deleteRule.name) → \(y.deleteRule.name)", .none, Rules.propertyHashLeavesOut) }
        case let (.fetched(x), .fetched(y)):
            if x.fetchEntityName != y.fetchEntityName {
                change("fetches \(x.fetchEntityName ?? "?") → \(y.fetchEntityName ?? "?")", .none, Rules.transientOnly)
            }
        default:
            change("\(kindName(a)) → \(kindName(b))", .mappingModel, Rules.typeChange)
        }
        return changes
    }

    /// A to-many's upper bound: caches store "unbounded" as 0 or -1.
    private static func normalizedMax(_ r: RelationshipDescription) -> Int { r.maxCount <= 0 ? 0 : r.maxCount }

    private static func bounds(_ r: RelationshipDescription) -> String {
        "\(r.minCount)...\(normalizedMax(r) == 0 ? "*" : String(r.maxCount))"
    }

    /// A property removed from one entity and added, the same, to an entity above or below it
    /// in the same hierarchy has moved: one change, not two.
    private static func movedProperties(_ changes: [Change], old: ManagedObjectModel, new: ManagedObjectModel) -> [Change] {
        var result = changes
        for removal in changes where removal.kind == .removed && removal.property != nil {
            guard let name = removal.property,
                  let before = old.entity(named: removal.entity)?.flattenedProperties.first(where: { $0.name == name }) else { continue }
            // The entity above or below that now declares it, the same (a new entity's
            // properties are not listed one by one, so look in the model, not the changes).
            let related = new.ancestors(of: removal.entity) + new.entityTree(removal.entity).filter { $0.name != removal.entity }
            guard let owner = related.first(where: { e in
                e.flattenedProperties.contains { $0.name == name && propertyChanges(before, $0, entity: e.name, nil).isEmpty }
            }) else { continue }
            result.removeAll { $0 == removal || ($0.kind == .added && $0.entity == owner.name && $0.property == name) }
            result.append(Change(entity: owner.name, property: name, kind: .moved, detail: "moved from \(removal.entity)",
                                 migration: .lightweight, rule: Rules.hierarchy))
        }
        return result
    }

    private static func kindName(_ p: PropertyDescription) -> String {
        switch p {
        case .attribute: return "attribute"
        case .relationship: return "relationship"
        case .fetched: return "fetched property"
        }
    }

    private static func isRelationship(_ p: PropertyDescription) -> Bool {
        if case .relationship = p { return true }
        return false
    }

    /// The rules verdicts cite, worded after Apple's documentation.
    enum Rules {
        static let attributeAdd = "Apple: \"Addition of an attribute\" is inferred"
        static let attributeAddNonOptional = "Apple: a non-optional attribute needs a default value for the rows that exist (\"An optional attribute becoming non-optional, and defining a default value\")"
        static let attributeRemove = "Apple: \"Removal of an attribute\" is inferred"
        static let requiredToOptional = "Apple: \"A nonoptional attribute becoming optional\" is inferred"
        static let optionalToRequiredWithDefault = "Apple: \"An optional attribute becoming non-optional, and defining a default value\" is inferred"
        static let propertyRename = "Apple: renaming a property, with the renaming identifier set to the old name, is inferred"
        static let typeChange = "Apple's inferable changes do not include changing a property's type"
        static let relationshipAddRemove = "Apple: \"You can add a new relationship or delete an existing relationship\""
        static let toOneToMany = "Apple: \"Changing a relationship from a to-one to a to-many\" is inferred"
        static let toManyToOne = "Apple documents only to-one → to-many as inferable"
        static let ordering = "Apple: \"a non-ordered to-many to ordered (and vice versa)\" is inferred"
        static let entityAddRemoveRename = "Apple: \"You can add, remove, rename entities\""
        static let hierarchy = "Apple: \"You can create a new parent or child entity and move properties up and down the entity hierarchy\""
        static let mergeHierarchies = "Apple: \"You cannot merge entity hierarchies\": entities without a common parent in the source cannot share one in the destination"
        static let entityHashOnly = "changes the entity's version hash (it includes isAbstract); not among Apple's inferable changes"
        static let entityHashLeavesOut = "Apple: an entity's version hash uses its name, parent, abstractness and properties, not its class"
        static let propertyHashLeavesOut = "Apple: a property's version hash uses its name, optionality, transience, read-only flag and type, not this"
        static let hashModifier = "Apple: the version hash modifier marks a different version; whether an inferred mapping suffices is not documented"
        static let transientOnly = "not stored: no migration"
        static let notListed = "not among the changes Apple documents as inferable or as leaving the version hash alone"
        static let notListedNeedsMapping = "Apple's inferable changes do not include pointing a relationship at another entity"
    }
}

extension PropertyDescription {
    /// Whether the property has storage anywhere (a column, a key, a join table).
    var isStoredAnywhere: Bool {
        switch self {
        case .attribute(let a): return !a.isTransient
        case .relationship(let r): return !r.isTransient
        case .fetched: return false
        }
    }
}

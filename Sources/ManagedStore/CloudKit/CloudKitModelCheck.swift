/// A model against the rules `NSPersistentCloudKitContainer` enforces when the app loads
/// its store (and refuses to mirror it if any is broken): Apple's "Creating a Core Data
/// Model for CloudKit" lists them. Checked here before the app ever runs, from the store's
/// own model or an Xcode model file.
public struct CloudKitModelCheck: Sendable {
    public struct Violation: Sendable, Equatable {
        public var entity: String
        public var property: String?
        public var rule: Rule
        public var detail: String
    }

    public enum Rule: String, Sendable, CaseIterable {
        case uniquenessConstraint = "no uniqueness constraints"
        case mandatoryAttribute = "attributes optional or with a default"
        case attributeType = "no Undefined or Object ID attributes"
        case mandatoryRelationship = "relationships optional"
        case missingInverse = "relationships with an inverse"
        case denyDeleteRule = "no Deny delete rule"
        case orderedRelationship = "no ordered relationships"
        case reservedName = "no names Core Data's own record fields take"
    }

    public let violations: [Violation]

    public init(_ model: ManagedObjectModel) {
        var found: [Violation] = []
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            // A property is checked where it is declared, not again in each sub-entity
            // (older model caches repeat inherited properties in every sub-entity).
            let inherited = Set(model.ancestors(of: entity.name).flatMap { $0.properties.map(\.name) })
            if !entity.uniquenessConstraints.isEmpty {
                let list = entity.uniquenessConstraints.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: ", ")
                found.append(Violation(entity: entity.name, property: nil, rule: .uniquenessConstraint,
                                       detail: "uniqueness constraint \(list): CloudKit cannot enforce uniqueness across devices"))
            }
            for property in entity.properties where !inherited.contains(property.name) {
                switch property {
                case .attribute(let a):
                    if a.isTransient { continue }
                    if !a.isOptional && a.defaultValue == nil && !a.isDerived {
                        found.append(Violation(entity: entity.name, property: a.name, rule: .mandatoryAttribute,
                                               detail: "non-optional \(a.type.modelName) without a default value: a record from another "
                                                   + "device may not carry it"))
                    }
                    if a.type == .undefined || a.type == .objectID {
                        found.append(Violation(entity: entity.name, property: a.name, rule: .attributeType,
                                               detail: "\(a.type.modelName) attributes have no CloudKit field type"))
                    }
                    if let reason = Self.reservedReason(a.name) {
                        found.append(Violation(entity: entity.name, property: a.name, rule: .reservedName, detail: reason))
                    }
                case .relationship(let r):
                    if r.isTransient { continue }
                    if !r.isOptional || r.minCount > 0 {
                        found.append(Violation(entity: entity.name, property: r.name, rule: .mandatoryRelationship,
                                               detail: "required relationship to \(r.destinationEntityName): records may arrive in any order, "
                                                   + "so its destination can be missing for a while"))
                    }
                    if r.inverseName == nil {
                        found.append(Violation(entity: entity.name, property: r.name, rule: .missingInverse,
                                               detail: "relationship to \(r.destinationEntityName) has no inverse"))
                    }
                    if r.deleteRule == .deny {
                        found.append(Violation(entity: entity.name, property: r.name, rule: .denyDeleteRule,
                                               detail: "delete rule Deny: a delete arriving from another device cannot be refused"))
                    }
                    if r.isOrdered {
                        found.append(Violation(entity: entity.name, property: r.name, rule: .orderedRelationship,
                                               detail: "ordered to-many relationship to \(r.destinationEntityName)"))
                    }
                    if let reason = Self.reservedReason(r.name) {
                        found.append(Violation(entity: entity.name, property: r.name, rule: .reservedName, detail: reason))
                    }
                case .fetched:
                    continue
                }
            }
        }
        violations = found
    }

    /// Core Data names its record fields `CD_` + the property's name, and adds fields of
    /// its own: `CD_entityName` (the entity of a record of a hierarchy) and
    /// `CD_<attribute>_ckAsset` (a large value moved to an asset). A property whose field
    /// would take one of those names collides with it.
    static func reservedReason(_ name: String) -> String? {
        if name == "entityName" { return "its field CD_entityName is the one Core Data fills with each record's entity" }
        if name.hasSuffix("_ckAsset") { return "names ending in _ckAsset are the fields Core Data moves large values to" }
        return nil
    }
}

/// Checks made before a save, as `validateForInsert`/`validateForUpdate`: required
/// attributes and relationships, the attributes' validation rules (the model's minimum,
/// maximum and pattern), and to-many counts. Each failure names the object and the property.
extension Context {
    func validationFailures() throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for object in changed.values.sorted(by: ManagedObject.displayOrder) where (object.isInserted || object.isUpdated) && !object.isDeleted {
            failures += try validationFailures(of: object)
        }
        return failures
    }

    /// What a save would find wrong with one object now (`validateForUpdate`), without
    /// saving: what a front end shows beside a value the moment it is set.
    public func validationFailures(of object: ManagedObject) throws -> [ValidationFailure] {
        try fire(object)
        var failures: [ValidationFailure] = []
        func fail(_ key: String, _ problem: String) {
            failures.append(ValidationFailure(entity: object.entity.name, objectID: object.objectID.uri, key: key, problem: problem))
        }
        for a in object.entity.attributes where !a.attribute.isTransient && !a.attribute.isDerived {
            let value = object.values[a.attribute.name] ?? .null
            if value.isNull {
                if !a.attribute.isOptional { fail(a.attribute.name, "is required") }
                continue
            }
            guard case .attribute(let attributeValue) = value else { continue }
            for rule in a.attribute.validationRules {
                if let problem = rule.problem(with: attributeValue) { fail(a.attribute.name, problem) }
            }
        }
        for r in object.entity.relationships where !r.relationship.isTransient {
            let rel = r.relationship
            // An optional, unbounded to-many cannot fail: do not read it just to count it.
            if rel.isToMany && rel.isOptional && rel.minCount <= 0 && rel.maxCount <= 0 { continue }
            let count = try value(of: object, rel.name).destinations.count
            if !rel.isToMany {
                if !rel.isOptional && count == 0 { fail(rel.name, "is required") }
                continue
            }
            if count == 0 && rel.isOptional { continue }
            // Only the minimum count binds an empty to-many, optional or not: SwiftData
            // saves a non-optional to-many with no members (CartKit's CartModel.items,
            // a genuine store, holds such a row).
            if count < rel.minCount {
                fail(rel.name, "needs at least \(rel.minCount) object(s), has \(count)")
            }
            if rel.maxCount > 0 && count > rel.maxCount {
                fail(rel.name, "allows at most \(rel.maxCount) object(s), has \(count)")
            }
        }
        return failures
    }
}

/// One check a save failed: the object, the property and what is wrong with it, so that a
/// front end can show it on the field (the web view) or as one line (`save`).
public struct ValidationFailure: Sendable, Equatable, CustomStringConvertible {
    public let entity: String
    /// The object's URI (`x-coredata://…/Person/p3`, or a temporary ID's).
    public let objectID: String
    public let key: String
    public let problem: String

    public var description: String { "\(entity) \(objectID): \(key) \(problem)" }
}

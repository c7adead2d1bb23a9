/// Checks made before a save, as `validateForInsert`/`validateForUpdate`: required
/// attributes and relationships, and to-many counts. Each failure names the object and the
/// property.
extension Context {
    func validationFailures() throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for object in changed.values.sorted(by: ManagedObject.displayOrder) where (object.isInserted || object.isUpdated) && !object.isDeleted {
            func fail(_ key: String, _ problem: String) {
                failures.append(ValidationFailure(entity: object.entity.name, objectID: object.objectID.uri, key: key, problem: problem))
            }
            for a in object.entity.attributes where !a.attribute.isOptional && !a.attribute.isTransient && !a.attribute.isDerived {
                if (object.values[a.attribute.name] ?? .null).isNull {
                    fail(a.attribute.name, "is required")
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

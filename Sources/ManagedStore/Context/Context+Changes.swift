import Foundation

/// Inserting, updating and deleting objects. Every change keeps the inverse relationship
/// in step, as Core Data does, and each public call is one undo step that is undone as a
/// whole if any part of it fails.
extension Context {
    /// Inserts a new object with a temporary ID: attributes start at the model's defaults,
    /// relationships empty, then `values` are set.
    @discardableResult
    public func insert(_ entityName: String, values: [(key: String, text: String)]) throws -> ManagedObject {
        let entity = try store.entity(entityName)
        guard !entity.isAbstract else {
            throw ContextError.badValue(entity: entity.name, key: "", why: "the entity is abstract; insert one of its sub-entities")
        }
        guard store.isCoreDataStore else { throw ContextError.notCoreData }
        return try changeGroup {
            let object = ManagedObject(objectID: coordinator.nextTemporaryID(entity.name), entity: entity)
            object.isFault = false
            object.isInserted = true
            for a in entity.attributes where !a.attribute.isDerived {
                object.values[a.attribute.name] = .attribute(AttributeDefault.value(of: a.attribute) ?? .null)
            }
            for r in entity.relationships {
                object.values[r.relationship.name] = r.relationship.isToMany ? .toMany([]) : .toOne(nil)
            }
            touch(object, newlyInserted: true)
            register(object)
            noteChange(object)
            try apply(values, to: object)
            return object
        }
    }

    public func update(_ object: ManagedObject, values: [(key: String, text: String)]) throws {
        try fire(object)
        guard !object.isDeleted, !object.isInaccessible else { throw ContextError.objectDeleted(object.objectID.uri) }
        try changeGroup { try apply(values, to: object) }
    }

    func apply(_ values: [(key: String, text: String)], to object: ManagedObject) throws {
        for (key, text) in values {
            let (name, value) = try ValueParsing.value(text, for: key, in: object.entity, coordinator: coordinator)
            try set(value, name, of: object)
        }
    }

    /// Sets one property; relationships also update the other side.
    func set(_ value: ObjectValue, _ key: String, of object: ManagedObject) throws {
        guard let relationship = object.entity.relationship(key)?.relationship else {
            try setPrimitive(value, key, of: object)
            return
        }
        let old = try self.value(of: object, key).destinations
        var new = value.destinations
        if relationship.isToMany, !relationship.isOrdered { new = unique(new) }
        for id in new {
            let destination = try existingObject(with: id)
            if destination.isDeleted || destination.isInaccessible { throw ContextError.objectDeleted(id.uri) }
        }
        try setPrimitive(relationship.isToMany ? .toMany(new) : .toOne(new.first), key, of: object)
        guard let inverse = relationship.inverseName else { return }
        let newSet = Set(new), oldSet = Set(old)
        for id in old where !newSet.contains(id) {
            try removeInverse(try self.object(with: id), inverse, object.objectID)
        }
        for id in new where !oldSet.contains(id) {
            try addInverse(try self.object(with: id), inverse, object.objectID)
        }
    }

    /// Sets a value without touching the other side of a relationship.
    func setPrimitive(_ value: ObjectValue, _ key: String, of object: ManagedObject) throws {
        try fire(object)
        touch(object)
        object.values[key] = value
        if !object.isInserted {
            if object.snapshot?.values[key] == value { object.changedKeys.remove(key) } else { object.changedKeys.insert(key) }
        }
        noteChange(object)
    }

    /// Makes `object.key` include `id`; for a to-one, the object it pointed at before
    /// loses it on its side (a car taken from its old owner).
    func addInverse(_ object: ManagedObject, _ key: String, _ id: ObjectID) throws {
        guard let relationship = object.entity.relationship(key)?.relationship else { return }
        let current = try value(of: object, key).destinations
        if relationship.isToMany {
            guard !current.contains(id) else { return }
            try setPrimitive(.toMany(current + [id]), key, of: object)
            return
        }
        if current.first == id { return }
        if let previous = current.first, let back = relationship.inverseName {
            try removeInverse(try self.object(with: previous), back, object.objectID)
        }
        try setPrimitive(.toOne(id), key, of: object)
    }

    func removeInverse(_ object: ManagedObject, _ key: String, _ id: ObjectID) throws {
        guard let relationship = object.entity.relationship(key)?.relationship else { return }
        let current = try value(of: object, key).destinations
        guard current.contains(id) else { return }
        try setPrimitive(relationship.isToMany ? .toMany(current.filter { $0 != id }) : .toOne(nil), key, of: object)
    }

    func unique(_ ids: [ObjectID]) -> [ObjectID] {
        var seen = Set<ObjectID>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// Deletes an object and applies its relationships' delete rules now: deny refuses the
    /// delete while the relationship holds objects, cascade deletes them too, nullify takes
    /// the object out of the other side.
    public func delete(_ object: ManagedObject) throws {
        try fire(object)
        guard !object.isDeleted, !object.isInaccessible else { throw ContextError.objectDeleted(object.objectID.uri) }
        try changeGroup {
            var closure: [ManagedObject] = []
            var seen = Set<ObjectID>()
            try collectCascade(object, into: &closure, seen: &seen)
            // Deny is checked over the whole cascade before anything changes.
            for o in closure {
                for r in o.entity.relationships where r.relationship.deleteRule == .deny {
                    let remaining = try value(of: o, r.relationship.name).destinations.filter { !seen.contains($0) }
                    if !remaining.isEmpty {
                        throw ContextError.deleteDenied(object: o.objectID.uri, relationship: r.relationship.name,
                                                        destinations: remaining.count)
                    }
                }
            }
            for o in closure {
                for r in o.entity.relationships {
                    guard let inverse = r.relationship.inverseName else { continue }
                    for id in try value(of: o, r.relationship.name).destinations where !seen.contains(id) {
                        try removeInverse(try self.object(with: id), inverse, o.objectID)
                    }
                }
                touch(o)
                if o.isInserted {
                    unregister(o)
                } else {
                    o.isDeleted = true
                    noteChange(o)
                }
            }
        }
    }

    func collectCascade(_ object: ManagedObject, into closure: inout [ManagedObject], seen: inout Set<ObjectID>) throws {
        guard seen.insert(object.objectID).inserted else { return }
        closure.append(object)
        for r in object.entity.relationships where r.relationship.deleteRule == .cascade {
            for id in try value(of: object, r.relationship.name).destinations {
                let destination = try self.object(with: id)
                try fire(destination)
                if !destination.isDeleted && !destination.isInaccessible {
                    try collectCascade(destination, into: &closure, seen: &seen)
                }
            }
        }
    }
}

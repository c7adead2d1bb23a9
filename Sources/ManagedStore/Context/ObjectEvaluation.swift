import Foundation

/// A managed object as the in-memory predicate evaluator sees it: key-value coding through
/// the context, so key paths fire faults and follow relationships as they would in the app.
struct ObjectEvaluation: PredicateEvaluable {
    let object: ManagedObject
    let context: Context

    func value(forKey key: String) throws -> EvaluatedValue {
        // A composite answers its elements' keys, as its dictionary does in the app.
        if object.entity.attribute(key) == nil, object.entity.isComposite(key) {
            return .object(CompositeEvaluation(owner: self, path: key))
        }
        switch try context.value(of: object, key) {
        case .attribute(let a): return .value(a.predicateValue)
        case .toOne(nil): return .null
        case .toOne(let id?): return .object(ObjectEvaluation(object: try context.object(with: id), context: context))
        case .toMany(let ids):
            return .collection(try ids.map { .object(ObjectEvaluation(object: try context.object(with: $0), context: context)) })
        }
    }

    var evaluationIdentity: AnyHashable { AnyHashable(context.coordinator.resolve(object.objectID)) }

    /// Compares the key and the table, as the SQL does: `Car/p2` names the SportsCar p2,
    /// and no store read is needed to learn the concrete entity.
    func isReferenced(by text: String) -> Bool {
        guard let parsed = ObjectID.parse(text), let entity = context.mapping.entity(named: parsed.entityName) else { return false }
        let coordinator = context.coordinator
        if let uuid = parsed.storeUUID, !uuid.isEmpty, uuid != coordinator.store.uuid { return false }
        let named = parsed.primaryKey < 0 ? ObjectID.temporary(entityName: entity.name, number: -parsed.primaryKey)
            : ObjectID(storeUUID: coordinator.store.uuid, entityName: entity.name, primaryKey: parsed.primaryKey)
        let id = coordinator.resolve(named), mine = coordinator.resolve(object.objectID)
        return id.primaryKey == mine.primaryKey && entity.table == object.entity.table
    }
}

/// A composite attribute's value (a dictionary in the app) as key-value coding reaches into it.
struct CompositeEvaluation: PredicateEvaluable {
    let owner: ObjectEvaluation
    let path: String

    func value(forKey key: String) throws -> EvaluatedValue {
        try owner.value(forKey: path + "." + key)
    }

    var evaluationIdentity: AnyHashable { AnyHashable(path + "@" + String(describing: owner.evaluationIdentity)) }
}

extension AttributeValue {
    /// The value an NSPredicate compares: numbers, strings, dates; the rest as the text a
    /// user would compare them with.
    var predicateValue: PredicateValue {
        switch self {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .date(let d): return .date(d)
        case .uuid(let u): return .string(u.uuidString)
        case .uri(let s): return .string(s)
        case .data(let bytes): return .string(Data(bytes).base64EncodedString())
        case .transformable(let summary, _): return .string(summary)
        case .json(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        case .externalFile(let path, _): return .string(path)
        }
    }
}

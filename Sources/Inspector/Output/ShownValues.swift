import ManagedStore

/// Turns fetched values into what is printed, keeping per fetch what every row shares.
struct ShownValues {
    var uris = ObjectURICache()
    let rawArchives: Bool

    init(rawArchives: Bool) {
        self.rawArchives = rawArchives
    }

    /// A value as the row holds it: a string's bytes go to the writer as they are.
    mutating func add(_ value: RowValue, to writer: RowWriter) {
        switch value {
        case .text(let utf8): writer.add(utf8: utf8)
        case .decoded(let v): writer.add(self.value(v))
        case .null: writer.add(.null)
        case .integer(let i): writer.add(integer: i)
        case .real(let d): writer.add(.real(d))
        case .bool(let b): writer.add(.bool(b))
        case .date(let d): writer.add(date: d)
        }
    }

    mutating func value(_ value: ObjectValue) -> OutputValue {
        switch value {
        case .attribute(let a): return OutputValue(a, rawArchives: rawArchives)
        case .toOne(let id?): return uris.value(id)
        case .toOne(nil): return .null
        case .toMany(let ids): return .array(ids.map { uris.value($0) })
        }
    }
}

/// Object URIs share their `x-coredata://UUID/Entity/p` prefix; building it once per
/// entity rather than once per row matters at a million rows.
///
/// Rows of an entity hierarchy, and the objects their relationships name, change entity
/// from one value to the next, so the prefixes are kept in a short list searched in order
/// (the model's own name strings compare at once) rather than hashed per value; past
/// `listed` entities, a dictionary holds the rest.
struct ObjectURICache {
    /// An entity's prefix, and whether it needs no quoting in any format: both settled once.
    private struct Entry {
        let entity: String
        let prefix: String
        let isPlain: Bool
    }
    private static let listed = 16
    private var entries: [Entry] = []
    private var more: [String: Entry] = [:]
    /// The entity of the value before: every value, when a fetch's rows are of one entity.
    /// Plain fields, not an optional, so that a row's URI borrows them instead of copying.
    private var lastEntity = ""
    private var lastPrefix = ""
    private var lastPrefixIsPlain = false

    /// A fetched object's URI, from its entity and key without making its ID, written
    /// into the row as the next field.
    mutating func write(_ object: borrowing FetchedObject, to writer: RowWriter) {
        let key = object.primaryKey
        guard key > 0 else { return writer.add(value(object.objectID)) }
        let entity = object.entityName
        if lastEntity.isEmpty || lastEntity != entity {
            remember(entry(for: entity) ?? entry(for: object.objectID))
        }
        writer.add(objectURIPrefix: lastPrefix, key: key, plain: lastPrefixIsPlain)
    }

    mutating func value(_ id: ObjectID) -> OutputValue {
        if id.isTemporary { return .objectID(id.uri) }
        if lastEntity.isEmpty || lastEntity != id.entityName {
            remember(entry(for: id.entityName) ?? entry(for: id))
        }
        return .objectURI(prefix: lastPrefix, key: id.primaryKey)
    }

    private mutating func remember(_ entry: Entry) {
        lastEntity = entry.entity
        lastPrefix = entry.prefix
        lastPrefixIsPlain = entry.isPlain
    }

    private func entry(for entity: String) -> Entry? {
        for entry in entries where entry.entity == entity { return entry }
        return more[entity]
    }

    /// A new entity's entry, made from an object ID of it.
    private mutating func entry(for id: ObjectID) -> Entry {
        let prefix = ObjectID.uriPrefix(storeUUID: id.storeUUID, entityName: id.entityName)
        let entry = Entry(entity: id.entityName, prefix: prefix, isPlain: RowWriter.isPlainInEveryFormat(prefix))
        if entries.count < Self.listed {
            entries.append(entry)
        } else {
            more[id.entityName] = entry
        }
        return entry
    }
}

import Foundation
import GRDB

/// Writes incoming objects inside the import's transaction, one at a time: checks each as a
/// save would, then inserts or updates its row, its relationships, and its history.
struct ImportWriter {
    /// Why one incoming object is refused; the import goes on to the next.
    struct Rejection: Error {
        var key: String?
        let why: String
    }

    enum Outcome { case inserted, updated, unchanged }

    let db: Database
    let store: PersistentStore
    let options: ImportOptions
    let named: FileObjectIDs
    let history: HistoryWriter?
    /// Where values over Core Data's threshold go, settled when the import's transaction ends.
    let external: ExternalDataFiles
    private var plans: [String: ImportEntityPlan] = [:]
    /// The key each (file UUID, root entity) adds to the file's keys, and the next key of
    /// objects the file gives no ID, by root entity.
    private var offsets: [String: Int64] = [:]
    private var rootKeys: [String: RootKeys] = [:]
    private var lastPlan: ImportEntityPlan?
    /// Store objects whose relationships changed, by `Entity/pK`: Core Data saves them too.
    private var touched: [String: (entity: EntityMapping, key: Int64, properties: Set<String>)] = [:]
    /// Key columns of rows of the file to set when every row is in: they may come later.
    private var deferredSpecs: [DeferredColumn] = []
    private var hasDeferred = false

    init(db: Database, store: PersistentStore, options: ImportOptions, named: FileObjectIDs, external: ExternalDataFiles) throws {
        self.db = db
        self.store = store
        self.external = external
        self.options = options
        self.named = named
        history = HistoryWriter(db: db, store: store, origin: HistoryOrigin(author: options.historyAuthor, contextName: nil))
        // Each (file UUID, root) takes the keys after the root's counter, in UUID order.
        var byRoot: [String: [(uuid: String, highest: Int64)]] = [:]
        for (name, highest) in named.highest {
            guard let slash = name.lastIndex(of: "/") else { continue }
            byRoot[String(name[name.index(after: slash)...]), default: []].append((String(name[..<slash]), highest))
        }
        for (root, groups) in byRoot {
            var base = try currentMax(root)
            for group in groups.sorted(by: { $0.uuid < $1.uuid }) {
                offsets["\(group.uuid)/\(root)"] = base
                base += group.highest
            }
            rootKeys[root] = RootKeys(next: base)
        }
    }

    // MARK: Keys

    /// The highest key the root's table has handed out: its counter (refused when damaged,
    /// as a save refuses it), or a row past it.
    private func currentMax(_ rootName: String) throws -> Int64 {
        guard let root = store.mapping.entity(named: rootName) else { return 0 }
        let rows = try integer("SELECT max(Z_PK) FROM \(SQL.identifier(root.table))") ?? 0
        return max(try StoreWriter.keyCounter(of: root, db), rows)
    }

    /// An integer a query reads; nil for none, and for a value that is no integer (stores are
    /// user input: a hand-edited key column may hold text).
    private func integer(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws -> Int64? {
        try DatabaseValue.fetchOne(db, sql: sql, arguments: arguments).flatMap(Int64.fromDatabaseValue)
    }

    /// The entity the row `key` of `table` says it is (its `Z_ENT`); nil without such a row.
    private func storedEntity(_ table: String, _ key: Int64) throws -> EntityMapping? {
        try integer("SELECT Z_ENT FROM \(SQL.identifier(table)) WHERE Z_PK = ?", [key]).flatMap { store.mapping.entity(withID: Int($0)) }
    }

    /// The key an object of the file gets in the store.
    private func storeKey(uuid: String, entity: EntityMapping, fileKey: Int64) -> Int64? {
        if let existing = named.matched["\(uuid)/\(entity.name)/\(fileKey)"] ?? named.kept["\(uuid)/\(entity.name)/\(fileKey)"] { return existing }
        let root = store.mapping.rootEntity(of: entity).name
        return offsets["\(uuid)/\(root)"].map { $0 + fileKey }
    }

    private mutating func newKey(for object: IncomingObject, plan: ImportEntityPlan, uuid: String) throws -> Int64 {
        let keys = plan.rootKeys
        let key: Int64
        if let id = object.sourceID, let mapped = storeKey(uuid: uuid, entity: object.entity, fileKey: id.primaryKey) {
            key = mapped
        } else {
            let (next, overflow) = keys.next.addingReportingOverflow(1)
            guard !overflow else { throw Rejection(why: "the keys of \(plan.rootName) are exhausted") }
            keys.next = next
            key = next
        }
        keys.highest = max(keys.highest, key)
        return key
    }

    private mutating func plan(_ entity: EntityMapping) throws -> ImportEntityPlan {
        // Objects come entity by entity: the last plan is nearly always the one.
        if let last = lastPlan, last.entity.name == entity.name { return last }
        if let plan = plans[entity.name] {
            lastPlan = plan
            return plan
        }
        let root = store.mapping.rootEntity(of: entity).name
        let keys = try rootKeys[root] ?? RootKeys(next: currentMax(root))
        rootKeys[root] = keys
        let plan = try ImportEntityPlan(entity, mapping: store.mapping, rootKeys: keys)
        plans[entity.name] = plan
        lastPlan = plan
        return plan
    }

    // MARK: One object

    /// The model's rules the last object written breaks, where the options keep such objects
    /// as they are (`ImportOptions.keepsBrokenRules`); empty otherwise.
    private(set) var keptDespite: [String] = []

    /// An object that breaks the model's rules (`broken`) is rejected by the first, or with
    /// `keepsBrokenRules` written as it is, the rules it breaks kept to report.
    private mutating func admit(_ broken: [String]) throws {
        guard let first = broken.first else { return }
        guard options.keepsBrokenRules else { throw Rejection(why: first) }
        keptDespite = broken
    }

    mutating func write(_ object: IncomingObject, fileStoreUUID: String?) throws -> Outcome {
        keptDespite = []
        if let problem = object.problem { throw Rejection(why: problem) }
        let entity = object.entity
        guard !entity.isAbstract, entity.entityID != nil else {
            throw Rejection(why: "\(entity.name) is abstract; import one of its sub-entities")
        }
        let plan = try plan(entity)
        let uuid = object.sourceID.map { $0.storeUUID ?? fileStoreUUID ?? "" } ?? ""
        var values = try incomingValues(object, plan: plan, uuid: fileStoreUUID ?? "")
        var keyText: String?
        if options.matchesOwnObjectIDs {
            keyText = object.sourceIDText
            if let id = object.sourceID, let key = named.matched["\(uuid)/\(entity.name)/\(id.primaryKey)"],
               let row = try Row.fetchOne(db, sql: "SELECT Z_ENT, Z_OPT FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?", arguments: [key]) {
                let stored: Int64? = row.lenient(0), version: Int64? = row.lenient(1)
                guard let version else { throw Rejection(key: keyText, why: "the matching \(entity.name)'s version (Z_OPT) is not an integer") }
                return try update((key, stored ?? 0, version), plan: plan, values: values)
            }
        } else if !options.upsertKeys.isEmpty {
            let keyValues = try Self.keyValues(object, keys: options.upsertKeys)
            keyText = options.upsertKeys.map { key in
                switch object.value(of: key) {
                case .text(let text, _)?, .json(.string(let text))?, .json(.number(let text))?: return "\(key)=\(text)"
                default: return key
                }
            }.joined(separator: ", ")
            do {
                if let existing = try Self.findExisting(entity, keys: options.upsertKeys, values: keyValues, db: db) {
                    return try update(existing, plan: plan, values: values)
                }
            } catch let rejection as Rejection {
                throw Rejection(key: keyText, why: rejection.why)
            }
        }
        do {
            try plan.fillDefaults(&values)
            try admit(plan.brokenRules(values))
        } catch let rejection as Rejection {
            throw Rejection(key: keyText, why: rejection.why)
        }
        let key = try newKey(for: object, plan: plan, uuid: uuid)
        try insert(key, plan: plan, values: values, keyText: keyText)
        return .inserted
    }

    /// What a key of an incoming object is to its entity, worked out once per run of keys.
    private enum Slot {
        case attribute(Int, ImportAttribute)
        case relationship(RelationshipMapping)
        /// Derived (the store computes it), transient, or a fetched property: not written.
        case ignored
        case unknown
    }

    /// The slots of the last keys seen: CSV rows, and export's objects of one entity, repeat
    /// their keys in the same order, so the model is asked once, not for every value.
    private var slotCache: (entity: String, keys: [String], slots: [Slot])?

    private mutating func slots(_ keys: [String], plan: ImportEntityPlan) -> [Slot] {
        if let cache = slotCache, cache.entity == plan.entity.name, cache.keys == keys { return cache.slots }
        let entity = plan.entity
        let slots = keys.map { key -> Slot in
            if let a = entity.attribute(key) {
                guard a.column != nil, !a.attribute.isDerived, !a.attribute.isTransient, let slot = plan.attributeSlots[key] else { return .ignored }
                return .attribute(slot, plan.attributes[slot])
            }
            if let r = entity.relationship(key) { return r.relationship.isTransient ? .ignored : .relationship(r) }
            return entity.fetchedProperties.contains { $0.name == key } ? .ignored : .unknown
        }
        slotCache = (entity.name, keys, slots)
        return slots
    }

    /// The incoming object's values, converted and resolved; the unknown key or the value
    /// that does not fit rejects the object.
    private mutating func incomingValues(_ object: IncomingObject, plan: ImportEntityPlan, uuid: String) throws -> ImportEntityPlan.Values {
        if let row = object.row { return try rowValues(row, object: object, plan: plan, uuid: uuid) }
        var values = plan.emptyValues()
        let fields = flattened(object.fields, entity: object.entity)
        for (slot, (key, value)) in zip(slots(fields.map(\.key), plan: plan), fields) {
            switch slot {
            case .attribute(let index, let a):
                do {
                    switch value {
                    case .json(let json): values.attributes[index] = try ImportValue.stored(json, a.description)
                    case .text(let text, let quoted): values.attributes[index] = try ImportValue.fromText(text, quoted: quoted, a.description)
                    }
                } catch {
                    throw Rejection(why: error.why)
                }
            case .relationship(let r):
                let members = try resolve(value, r, of: object.entity, uuid: uuid)
                if r.relationship.isToMany { values.toManys[key] = members } else {
                    guard members.count <= 1 else { throw Rejection(why: "\(key) is a to-one relationship, given \(members.count) objects") }
                    values.toOnes[key] = .some(members.first)
                }
            case .ignored:
                continue
            case .unknown:
                throw Rejection(why: "\(object.entity.name) has no attribute or relationship \(key)")
            }
        }
        return values
    }

    /// A CSV row's values, converted from the record's bytes.
    private mutating func rowValues(_ row: IncomingObject.Row, object: IncomingObject, plan: ImportEntityPlan,
                                    uuid: String) throws -> ImportEntityPlan.Values {
        var values = plan.emptyValues()
        let slots = self.slots(row.header, plan: plan)
        for i in 0..<min(slots.count, row.fields.count) {
            let field = row.fields[i]
            switch slots[i] {
            case .attribute(let index, let a):
                do {
                    values.attributes[index] = try ImportValue.fromBytes(row.bytes[field.range], quoted: field.quoted, a)
                } catch {
                    throw Rejection(why: error.why)
                }
            case .relationship(let r):
                let text = String(decoding: row.bytes[field.range], as: UTF8.self)
                let members = try resolve(.text(text, quoted: field.quoted), r, of: object.entity, uuid: uuid)
                values.toOnes[r.relationship.name] = .some(members.first)
            case .ignored:
                continue
            case .unknown:
                // The objectID column; any other unknown name was refused with the header.
                continue
            }
        }
        return values
    }

    /// Composite attributes nested as `fetch --format json` prints them (`{"address":
    /// {"city": …}}`), flattened to their leaves' names (`address.city`).
    private func flattened(_ fields: [(key: String, value: IncomingObject.Value)], entity: EntityMapping) -> [(key: String, value: IncomingObject.Value)] {
        // Only JSON nests; CSV fields are leaves already.
        guard fields.contains(where: { if case .json(.object) = $0.value { return true } else { return false } }) else { return fields }
        var out: [(key: String, value: IncomingObject.Value)] = []
        func add(_ key: String, _ value: IncomingObject.Value) {
            if case .json(.object(let pairs)) = value, entity.attribute(key) == nil, entity.relationship(key) == nil,
               entity.attributes.contains(where: { $0.attribute.name.hasPrefix(key + ".") }) {
                for pair in pairs { add(key + "." + pair.key, .json(pair.value)) }
            } else {
                out.append((key, value))
            }
        }
        for field in fields { add(field.key, field.value) }
        return out
    }

    // MARK: Relationships

    /// A relationship's value: object IDs (of the file or of the store), or with a link, key
    /// values of the destination.
    private func resolve(_ value: IncomingObject.Value, _ r: RelationshipMapping, of entity: EntityMapping,
                         uuid: String) throws -> [ImportMember] {
        let name = r.relationship.name
        guard let destination = store.mapping.entity(named: r.relationship.destinationEntityName) else {
            throw Rejection(why: "\(name) leads to \(r.relationship.destinationEntityName), which is not in the model")
        }
        var items: [String] = []
        switch value {
        case .json(.null): return []
        case .json(.string(let s)): items = [s]
        case .json(.number(let n)) where options.links[name] != nil: items = [n]
        case .json(.array(let array)):
            guard r.relationship.isToMany else { throw Rejection(why: "\(name) is a to-one relationship, given an array") }
            for item in array {
                guard case .string(let s) = item else { throw Rejection(why: "\(name) holds \(ImportValue.describe(item)), not an object ID") }
                items.append(s)
            }
        case .text(let text, let quoted):
            if text.isEmpty && !quoted { return [] }
            guard !r.relationship.isToMany else {
                throw Rejection(why: "\(name) is a to-many relationship; CSV gives to-one relationships only")
            }
            items = [text]
        case .json(let other):
            throw Rejection(why: "\(name) holds \(ImportValue.describe(other)), not an object ID")
        }
        if let linkKey = options.links[name] {
            return try items.map { try link($0, destination: destination, key: linkKey, relationship: name) }
        }
        return try items.map { text in
            guard let id = ObjectID.parse(text), id.primaryKey > 0 else {
                throw Rejection(why: "\(name) holds \(ImportValue.quote(text)), not an object ID such as x-coredata://UUID/Entity/p1")
            }
            guard let target = store.mapping.entity(named: id.entityName), let targetID = target.entityID,
                  destination.entityIDs.contains(targetID) else {
                throw Rejection(why: "\(name) holds \(text), which is not an object of \(destination.name)")
            }
            let fileUUID = id.storeUUID ?? uuid
            if named.contains(fileUUID, target.name, id.primaryKey), let key = storeKey(uuid: fileUUID, entity: target, fileKey: id.primaryKey) {
                return ImportMember(entity: target, key: key, inFile: named.matched["\(fileUUID)/\(target.name)/\(id.primaryKey)"] == nil)
            }
            guard id.storeUUID == nil || id.storeUUID == store.uuid,
                  try storedEntity(target.table, id.primaryKey)?.name == target.name else {
                throw Rejection(why: "\(name) holds \(text), which is neither an object of the file nor one of the store")
            }
            return ImportMember(entity: target, key: id.primaryKey, inFile: false)
        }
    }

    /// The one destination object whose `key` attribute holds `text`.
    private func link(_ text: String, destination: EntityMapping, key: String, relationship: String) throws -> ImportMember {
        guard let a = destination.attribute(key), let column = a.column else {
            throw Rejection(why: "\(destination.name) has no stored attribute \(key) to link \(relationship) by")
        }
        let value: DatabaseValue
        do { value = try ImportValue.fromText(text, quoted: true, a.attribute) } catch { throw Rejection(why: error.why) }
        let found = try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM \(SQL.identifier(destination.table)) WHERE \(SQL.identifier(column)) = ?"
                                     + " AND Z_ENT IN (\(destination.entityIDs.map(String.init).joined(separator: ", "))) LIMIT 2",
                                     arguments: [value])
        guard found.count == 1, let entity = Int64.fromDatabaseValue(found[0][1]).flatMap({ store.mapping.entity(withID: Int($0)) }) else {
            throw Rejection(why: found.isEmpty ? "\(relationship): no \(destination.name) has \(key) = \(ImportValue.quote(text))"
                            : "\(relationship): more than one \(destination.name) has \(key) = \(ImportValue.quote(text))")
        }
        return ImportMember(entity: entity, key: found[0][0], inFile: false)
    }

    // MARK: Upsert

    /// The values of the upsert keys an incoming object gives.
    static func keyValues(_ object: IncomingObject, keys: [String]) throws -> [DatabaseValue] {
        try keys.map { key in
            guard let a = object.entity.attribute(key) else { throw Rejection(why: "\(object.entity.name) has no attribute \(key)") }
            guard let field = object.value(of: key) else { throw Rejection(why: "it gives no \(key), the upsert key") }
            do {
                switch field {
                case .json(let json): return try ImportValue.stored(json, a.attribute)
                case .text(let text, let quoted): return try ImportValue.fromText(text, quoted: quoted, a.attribute)
                }
            } catch {
                throw Rejection(why: (error as? ImportValue.Refusal)?.why ?? "\(error)")
            }
        }
    }

    /// The store object whose keys hold `values`; more than one is a rejection.
    static func findExisting(_ entity: EntityMapping, keys: [String], values: [DatabaseValue], db: Database) throws -> (key: Int64, entity: Int64, version: Int64)? {
        let conditions = try keys.map { key -> String in
            guard let column = entity.attribute(key)?.column else { throw Rejection(why: "\(key) is not stored in a column") }
            return "\(SQL.identifier(column)) IS ?"
        }
        let rows = try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT FROM \(SQL.identifier(entity.table)) WHERE "
                                    + (conditions + ["Z_ENT IN (\(entity.entityIDs.map(String.init).joined(separator: ", ")))"]).joined(separator: " AND ")
                                    + " LIMIT 2", arguments: StatementArguments(values))
        guard rows.count <= 1 else { throw Rejection(why: "more than one \(entity.name) in the store has these key values") }
        guard let row = rows.first else { return nil }
        // Z_PK is the rowid, an integer. A version that is no integer cannot be checked, as a
        // save checks it before it writes (a hand-edited row).
        let version: DatabaseValue = row[2]
        guard let checked = Int64.fromDatabaseValue(version) else {
            throw Rejection(why: "the matching \(entity.name)'s version (Z_OPT) is \(version), not an integer")
        }
        return (row[0], Int64.fromDatabaseValue(row[1]) ?? 0, checked)
    }

    // MARK: Writing

    /// An inline external-storage value (`01` and the bytes) over Core Data's threshold: the
    /// reference to the file its bytes now go to. Anything else is returned as it is.
    private func externalized(_ value: DatabaseValue?) throws -> DatabaseValue? {
        guard case .blob(let data)? = value?.storage, data.first == ExternalDataFiles.inlineTag,
              data.count - 1 > ExternalDataFiles.threshold else { return value }
        return Data(try external.stored([UInt8](data.dropFirst()))).databaseValue
    }

    private mutating func insert(_ key: Int64, plan: ImportEntityPlan, values given: ImportEntityPlan.Values, keyText: String?) throws {
        let entity = plan.entity
        var values = given
        for slot in plan.externalSlots { values.attributes[slot] = try externalized(values.attributes[slot]) }
        var arguments: [DatabaseValue] = []
        arguments.reserveCapacity(plan.rowColumns.count * 2 + 3)
        arguments += [key.databaseValue, Int64(entity.entityID ?? 0).databaseValue, Int64(1).databaseValue]
        for column in plan.rowColumns {
            switch column {
            case .attribute(_, _, let slot): arguments.append(values.attributes[slot] ?? .null)
            case .toOne(let name, _, let entityColumn):
                let member = values.toOnes[name] ?? nil
                arguments.append(member.map { $0.key.databaseValue } ?? .null)
                if entityColumn != nil { arguments.append(member.map { Int64($0.entity.entityID ?? 0).databaseValue } ?? .null) }
            }
        }
        do {
            // Bound through the C API, as a save's statements are: a million rows make no
            // StatementArguments.
            let statement = try plan.insertStatement ?? db.makeStatement(sql: plan.insertSQL)
            plan.insertStatement = statement
            let row = ColumnReader(statement.sqliteStatement)
            try row.bind(arguments, db, checksCancellation: false)
            while try row.step(db) {}
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw Rejection(key: keyText, why: plan.constraintReason(error))
        }
        try history?.insert(entity, key)
        guard !values.toOnes.isEmpty || !values.toManys.isEmpty else { return }
        let owner = ImportMember(entity: entity, key: key, inFile: true)
        for (name, member) in values.toOnes {
            guard let r = entity.relationship(name) else { continue }
            if r.relationship.inverseName != nil, case .foreignKey(let column, _) = r.storage {
                try noteGiven(entity.table, column, member: key)
            }
            if let member { try linkInverse(of: r, owner: owner, to: member) }
        }
        for (name, members) in values.toManys.sorted(by: { $0.key < $1.key }) {
            guard let r = entity.relationship(name), !members.isEmpty else { continue }
            try writeToMany(r, owner: owner, old: [], new: members)
        }
    }

    /// An upserted object: the given values that differ are written, with its version one up.
    private mutating func update(_ existing: (key: Int64, entity: Int64, version: Int64), plan: ImportEntityPlan,
                                 values: ImportEntityPlan.Values) throws -> Outcome {
        guard let entity = store.mapping.entity(withID: Int(existing.entity)) else {
            throw Rejection(why: "the matching object's entity number \(existing.entity) is not in the model")
        }
        let rowPlan = try self.plan(entity)
        let old = try rowPlan.read(existing.key, db: db)
        var sets: [(String, DatabaseValue)] = []
        var changed: Set<String> = []
        for (slot, given) in values.attributes.enumerated() {
            let name = plan.attributeNames[slot]
            guard var value = given, let column = entity.attribute(name)?.column, old.values[column] != value else { continue }
            if plan.externalSlots.contains(slot) {
                // A file's value given again keeps its file; another value replaces it.
                let previous: [UInt8] = { if case .blob(let d)? = old.values[column]?.storage { return [UInt8](d) } else { return [] } }()
                if case .blob(let d) = value.storage, d.first == ExternalDataFiles.inlineTag,
                   external.holds(previous, [UInt8](d.dropFirst())) { continue }
                value = try externalized(value) ?? value
                external.release(previous)
            }
            sets.append((column, value))
            changed.insert(name)
        }
        let owner = ImportMember(entity: entity, key: existing.key, inFile: false)
        var inverses: [(RelationshipMapping, ImportMember?, ImportMember?)] = []
        for (name, member) in values.toOnes {
            guard let r = entity.relationship(name), case .foreignKey(let column, let entityColumn) = r.storage else { continue }
            let previous = (old.values[column]).flatMap(Int64.fromDatabaseValue)
            guard previous != member?.key else { continue }
            sets.append((column, member.map { $0.key.databaseValue } ?? .null))
            if let entityColumn { sets.append((entityColumn, member.map { Int64($0.entity.entityID ?? 0).databaseValue } ?? .null)) }
            let previousEntity = old.values[entityColumn ?? ""].flatMap(Int64.fromDatabaseValue).flatMap { store.mapping.entity(withID: Int($0)) }
                ?? store.mapping.entity(named: r.relationship.destinationEntityName)
            let was = previous.flatMap { key in previousEntity.map { ImportMember(entity: $0, key: key, inFile: false) } }
            changed.insert(was?.entity.name == member?.entity.name && was != nil && member != nil ? UpdatedPropertyBits.sameEntity(name) : name)
            inverses.append((r, member, was))
        }
        var toManys: [(RelationshipMapping, [ImportMember], [ImportMember])] = []
        for (name, members) in values.toManys.sorted(by: { $0.key < $1.key }) {
            guard let r = entity.relationship(name) else { continue }
            let current = try self.members(of: existing.key, r)
            guard current.map(\.key) != members.map(\.key) else { continue }
            if !r.relationship.isOrdered, Set(current.map(\.key)) == Set(members.map(\.key)) { continue }
            toManys.append((r, current, members))
            changed.insert(name)
        }
        guard !changed.isEmpty else { return .unchanged }
        // The row's merged values must still pass the save's checks.
        var merged = rowPlan.emptyValues()
        for case .attribute(let name, let column, let slot) in rowPlan.rowColumns {
            merged.attributes[slot] = plan.attributeSlots[name].flatMap { values.attributes[$0] } ?? old.values[column] ?? .null
        }
        for case .toOne(let name, let column, _) in rowPlan.rowColumns {
            merged.toOnes[name] = values.toOnes[name] ?? old.values[column].flatMap(Int64.fromDatabaseValue).map {
                ImportMember(entity: entity, key: $0, inFile: false)
            }
        }
        try admit(rowPlan.brokenRules(merged, toManysGiven: false))
        let version = existing.version + 1
        let assignments = sets.map { "\(SQL.identifier($0.0)) = ?" } + ["Z_OPT = ?"]
        do {
            try db.execute(sql: "UPDATE OR FAIL \(SQL.identifier(entity.table)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?",
                           arguments: StatementArguments(sets.map(\.1) + [version.databaseValue, existing.key.databaseValue, existing.version.databaseValue]))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw Rejection(why: rowPlan.constraintReason(error))
        }
        try history?.update(entity, existing.key, keys: changed)
        for (r, member, was) in inverses {
            if let was, let inverse = r.relationship.inverseName { touch(was, inverse) }
            if let member { try linkInverse(of: r, owner: owner, to: member) }
        }
        for (r, old, new) in toManys { try writeToMany(r, owner: owner, old: old, new: new) }
        return .updated
    }

    /// The members a to-many relationship of a store object has now.
    private func members(of owner: Int64, _ r: RelationshipMapping) throws -> [ImportMember] {
        guard let destination = store.mapping.entity(named: r.relationship.destinationEntityName) else { return [] }
        let sql: String
        switch r.storage {
        case .joinTable(let table, let source, let member, let order):
            sql = "SELECT p.\(SQL.identifier(member)), d.Z_ENT FROM \(SQL.identifier(table)) p JOIN \(SQL.identifier(destination.table)) d"
                + " ON d.Z_PK = p.\(SQL.identifier(member)) WHERE p.\(SQL.identifier(source)) = ?" + (order.map { " ORDER BY p.\(SQL.identifier($0))" } ?? "")
        case .inverseForeignKey(let table, let column, let order), .hiddenForeignKey(let table, let column, let order):
            sql = "SELECT Z_PK, Z_ENT FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(column)) = ?"
                + " ORDER BY " + (order.map { "\(SQL.identifier($0)), " } ?? "") + "Z_PK"
        default:
            return []
        }
        return try Row.fetchAll(db, sql: sql, arguments: [owner]).compactMap { row in
            guard let key = Int64.fromDatabaseValue(row[0]), let entity = Int64.fromDatabaseValue(row[1]).flatMap({ store.mapping.entity(withID: Int($0)) })
            else { return nil }
            return ImportMember(entity: entity, key: key, inFile: false)
        }
    }

    /// The other side of a to-one just written: a to-many inverse gains the owner (a store
    /// object's version and history say so); a to-one inverse's key column points back.
    private mutating func linkInverse(of r: RelationshipMapping, owner: ImportMember, to member: ImportMember) throws {
        guard let inverseName = r.relationship.inverseName, let inverse = member.entity.relationship(inverseName) else { return }
        if inverse.relationship.isToMany {
            if !member.inFile { touch(member, inverseName) }
            return
        }
        guard case .foreignKey(let column, let entityColumn) = inverse.storage else { return }
        let spec = DeferredColumn(table: member.entity.table, column: column, entityColumn: entityColumn, orderColumn: nil)
        if member.inFile {
            try deferColumn(spec, member: member.key, owner: owner, position: nil)
            return
        }
        // A one-to-one: the member's old partner loses it.
        if let old = try integer("SELECT \(SQL.identifier(column)) FROM \(SQL.identifier(member.entity.table)) WHERE Z_PK = ?", [member.key]),
           old != owner.key,
           case .foreignKey(let ownColumn, let ownEntityColumn) = r.storage {
            let clear = [ownColumn] + (ownEntityColumn.map { [$0] } ?? [])
            try db.execute(sql: "UPDATE \(SQL.identifier(owner.entity.table)) SET \(clear.map { "\(SQL.identifier($0)) = NULL" }.joined(separator: ", ")) WHERE Z_PK = ?",
                           arguments: [old])
            if let oldEntity = try storedEntity(owner.entity.table, old) {
                touch(ImportMember(entity: oldEntity, key: old, inFile: false), r.relationship.name)
            }
        }
        try setColumn(spec, member: member.key, owner: owner, position: nil)
        touch(member, inverseName)
    }

    /// A to-many relationship's members go from `old` to `new`, written where the model
    /// keeps them, with the other side of each member that changed.
    private mutating func writeToMany(_ r: RelationshipMapping, owner: ImportMember, old: [ImportMember], new: [ImportMember]) throws {
        let newKeys = Set(new.map(\.key)), oldKeys = Set(old.map(\.key))
        let inverseName = r.relationship.inverseName
        let ordered = r.relationship.isOrdered
        switch r.storage {
        case .joinTable(let table, let source, let destination, let order):
            let t = SQL.identifier(table), s = SQL.identifier(source), d = SQL.identifier(destination)
            for member in old where !newKeys.contains(member.key) {
                try db.execute(sql: "DELETE FROM \(t) WHERE \(s) = ? AND \(d) = ?", arguments: [owner.key, member.key])
                if let inverseName { touch(member, inverseName) }
            }
            for (i, member) in new.enumerated() {
                if !oldKeys.contains(member.key) {
                    try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(t)(\(s), \(d)) VALUES(?, ?)").execute(arguments: [owner.key, member.key])
                    if let inverseName, !member.inFile { touch(member, inverseName) }
                }
                if let order, ordered {
                    try db.cachedStatement(sql: "UPDATE \(t) SET \(SQL.identifier(order)) = ? WHERE \(s) = ? AND \(d) = ?")
                        .execute(arguments: [Int64(i + 1), owner.key, member.key])
                }
            }
        case .inverseForeignKey(let table, let column, let order), .hiddenForeignKey(let table, let column, let order):
            var entityColumn: String?
            if case .inverseForeignKey = r.storage, let inverseName, let inverse = store.mapping.entity(named: r.relationship.destinationEntityName)?
                .relationship(inverseName), case .foreignKey(_, let e) = inverse.storage { entityColumn = e }
            let spec = DeferredColumn(table: table, column: column, entityColumn: entityColumn, orderColumn: ordered ? order : nil)
            for member in old where !newKeys.contains(member.key) {
                let clear = [column] + (entityColumn.map { [$0] } ?? []) + (spec.orderColumn.map { [$0] } ?? [])
                try db.execute(sql: "UPDATE \(SQL.identifier(table)) SET \(clear.map { "\(SQL.identifier($0)) = NULL" }.joined(separator: ", "))"
                               + " WHERE Z_PK = ? AND \(SQL.identifier(column)) = ?", arguments: [member.key, owner.key])
                if let inverseName { touch(member, inverseName) }
            }
            for (i, member) in new.enumerated() {
                let position = spec.orderColumn == nil ? nil : Int64(i + 1)
                if member.inFile {
                    try deferColumn(spec, member: member.key, owner: owner, position: position)
                    continue
                }
                if !oldKeys.contains(member.key), let inverseName {
                    // The member leaves its old owner, whose to-many loses it.
                    if let previous = try integer("SELECT \(SQL.identifier(column)) FROM \(SQL.identifier(table)) WHERE Z_PK = ?", [member.key]),
                       previous != owner.key, let previousEntity = try storedEntity(owner.entity.table, previous) {
                        touch(ImportMember(entity: previousEntity, key: previous, inFile: false), r.relationship.name)
                    }
                    touch(member, inverseName)
                }
                try setColumn(spec, member: member.key, owner: owner, position: position)
            }
        default:
            break
        }
    }

    private mutating func touch(_ member: ImportMember, _ property: String) {
        guard !member.inFile else { return }
        let name = "\(member.entity.name)/\(member.key)"
        if touched[name] == nil { touched[name] = (member.entity, member.key, []) }
        touched[name]?.properties.insert(property)
    }

    // MARK: Key columns written last

    /// A key column (and its entity and order columns) of rows in a destination table.
    struct DeferredColumn: Equatable {
        let table: String
        let column: String
        let entityColumn: String?
        let orderColumn: String?
    }

    private func setColumn(_ spec: DeferredColumn, member: Int64, owner: ImportMember, position: Int64?) throws {
        var sets = [(spec.column, owner.key.databaseValue)]
        if let e = spec.entityColumn { sets.append((e, Int64(owner.entity.entityID ?? 0).databaseValue)) }
        if let o = spec.orderColumn { sets.append((o, position?.databaseValue ?? .null)) }
        try db.execute(sql: "UPDATE \(SQL.identifier(spec.table)) SET \(sets.map { "\(SQL.identifier($0.0)) = ?" }.joined(separator: ", ")) WHERE Z_PK = ?",
                       arguments: StatementArguments(sets.map(\.1) + [member.databaseValue]))
    }

    /// Creates the temporary tables (in SQLite's temporary database, not in the store).
    private mutating func prepareDeferral() throws {
        guard !hasDeferred else { return }
        try db.execute(sql: """
            CREATE TEMP TABLE IF NOT EXISTS z_import_keys(spec INTEGER, member INTEGER, owner INTEGER, owner_entity INTEGER, position INTEGER);
            CREATE TEMP TABLE IF NOT EXISTS z_import_given(tbl TEXT, col TEXT, member INTEGER, PRIMARY KEY(tbl, col, member)) WITHOUT ROWID;
            DELETE FROM temp.z_import_keys;
            DELETE FROM temp.z_import_given;
            """)
        hasDeferred = true
    }

    /// Kept in a temporary table until every row is in: the member may come later in the file.
    private mutating func deferColumn(_ spec: DeferredColumn, member: Int64, owner: ImportMember, position: Int64?) throws {
        try prepareDeferral()
        let index: Int
        if let found = deferredSpecs.firstIndex(of: spec) { index = found } else {
            deferredSpecs.append(spec)
            index = deferredSpecs.count - 1
        }
        try db.cachedStatement(sql: "INSERT INTO temp.z_import_keys VALUES(?, ?, ?, ?, ?)")
            .execute(arguments: [index, member, owner.key, owner.entity.entityID ?? 0, position])
    }

    /// An object of the file gave this to-one itself (nil or not): what it gave stands, and
    /// the other side's record does not overwrite it.
    private mutating func noteGiven(_ table: String, _ column: String, member: Int64) throws {
        try prepareDeferral()
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO temp.z_import_given VALUES(?, ?, ?)").execute(arguments: [table, column, member])
    }

    /// Writes the deferred key columns, then saves the store objects whose relationships
    /// changed (version one up, one history update each), then brings the key counters up.
    /// Returns how many store objects were touched.
    mutating func finish() throws -> Int {
        if hasDeferred {
            for (i, spec) in deferredSpecs.enumerated() {
                let t = SQL.identifier(spec.table)
                var sets = ["\(SQL.identifier(spec.column)) = k.owner"]
                if let e = spec.entityColumn { sets.append("\(SQL.identifier(e)) = k.owner_entity") }
                try db.execute(sql: "UPDATE \(t) SET \(sets.joined(separator: ", ")) FROM temp.z_import_keys k"
                               + " WHERE k.spec = ? AND \(t).Z_PK = k.member AND NOT EXISTS (SELECT 1 FROM temp.z_import_given g"
                               + " WHERE g.tbl = ? AND g.col = ? AND g.member = k.member)", arguments: [i, spec.table, spec.column])
                if let o = spec.orderColumn {
                    try db.execute(sql: "UPDATE \(t) SET \(SQL.identifier(o)) = k.position FROM temp.z_import_keys k"
                                   + " WHERE k.spec = ? AND \(t).Z_PK = k.member", arguments: [i])
                }
            }
            try db.execute(sql: "DROP TABLE temp.z_import_keys; DROP TABLE temp.z_import_given")
        }
        for (_, object) in touched.sorted(by: { ($0.value.entity.name, $0.value.key) < ($1.value.entity.name, $1.value.key) }) {
            try db.execute(sql: "UPDATE \(SQL.identifier(object.entity.table)) SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [object.key])
            try history?.update(object.entity, object.key, keys: object.properties)
        }
        for (root, keys) in rootKeys.sorted(by: { $0.key < $1.key }) where keys.highest > 0 {
            let highest = keys.highest
            guard let id = store.mapping.entity(named: root)?.entityID else { continue }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?", arguments: [highest, id, highest])
        }
        try history?.finish()
        return touched.count
    }
}

/// A root entity's key counter during an import: the next key to hand out, and the highest
/// used, which `Z_MAX` becomes. Shared by the plans of the entities in the root's table.
final class RootKeys {
    var next: Int64
    var highest: Int64 = 0

    init(next: Int64) {
        self.next = next
    }
}

/// An object a relationship names: its entity, its key in the store, and whether it is an
/// object of the file (inserted by this import) or one the store had.
struct ImportMember: Equatable {
    let entity: EntityMapping
    let key: Int64
    let inFile: Bool

    static func == (a: ImportMember, b: ImportMember) -> Bool { a.entity.name == b.entity.name && a.key == b.key && a.inFile == b.inFile }
}

import Foundation
import GRDB

/// The defects that make an app crash or misbehave in ways its model does not explain,
/// each found with SQL over the store as Core Data stores it: the primary-key counter
/// behind the rows, rows of no entity, keys that point nowhere, relationship rows that
/// disagree, values the model forbids, duplicates under a uniqueness constraint, external
/// data files missing or left behind, and history that lost its transaction or object.
public struct StoreHealth {
    public let store: PersistentStore
    public var fullIntegrityCheck = false

    public init(store: PersistentStore) { self.store = store }

    /// Every check, in the order a reader wants them: the file first, then keys, then rows.
    /// The checks fall in two halves that can run side by side on two connections: the
    /// file and the keys between rows, and the rows themselves (which need the census).
    enum Half: Sendable {
        case fileAndKeys, rows
    }

    func findings(_ db: Database, _ half: Half, census: TableCensus?, progress: (String) -> Void = { _ in }) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        let steps: [(String, (Database) throws -> [DoctorFinding])]
        switch half {
        case .fileAndKeys:
            steps = [
                (fullIntegrityCheck ? "integrity_check" : "quick_check", integrity),
                ("primary keys", primaryKeyCounters),
                ("to-one keys", danglingToOnes),
                ("join tables", danglingJoinRows),
                ("one-to-one pairs", oneToOnePairs),
                ("ordered relationships", orderKeys),
                ("history", historyRows),
                ("indexes", indexes),
            ]
        case .rows:
            let census = census ?? TableCensus()
            steps = [
                ("entity numbers", { try unknownEntities($0, census) }),
                ("required values", { try requiredValues($0, census) }),
                ("value types", { try valueTypes($0, census) }),
                ("uniqueness constraints", uniquenessDuplicates),
                ("external data", { try externalData($0, census) }),
            ]
        }
        for (name, step) in steps {
            try Cancellation.check()
            progress("checking \(name)")
            do {
                found += try step(db)
            } catch let error as DatabaseError where !Cancellation.isInterruption(error) {
                // A damaged page stops one check, not the report: quick_check says why.
                found.append(DoctorFinding(.warning, "check_failed", count: 1,
                                           detail: "checking \(name) could not finish: \(error.message ?? "\(error)") (see quick_check)"))
            }
        }
        return found
    }

    private var entities: [EntityMapping] {
        store.mapping.entities.filter { $0.entityID != nil && store.schema.table($0.table) != nil }
    }

    private func t(_ name: String) -> String { SQL.identifier(name) }

    private func ids(_ entity: EntityMapping) -> String { entity.entityIDs.map(String.init).joined(separator: ", ") }

    /// Up to five rows of an entity table a `FROM … WHERE …` tail selects (aliased `x`), as
    /// object IDs of their own entity (a row of a sub-entity is named as one), and the count.
    private func objects(_ tail: String, in entity: EntityMapping, _ db: Database) throws -> (Int64, [(entity: String, primaryKey: Int64)]) {
        let count = try Int64.fetchOne(db, sql: "SELECT count(*) " + tail) ?? 0
        guard count > 0 else { return (0, []) }
        let rows = try Row.fetchAll(db, sql: "SELECT x.Z_PK, x.Z_ENT " + tail + " ORDER BY 1 LIMIT \(DoctorFinding.exampleLimit)")
        return (count, rows.map { row in
            let number: Int? = row.lenient(1)
            return (number.flatMap { store.mapping.entity(withID: $0)?.name } ?? entity.name, row.lenient(0) ?? 0)
        })
    }

    /// Count and up to five keys of the rows a `FROM … WHERE …` tail selects (aliased `x`).
    private func sample(_ tail: String, key: String = "x.Z_PK", _ db: Database, arguments: StatementArguments = []) throws -> (Int64, [Int64]) {
        let count = try Int64.fetchOne(db, sql: "SELECT count(*) " + tail, arguments: arguments) ?? 0
        guard count > 0 else { return (0, []) }
        return (count, try Int64.fetchAll(db, sql: "SELECT \(key) " + tail + " ORDER BY 1 LIMIT \(DoctorFinding.exampleLimit)", arguments: arguments))
    }

    // MARK: The file

    private func integrity(_ db: Database) throws -> [DoctorFinding] {
        let pragma = fullIntegrityCheck ? "integrity_check" : "quick_check"
        let lines = try String.fetchAll(db, sql: "PRAGMA \(pragma)").flatMap { $0.split(separator: "\n").map(String.init) }
            .filter { !$0.hasPrefix("*** in database") }
        guard lines != ["ok"], !lines.isEmpty else { return [] }
        return [DoctorFinding(.error, pragma, count: Int64(lines.count),
                              detail: "SQLite finds the file damaged (\(lines.count) problem(s)): " + lines.prefix(3).joined(separator: "; ")
                                  + (lines.count > 3 ? "; …" : "") + ". The app's fetches and saves that touch those pages fail "
                                  + "(SQLITE_CORRUPT, which Core Data reports as NSSQLiteError 134180)")]
    }

    // MARK: Keys

    /// `Z_MAX` of a table's root entity below its largest `Z_PK`: Core Data hands out keys
    /// above `Z_MAX`, so the app's next insert collides with a row that is there.
    private func primaryKeyCounters(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        var seen: Set<String> = []
        for entity in entities where entity.superentityName == nil && seen.insert(entity.table).inserted {
            guard let id = entity.entityID, let counter = store.schema.primaryKeys.first(where: { $0.entityID == id }) else { continue }
            let max = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(t(entity.table))") ?? 0
            let stored = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [id]) ?? Int64(counter.max)
            guard stored < max else { continue }
            let (count, keys) = try objects("FROM \(t(entity.table)) x WHERE x.Z_PK > \(stored)", in: entity, db)
            found.append(DoctorFinding(.error, "z_max", entity: entity.name, count: count, examples: keys,
                                       detail: "the app's next insert of \(entity.name) fails: Z_MAX \(stored), largest Z_PK \(max) "
                                           + "(Core Data takes keys above Z_MAX, and one is taken)"))
        }
        return found
    }

    /// Rows whose `Z_ENT` no entity of the table has (counted by the census).
    private func unknownEntities(_ db: Database, _ census: TableCensus) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        for table in census.tables where table.strangers > 0 {
            let list = table.entities.compactMap(\.entityID).map(String.init).joined(separator: ", ")
            for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, count(*) FROM \(t(table.table)) WHERE Z_ENT IS NULL OR Z_ENT NOT IN (\(list)) GROUP BY 1") {
                let number: Int64? = row.lenient(0)
                let name = number.map { "#\($0)" } ?? "NULL"
                // Up to five of its rows, as every finding names them.
                let keys = try Row.fetchAll(db, sql: "SELECT Z_PK FROM \(t(table.table)) WHERE Z_ENT IS ? ORDER BY Z_PK LIMIT \(DoctorFinding.exampleLimit)",
                                            arguments: [row[0] as DatabaseValue]).map { $0.lenient(0) ?? Int64(0) }
                found.append(DoctorFinding(.error, "unknown_entity", entity: name, count: row.lenient(1) ?? 0,
                                           examples: keys.map { (name, $0) },
                                           detail: "rows of \(table.table) whose Z_ENT (\(number.map(String.init) ?? "NULL")) no entity has: "
                                               + "the app cannot fault them, and a fetch that meets one fails"))
            }
        }
        return found
    }

    /// Relationships as their declaring entity stores them, once each.
    private func declared(_ body: (EntityMapping, RelationshipMapping) throws -> Void) rethrows {
        for entity in entities {
            for r in entity.relationships where r.declaredBy == entity.name { try body(entity, r) }
        }
    }

    /// The keys of a table whose keys run without a gap (`count = max − min + 1`, as in a
    /// table nothing was deleted from), when every row of it is of `entity`: then a key
    /// inside the range names a row that is there, and only keys outside need a look. Nil
    /// otherwise, and each key is looked up.
    private func unbrokenKeys(_ entity: EntityMapping, _ db: Database, _ cache: inout [String: ClosedRange<Int64>?]) throws -> ClosedRange<Int64>? {
        let tableIDs = Set(store.mapping.entities.filter { $0.table == entity.table }.compactMap(\.entityID))
        guard tableIDs.isSubset(of: Set(entity.entityIDs)) else { return nil }
        if let known = cache[entity.table] { return known }
        let row = try Row.fetchOne(db, sql: "SELECT count(*), min(Z_PK), max(Z_PK) FROM \(t(entity.table))")
        let count: Int64 = row?.lenient(0) ?? 0, low: Int64 = row?.lenient(1) ?? 0, high: Int64 = row?.lenient(2) ?? -1
        let range = count > 0 && high - low + 1 == count ? low...high : nil
        cache[entity.table] = range
        return range
    }

    /// Whether some value of `column` (in `table`) names no row of `destination`.
    private func anyMissing(_ table: String, _ column: String, _ destination: EntityMapping, _ db: Database,
                            _ cache: inout [String: ClosedRange<Int64>?]) throws -> Bool {
        if let range = try unbrokenKeys(destination, db, &cache) {
            // Two probes of the column's index.
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(t(table)) WHERE \(t(column)) < ? OR \(t(column)) > ?)",
                                     arguments: [range.lowerBound, range.upperBound]) ?? false
        }
        // Each key once, in key order (the column's index serves it): far fewer lookups than
        // one per row when many rows share a destination.
        let missing = "NOT EXISTS (SELECT 1 FROM \(t(destination.table)) d WHERE d.Z_PK = o AND d.Z_ENT IN (\(ids(destination))))"
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM (SELECT DISTINCT x.\(t(column)) AS o FROM \(t(table)) x "
                                 + "WHERE x.\(t(column)) IS NOT NULL) WHERE \(missing))") ?? false
    }

    private func danglingToOnes(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        var cache: [String: ClosedRange<Int64>?] = [:]
        try declared { entity, r in
            guard case .foreignKey(let column, _) = r.storage, let destination = store.mapping.entity(named: r.relationship.destinationEntityName),
                  store.schema.table(destination.table) != nil else { return }
            guard try anyMissing(entity.table, column, destination, db, &cache) else { return }
            let tail = "FROM \(t(entity.table)) x WHERE x.Z_ENT IN (\(ids(entity))) AND x.\(t(column)) IS NOT NULL AND NOT EXISTS "
                + "(SELECT 1 FROM \(t(destination.table)) d WHERE d.Z_PK = x.\(t(column)) AND d.Z_ENT IN (\(ids(destination))))"
            let (count, keys) = try objects(tail, in: entity, db)
            guard count > 0 else { return }
            found.append(DoctorFinding(.error, "dangling_to_one", entity: entity.name, property: r.relationship.name, count: count,
                                       examples: keys,
                                       detail: "\(entity.name).\(r.relationship.name) points at a \(destination.name) that is not there: "
                                           + "the app's fault of it fails (\"CoreData could not fulfill a fault\", Cocoa error 133000)"))
        }
        return found
    }

    private func danglingJoinRows(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        var seen: Set<String> = []
        var cache: [String: ClosedRange<Int64>?] = [:]
        try declared { entity, r in
            guard case .joinTable(let table, let source, let destinationColumn, _) = r.storage, seen.insert(table).inserted,
                  let destination = store.mapping.entity(named: r.relationship.destinationEntityName),
                  store.schema.table(table) != nil, store.schema.table(destination.table) != nil else { return }
            for (column, side) in [(source, entity), (destinationColumn, destination)] {
                guard try anyMissing(table, column, side, db, &cache) else { continue }
                let tail = "FROM \(t(table)) x WHERE NOT EXISTS (SELECT 1 FROM \(t(side.table)) s WHERE s.Z_PK = x.\(t(column)))"
                let (count, keys) = try sample(tail, key: "x.\(t(column))", db)
                guard count > 0 else { continue }
                // Core Data fires a many-to-many fault with an inner join on the destination
                // table, so the app never sees these rows: leftovers, not a crash.
                found.append(DoctorFinding(.warning, "dangling_join_row", entity: entity.name, property: r.relationship.name, count: count,
                                           examples: keys.map { (side.name, $0) },
                                           detail: "rows of the join table \(table) name a \(side.name) that is not there: left behind by a "
                                               + "delete outside Core Data; the app never sees them (its relationship fault joins \(side.table))"))
            }
        }
        return found
    }

    /// One-to-one relationships keep a key on both sides; the two must name each other.
    private func oneToOnePairs(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        try declared { entity, r in
            guard case .foreignKey(let column, _) = r.storage, let inverseName = r.relationship.inverseName,
                  let destination = store.mapping.entity(named: r.relationship.destinationEntityName),
                  let inverse = destination.relationship(inverseName), case .foreignKey(let back, _) = inverse.storage,
                  store.schema.table(destination.table) != nil else { return }
            // Each pair once: from the side whose name sorts first.
            if entity.name == destination.name ? r.relationship.name > inverseName : entity.name > destination.name { return }
            let tail = "FROM \(t(entity.table)) x JOIN \(t(destination.table)) d ON d.Z_PK = x.\(t(column)) AND d.Z_ENT IN (\(ids(destination))) "
                + "WHERE x.Z_ENT IN (\(ids(entity))) AND (d.\(t(back)) IS NULL OR d.\(t(back)) != x.Z_PK)"
            let (count, keys) = try objects(tail, in: entity, db)
            guard count > 0 else { return }
            found.append(DoctorFinding(.error, "one_to_one_mismatch", entity: entity.name, property: r.relationship.name, count: count,
                                       examples: keys,
                                       detail: "\(entity.name).\(r.relationship.name) names a \(destination.name) whose \(inverseName) names "
                                           + "another object or none: the app sees a different answer from each side"))
        }
        return found
    }

    /// Ordered to-many relationships keep each member's position; two members of one owner
    /// at the same position have no order.
    private func orderKeys(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        try declared { entity, r in
            let place: (table: String, owner: String, order: String)
            switch r.storage {
            case .inverseForeignKey(let table, let column, let order?), .hiddenForeignKey(let table, let column, let order?):
                place = (table, column, order)
            case .joinTable(let table, let source, _, let order?):
                place = (table, source, order)
            default:
                return
            }
            guard store.schema.table(place.table)?.hasColumn(place.order) == true else { return }
            let groups = "SELECT \(t(place.owner)) AS owner FROM \(t(place.table)) WHERE \(t(place.owner)) IS NOT NULL "
                + "GROUP BY \(t(place.owner)), \(t(place.order)) HAVING count(*) > 1"
            let (count, keys) = try sample("FROM (SELECT DISTINCT owner FROM (\(groups))) x", key: "x.owner", db)
            guard count > 0 else { return }
            found.append(DoctorFinding(.warning, "order_keys", entity: entity.name, property: r.relationship.name, count: count,
                                       examples: keys.map { (entity.name, $0) },
                                       detail: "members of the ordered \(entity.name).\(r.relationship.name) share a position: the app "
                                           + "sees them in an order SQLite picks"))
        }
        return found
    }

    // MARK: Rows against the model

    /// Non-optional attributes and to-ones holding NULL: the app reads them, but its next
    /// save of a changed object fails validation. Attributes come counted by the census.
    private func requiredValues(_ db: Database, _ census: TableCensus) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        func report(_ entity: EntityMapping, _ name: String, _ column: String) throws {
            let (count, keys) = try objects("FROM \(t(entity.table)) x WHERE x.Z_ENT IN (\(ids(entity))) AND x.\(t(column)) IS NULL", in: entity, db)
            guard count > 0 else { return }
            found.append(DoctorFinding(.error, "required_null", entity: entity.name, property: name, count: count, examples: keys,
                                       detail: "\(entity.name).\(name) is required but NULL: the app's next save of a changed one fails "
                                           + "validation (Cocoa error 1570, NSValidationMissingMandatoryPropertyError)"))
        }
        for table in census.tables {
            for c in table.columns where c.nulls > 0 { try report(c.entity, c.attribute.name, c.column) }
        }
        for entity in entities {
            for r in entity.relationships where r.declaredBy == entity.name && !r.relationship.isOptional && !r.relationship.isToMany {
                if case .foreignKey(let column, _) = r.storage { try report(entity, r.relationship.name, column) }
            }
        }
        return found
    }

    /// The SQLite storage classes a column of each attribute type holds when Core Data wrote it.
    static func storageClasses(_ type: AttributeType) -> [String]? {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return ["integer"]
        case .double, .float, .date: return ["real", "integer"]
        case .decimal: return ["real", "integer", "text"]
        case .string, .uri: return ["text"]
        case .binaryData, .transformable, .uuid: return ["blob"]
        default: return nil
        }
    }

    private func valueTypes(_ db: Database, _ census: TableCensus) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        for table in census.tables {
            for c in table.columns where c.misfits > 0 {
                guard let misfit = TableCensus.misfit(c.attribute.type, "x.\(t(c.column))") else { continue }
                let (count, keys) = try objects("FROM \(t(c.entity.table)) x WHERE x.Z_ENT IN (\(ids(c.entity))) AND (\(misfit))", in: c.entity, db)
                guard count > 0 else { continue }
                found.append(DoctorFinding(.warning, "value_type", entity: c.entity.name, property: c.attribute.name, count: count, examples: keys,
                                           detail: "\(c.entity.name).\(c.attribute.name) (\(c.attribute.type.modelName)) holds values of another type "
                                               + "or out of its range: the app reads something other than what it stored"))
            }
        }
        return found
    }

    private func uniquenessDuplicates(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        for entity in entities {
            guard let description = store.model.entity(named: entity.name) else { continue }
            for constraint in description.uniquenessConstraints {
                guard let columns = entity.columns(of: constraint) else { continue }
                let repeats = try ConstraintRepeats(entity, columns: columns, db)
                let count = repeats.extra
                guard count > 0 else { continue }
                found.append(DoctorFinding(.error, "unique_duplicate", entity: entity.name, property: constraint.joined(separator: ","), count: count,
                                           examples: repeats.firstKeys.map { (entity.name, $0) },
                                           detail: "\(count) row(s) repeat (\(constraint.joined(separator: ", "))) of an earlier one: the app's next save "
                                               + "touching them fails with a constraint conflict (Cocoa error 133021)"))
            }
        }
        return found
    }

    // MARK: Files beside the store

    /// Binary attributes that allow external storage keep a tag byte: 2 means the value is
    /// the file named by the rest, in `.<store>_SUPPORT/_EXTERNAL_DATA`.
    private func externalData(_ db: Database, _ census: TableCensus) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        var referenced: Set<String> = []
        let folder = AttributeValueDecoder.externalDataPath(for: store.path, name: "")
        for entity in entities {
            for a in entity.attributes where a.declaredBy == entity.name && a.attribute.allowsExternalBinaryDataStorage {
                guard let column = a.column else { continue }
                let counted = census.tables.lazy.flatMap(\.columns).first { $0.entity.name == entity.name && $0.column == column }
                if let counted, counted.externalReferences == 0 { continue }
                var missing: [Int64] = []
                var missingCount: Int64 = 0
                var interim: [Int64] = []
                var interimCount: Int64 = 0
                let sql = "SELECT x.Z_PK, CAST(substr(x.\(t(column)), 2) AS TEXT) FROM \(t(entity.table)) x "
                    + "WHERE x.Z_ENT IN (\(ids(entity))) AND \(TableCensus.externalReference("x.\(t(column))"))"
                let rows = try Row.fetchCursor(db, sql: sql)
                while let row = try rows.next() {
                    try Cancellation.check()
                    let name = (row.lenient(1, as: String.self) ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\0"))
                    referenced.insert(name)
                    let path = AttributeValueDecoder.externalDataPath(for: store.path, name: name)
                    if !FileManager.default.fileExists(atPath: path) {
                        // Core Data's own window: killed between its commit and its rename.
                        if FileManager.default.fileExists(atPath: path + ExternalDataFiles.interimSuffix) {
                            interimCount += 1
                            if interim.count < DoctorFinding.exampleLimit { interim.append(row.lenient(0) ?? 0) }
                        } else {
                            missingCount += 1
                            if missing.count < DoctorFinding.exampleLimit { missing.append(row.lenient(0) ?? 0) }
                        }
                    }
                }
                if missingCount > 0 {
                    found.append(DoctorFinding(.error, "external_missing", entity: entity.name, property: a.attribute.name, count: missingCount,
                                               examples: missing.map { (entity.name, $0) },
                                               detail: "\(entity.name).\(a.attribute.name) names a file that is not in \(folder): the app gets "
                                                   + "no data for it"))
                }
                if interimCount > 0 {
                    found.append(DoctorFinding(.error, "external_interim", entity: entity.name, property: a.attribute.name, count: interimCount,
                                               examples: interim.map { (entity.name, $0) },
                                               detail: "\(entity.name).\(a.attribute.name) names a file that is still <UUID>.interim in "
                                                   + "\(folder) (a save killed between its commit and its rename): the app gets no data for "
                                                   + "it until the next save or import puts it in place"))
                }
            }
        }
        let orphans = StoreSpace.externalFiles(of: store).filter { file in
            !referenced.contains(file.name)
                && !(file.name.hasSuffix(ExternalDataFiles.interimSuffix)
                     && referenced.contains(String(file.name.dropLast(ExternalDataFiles.interimSuffix.count))))
        }
        if !orphans.isEmpty {
            let bytes = orphans.reduce(0) { $0 + $1.bytes }
            found.append(DoctorFinding(.warning, "external_orphan", count: Int64(orphans.count),
                                       detail: "\(orphans.count) file(s) in \(folder) no row names (\(bytes) bytes), e.g. "
                                           + orphans.map(\.name).sorted().prefix(3).joined(separator: ", ")
                                           + ": space a batch delete or a killed write left behind, which the next save or import removes"))
        }
        return found
    }

    // MARK: History

    private func historyRows(_ db: Database) throws -> [DoctorFinding] {
        guard store.schema.table("ACHANGE") != nil, store.schema.table("ATRANSACTION") != nil else { return [] }
        var found: [DoctorFinding] = []
        let orphans = try Int64.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE c WHERE NOT EXISTS (SELECT 1 FROM ATRANSACTION t WHERE t.Z_PK = c.ZTRANSACTIONID)") ?? 0
        if orphans > 0 {
            found.append(DoctorFinding(.warning, "history_orphan_change", count: orphans,
                                       detail: "history changes whose transaction is gone: history readers see changes of no transaction, "
                                           + "and a purge never removes them"))
        }
        // Objects history says exist (inserted or updated, never deleted) whose row is gone.
        for entity in entities where entity.entityID != nil {
            guard let id = entity.entityID else { continue }
            let tally = "SELECT c.ZENTITYPK AS pk, max(c.ZCHANGETYPE = 2) AS deleted FROM ACHANGE c WHERE c.ZENTITY = ? GROUP BY c.ZENTITYPK"
            let tail = "FROM (\(tally)) x WHERE NOT x.deleted AND NOT EXISTS (SELECT 1 FROM \(t(entity.table)) r WHERE r.Z_PK = x.pk)"
            let (count, keys) = try sample(tail, key: "x.pk", db, arguments: [id])
            guard count > 0 else { continue }
            found.append(DoctorFinding(.warning, "history_missing_object", entity: entity.name, count: count, examples: keys.map { (entity.name, $0) },
                                       detail: "history records \(entity.name) objects that are gone with no delete: removed outside Core "
                                           + "Data, so history readers (and CloudKit) never hear of the delete"))
        }
        return found
    }
}

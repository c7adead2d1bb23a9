import Foundation
import GRDB

/// Creates an empty store for a model in Core Data's format: one table per root entity with
/// `Z_PK`, `Z_ENT`, `Z_OPT` and a column per stored property, key columns and their indexes,
/// join tables, `Z_PRIMARYKEY`, `Z_METADATA` (a binary plist with the entity version hashes
/// Core Data computes, `ModelVersionHash`) and `Z_MODELCACHE`. It writes only a new file,
/// never into an existing store: `create`, the example generator and the tests use it.
/// (`StoreLoader`, which fills stores with rows past the coordinator, stays out of the
/// shipped products.)
public enum StoreCreator {
    public struct Options {
        public var uuid = UUID().uuidString
        public var frameworkVersion: Int64 = 1344
        public var wal = true
        public var writeModelCache = true
        /// Persistent history tracking on (`NSPersistentHistoryTrackingKey`): the history tables
        /// Core Data creates, with a tombstone column per preserved attribute.
        public var persistentHistory = false
        /// Refuse a model whose version hashes cannot all be computed (a store for an app),
        /// rather than write a stand-in (a store for tests).
        public var requiresComputedHashes = false
        /// The store is a migration's destination. Core Data's migration caches the new model
        /// without class names (`$null`): every store it migrated in the fixtures and in
        /// Wire's series (CoreDataPlus's SampleModel_V2 from V1, wibosco's 3 from 2, each
        /// with its source's `Z_UUID`), while the stores it created name their classes.
        public var migrated = false

        public init() {}
    }

    /// Creates the store at `path`, whole or not at all: it is built under a hidden name
    /// beside `path` (`.NAME.creating-PID`), synced, and only then given its name, without
    /// replacing anything that appeared there meanwhile; a crash leaves no file under the
    /// store's name, and the hidden remains of a killed create are cleared by the next one.
    public static func create(at path: String, model: ManagedObjectModel, options: Options = Options(), disk: Disk = .system) throws {
        try create(at: path, model: model, options: options, disk: disk, filling: nil)
    }

    /// Rows put into a new store in its creating transaction: a migration's (`StoreMigration`),
    /// read from the store attached as `src`, so the store gets its name whole or not at all.
    struct Filling {
        let sourcePath: String
        let fill: (Database) throws -> Void
        /// The metadata's keys to keep from the source (custom keys, the framework version).
        let metadataBase: [(key: PropertyListValue, value: PropertyListValue)]
        /// The new store starts as a page-for-page copy of the source (SQLite's backup API)
        /// that `fill` alters, instead of the model's empty layout that `fill` fills.
        var startsAsCopy = false
        /// The migration's join tables: those it keeps or renames from the source's keep the
        /// source's statement (`KeptTables`), and a renamed one its indexes (`KeptIndexes`).
        var joins: [MigrationPlan.JoinStep] = []
        /// Entity tables' columns the migration renames: table → source column → new name.
        var renamedColumns: [String: [String: String]] = [:]

        /// The framework version of the Core Data that wrote the source (its metadata's).
        var sourceFrameworkVersion: Int64? {
            metadataBase.first { $0.key == .string("NSPersistenceFrameworkVersion") }?.value.integerValue
        }
    }

    static func create(at path: String, model: ManagedObjectModel, options: Options, disk: Disk, filling: Filling?) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StoreError.sqlite("\(path) already exists; a store is never overwritten")
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        // What a killed create of this name left: `.NAME.creating-PID` (and its -wal, -shm).
        disk.clearRemains(in: url.deletingLastPathComponent(), prefix: ".\(url.lastPathComponent).creating-", marker: ".creating-")
        let building = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).creating-\(getpid())").path
        do {
            let queue = try DatabaseQueue(path: building, configuration: SQLiteDurability.configuration())
            if let filling, filling.startsAsCopy {
                try copy(filling, into: queue)
            } else {
                try lay(out: model, in: queue, options: options, filling: filling)
            }
            // The last connection's close checkpoints the -wal into the file and removes it:
            // one self-contained file, synced, is what gets the store's name.
            try queue.close()
            try disk.sync(building)
            try disk.moveWithoutReplacing(building, to: path)
            try disk.syncFolder(folder)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? disk.remove(building + suffix) }
            if let error = error as? DiskError {
                if error.code == EEXIST { throw StoreError.sqlite("\(path) already exists; a store is never overwritten") }
                throw StoreError.sqlite("cannot create \(path): \(error.reason)")
            }
            throw error
        }
    }

    /// The source's pages into the new file, then `filling`'s changes in one transaction.
    private static func copy(_ filling: Filling, into queue: DatabaseQueue) throws {
        let source = try StoreConnection.open(try StoreFile(path: filling.sourcePath), readonly: true)
        defer { try? StoreConnection.close(source) }
        try source.read { db in try queue.writeWithoutTransaction { try db.backup(to: $0) } }
        try queue.writeWithoutTransaction { db in
            try db.inTransaction {
                try filling.fill(db)
                return .commit
            }
        }
    }

    /// The model's empty layout, and `filling`'s rows read from the source attached as `src`.
    private static func lay(out model: ManagedObjectModel, in queue: DatabaseQueue, options: Options, filling: Filling?) throws {
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "PRAGMA auto_vacuum = 2")
            if let filling {
                try db.execute(sql: "ATTACH DATABASE ? AS src", arguments: [StoreFile.uri(filling.sourcePath, parameters: ["mode=ro"])])
            }
            try db.inTransaction {
                // Rows brought in carry their derived values: the triggers that keep
                // those come after them, so that they do not count the rows again. The
                // indexes come after them too: one sort per index, where keeping each
                // up to date row by row took most of a migration's time.
                let statements = schemaStatements(model)
                let afterRows = filling == nil ? [] : statements.filter {
                    $0.hasPrefix("CREATE TRIGGER") || $0.hasPrefix("CREATE INDEX") || $0.hasPrefix("CREATE UNIQUE INDEX")
                }
                for statement in statements where !afterRows.contains(statement) { try db.execute(sql: statement) }
                // A migration keeps the tables that keep their columns as the source has them.
                let rebuilt: Set<String> = try filling.map {
                    try KeptTables.renameJoins($0.joins, db: db)
                    return try KeptTables.keep(model.entities.filter { $0.superentityName == nil }.map { ColumnNaming.tableName(root: $0.name) },
                                               renamedColumns: $0.renamedColumns, db: db)
                } ?? []
                if options.persistentHistory { try createHistoryTables(db, model: model) }
                try writeBookkeeping(db, model: model, options: options, metadataBase: filling?.metadataBase)
                try filling?.fill(db)
                let kept = try filling.map {
                    try KeptIndexes.statements(afterRows, joins: $0.joins, rebuiltTables: rebuilt, db: db,
                                               sourceFrameworkVersion: $0.sourceFrameworkVersion)
                } ?? afterRows
                for statement in kept { try db.execute(sql: statement) }
                return .commit
            }
            if filling != nil { try db.execute(sql: "DETACH DATABASE src") }
            if options.wal { _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
        }
    }

    static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .objectID: return "INTEGER"
        case .decimal: return "DECIMAL"
        case .double, .float: return "FLOAT"
        case .string, .uri: return "VARCHAR"
        case .date: return "TIMESTAMP"
        case .binaryData, .uuid, .transformable, .undefined, .composite, .codable: return "BLOB"
        }
    }

    /// The CREATE statements for the model's tables and indexes.
    public static func schemaStatements(_ model: ManagedObjectModel) -> [String] {
        let ids = ColumnNaming.entityIDs(model)
        var tables: [String: [(name: String, type: String, place: ColumnSlot)]] = [:]
        var tableOrder: [String] = []
        var indexes: [String] = []
        var joinTables: [String] = []
        /// The columns each to-one's index covers, by table: a fetch index over just those is
        /// not made again (two fetch indexes over the same columns both are: Screen Time's
        /// `Z_CoreDevice_identifier` and `Z_CoreDevice_byIdentifier`).
        var indexed: [String: Set<[String]>] = [:]
        func addColumn(_ table: String, _ column: String, _ type: String, _ place: ColumnSlot, index: Bool = false) {
            if tables[table] == nil { tableOrder.append(table); tables[table] = [] }
            guard !tables[table]!.contains(where: { $0.name == column }) else { return }
            tables[table]!.append((column, type, place))
            if index {
                indexes.append("CREATE INDEX \(SQL.identifier("\(table)_\(column)_INDEX")) ON \(SQL.identifier(table)) (\(SQL.identifier(column)))")
                indexed[table, default: []].insert([column])
            }
        }
        let roots = model.entities.filter { $0.superentityName == nil }.sorted { $0.name < $1.name }
        var rowColumns: [String: [String: String]] = [:]
        for root in roots {
            let table = ColumnNaming.tableName(root: root.name)
            rowColumns[root.name] = ColumnNaming.rowColumns(root: root.name, model: model, ids: ids)
            for (position, column) in ["Z_PK", "Z_ENT", "Z_OPT"].enumerated() {
                addColumn(table, column, column == "Z_PK" ? "INTEGER PRIMARY KEY" : "INTEGER", .bookkeeping(position))
            }
            if model.entityTree(root.name).count > 1 {
                indexes.append("CREATE INDEX \(SQL.identifier("\(table)_Z_ENT_INDEX")) ON \(SQL.identifier(table)) (Z_ENT)")
            }
        }
        func rowColumn(_ entity: String, _ property: String) -> String {
            let root = model.rootEntity(of: entity)!.name
            return ColumnNaming.column(in: rowColumns[root]!, declaredBy: entity, property: property)!
        }
        func table(_ entity: String) -> String { ColumnNaming.tableName(root: model.rootEntity(of: entity)!.name) }
        var joins: [JoinTable] = []
        let walk = PropertyWalk(model: model, ids: ids, column: rowColumn)
        let joinNamers = walk.joinTableNamers(model)
        for root in roots {
            for entity in model.entityTree(root.name).sorted(by: { ids[$0.name]! < ids[$1.name]! }) {
                let own = table(entity.name), number = ids[entity.name]!
                // The columns in the order they are added here, each table's sorted by
                // `ColumnSlot` at the end.
                for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                    guard case .relationship(let r) = property, !r.isTransient, !r.isToMany else { continue }
                    let column = rowColumn(entity.name, r.name)
                    addColumn(own, column, "INTEGER", .key(.toOneKey, of: r.name, entity: number), index: true)
                    if model.entityTree(r.destinationEntityName).count > 1, let destID = ids[r.destinationEntityName] {
                        addColumn(own, "Z\(destID)_" + column.dropFirst(), "INTEGER", .key(.toOneKey, of: r.name, entity: number, entityColumn: true))
                    }
                }
                for property in entity.flattenedProperties.sorted(by: { $0.name < $1.name }) {
                    guard case .attribute(let a) = property, !a.isTransient else { continue }
                    addColumn(own, rowColumn(entity.name, a.name), sqlType(a.type), .attribute(a, entity: number))
                }
                for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                    guard case .relationship(let r) = property, !r.isTransient, r.isToMany,
                          let destination = model.entity(named: r.destinationEntityName) else { continue }
                    let inverse = r.inverseName.flatMap { model.property($0, of: destination.name) }
                    let destinationTable = table(destination.name)
                    if case .relationship(let inv)? = inverse?.property {
                        if !inv.isToMany {
                            if r.isOrdered {
                                // In the order Core Data visits the to-ones (`PropertyWalk`).
                                let owner = inverse!.declaredBy
                                addColumn(destinationTable, "Z_FOK_" + rowColumn(owner, inv.name).dropFirst(), "INTEGER",
                                          .key(.orderKey, of: inv.name, entity: 0, walk: walk.position(of: inv.name, declaredBy: owner)))
                            }
                            continue
                        }
                        // Many-to-many: one join table, named after the side Core Data visits
                        // first (`PropertyWalk`).
                        guard let visit = joinNamers["\(entity.name).\(r.name)"] else { continue }
                        joins.append(JoinTable(entityName: entity.name, entityID: ids[entity.name]!, relationship: r, inverse: inv, destinationID: ids[destination.name]!,
                                               reflexive: entity.name == inverse!.declaredBy && r.name == inv.name, visit: visit))
                    } else {
                        let column = "Z\(number)" + r.name.uppercased(), destinationNumber = ids[destination.name]!
                        addColumn(destinationTable, column, "INTEGER", .key(.hiddenKey, of: column, entity: destinationNumber), index: true)
                        if r.isOrdered {
                            addColumn(destinationTable, "Z_FOK_" + column.dropFirst(), "INTEGER",
                                      .key(.hiddenKey, of: column, entity: destinationNumber, entityColumn: true))
                        }
                    }
                }
            }
        }
        // The join tables in the order Core Data pairs their relationships (`PropertyWalk`:
        // entities by name), each column's name unique among every join table's: Photos'
        // Memory's Z_3REPRESENTATIVEASSETS, then Suggestion's Z_3REPRESENTATIVEASSETS1; Wire's
        // Reaction (entity 14) keeps Z_17USERS and SystemMessage (entity 11) has Z_17USERS1, so
        // the order is by name, not by entity number.
        var joinColumns: Set<String> = []
        func unique(_ column: String) -> String {
            var candidate = column, n = 0
            while !joinColumns.insert(candidate).inserted {
                n += 1
                candidate = column + String(n)
            }
            return candidate
        }
        var joinTablesMade: Set<String> = []
        for join in joins.sorted(by: { $0.visit < $1.visit }) {
            let name = "Z_\(join.entityID)\(join.relationship.name.uppercased())"
            guard joinTablesMade.insert(name).inserted else { continue }
            let source = join.reflexive ? name : unique("Z_\(join.entityID)\(join.inverse.name.uppercased())")
            let dest = join.reflexive ? "REFLEXIVE" : unique("Z_\(join.destinationID)\(join.relationship.name.uppercased())")
            var columns = ["\(source) INTEGER", "\(dest) INTEGER"]
            // Order keys in the order of the keys: Wire's Z_5LASTSERVERSYNCEDACTIVEPARTICIPANTS,
            // both sides ordered, has Z_FOK_5LASTSERVERSYNCEDACTIVECONVERSATIONS first.
            if join.inverse.isOrdered && !join.reflexive { columns.append("Z_FOK_\(source.dropFirst(2)) INTEGER") }
            if join.relationship.isOrdered && !join.reflexive { columns.append("Z_FOK_\(dest.dropFirst(2)) INTEGER") }
            columns.append("PRIMARY KEY (\(source), \(dest))")
            joinTables.append("CREATE TABLE \(SQL.identifier(name)) ( \(columns.joined(separator: ", ")) )")
            indexes.append("CREATE INDEX \(SQL.identifier("\(name)_\(dest)_INDEX")) ON \(SQL.identifier(name)) (\(dest), \(source))")
        }
        var statements: [String] = []
        for table in tableOrder {
            let columns = tables[table]!.sorted { $0.place < $1.place }
            statements.append("CREATE TABLE \(SQL.identifier(table)) ( " + columns.map { "\(SQL.identifier($0.name)) \($0.type)" }.joined(separator: ", ") + " )")
        }
        // Uniqueness constraints as Core Data enforces them: a unique index, named as in the
        // stores it wrote (`Z_Book_UNIQUE_uniqueID`, CoreDataPlus; the name of one over several
        // attributes, joined by `_`, is unconfirmed).
        for entity in model.entities {
            // Fetch indexes as Core Data creates them, before the entity's unique indexes:
            // `Z_<Entity>_<name>`, each column COLLATE BINARY in its order (CoreDataPlus's
            // SampleModel V2 store: Z_Car_byMakerAndNumberPlate). An R-tree index is a virtual
            // table Core Data makes with its own module; it is not written here.
            // One over a to-one's key alone is not made, that key having its index: Screen
            // Time's Usage has `byUser` over its to-one `user`, and its store only
            // ZUSAGE_ZUSER_INDEX.
            // An index of a name the entity already has is not made again: Wire's 2.52.0,
            // 2.60.0 and 2.67.0 caches list Message's `destructionDate` and `expirationDate`
            // (Conversation's `normalizedUserDefinedName`) twice, and their stores have each once.
            var made: Set<String> = []
            for index in entity.fetchIndexes where !index.elements.isEmpty && !index.elements.contains(where: \.isRTree) && made.insert(index.name).inserted {
                let assigned = rowColumns[model.rootEntity(of: entity.name)?.name ?? ""] ?? [:]
                let names = index.elements.compactMap { element in
                    ColumnNaming.column(in: assigned, declaredBy: model.property(element.propertyName, of: entity.name)?.declaredBy ?? entity.name,
                                        property: element.propertyName)
                }
                guard names.count == index.elements.count, indexed[table(entity.name)]?.contains(names) != true else { continue }
                let columns = zip(names, index.elements).map { name, element in "\(SQL.identifier(name)) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")" }
                indexes.append("CREATE INDEX \(SQL.identifier("Z_\(entity.name)_\(index.name)")) ON \(SQL.identifier(table(entity.name))) (\(columns.joined(separator: ", ")))")
            }
            for constraint in entity.uniquenessConstraints {
                let assigned = rowColumns[model.rootEntity(of: entity.name)?.name ?? ""] ?? [:]
                let columns = constraint.compactMap { name in
                    ColumnNaming.column(in: assigned, declaredBy: model.property(name, of: entity.name)?.declaredBy ?? entity.name, property: name)
                }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                indexes.append("CREATE UNIQUE INDEX \(SQL.identifier("Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_"))) ON \(SQL.identifier(table(entity.name))) ("
                               + columns.map { "\(SQL.identifier($0)) COLLATE BINARY ASC" }.joined(separator: ", ") + ")")
            }
        }
        statements += joinTables + indexes
        statements += derivedCountTriggers(model, table: table, column: rowColumn)
        statements += [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        ]
        return statements
    }

    /// A derived attribute counting a to-many whose inverse is a to-one key column in the
    /// destination's table (`pages.@count`): the five triggers Core Data writes for it, as
    /// CoreDataPlus's SampleModel2 store holds them for `Book.pagesCount` (four on the
    /// destination's table keeping the count as members come, move and go, one on the
    /// owner's computing it when the owner is inserted). Other derivations are not written:
    /// `derivedAttributesWithoutTriggers` names them.
    static func derivedCountTriggers(_ model: ManagedObjectModel, table: (String) -> String,
                                     column: (String, String) -> String) -> [String] {
        var triggers: [String] = []
        for entity in model.entities {
            for case .attribute(let a) in entity.properties where a.isDerived {
                guard let (r, inverse) = countedToMany(a, of: entity.name, in: model) else { continue }
                let owner = table(entity.name), member = table(r.destinationEntityName)
                let key = column(inverse.declaredBy, inverse.name), count = column(entity.name, a.name)
                let name = "\(entity.name)_\(a.name)"
                let report = { (function: String, row: String) in
                    "SELECT \(function)('\(owner)', Z_ENT, Z_PK, '\(a.name)', \(count)) FROM \(owner) WHERE Z_PK = \(row); END"
                }
                let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
                triggers += [
                    "CREATE TRIGGER Z_DA_\(member)_\(name)_PARAMETER_INSERT AFTER INSERT ON \(member) FOR EACH ROW WHEN (NEW.\(key) NOT NULL) "
                        + "BEGIN UPDATE \(owner) SET \(count) = IFNULL(\(count), 0) + 1 WHERE Z_PK = NEW.\(key); " + report(updated, "NEW.\(key)"),
                    "CREATE TRIGGER Z_DA_\(member)_\(name)_PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF \(key) ON \(member) FOR EACH ROW "
                        + "WHEN (NEW.\(key) NOT NULL) BEGIN UPDATE \(owner) SET \(count) = \(count) + 1 WHERE Z_PK = NEW.\(key); "
                        + report(updated, "NEW.\(key)"),
                    "CREATE TRIGGER Z_DA_\(member)_\(name)_PARAMETER_UPDATE_DECREMENT AFTER UPDATE OF \(key) ON \(member) FOR EACH ROW "
                        + "WHEN (OLD.\(key) NOT NULL) BEGIN UPDATE \(owner) SET \(count) = \(count) - 1 WHERE Z_PK = OLD.\(key); "
                        + report(updated, "OLD.\(key)"),
                    "CREATE TRIGGER Z_DA_\(member)_\(name)_PARAMETER_DELETE AFTER DELETE ON \(member) FOR EACH ROW WHEN (OLD.\(key) NOT NULL) "
                        + "BEGIN UPDATE \(owner) SET \(count) = \(count) - 1 WHERE Z_PK = OLD.\(key); " + report(updated, "OLD.\(key)"),
                    "CREATE TRIGGER Z_DA_\(owner)_\(name)_SOURCE_INSERT AFTER INSERT ON \(owner) FOR EACH ROW BEGIN UPDATE \(owner) SET \(count) = "
                        + "(SELECT IFNULL(COUNT(\(key)), 0) FROM \(member) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
                        + report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NEW.Z_PK"),
                ]
            }
        }
        return triggers
    }

    /// The to-many a `count:(r)` derivation counts and its to-one inverse, when the count
    /// is of that shape.
    private static func countedToMany(_ a: AttributeDescription, of entity: String, in model: ManagedObjectModel)
        -> (RelationshipDescription, (name: String, declaredBy: String))? {
        guard let derivation = a.derivation, let keyPath = DerivationText.countedKeyPath(derivation), !keyPath.contains("."),
              case .relationship(let r)? = model.property(keyPath, of: entity)?.property, r.isToMany, !r.isTransient,
              let inverseName = r.inverseName, let inverse = model.property(inverseName, of: r.destinationEntityName),
              case .relationship(let back) = inverse.property, !back.isToMany else { return nil }
        return (r, (back.name, inverse.declaredBy))
    }

    /// The derived attributes a new store gets no triggers for, as `Entity.attribute`.
    public static func derivedAttributesWithoutTriggers(_ model: ManagedObjectModel) -> [String] {
        model.entities.flatMap { entity in
            entity.properties.compactMap { property -> String? in
                guard case .attribute(let a) = property, a.isDerived, countedToMany(a, of: entity.name, in: model) == nil else { return nil }
                return "\(entity.name).\(a.name)"
            }
        }
    }

    /// The store a model is laid out as, without a file: the destination a migration plans
    /// against (`MigrationPlan`), the same layout `create` writes.
    public static func layout(of model: ManagedObjectModel) throws -> Layout {
        let queue = try DatabaseQueue()
        var options = Options()
        options.writeModelCache = false
        return try queue.write { db in
            for statement in schemaStatements(model) { try db.execute(sql: statement) }
            try writeBookkeeping(db, model: model, options: options)
            let schema = try SchemaSnapshot.read(db)
            return Layout(mapping: StoreMapping(model: model, schema: schema), schema: schema,
                          indexes: try Layout.statements(db, type: "index"), triggers: try Layout.statements(db, type: "trigger"))
        }
    }

    /// A model's layout: its mapping, its schema, and the SQL of its indexes and triggers by
    /// name, as `sqlite_master` keeps them.
    public struct Layout: Sendable {
        public let mapping: StoreMapping
        public let schema: SchemaSnapshot
        public let indexes: [String: String]
        public let triggers: [String: String]

        /// The SQL of each index or trigger of the database by name (automatic indexes aside).
        static func statements(_ db: Database, type: String) throws -> [String: String] {
            Dictionary(try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = ? AND sql IS NOT NULL", arguments: [type])
                .compactMap { row in (row["name"] as String?).flatMap { name in (row["sql"] as String?).map { (name, $0) } } },
                       uniquingKeysWith: { a, _ in a })
        }
    }

    static func writeBookkeeping(_ db: Database, model: ManagedObjectModel, options: Options,
                                 metadataBase: [(key: PropertyListValue, value: PropertyListValue)]? = nil) throws {
        let ids = ColumnNaming.entityIDs(model)
        for (name, id) in ids.sorted(by: { $0.value < $1.value }) {
            let superID = model.entity(named: name)?.superentityName.flatMap { ids[$0] } ?? 0
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                           arguments: [id, name, superID])
        }
        try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                       arguments: [options.uuid, try metadataPlist(model, options: options, base: metadataBase)])
        if options.writeModelCache {
            try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [try modelCache(model, classNames: !options.migrated)])
        }
    }

    /// `Z_METADATA.Z_PLIST` for the model, over `base`'s keys (a new store's when nil).
    static func metadataPlist(_ model: ManagedObjectModel, options: Options,
                              base: [(key: PropertyListValue, value: PropertyListValue)]?) throws -> Data {
        // The hashes Core Data computes, so that Core Data opens the store with this model
        // without a migration; a stable stand-in only where the model lacks a fact the hash
        // needs (a derivation in a form not spelled).
        let computed = ModelVersionHash.entityHashes(model)
        if let notComputed = model.entities.first(where: { (computed[$0.name] ?? nil) == nil }), options.requiresComputedHashes {
            throw StoreError.invalidModel("the version hash of \(notComputed.name) cannot be computed from the model, so Core Data would migrate the store")
        }
        let hashes = model.entities.map { ($0.name, (computed[$0.name] ?? nil) ?? placeholderHash($0.name)) }
        let plist = metadata(hashes: hashes, versionIdentifier: model.versionIdentifier, over: base ?? [
            (.string("NSPersistenceFrameworkVersion"), .integer(options.frameworkVersion)),
            (.string("NSStoreType"), .string("SQLite")),
            (.string("_NSAutoVacuumLevel"), .string("2")),
        ])
        return Data(BinaryPropertyListWriter.encode(plist))
    }

    /// `Z_MODELCACHE.Z_CONTENT` for the model: its archive, deflated, as Core Data caches it.
    static func modelCache(_ model: ManagedObjectModel, classNames: Bool = true) throws -> Data {
        Data(try RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(model, classNames: classNames))))
    }

    /// A store's metadata for a model: `base`'s keys (a migrated store's own, or a new one's),
    /// with the model's keys set as Core Data sets them: the entity version hashes, their
    /// digest (`ModelVersionHash.digest`), the hashes' version and the model's version
    /// identifier (`userDefinedModelVersionIdentifier`, "" when it has none, as wibosco's
    /// stores hold it; CoreDataPlus's SampleModel V2 holds its model's "2").
    static func metadata(hashes: [(String, [UInt8])], versionIdentifier: String?,
                         over base: [(key: PropertyListValue, value: PropertyListValue)]) -> PropertyListValue {
        let set: [(String, PropertyListValue)] = [
            ("NSStoreModelVersionHashes", .dictionary(hashes.map { (.string($0.0), .data($0.1)) })),
            ("NSStoreModelVersionHashesDigest", .string(Data(ModelVersionHash.digest(Dictionary(hashes, uniquingKeysWith: { a, _ in a }))).base64EncodedString())),
            ("NSStoreModelVersionHashesVersion", .integer(3)),
            ("NSStoreModelVersionIdentifiers", .array([.string(versionIdentifier ?? "")])),
        ]
        // The base's keys keep their places (a property list's order carries no meaning);
        // the model's keys replace theirs or follow.
        var entries = base.map { entry in
            (key: entry.key, value: set.first { entry.key == .string($0.0) }?.1 ?? entry.value)
        }
        entries += set.filter { key in !base.contains { $0.key == .string(key.0) } }.map { (key: PropertyListValue.string($0.0), value: $0.1) }
        return .dictionary(entries)
    }

    /// The tables as Core Data writes them (reference/persistent-history.md; the column lists
    /// are those of the Notes and Photos stores), registered in `Z_PRIMARYKEY` as 16001-16003.
    static func createHistoryTables(_ db: Database, model: ManagedObjectModel) throws {
        let tombstones = model.entities.map { entity in
            model.allProperties(of: entity.name).filter {
                if case .attribute(let a) = $0.property { return a.preservesValueInHistoryOnDeletion } else { return false }
            }.count
        }.max() ?? 0
        try db.execute(sql: "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, "
                       + "ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB"
                       + (0..<tombstones).map { ", ZTOMBSTONE\($0) BLOB" }.joined() + " )")
        try db.execute(sql: "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, "
                       + "ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, "
                       + "ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )")
        try db.execute(sql: "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )")
        // The indexes of every store Core Data wrote with history (CartKit, Notes 26, CoreDataPlus,
        // PegaseUIData): the string keys' indexes, the author's and the timestamp's.
        try db.execute(sql: "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)")
        for column in ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"] {
            try db.execute(sql: "CREATE INDEX ATRANSACTION_\(column)_INDEX ON ATRANSACTION (\(column))")
        }
        try db.execute(sql: "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)")
        try db.execute(sql: "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)")
        try db.execute(sql: "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)")
        for (id, name) in [(16001, "CHANGE"), (16002, "TRANSACTION"), (16003, "TRANSACTIONSTRING")] {
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)", arguments: [id, name])
        }
    }

    /// 32 bytes in the place of an entity version hash that cannot be computed, stable for
    /// a name so that regenerated stores are byte-for-byte repeatable.
    static func placeholderHash(_ name: String) -> [UInt8] {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        var out: [UInt8] = []
        for round in 0..<4 {
            for byte in Array(name.utf8) + [UInt8(round)] { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
            out += (0..<8).map { UInt8(truncatingIfNeeded: state >> (8 * UInt64($0))) }
        }
        return out
    }
}

/// A many-to-many relationship's join table: the side that names it (`Z_<id><R>`), its
/// inverse, and the number of the entity the relationship leads to (its column's).
struct JoinTable {
    let entityName: String
    let entityID: Int
    let relationship: RelationshipDescription
    let inverse: RelationshipDescription
    let destinationID: Int
    let reflexive: Bool
    /// The position of the visit that paired the two sides (`PropertyWalk.visits`).
    let visit: Int
}

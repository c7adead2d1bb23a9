import Foundation
import GRDB

/// What migrating a store to a new model does, step by step, before anything is written:
/// the rows each destination entity takes and from where, each column's source, the join
/// tables refilled, what is dropped (with counts), and what stops the migration (changes no
/// inferred mapping covers, rows the new model rejects). `StoreMigration` carries it out;
/// `--dry-run` shows it.
///
/// The destination is laid out as `create` lays out the new model (`StoreCreator`), so a
/// migrated store has the schema Core Data gives that model; rows keep their `Z_PK` and
/// `Z_OPT`, and take the new model's entity numbers (CoreDataPlus's SampleModel V1 → V2,
/// a migration Core Data ran, kept every key and version). A migration that only adds is
/// carried out on a copy of the store's pages instead (`MigrationAlteration`).
public struct MigrationPlan: Sendable {
    /// One destination column and the SQL that fills it from a source row (alias `x`).
    public struct ColumnFill: Sendable {
        public let column: String
        let expression: String
        let arguments: [DatabaseValue]
        /// For people: where the value comes from, when it is not the same column.
        public let origin: String?
        /// What the value is in terms of the source row (`MigrationAlteration` reads it).
        var carry: Carry = .computed
    }

    /// A fill's value in terms of the source row.
    enum Carry: Sendable, Equatable {
        /// The source column of this name, as it is.
        case column(String)
        /// The source column of this name, its entity numbers mapped to the new ones.
        case renumbered(String)
        /// The source column, a NULL in it taking the (bound) default.
        case columnOrDefault(String)
        /// A value that is the same for every row (bound, or NULL).
        case constant
        /// Anything else (positions counted, an entity column the source lacks).
        case computed
    }

    /// The rows of one destination entity.
    public struct EntityStep: Sendable {
        public let entity: String
        public let entityID: Int
        public let table: String
        /// The source entity, nil for a new entity (no rows).
        public let source: String?
        public let sourceTable: String?
        let sourceID: Int?
        let sourceHasEntityColumn: Bool
        public let rows: Int64
        public let fills: [ColumnFill]
    }

    /// One join table of the destination, refilled from the source's pairs.
    public struct JoinStep: Sendable {
        public let table: String
        let columns: [String]
        /// SELECT of the pairs from the source (tables unqualified; `src.` at run time).
        let select: @Sendable (String) -> String
        public let rows: Int64
        public let origin: String
        /// The same table with the same columns in the source: its rows stay as they are.
        let unchanged: Bool
        /// The source's join table of the same relationship under another name, or with other
        /// column names (its entity numbers moved), with each of its columns' names here: Core
        /// Data renames such a table and its columns in place, and its indexes go with them
        /// (`KeptIndexes.ofKeptJoinTables`).
        var renamedFrom: (table: String, columns: [String: String])? = nil

        /// The source's table this one keeps, renamed (`renamedFrom`) or as it is
        /// (`unchanged`), with its renamed columns; nil for a table made anew.
        var keptFrom: (table: String, columns: [String: String])? {
            renamedFrom ?? (unchanged ? (table, [:]) : nil)
        }
    }

    /// Something the migration drops, with how much of it the store holds.
    public struct Loss: Sendable {
        public let entity: String
        public let property: String?
        public let count: Int64
        public let what: String
    }

    public let sourceModel: ManagedObjectModel
    public let destinationModel: ManagedObjectModel
    public let diff: ModelDiff
    public let mapping: MigrationMapping
    public let entities: [EntityStep]
    public let joins: [JoinStep]
    public let losses: [Loss]
    /// Changes Apple's rules neither allow nor rule out: the migration runs, and says so.
    public let untested: [ModelDiff.Change]
    /// Changes no inferred mapping covers (empty when a mapping model is followed).
    public let needsMappingModel: [ModelDiff.Change]
    /// Rows the new model rejects, as `doctor --model` finds them.
    public let rejectedRows: [DoctorFinding]
    /// Entity numbers whose `Z_PRIMARYKEY` row keeps the source's name (a renamed entity,
    /// as Core Data's in-place migration left `ExpensiveSportCar` for `LuxuryCar`; not by a
    /// mapping model, whose migration Core Data writes into a new store).
    public let keptEntityNames: [Int: String]
    /// The destination's layout (the new model on `create`'s schema).
    public let layout: StoreMapping
    /// Old entity number → new, for every entity whose rows are carried.
    let entityNumbers: [Int: Int]
    public let carriesHistory: Bool
    /// The migration as changes to a copy of the store, when it only adds.
    let alteration: MigrationAlteration?

    /// Whether it is carried out by altering a copy of the store (it only adds) rather than
    /// by copying every row into the new layout.
    public var altersInPlace: Bool { alteration != nil }

    /// Whether the migration can run.
    public var isRefused: Bool { !needsMappingModel.isEmpty || !rejectedRows.isEmpty }

    /// The columns of entity tables that carry a source column under another name (an
    /// entity-key column whose entity number moved, an attribute renamed): table → source
    /// column → new name. A source column two entities would give two names is left out.
    var renamedColumns: [String: [String: String]] {
        var names: [String: [String: Set<String>]] = [:]
        for step in entities where step.sourceTable == step.table {
            for fill in step.fills {
                switch fill.carry {
                case .column(let c), .renumbered(let c), .columnOrDefault(let c):
                    names[step.table, default: [:]][c, default: []].insert(fill.column)
                case .constant, .computed:
                    continue
                }
            }
        }
        return names.mapValues { columns in
            columns.compactMapValues { $0.count == 1 ? $0.first : nil }.filter { $0.key != $0.value }
        }.filter { !$0.value.isEmpty }
    }

    /// Plans migrating `store` to `model`, by `mapping` (the inferred one unless given).
    public static func plan(_ store: PersistentStore, to model: ManagedObjectModel, mapping given: MigrationMapping? = nil) throws -> MigrationPlan {
        guard store.isCoreDataStore, store.mapping.model.source != .plainSQLite else { throw MigrationError.noSourceModel }
        // Names its columns suggest are not its model's (`SourceModel`): open it with the model
        // version it was written with.
        if SourceModel.isGuessed(store) { throw MigrationError.sourceModelUnknown(tried: 0) }
        if EntityHashComparison.opensWithoutMigration(EntityHashComparison.compare(model, with: store.metadata)) { throw MigrationError.alreadyMigrated }
        let layout = try StoreCreator.layout(of: model)
        let mapping = given ?? MigrationMapping.inferred(from: store.model, to: model)
        return try store.reader.read { db in
            var builder = Builder(store: store, model: model, destination: layout, mapping: mapping, db: db)
            return try builder.build()
        }
    }
}

extension MigrationPlan {
    /// Builds the plan inside one read of the source store.
    struct Builder {
        let store: PersistentStore
        let model: ManagedObjectModel
        let destination: StoreCreator.Layout
        let mapping: MigrationMapping
        let db: Database
        /// Source columns carried somewhere, as TABLE.COLUMN: what is not is a loss.
        var carried: Set<String> = []
        /// Source join tables carried.
        var carriedJoins: Set<String> = []

        init(store: PersistentStore, model: ManagedObjectModel, destination: StoreCreator.Layout, mapping: MigrationMapping, db: Database) {
            self.store = store
            self.model = model
            self.destination = destination
            self.mapping = mapping
            self.db = db
        }

        var old: StoreMapping { store.mapping }
        var layout: StoreMapping { destination.mapping }

        func source(of entity: String) -> EntityMapping? {
            mapping.entitySources[entity].flatMap { old.entity(named: $0) }
        }

        mutating func build() throws -> MigrationPlan {
            let diff = ModelDiff(from: store.model, to: model)
            var numbers: [Int: Int] = [:]
            var kept: [Int: String] = [:]
            for entity in layout.entities {
                guard let id = entity.entityID, let from = source(of: entity.name), let oldID = from.entityID else { continue }
                numbers[oldID] = id
                // A renamed entity keeps its name where Core Data migrates in place (an inferred
                // mapping: CoreDataPlus's ExpensiveSportCar); a mapping model's migration
                // (`NSMigrationManager`) writes a new store, named after the new model.
                if from.name != entity.name && !mapping.fromMappingModel { kept[id] = from.name }
            }
            var steps: [EntityStep] = []
            for entity in layout.entities.sorted(by: { ($0.entityID ?? 0) < ($1.entityID ?? 0) }) {
                try Cancellation.check()
                steps.append(try step(entity, numbers: numbers))
            }
            let joins = try joinSteps()
            let losses = try lossesOf(numbers: numbers)
            let alteration = try self.alteration(steps, joins, losses, numbers: numbers, keptNames: kept)
            let rejected = try MigrationRowCheck(store: store, newModel: model).findings(db).filter { $0.severity == .error }
            return MigrationPlan(
                sourceModel: store.model, destinationModel: model, diff: diff, mapping: mapping, entities: steps, joins: joins,
                losses: losses, untested: mapping.fromMappingModel ? [] : diff.changes.filter { $0.migration == .undocumented },
                needsMappingModel: mapping.fromMappingModel ? [] : diff.changes.filter { $0.migration == .mappingModel && !Self.rowsDecide($0) },
                rejectedRows: rejected, keptEntityNames: kept, layout: layout, entityNumbers: numbers,
                carriesHistory: store.schema.hasPersistentHistory, alteration: alteration)
        }

        /// A value made required, or a new required one, without a default: the inferred
        /// mapping copies it, and the migration fails only on rows without a value, which
        /// `MigrationRowCheck` finds (`rejectedRows`).
        static func rowsDecide(_ change: ModelDiff.Change) -> Bool {
            change.rule == ModelDiff.Rules.optionalToRequiredWithDefault || change.rule == ModelDiff.Rules.attributeAddNonOptional
        }

        // MARK: Entities

        mutating func step(_ entity: EntityMapping, numbers: [Int: Int]) throws -> EntityStep {
            guard let id = entity.entityID else { throw StoreError.invalidModel("no entity number for \(entity.name)") }
            guard let from = source(of: entity.name), let fromID = from.entityID, store.schema.table(from.table) != nil else {
                return EntityStep(entity: entity.name, entityID: id, table: entity.table, source: nil, sourceTable: nil, sourceID: nil,
                                  sourceHasEntityColumn: false, rows: 0, fills: [])
            }
            let hasEntityColumn = from.entityColumn != nil
            let rows = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(from.table)) AS x"
                                            + (hasEntityColumn ? " WHERE x.Z_ENT = \(fromID)" : "")) ?? 0
            var fills = [ColumnFill(column: "Z_PK", expression: "x.Z_PK", arguments: [], origin: nil, carry: .column("Z_PK")),
                         ColumnFill(column: "Z_ENT", expression: String(id), arguments: [], origin: nil, carry: .renumbered("Z_ENT")),
                         ColumnFill(column: "Z_OPT", expression: from.versionColumn == nil ? "1" : "x.Z_OPT", arguments: [], origin: nil,
                                    carry: from.versionColumn == nil ? .constant : .column("Z_OPT"))]
            for a in entity.attributes {
                guard let column = a.column, !a.attribute.isTransient else { continue }
                fills.append(try attributeFill(a, column: column, of: entity, from: from))
            }
            for r in entity.relationships {
                guard case .foreignKey(let column, let entityColumn) = r.storage else { continue }
                fills += toOneFills(r, column: column, entityColumn: entityColumn, of: entity, from: from, numbers: numbers)
            }
            fills += keysOfOtherEntities(in: entity, from: from)
            fills += columnsOfOtherEntities(in: entity, from: from, filled: Set(fills.map(\.column)))
            return EntityStep(entity: entity.name, entityID: id, table: entity.table, source: from.name, sourceTable: from.table,
                              sourceID: fromID, sourceHasEntityColumn: hasEntityColumn, rows: rows, fills: fills)
        }

        func propertySource(_ name: String, renamingIdentifier: String?, of entity: EntityMapping, from: EntityMapping) -> MigrationMapping.Source {
            let names = from.attributes.map(\.attribute.name) + from.relationships.map(\.relationship.name)
            return mapping.source(of: name, renamingIdentifier: renamingIdentifier, entity: entity.name, sourceNames: names)
        }

        mutating func attributeFill(_ a: AttributeMapping, column: String, of entity: EntityMapping, from: EntityMapping) throws -> ColumnFill {
            let attribute = a.attribute
            let fallback = StoreWriter.storedDefault(of: attribute)
            switch propertySource(attribute.name, renamingIdentifier: attribute.renamingIdentifier, of: entity, from: from) {
            case .property(let name):
                if let before = from.attribute(name), let oldColumn = before.column, store.schema.table(from.table)?.hasColumn(oldColumn) == true {
                    carried.insert(from.table + "." + oldColumn)
                    let renamed = name == attribute.name ? nil : "from \(name)"
                    // A value the new model requires, where the row has none, takes the default.
                    if let fallback, !attribute.isOptional {
                        return ColumnFill(column: column, expression: "coalesce(x.\(SQL.identifier(oldColumn)), ?)", arguments: [fallback],
                                          origin: [renamed, "NULL becomes the default \(attribute.defaultValue ?? "")"].compactMap { $0 }.joined(separator: "; "),
                                          carry: .columnOrDefault(oldColumn))
                    }
                    return ColumnFill(column: column, expression: "x.\(SQL.identifier(oldColumn))", arguments: [], origin: renamed, carry: .column(oldColumn))
                }
                return newAttributeFill(column, fallback, attribute)
            case .value(let text):
                let stored = try StoreWriter.stored(text, attribute, entity: entity.name) ?? .null
                return ColumnFill(column: column, expression: "?", arguments: [stored], origin: "the mapping model's value \(text)", carry: .constant)
            case .none:
                return newAttributeFill(column, fallback, attribute)
            }
        }

        func newAttributeFill(_ column: String, _ fallback: DatabaseValue?, _ attribute: AttributeDescription) -> ColumnFill {
            if let fallback {
                return ColumnFill(column: column, expression: "?", arguments: [fallback], origin: "new: the default \(attribute.defaultValue ?? "")", carry: .constant)
            }
            return ColumnFill(column: column, expression: "NULL", arguments: [], origin: "new: NULL", carry: .constant)
        }


        /// SQL mapping the source's entity numbers to the destination's, NULL for an entity
        /// whose rows are not carried.
        static func renumbered(_ expression: String, _ numbers: [Int: Int]) -> String {
            guard !numbers.isEmpty else { return "NULL" }
            return "CASE \(expression) " + numbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ") + " END"
        }

        mutating func toOneFills(_ r: RelationshipMapping, column: String, entityColumn: String?, of entity: EntityMapping,
                                 from: EntityMapping, numbers: [Int: Int]) -> [ColumnFill] {
            let relationship = r.relationship
            guard case .property(let name) = propertySource(relationship.name, renamingIdentifier: relationship.renamingIdentifier, of: entity, from: from),
                  let before = from.relationship(name), case .foreignKey(let oldColumn, let oldEntityColumn) = before.storage,
                  let table = store.schema.table(from.table), table.hasColumn(oldColumn) else {
                return [ColumnFill(column: column, expression: "NULL", arguments: [], origin: "new: no object", carry: .constant)]
                    + (entityColumn.map { [ColumnFill(column: $0, expression: "NULL", arguments: [], origin: nil, carry: .constant)] } ?? [])
            }
            carried.insert(from.table + "." + oldColumn)
            let key = "x.\(SQL.identifier(oldColumn))"
            // The destination's entity: from the row's entity column, else the one entity the
            // old destination was; a key into rows that are not carried is cleared.
            let oldEntity: String
            let oldEntityColumnKept = oldEntityColumn.flatMap { table.hasColumn($0) ? $0 : nil }
            if let oldEntityColumn = oldEntityColumnKept {
                carried.insert(from.table + "." + oldEntityColumn)
                oldEntity = "x.\(SQL.identifier(oldEntityColumn))"
            } else {
                oldEntity = String(old.entity(named: before.relationship.destinationEntityName)?.entityID ?? -1)
            }
            let renumbered = Self.renumbered(oldEntity, numbers)
            let renamed = name == relationship.name ? nil : "from \(name)"
            var fills = [ColumnFill(column: column, expression: "CASE WHEN \(renumbered) IS NULL THEN NULL ELSE \(key) END", arguments: [], origin: renamed,
                                    carry: .renumbered(oldColumn))]
            if let entityColumn {
                fills.append(ColumnFill(column: entityColumn, expression: "CASE WHEN \(key) IS NULL THEN NULL ELSE \(renumbered) END", arguments: [], origin: nil,
                                        carry: oldEntityColumnKept.map(Carry.renumbered) ?? .computed))
            }
            return fills
        }

        /// The columns of the other entities of a shared table, as the row has them in the
        /// source: Core Data's migration keeps a table's columns for every row, so a value a
        /// row holds in a column its own entity does not use stays. Wire's 2.89.0 → 2.90.0:
        /// ClientMessage rows keep the 0 an earlier migration put in SystemMessage's
        /// `ZDECRYPTIONERRORCODE`. And a column new to the table takes its attribute's default
        /// in every row, whatever its entity, as Core Data's `UPDATE` of an added column does:
        /// Wire's 2.88.0 → 2.89.0 added SystemMessage's `decryptionErrorCode` (default 0), and
        /// Core Data's 2.89.0 store holds 0 in the ClientMessage rows too.
        func columnsOfOtherEntities(in entity: EntityMapping, from: EntityMapping, filled: Set<String>) -> [ColumnFill] {
            guard let table = store.schema.table(from.table) else { return [] }
            var fills: [ColumnFill] = []
            var seen = filled
            for other in layout.entities where other.table == entity.table && other.name != entity.name {
                for a in other.attributes where a.declaredBy == other.name {
                    guard let column = a.column, !a.attribute.isTransient, !seen.contains(column) else { continue }
                    if table.hasColumn(column) {
                        fills.append(ColumnFill(column: column, expression: "x.\(SQL.identifier(column))", arguments: [], origin: nil, carry: .column(column)))
                    } else if let value = StoreWriter.storedDefault(of: a.attribute) {
                        fills.append(ColumnFill(column: column, expression: "?", arguments: [value], origin: nil, carry: .constant))
                    } else {
                        continue
                    }
                    seen.insert(column)
                }
            }
            return fills
        }

        /// The keys other entities' to-many relationships keep in this entity's rows: the
        /// hidden key of a to-many without an inverse, and the position of an ordered one.
        mutating func keysOfOtherEntities(in entity: EntityMapping, from: EntityMapping) -> [ColumnFill] {
            guard let id = entity.entityID, let table = store.schema.table(from.table) else { return [] }
            var fills: [ColumnFill] = []
            for owner in layout.entities {
                for r in owner.relationships where r.declaredBy == owner.name {
                    guard let destination = layout.entity(named: r.relationship.destinationEntityName), destination.entityIDs.contains(id) else { continue }
                    let (keyColumn, orderColumn): (String?, String?)
                    switch r.storage {
                    case .hiddenForeignKey(let t, let c, let o) where t == entity.table: (keyColumn, orderColumn) = (c, o)
                    case .inverseForeignKey(let t, _, let o?) where t == entity.table: (keyColumn, orderColumn) = (nil, o)
                    default: continue
                    }
                    // The source's storage of the same relationship, in the old row.
                    var oldKey: String?, oldOrder: String?
                    if let ownerSource = source(of: owner.name),
                       case .property(let name) = propertySource(r.relationship.name, renamingIdentifier: r.relationship.renamingIdentifier,
                                                                 of: owner, from: ownerSource),
                       let before = ownerSource.relationship(name) {
                        switch before.storage {
                        case .hiddenForeignKey(_, let c, let o), .inverseForeignKey(_, let c, let o):
                            oldKey = table.hasColumn(c) ? c : nil
                            oldOrder = o.flatMap { table.hasColumn($0) ? $0 : nil }
                        default: break
                        }
                    }
                    if let keyColumn {
                        if let oldKey { carried.insert(from.table + "." + oldKey) }
                        fills.append(ColumnFill(column: keyColumn, expression: oldKey.map { "x.\(SQL.identifier($0))" } ?? "NULL", arguments: [],
                                                origin: oldKey == nil ? "new: no owner" : nil, carry: oldKey.map(Carry.column) ?? .constant))
                    }
                    if let orderColumn {
                        if let oldOrder {
                            carried.insert(from.table + "." + oldOrder)
                            fills.append(ColumnFill(column: orderColumn, expression: "x.\(SQL.identifier(oldOrder))", arguments: [], origin: nil, carry: .column(oldOrder)))
                        } else if let oldKey {
                            // Newly ordered: the order the rows were made in.
                            fills.append(ColumnFill(column: orderColumn, expression: "CASE WHEN x.\(SQL.identifier(oldKey)) IS NULL THEN NULL ELSE "
                                                    + "row_number() OVER (PARTITION BY x.\(SQL.identifier(oldKey)) ORDER BY x.Z_PK) END",
                                                    arguments: [], origin: "now ordered: in the order the objects were made"))
                        }
                    }
                }
            }
            return fills
        }

        // MARK: Join tables

        mutating func joinSteps() throws -> [JoinStep] {
            var steps: [JoinStep] = []
            // Each join table once, in the order the layout's relationships name them.
            var visited: [String] = []
            for owner in layout.entities {
                for r in owner.relationships where r.declaredBy == owner.name {
                    guard case .joinTable(let table, let sourceColumn, let destinationColumn, let order) = r.storage,
                          !visited.contains(table) else { continue }
                    visited.append(table)
                    guard let ownerSource = source(of: owner.name),
                          case .property(let name) = propertySource(r.relationship.name, renamingIdentifier: r.relationship.renamingIdentifier,
                                                                    of: owner, from: ownerSource),
                          let before = ownerSource.relationship(name) else { continue }
                    // Both sides ordered: the table has the inverse's order column too (Wire's
                    // Conversation.lastServerSyncedActiveParticipants ↔ User.…Conversations).
                    let inverseOrder = Self.inverseOrderColumn(of: r.relationship, in: layout, besides: order)
                    let columns = [sourceColumn, destinationColumn] + (order.map { [$0] } ?? []) + (inverseOrder.map { [$0] } ?? [])
                    let ids = ownerSource.entityIDs.map(String.init).joined(separator: ", ")
                    let select: @Sendable (String) -> String
                    let origin: String
                    var unchanged = false
                    var renamedFrom: (table: String, columns: [String: String])?
                    switch before.storage {
                    case .joinTable(let oldTable, let s, let d, let o):
                        guard store.schema.table(oldTable) != nil else { continue }
                        carriedJoins.insert(oldTable)
                        let position = order.map { _ in o.map { ", j.\(SQL.identifier($0))" } ?? ", row_number() OVER (PARTITION BY j.\(SQL.identifier(s)) ORDER BY j.\(SQL.identifier(d)))" } ?? ""
                        let oldInverseOrder = Self.inverseOrderColumn(of: before.relationship, in: old, besides: o)
                        let inversePosition = inverseOrder.map { _ in oldInverseOrder.map { ", j.\(SQL.identifier($0))" } ?? ", row_number() OVER (PARTITION BY j.\(SQL.identifier(d)) ORDER BY j.\(SQL.identifier(s)))" } ?? ""
                        select = { schema in "SELECT j.\(SQL.identifier(s)), j.\(SQL.identifier(d))\(position)\(inversePosition) FROM \(schema)\(SQL.identifier(oldTable)) AS j" }
                        origin = oldTable == table ? "the same pairs" : "the pairs of \(oldTable)"
                        unchanged = oldTable == table && s == sourceColumn && d == destinationColumn && o == order && oldInverseOrder == inverseOrder
                        // Renamed (its entity's number moved), or now named after the other
                        // side (Wire's 2.96.0 `Z_25TRUSTEDBYCLIENTS`, `PropertyWalk`), or its
                        // columns renumbered under the same name (2.88.0's `Z_1ROLE`): Core Data
                        // 977 and later renames it in place. (2.4.0's, by 640, was made anew.)
                        var names = [s: sourceColumn, d: destinationColumn]
                        if let o, let order { names[o] = order }
                        if let oldInverseOrder, let inverseOrder { names[oldInverseOrder] = inverseOrder }
                        if oldTable != table || names.contains(where: { $0.key != $0.value }) {
                            renamedFrom = (oldTable, names)
                        }
                    case .foreignKey(let c, _):
                        // To-one → to-many: each row's key is one pair.
                        let t = ownerSource.table
                        carried.insert(t + "." + c)
                        let position = (order == nil ? "" : ", 1") + (inverseOrder == nil ? "" : ", row_number() OVER (PARTITION BY x.\(SQL.identifier(c)) ORDER BY x.Z_PK)")
                        select = { schema in "SELECT x.Z_PK, x.\(SQL.identifier(c))\(position) FROM \(schema)\(SQL.identifier(t)) AS x "
                            + "WHERE x.\(SQL.identifier(c)) IS NOT NULL" + (ownerSource.entityColumn == nil ? "" : " AND x.Z_ENT IN (\(ids))") }
                        origin = "the keys of \(t).\(c) (to-one → to-many)"
                    case .inverseForeignKey(let t, let c, _):
                        // The inverse, to-one before, is to-many now.
                        carried.insert(t + "." + c)
                        let position = (order.map { _ in ", row_number() OVER (PARTITION BY x.\(SQL.identifier(c)) ORDER BY x.Z_PK)" } ?? "") + (inverseOrder == nil ? "" : ", 1")
                        select = { schema in "SELECT x.\(SQL.identifier(c)), x.Z_PK\(position) FROM \(schema)\(SQL.identifier(t)) AS x WHERE x.\(SQL.identifier(c)) IS NOT NULL" }
                        origin = "the keys of \(t).\(c) (its inverse, to-one → to-many)"
                    default:
                        continue
                    }
                    let rows = try Int64.fetchOne(db, sql: "SELECT count(*) FROM (\(select("")))") ?? 0
                    steps.append(JoinStep(table: table, columns: columns, select: select, rows: rows, origin: origin, unchanged: unchanged,
                                          renamedFrom: renamedFrom))
                }
            }
            // A join table no source pairs fill (a new many-to-many) is made empty: said, so
            // that the plan names every table the migration writes.
            for table in visited where !steps.contains(where: { $0.table == table }) {
                steps.append(JoinStep(table: table, columns: [], select: { _ in "SELECT NULL WHERE 0" }, rows: 0,
                                      origin: "a new table", unchanged: false))
            }
            return steps
        }

        /// The order column of a many-to-many's inverse, where the inverse is ordered too and
        /// so has its own column in the one join table.
        static func inverseOrderColumn(of r: RelationshipDescription, in mapping: StoreMapping, besides own: String?) -> String? {
            guard let inverse = r.inverseName, let destination = mapping.entity(named: r.destinationEntityName),
                  case .joinTable(_, _, _, let order?)? = destination.relationship(inverse)?.storage, order != own else { return nil }
            return order
        }

        // MARK: Losses

        func lossesOf(numbers: [Int: Int]) throws -> [Loss] {
            var losses: [Loss] = []
            for entity in old.entities {
                guard let id = entity.entityID, store.schema.table(entity.table) != nil else { continue }
                let own = entity.entityColumn == nil ? "" : " AND x.Z_ENT IN (\(entity.entityIDs.map(String.init).joined(separator: ", ")))"
                if numbers[id] == nil, !entity.isAbstract {
                    let rows = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(entity.table)) AS x WHERE 1"
                                                    + (entity.entityColumn == nil ? "" : " AND x.Z_ENT = \(id)")) ?? 0
                    losses.append(Loss(entity: entity.name, property: nil, count: rows, what: "entity removed: its rows are dropped"))
                    continue
                }
                guard numbers[id] != nil else { continue }
                let table = store.schema.table(entity.table)
                for a in entity.attributes where a.declaredBy == entity.name {
                    guard let column = a.column, table?.hasColumn(column) == true, !carried.contains(entity.table + "." + column) else { continue }
                    let count = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(entity.table)) AS x "
                                                     + "WHERE x.\(SQL.identifier(column)) IS NOT NULL" + own) ?? 0
                    losses.append(Loss(entity: entity.name, property: a.attribute.name, count: count, what: "attribute removed: its values are dropped"))
                }
                for r in entity.relationships where r.declaredBy == entity.name {
                    switch r.storage {
                    case .foreignKey(let column, _):
                        guard table?.hasColumn(column) == true, !carried.contains(entity.table + "." + column) else { continue }
                        // The inverse's storage, a key carried for it, keeps the links.
                        let count = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(entity.table)) AS x "
                                                         + "WHERE x.\(SQL.identifier(column)) IS NOT NULL" + own) ?? 0
                        losses.append(Loss(entity: entity.name, property: r.relationship.name, count: count, what: "relationship removed: its links are dropped"))
                    case .joinTable(let joinTable, _, _, _):
                        guard store.schema.table(joinTable) != nil, !carriedJoins.contains(joinTable),
                              losses.allSatisfy({ $0.what != "join table \(joinTable) dropped" }) else { continue }
                        let count = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(joinTable))") ?? 0
                        losses.append(Loss(entity: entity.name, property: r.relationship.name, count: count, what: "join table \(joinTable) dropped"))
                    default:
                        continue
                    }
                }
            }
            return losses
        }
    }
}

import Foundation
import GRDB
import GRDBSQLite

/// Batch updates: one `UPDATE OR FAIL … SET …, Z_OPT = (Z_OPT + 1) WHERE …` in one exclusive
/// transaction (after a read-only pass over the same rows when a value is computed, which
/// `StoredValueCheck` explains), past every context (ARCHITECTURE.md "Write paths"; the
/// statement shape is Core Data's, sqldebug-log.md "Batch update / batch delete"). No
/// context sees the change until it refreshes or merges the changed IDs.
extension Coordinator {
    public func execute(_ request: BatchUpdateRequest, collectingIDs: Bool = false, origin: HistoryOrigin? = nil) throws -> BatchResult {
        let entity = try store.entity(request.entityName)
        guard !request.propertiesToUpdate.isEmpty else { throw BatchError.nothingToSet(entity.name) }
        var assignments: [SQLFragment] = []
        let check = StoredValueCheck { [mapping] id in mapping.entity(withID: id)?.name }
        var seen: Set<String> = []
        for (key, text) in request.propertiesToUpdate {
            let attribute = try BatchUpdateValue.attribute(key, of: entity)
            guard seen.insert(attribute.attribute.name).inserted else { throw BatchError.setTwice(entity: entity.name, key: key) }
            guard let column = attribute.column else {
                throw ContextError.readOnlyProperty(entity: entity.name, key: key, why: "it has no column in the store")
            }
            let value = try BatchUpdateValue.fragment(text, for: attribute.attribute, entity: entity, mapping: mapping,
                                                       check: check)
            assignments.append(SQLFragment("\(SQL.identifier(column)) = ") + value)
        }
        if entity.versionColumn != nil { assignments.append("Z_OPT = (Z_OPT + 1)") }

        let table = SQL.identifier(entity.table)
        var statement = SQLFragment("UPDATE OR FAIL \(table) AS t0 SET ") + SQLFragment.joined(assignments, separator: ", ")
        let (condition, warnings) = try BatchCondition.make(request.predicate, text: request.predicateText, entity: entity, mapping: mapping)
        if let condition { statement = statement + " WHERE " + condition }
        // The changed rows are recorded in persistent history, so they are collected.
        let history = store.schema.hasPersistentHistory
        let wantsIDs = collectingIDs || request.resultType == .ids || history
        if wantsIDs { statement = statement + BatchCondition.returning(entity) }

        var result = try write { db -> BatchResult in
            var result = BatchResult(storeUUID: store.uuid)
            let writer = StoreWriter(db: db, mapping: mapping)
            do {
                if !check.isEmpty {
                    check.register(db)
                    let pass = check.pass(table: table, condition: condition)
                    _ = try writer.execute(pass.sql, pass.arguments)
                }
                if wantsIDs {
                    result.changed = try BatchCondition.collect(statement, entity: entity, mapping: mapping, db: db)
                    result.count = result.changed?.values.reduce(0) { $0 + $1.count } ?? 0
                    if let recorder = HistoryWriter(db: db, store: store, origin: origin ?? HistoryOrigin(author: nil, contextName: nil)) {
                        let keys = request.propertiesToUpdate.map(\.key).compactMap { entity.attribute($0)?.attribute.name }
                        for (name, changed) in (result.changed ?? [:]).sorted(by: { $0.key < $1.key }) {
                            let concrete = mapping.entity(named: name) ?? entity
                            try recorder.updates(concrete, changed, properties: keys)
                        }
                        try recorder.finish()
                    }
                    if !(collectingIDs || request.resultType == .ids) { result.changed = nil }
                } else {
                    result.count = try writer.execute(statement.sql, statement.arguments)
                }
            } catch {
                // The transaction rolls back; say which value did not fit rather than SQLite's text.
                throw check.failure ?? error
            }
            return result
        }
        result.warnings = warnings
        return result
    }
}

/// The value of one `K=EXPR` of a batch update, checked against the attribute's type.
enum BatchUpdateValue {
    static func attribute(_ key: String, of entity: EntityMapping) throws -> AttributeMapping {
        if entity.relationship(key) != nil {
            throw ContextError.readOnlyProperty(entity: entity.name, key: key, why: "a batch update sets attributes, not relationships")
        }
        return try ValueParsing.writableAttribute(key, in: entity)
    }

    /// A constant is checked and encoded as `update` does; anything else is compiled as an
    /// expression over the row. For a string attribute, a bare word that names no key is the
    /// text itself, as `ValueParsing` takes it; for a Binary one, text that is no expression
    /// is its base64.
    static func fragment(_ text: String, for a: AttributeDescription, entity: EntityMapping,
                         mapping: StoreMapping, check: StoredValueCheck) throws -> SQLFragment {
        func constant() throws -> SQLFragment {
            let value = try ValueParsing.attributeValue(text, a, entity: entity.name, nilUntilSave: false)
            if a.allowsExternalBinaryDataStorage, case .data(let bytes) = value, bytes.count > ExternalDataFiles.threshold {
                throw ContextError.readOnlyProperty(entity: entity.name, key: a.name,
                                                    why: "a value over \(ExternalDataFiles.threshold) bytes goes to an external file, which a batch update "
                                                        + "(written past every context) does not write; set it on the object and save")
            }
            guard let encoded = StoreWriter.encode(.attribute(value), a) else {
                throw ContextError.readOnlyProperty(entity: entity.name, key: a.name, why: "it is stored in an external file")
            }
            return .bind(encoded)
        }
        if (try? PredicateParser.parseLiteral(text)) != nil { return try constant() }
        let expression: PredicateOperand
        do {
            expression = try PredicateParser.parseExpression(text)
        } catch {
            if a.type == .string || a.type == .binaryData { return try constant() }
            throw error
        }
        if a.type == .string, case .keyPath(let base, let key) = expression.kind, case .evaluatedObject = base.kind,
           entity.attribute(key) == nil, entity.relationship(key) == nil {
            return try constant()
        }
        let compiler = PredicateCompiler(mapping: mapping, text: text)
        let root = compiler.rootScope(entity)
        let operand = try compiler.operand(expression, PredicateCompiler.Context(scope: root, variables: [:], outer: false))
        // A value may only read the row's own columns: a join in UPDATE has nowhere to go.
        guard root.from.sql == root.from.base else { throw BatchError.valueNeedsJoin(entity.name) }
        let fits: Bool
        switch (a.type, operand.type) {
        case (_, .null), (_, .unknown): fits = true
        case (.integer16, .number), (.integer32, .number), (.integer64, .number), (.double, .number), (.float, .number),
             (.decimal, .number), (.boolean, .number), (.date, .date), (.date, .number), (.string, .string), (.undefined, _):
            fits = true
        default: fits = false
        }
        guard fits else {
            let wanted: String
            switch a.type {
            case .string: wanted = "text"
            case .date: wanted = "a date"
            default: wanted = "a number"
            }
            throw ContextError.badValue(entity: entity.name, key: a.name, why: "\(text) does not give \(wanted), and \(a.name) is \(a.type.withArticle)")
        }
        return check.add(operand.fragment, expression: text, attribute: a, entity: entity)
    }
}

/// The WHERE clause batch requests share: the predicate's condition on `t0` (through a
/// `t0.Z_PK IN (SELECT …)` subquery when it needs joins) and the `Z_ENT` filter of an
/// entity that shares its table.
enum BatchCondition {
    static func make(_ predicate: Predicate?, text: String, entity: EntityMapping,
                     mapping: StoreMapping) throws -> (SQLFragment?, [String]) {
        var parts: [SQLFragment] = []
        var warnings: [String] = []
        if let predicate {
            let compiled = try PredicateCompiler.compile(predicate, text: text, entity: entity, mapping: mapping)
            warnings = compiled.warnings
            if compiled.joins.isEmpty {
                parts.append(compiled.condition)
            } else {
                parts.append("t0.Z_PK IN (SELECT t0.Z_PK FROM \(SQL.identifier(entity.table)) t0\(compiled.joins) WHERE "
                             + compiled.condition + ")")
            }
        }
        if let filter = PredicateCompiler(mapping: mapping, text: text).entityFilter(alias: "t0", entity) {
            parts.append(SQLFragment(filter))
        }
        guard !parts.isEmpty else { return (nil, warnings) }
        if parts.count == 1 { return (parts[0], warnings) }
        return (SQLFragment.joined(parts.map { $0.parenthesized() }, separator: " AND "), warnings)
    }

    /// `RETURNING` the changed rows' keys and, in a shared table, their entity.
    static func returning(_ entity: EntityMapping) -> String {
        " RETURNING Z_PK" + (entity.tableHasSubentities ? ", \(SQL.identifier(entity.entityColumn ?? "Z_ENT"))" : "")
    }

    /// Runs a statement whose rows are (key, entity ID) — a SELECT, or an UPDATE with
    /// `RETURNING` — and collects the keys by concrete entity.
    static func collect(_ statement: SQLFragment, entity: EntityMapping, mapping: StoreMapping,
                        db: Database) throws -> [String: [Int64]] {
        let prepared = try db.makeStatement(sql: statement.sql)
        let columns = ColumnReader(prepared.sqliteStatement)
        try columns.bind(statement.arguments, db)
        // By entity ID while reading (a number, not a name to hash on every row); one entity
        // in its own table needs no lookup at all.
        var byID: [Int64: [Int64]] = [:]
        var own: [Int64] = []
        while try columns.step(db) {
            if entity.tableHasSubentities {
                byID[columns.int64(1), default: []].append(columns.int64(0))
            } else {
                own.append(columns.int64(0))
            }
        }
        var keys: [String: [Int64]] = own.isEmpty ? [:] : [entity.name: own]
        for (id, changed) in byID {
            keys[mapping.entity(withID: Int(id))?.name ?? entity.name, default: []].append(contentsOf: changed)
        }
        for key in keys.keys { keys[key]?.sort() }
        return keys
    }
}

public enum BatchError: Error, CustomStringConvertible, Equatable {
    case nothingToSet(String)
    case setTwice(entity: String, key: String)
    case valueNeedsJoin(String)

    public var description: String {
        switch self {
        case .nothingToSet(let entity): return "a batch update of \(entity) needs at least one property to set"
        case .setTwice(let entity, let key): return "\(entity).\(key) is set twice"
        case .valueNeedsJoin(let entity):
            return "a batch update's values may use only \(entity)'s own attributes (a key path through a relationship needs a join)"
        }
    }
}

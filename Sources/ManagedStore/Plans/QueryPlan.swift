import Foundation
import GRDB

/// A fetch's statement as SQLite plans it (`EXPLAIN QUERY PLAN`), said in the model's terms:
/// `SEARCH Person USING INDEX ZPERSON_ZAGE_INDEX (age=?)` for `SEARCH t0 USING INDEX
/// ZPERSON_ZAGE_INDEX (ZAGE=?)`, a sort in a temporary B-tree, a to-many's correlated
/// subquery by its relationship; each table's rows, and one line that says what the fetch
/// costs ("reads every Person row"). Planning reads the schema and statistics only: nothing
/// runs and nothing is written.
public struct QueryPlan: Sendable {
    public enum Access: String, Sendable {
        /// Every row of the table (or of an index that holds them all).
        case scan
        /// The rows an index (or the primary key) finds.
        case search
        /// Rows gathered and ordered in a temporary B-tree (ORDER BY, DISTINCT, GROUP BY).
        case sort
        /// A subquery run for each row.
        case subquery
        case other
    }

    public struct Step: Sendable {
        public let id: Int
        public let parent: Int
        /// SQLite's own words.
        public let detail: String
        /// The same in the model's terms.
        public let described: String
        public let access: Access
        /// The entity the step reads, where it reads one.
        public let entity: String?
        /// The index it uses, if any (`nil` for a scan of the table itself).
        public let index: String?
    }

    public let steps: [Step]
    /// Each table the statement reads: its entity and its rows.
    public let tables: [(entity: String, table: String, rows: Int)]

    /// What the plan costs, in one line.
    public var verdict: String {
        var parts: [String] = []
        for step in steps where step.access == .scan {
            let rows = tables.first { $0.entity == step.entity }?.rows
            let noun = step.entity ?? "table"
            parts.append("reads every \(noun) row" + (rows.map { " (\($0.groupedDigits))" } ?? "") + (step.parent == 0 ? "" : " for each row of the outer query"))
        }
        if steps.contains(where: { $0.access == .sort }) { parts.append("sorts the rows in a temporary B-tree") }
        let searches = steps.filter { $0.access == .search }.compactMap { step in step.index.map { "\(step.entity ?? "the table") by \($0)" } }
        if parts.isEmpty {
            return searches.isEmpty ? "reads only the rows it needs" : "searches " + searches.joined(separator: ", ") + "; reads only the rows it needs"
        }
        return parts.joined(separator: "; ")
    }

    /// Whether some step reads a whole table or sorts: what an index could spare.
    public var scansOrSorts: Bool { steps.contains { $0.access == .scan || $0.access == .sort } }

    /// The plan of `plan`'s statement on `store`, from a read of its schema and statistics.
    public static func explain(_ plan: FetchPlan, store: PersistentStore) throws -> QueryPlan {
        try store.read { db in try explain(sql: plan.statement.sql, arguments: plan.statement.arguments, entity: plan.entity.name, store: store, db) }
    }

    /// The plan of a statement given as SQL (a profiled log's: its parameters unbound),
    /// `entity` the one it fetches.
    public static func explain(sql: String, entity: String, store: PersistentStore) throws -> QueryPlan {
        try store.read { db in try explain(sql: sql, arguments: [], entity: entity, store: store, db) }
    }

    static func explain(sql: String, arguments: [DatabaseValue], entity: String, store: PersistentStore, _ db: Database) throws -> QueryPlan {
        let names = TableNames(sql: sql, fetched: entity, store: store)
        let rows = try planRows(db, sql, arguments)
        var steps: [Step] = []
        for row in rows {
            let detail: String = row["detail"] ?? ""
            steps.append(names.step(id: row["id"] ?? 0, parent: row["parent"] ?? 0, detail: detail))
        }
        var tables: [(String, String, Int)] = []
        for (table, entity) in names.entities where !tables.contains(where: { $0.1 == table }) {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(table))") ?? 0
            tables.append((entity, table, count))
        }
        return QueryPlan(steps: steps, tables: tables.map { (entity: $0.0, table: $0.1, rows: $0.2) })
    }
}

/// `EXPLAIN QUERY PLAN` of `sql`; a statement read from a log, whose values are not known,
/// is planned with its parameters unbound (NULL), as SQLite allows.
func planRows(_ db: Database, _ sql: String, _ arguments: [DatabaseValue]) throws -> [Row] {
    let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
    if arguments.isEmpty { statement.setUncheckedArguments(StatementArguments()) } else { try statement.setArguments(StatementArguments(arguments)) }
    return try Row.fetchAll(statement)
}

/// The statement's tables by alias (`ZPERSON t0`), and their columns by attribute name.
struct TableNames {
    /// alias → (table, entity)
    var aliases: [String: (table: String, entity: String)] = [:]
    /// table → entity, in the order first met.
    var entities: [(String, String)] = []
    /// The fetched entity's to-many relationships whose destination's table the statement reads.
    var toMany: [(String, String)] = []
    let fetched: String
    let store: PersistentStore

    init(sql: String, fetched: String, store: PersistentStore) {
        self.store = store
        self.fetched = fetched
        // FROM and JOIN items: a table name, then its alias t0, t1, …
        let pattern = try? NSRegularExpression(pattern: #"(?:FROM|JOIN|,)\s+("?)([A-Za-z_][A-Za-z0-9_]*)\1\s+(t\d+)\b"#)
        let range = NSRange(sql.startIndex..., in: sql)
        for match in pattern?.matches(in: sql, range: range) ?? [] {
            guard let tableRange = Range(match.range(at: 2), in: sql), let aliasRange = Range(match.range(at: 3), in: sql) else { continue }
            let table = String(sql[tableRange]), alias = String(sql[aliasRange])
            let entity = Self.entity(of: table, fetched: fetched, alias: alias, store: store)
            aliases[alias] = (table, entity)
            if !entities.contains(where: { $0.0 == table }) { entities.append((table, entity)) }
        }
        if let mapping = try? store.entity(fetched) {
            for r in mapping.relationships where r.relationship.isToMany {
                guard let destination = try? store.entity(r.relationship.destinationEntityName) else { continue }
                let reads = aliases.contains { $0.key != "t0" && SchemaSnapshot.sameName($0.value.table, destination.table) }
                if reads, sql.contains("SELECT") && (sql.contains("EXISTS") || sql.contains("(SELECT")) {
                    toMany.append((r.relationship.name, destination.name))
                }
            }
        }
    }

    /// The entity a table holds: the fetched one for the outer query's table, else the table's root entity.
    static func entity(of table: String, fetched: String, alias: String, store: PersistentStore) -> String {
        if let mapping = try? store.entity(fetched), SchemaSnapshot.sameName(mapping.table, table), alias == "t0" { return mapping.name }
        return store.mapping.rootEntity(ofTable: table)?.name ?? table
    }

    /// A column of `table` by its property's name (`ZAGE` → `age`, a to-one's key by the
    /// relationship, `Z_PK` the primary key).
    func property(_ column: String, table: String) -> String {
        let upper = column.uppercased()
        if upper == "Z_PK" || upper == "ROWID" { return "primary key" }
        if upper == "Z_ENT" { return "entity" }
        if upper == "Z_OPT" { return "version" }
        return store.mapping.propertyName(ofColumn: column, inTable: table) ?? column
    }

    func step(id: Int, parent: Int, detail: String) -> QueryPlan.Step {
        var words = detail.split(separator: " ").map(String.init)
        var access = QueryPlan.Access.other
        var entity: String?
        var index: String?
        if let first = words.first {
            switch first {
            case "SCAN", "SEARCH":
                access = first == "SCAN" ? .scan : .search
                if words.count > 1, let named = aliases[words[1]] {
                    entity = named.entity
                    words[1] = named.entity
                    if let using = words.firstIndex(of: "INDEX"), using + 1 < words.count { index = words[using + 1] }
                    if words.contains("PRIMARY") { index = "primary key" }
                    // A scan of a covering index still reads every entry: a scan.
                }
            case "USE":
                if detail.contains("TEMP B-TREE") { access = .sort }
            case "CORRELATED", "SCALAR", "LIST":
                if detail.contains("SUBQUERY") { access = .subquery }
            default: break
            }
        }
        var described = words.joined(separator: " ")
        // The columns in the parenthesis after an index: (ZAGE>? AND ZNAME=?) → (age>? AND name=?)
        if let open = described.firstIndex(of: "("), let close = described.lastIndex(of: ")"), open < close,
           let table = entity.flatMap({ name in aliases.values.first { $0.entity == name }?.table }) {
            let inside = String(described[described.index(after: open)..<close])
            let pattern = try? NSRegularExpression(pattern: #"[A-Za-z_][A-Za-z0-9_]*"#)
            var translated = ""
            var last = inside.startIndex
            for match in pattern?.matches(in: inside, range: NSRange(inside.startIndex..., in: inside)) ?? [] {
                guard let range = Range(match.range, in: inside) else { continue }
                translated += inside[last..<range.lowerBound]
                let word = String(inside[range])
                translated += word == "AND" ? word : property(word, table: table)
                last = range.upperBound
            }
            translated += inside[last...]
            described = String(described[..<open]) + "(" + translated + ")" + String(described[described.index(after: close)...])
        }
        if access == .subquery {
            // Name the to-many the subquery counts or tests, where the SQL says which.
            if let (relationship, destination) = toMany.first {
                described += ": for each \(fetched) row, over its \(relationship) (\(destination))"
            } else {
                described += ": for each row"
            }
        }
        return QueryPlan.Step(id: id, parent: parent, detail: detail, described: described, access: access, entity: entity, index: index)
    }
}

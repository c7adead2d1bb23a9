import Foundation
import GRDB

/// The indexes that turn a fetch's scans into searches, or spare its sort, found as SQLite's
/// own `.expert` finds them: for each table the statement reads, a candidate index on the
/// columns it tests for equality then the one it tests for a range, and one on its sort's
/// columns; all are created in an in-memory database holding the store's schema and
/// statistics (the store's rows are never read, and nothing is written to it), the statement
/// is planned there, and the candidates SQLite's planner chooses are the advice. Each is
/// written three ways: as SwiftData declares it, as the model editor's fetch index, and as
/// the `CREATE INDEX` Core Data issues for that fetch index (`Z_<Entity>_<name>`, each column
/// `COLLATE BINARY`, as a genuine store's schema shows).
public struct IndexAdvice: Sendable {
    /// One advised index.
    public struct Index: Sendable, Equatable {
        public let entity: String
        public let table: String
        /// The attributes the index covers, in order, and whether each is in descending order.
        public let properties: [String]
        public let columns: [String]
        public let descending: [Bool]

        public var name: String {
            "by" + properties.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "And") + "Index"
        }

        public var swiftData: String { "#Index<\(entity)>([" + properties.map { "\\.\($0)" }.joined(separator: ", ") + "])" }

        public var fetchIndexXML: String {
            "<fetchIndex name=\"\(ModelXMLWriter.escape(name))\">\n"
                + zip(properties, descending).map { property, descending in
                    "    <fetchIndexElement property=\"\(ModelXMLWriter.escape(property))\" type=\"Binary\" order=\"\(descending ? "descending" : "ascending")\"/>\n"
                }.joined()
                + "</fetchIndex>"
        }

        public var createIndex: String {
            "CREATE INDEX \(SQL.identifier("Z_\(entity)_\(name)")) ON \(SQL.identifier(table)) ("
                + zip(columns, descending).map { "\(SQL.identifier($0)) COLLATE BINARY \($1 ? "DESC" : "ASC")" }.joined(separator: ", ") + ")"
        }
    }

    public let indexes: [Index]
    /// The statement's plan with them.
    public let plan: QueryPlan

    /// The indexes for `plan` on `store`; nil when its plan has nothing an index spares, or
    /// SQLite's planner chooses none of the candidates. `current` is the plan as the store has it.
    public static func advise(_ plan: FetchPlan, current: QueryPlan, store: PersistentStore) throws -> IndexAdvice? {
        try advise(sql: plan.statement.sql, arguments: plan.statement.arguments, entity: plan.entity.name, current: current, store: store)
    }

    /// The same for a statement given as SQL (a profiled log's), `entity` the one it fetches.
    public static func advise(sql: String, arguments: [DatabaseValue] = [], entity: String, current: QueryPlan,
                              store: PersistentStore) throws -> IndexAdvice? {
        guard current.scansOrSorts else { return nil }
        let names = TableNames(sql: sql, fetched: entity, store: store)
        var candidates: [Candidate] = []
        for alias in names.aliases.keys.sorted() {
            guard let table = names.aliases[alias]?.table else { continue }
            let terms = Terms(sql: sql, alias: alias)
            func add(_ columns: [(String, Bool)]) {
                var seen: Set<String> = []
                let unique = columns.filter { seen.insert($0.0.uppercased()).inserted }
                guard !unique.isEmpty else { return }
                let candidate = Candidate(name: "cdi_candidate_\(candidates.count)", table: table, columns: unique.map(\.0), descending: unique.map(\.1))
                if !candidates.contains(where: { $0.table == table && $0.columns == candidate.columns && $0.descending == candidate.descending }) {
                    candidates.append(candidate)
                }
            }
            let equality = terms.equality.map { ($0, false) }
            add(equality + (terms.range.first.map { [($0, false)] } ?? []))
            add(equality + terms.order)
            // Terms joined by OR are searched one index each (SQLite's MULTI-INDEX OR), as
            // `.expert` advises them: an index on each tested column alone.
            if terms.disjunctive {
                for column in terms.equality + terms.range { add([(column, false)]) }
            }
        }
        let schema = try store.read { db in try SchemaCopy.read(db) }
        // An index the store has (or one it has that begins with the same columns) is no advice.
        candidates.removeAll { candidate in
            schema.indexes.contains { existing in
                SchemaSnapshot.sameName(existing.table, candidate.table)
                    && existing.columns.count >= candidate.columns.count
                    && zip(existing.columns, candidate.columns).allSatisfy(SchemaSnapshot.sameName)
            }
        }
        guard !candidates.isEmpty else { return nil }
        let tried = try schema.plan(sql: sql, arguments: arguments, candidates: candidates, names: names, current: current)
        let used = candidates.filter { candidate in tried.steps.contains { $0.index == candidate.name } }
        guard !used.isEmpty else { return nil }
        let indexes = used.map { candidate -> Index in
            let entity = store.mapping.rootEntity(ofTable: candidate.table)?.name ?? candidate.table
            return Index(entity: entity, table: candidate.table, properties: candidate.columns.map { names.property($0, table: candidate.table) },
                         columns: candidate.columns, descending: candidate.descending)
        }
        // The trial indexes by the names the advice gives them.
        var renamed: [String: String] = [:]
        for (candidate, index) in zip(used, indexes) { renamed[candidate.name] = "Z_\(index.entity)_\(index.name)" }
        func rename(_ text: String) -> String {
            renamed.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
        let steps = tried.steps.map { step in
            QueryPlan.Step(id: step.id, parent: step.parent, detail: rename(step.detail), described: rename(step.described), access: step.access,
                           entity: step.entity, index: step.index.map(rename))
        }
        return IndexAdvice(indexes: indexes, plan: QueryPlan(steps: steps, tables: tried.tables))
    }
}

/// A candidate index, by the name it has in the trial.
struct Candidate {
    let name: String
    let table: String
    let columns: [String]
    let descending: [Bool]
}

/// The columns of one table (by its alias) a statement tests and sorts by (`t0.ZAGE = ?`,
/// `t0.ZNAME > ?`, `ORDER BY t0.ZBIRTHDAY DESC`), read from its SQL.
struct Terms {
    var equality: [String] = []
    var range: [String] = []
    /// The sort's columns, each with whether it is descending.
    var order: [(String, Bool)] = []
    /// The conditions join some terms with OR.
    var disjunctive = false

    init(sql: String, alias: String) {
        let body: Substring
        if let whereRange = sql.range(of: " WHERE ") { body = sql[whereRange.upperBound...] } else { body = "" }
        let (conditions, ordering) = Terms.split(String(body), sql: sql)
        disjunctive = conditions.range(of: #"\bOR\b"#, options: .regularExpression) != nil
        equality = Terms.columns(conditions, #"(?:^|[^\w.])"# + alias + #"\.(Z\w+)\s*(?:=|==|IS(?! NOT)|IN\b)"#)
        range = Terms.columns(conditions, #"(?:^|[^\w.])"# + alias + #"\.(Z\w+)\s*(?:<|>|<=|>=|BETWEEN|LIKE|GLOB)"#).filter { !equality.contains($0) }
        if alias == "t0", let expression = try? NSRegularExpression(pattern: #"t0\.(Z\w+)( DESC)?"#) {
            for match in expression.matches(in: ordering, range: NSRange(ordering.startIndex..., in: ordering)) {
                guard let range = Range(match.range(at: 1), in: ordering) else { continue }
                order.append((String(ordering[range]), match.range(at: 2).location != NSNotFound))
            }
        }
    }

    /// The WHERE text and the ORDER BY text.
    static func split(_ body: String, sql: String) -> (String, String) {
        let orderText = sql.range(of: " ORDER BY ", options: .backwards).map { String(sql[$0.upperBound...]) } ?? ""
        let conditions = body.range(of: " ORDER BY ").map { String(body[..<$0.lowerBound]) } ?? body
        return (conditions, orderText.components(separatedBy: " LIMIT ").first ?? orderText)
    }

    static func columns(_ text: String, _ pattern: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        var found: [String] = []
        for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range(at: 1), in: text) else { continue }
            let column = String(text[range])
            if column != "Z_PK", column != "Z_ENT", !found.contains(column) { found.append(column) }
        }
        return found
    }
}

/// The store's schema and statistics in an in-memory database, where indexes can be tried.
struct SchemaCopy {
    let statements: [String]
    let stats: [(String, String?, String)]
    let rowCounts: [String: Int]
    /// The store's indexes (its own and SQLite's for UNIQUE and PRIMARY KEY), by their columns.
    let indexes: [(table: String, columns: [String])]

    static func read(_ db: Database) throws -> SchemaCopy {
        let statements = try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index', 'view')
            AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table' DESC, rowid
            """)
        var stats: [(String, String?, String)] = []
        if try db.tableExists("sqlite_stat1") {
            for row in try Row.fetchAll(db, sql: "SELECT tbl, idx, stat FROM sqlite_stat1") {
                stats.append((row[0] ?? "", row[1], row[2] ?? ""))
            }
        }
        var counts: [String: Int] = [:]
        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
            // The largest key: a table's size at the cost of one look at its B-tree.
            counts[table] = try Int.fetchOne(db, sql: "SELECT max(rowid) FROM \(SQL.identifier(table))") ?? 0
        }
        return SchemaCopy(statements: statements, stats: stats, rowCounts: counts, indexes: try SchemaSnapshot.indexes(db))
    }

    /// The statement's plan in a copy of the schema with the `candidates` added.
    func plan(sql: String, arguments: [DatabaseValue], candidates: [Candidate], names: TableNames, current: QueryPlan) throws -> QueryPlan {
        let queue = try DatabaseQueue()
        return try queue.inDatabase { db in
            PredicateFunctions.register(db)
            TriggerFunctions.register(db)
            for statement in statements { try? db.execute(sql: statement) }
            for c in candidates {
                try db.execute(sql: "CREATE INDEX \(c.name) ON \(SQL.identifier(c.table)) ("
                    + zip(c.columns, c.descending).map { "\(SQL.identifier($0)) \($1 ? "DESC" : "ASC")" }.joined(separator: ", ") + ")")
            }
            // The store's statistics, or its tables' sizes where it has none, so that the
            // planner weighs the copy's empty tables as the store's full ones; a candidate is
            // taken to find a few rows per key, as .expert's sample of a varied column shows.
            try db.execute(sql: "ANALYZE sqlite_master")
            for (table, idx, stat) in stats {
                try db.execute(sql: "INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES (?, ?, ?)", arguments: [table, idx, stat])
            }
            for (table, rows) in rowCounts where rows > 0 && !stats.contains(where: { $0.0 == table && $0.1 == nil }) {
                try db.execute(sql: "INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES (?, NULL, ?)", arguments: [table, String(rows)])
            }
            for c in candidates {
                let rows = max(1, rowCounts[c.table] ?? 1)
                let perKey = max(1, min(10, rows / 100))
                try db.execute(sql: "INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES (?, ?, ?)",
                               arguments: [c.table, c.name, "\(rows) " + c.columns.map { _ in String(perKey) }.joined(separator: " ")])
            }
            try db.execute(sql: "ANALYZE sqlite_master")
            let rows = try planRows(db, sql, arguments)
            let steps = rows.map { names.step(id: $0["id"] ?? 0, parent: $0["parent"] ?? 0, detail: $0["detail"] ?? "") }
            return QueryPlan(steps: steps, tables: current.tables)
        }
    }
}

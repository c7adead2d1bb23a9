import GRDB

/// Rows of an entity that repeat one another under a uniqueness constraint: what `doctor`
/// reports for the model a store has, and what a new model's migration would reject.
struct ConstraintRepeats {
    /// Rows in groups of two or more that share the constraint's values.
    let rows: Int64
    /// Of those, the rows past the first of each group: what a save would have to give up.
    let extra: Int64
    /// The first row of up to five groups.
    let firstKeys: [Int64]
    /// How many groups repeat.
    let groups: Int64
    /// The repeated values of up to five groups (`"dave1"`, or `("a", 2)` for several
    /// columns), in the order of `firstKeys`.
    let values: [String]

    init(_ entity: EntityMapping, columns: [String], _ db: Database) throws {
        let key = columns.map { "x.\(SQL.identifier($0))" }.joined(separator: ", ")
        let groups = "SELECT count(*) AS n, min(x.Z_PK) AS first, \(key) FROM \(SQL.identifier(entity.table)) x "
            + "WHERE x.Z_ENT IN (\(entity.entityIDs.map(String.init).joined(separator: ", "))) GROUP BY \(key) HAVING count(*) > 1"
        let totals = try Row.fetchOne(db, sql: "SELECT total(n), total(n - 1), count(*) FROM (\(groups))")
        rows = Int64(totals?.lenient(0, as: Double.self) ?? 0)
        extra = Int64(totals?.lenient(1, as: Double.self) ?? 0)
        self.groups = totals?.lenient(2) ?? 0
        let firstGroups = rows == 0 ? [] : try Row.fetchAll(db, sql: "SELECT * FROM (\(groups)) ORDER BY first LIMIT \(DoctorFinding.exampleLimit)")
        firstKeys = firstGroups.map { $0.lenient(1) ?? 0 }
        values = firstGroups.map { row in
            let shown = (2..<(2 + columns.count)).map { Self.text(row[$0] as DatabaseValue) }
            return shown.count == 1 ? shown[0] : "(" + shown.joined(separator: ", ") + ")"
        }
    }

    /// A repeated value as a message shows it: text quoted, bytes by their size.
    private static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "nil"
        case .int64(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "\"" + (s.count > 40 ? s.prefix(40) + "…" : Substring(s)) + "\""
        case .blob(let data): return "<\(data.count) bytes>"
        }
    }
}

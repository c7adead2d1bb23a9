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

    init(_ entity: EntityMapping, columns: [String], _ db: Database) throws {
        let key = columns.map { "x.\(SQL.identifier($0))" }.joined(separator: ", ")
        let groups = "SELECT count(*) AS n, min(x.Z_PK) AS first FROM \(SQL.identifier(entity.table)) x "
            + "WHERE x.Z_ENT IN (\(entity.entityIDs.map(String.init).joined(separator: ", "))) GROUP BY \(key) HAVING count(*) > 1"
        let totals = try Row.fetchOne(db, sql: "SELECT total(n), total(n - 1) FROM (\(groups))")
        rows = Int64(totals?.lenient(0, as: Double.self) ?? 0)
        extra = Int64(totals?.lenient(1, as: Double.self) ?? 0)
        firstKeys = rows == 0 ? [] : try Int64.fetchAll(db, sql: "SELECT first FROM (\(groups)) ORDER BY 1 LIMIT \(DoctorFinding.exampleLimit)")
    }
}

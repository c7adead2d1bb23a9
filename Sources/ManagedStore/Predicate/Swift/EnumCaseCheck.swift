import Foundation
import GRDB

/// A Swift predicate compares an enum by its case's name (`$0.glass == .rocks` reads as
/// `glass == "rocks"`), while SwiftData stores the case's raw value, which the app's enum may
/// spell otherwise (`case rocks = "On the rocks"`): the model does not say, and such a fetch
/// quietly matches nothing. The rows do say: when no row of the entity holds the name, the
/// warning lists the values they hold.
public enum EnumCaseCheck {
    /// How many held values a warning lists.
    static let shown = 20

    /// One warning per case no row holds; none when the attribute has no column here.
    public static func warnings(_ cases: [SwiftPredicateReader.EnumCase], entity: String, store: PersistentStore) throws -> [String] {
        guard !cases.isEmpty, let mapping = store.mapping.entity(named: entity) else { return [] }
        var warnings: [String] = []
        for enumCase in cases {
            guard let column = mapping.attribute(enumCase.keyPath)?.column else { continue }
            let held = try store.reader.read { db in try values(of: column, in: mapping, unless: enumCase.name, db) }
            guard let held else { continue }
            let list = held.prefix(shown).map { "\"\($0)\"" }.joined(separator: ", ") + (held.count > shown ? ", …" : "")
            warnings.append("no \(entity) holds \"\(enumCase.name)\" in \(enumCase.keyPath), so .\(enumCase.name) matches nothing: "
                            + "SwiftData stores an enum's raw value, which may not be its case's name; "
                            + (held.isEmpty ? "no row holds a value there" : "the rows hold \(list)"))
        }
        return warnings
    }

    /// nil when a row of the entity holds `name` in `column`; otherwise the distinct values
    /// the rows hold there (one more than are shown, to tell that there are more).
    static func values(of column: String, in entity: EntityMapping, unless name: String, _ db: Database) throws -> [String]? {
        let c = SQL.identifier(column)
        var filter = ""
        if entity.tableHasSubentities, let entityColumn = entity.entityColumn {
            filter = " AND \(SQL.identifier(entityColumn)) IN (\(entity.entityIDs.map(String.init).joined(separator: ", ")))"
        }
        let table = SQL.identifier(entity.table)
        if try Row.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE \(c) = ?\(filter) LIMIT 1", arguments: [name]) != nil { return nil }
        let found = try DatabaseValue.fetchAll(db, sql: "SELECT DISTINCT \(c) FROM \(table) WHERE \(c) IS NOT NULL\(filter) ORDER BY 1 LIMIT \(shown + 1)")
        return found.map { value in
            switch value.storage {
            case .string(let s): return shortened(s)
            case .int64(let i): return String(i)
            case .double(let d): return String(d)
            case .blob(let data): return "<\(data.count) bytes>"
            case .null: return "nil"
            }
        }
    }

    /// A value as one line of a warning: control characters escaped, cut short when long.
    static func shortened(_ s: String) -> String {
        let line = String(s.prefix(60).unicodeScalars.map { $0.value < 32 || $0.value == 127 ? "\u{FFFD}" : Character($0) })
        return s.count > 60 ? line + "…" : line
    }
}

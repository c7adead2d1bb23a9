import Foundation
import GRDB

/// Where a store's bytes go: its files, each table and its indexes, the heaviest
/// attributes, persistent history, the model cache and the free pages a `VACUUM` would give
/// back. Page sizes come from SQLite's `dbstat` table where the library has it; where it
/// does not, table and index sizes are left unknown rather than guessed.
public struct StoreSpace: Sendable {
    public struct Files: Sendable, Equatable {
        public var mainFile: Int64
        public var wal: Int64
        public var externalFiles: Int64
        public var externalBytes: Int64
    }

    public struct TableSpace: Sendable {
        public var table: String
        /// The entities whose rows the table holds, with their own rows (sub-entities apart);
        /// nil where the table could not be read (quick_check says why), never a 0 that looks
        /// like an empty table.
        public var entities: [(name: String, rows: Int64?)]
        public var rows: Int64?
        public var tableBytes: Int64?
        public var indexBytes: Int64?
    }

    public struct AttributeSpace: Sendable, Equatable {
        public var entity: String
        public var attribute: String
        /// Bytes of data, characters of text, summed over the rows.
        public var total: Int64
        public var largest: Int64
    }

    public struct HistorySpace: Sendable, Equatable {
        public var transactions: Int64
        public var changes: Int64
        public var bytes: Int64?
        public var oldest: Double?
        public var newest: Double?
    }

    public var files: Files
    public var pageSize: Int64
    public var tables: [TableSpace]
    public var attributes: [AttributeSpace]
    public var history: HistorySpace?
    public var modelCacheBytes: Int64?
    public var freeBytes: Int64
    /// Whether `dbstat` was there to size tables and indexes.
    public var measuredPages: Bool

    /// How many of the heaviest attributes are kept.
    public static let attributeLimit = 10

    /// Bytes per b-tree from `dbstat` (a pass over every page), read apart from the rest so
    /// that it can run beside the row census.
    struct Pages: Sendable {
        var bytes: [String: Int64] = [:]
        var measured = false

        init(_ db: Database, progress: (String) -> Void) throws {
            progress("measuring pages")
            if let rows = try? Row.fetchAll(db, sql: "SELECT name, sum(pgsize) FROM dbstat GROUP BY name") {
                measured = true
                for row in rows { if let name: String = row.lenient(0) { bytes[name] = row.lenient(1) ?? 0 } }
            }
        }
    }

    init(store: PersistentStore, census: TableCensus, pages given: Pages, _ db: Database) throws {
        let external = Self.externalFiles(of: store)
        files = Files(mainFile: Self.size(store.path), wal: Self.size(store.path + "-wal"), externalFiles: Int64(external.count),
                      externalBytes: external.reduce(0) { $0 + $1.bytes })
        pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        freeBytes = (try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0) * pageSize

        let pages = given.bytes
        let measured = given.measured
        var indexTable: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'") {
            if let name: String = row.lenient(0), let table: String = row.lenient(1) { indexTable[name] = table }
        }
        func indexBytes(_ table: String) -> Int64? {
            measured ? indexTable.filter { SchemaSnapshot.sameName($0.value, table) }.keys.reduce(0) { $0 + (pages[$1] ?? 0) } : nil
        }

        var tables: [TableSpace] = []
        var attributes: [AttributeSpace] = []
        for table in census.tables {
            tables.append(TableSpace(table: table.table, entities: table.entities.filter { !$0.isAbstract }.map { ($0.name, table.rows == nil ? nil : table.rowsByEntity[$0.name] ?? 0) }
                                        .sorted { $0.name < $1.name }, rows: table.rows,
                                     tableBytes: measured ? pages[table.table] ?? pages.first { SchemaSnapshot.sameName($0.key, table.table) }?.value : nil,
                                     indexBytes: indexBytes(table.table)))
            for c in table.columns where c.total > 0 {
                attributes.append(AttributeSpace(entity: c.entity.name, attribute: c.attribute.name, total: c.total, largest: c.largest))
            }
        }
        attributes.sort { $0.total > $1.total }
        attributes = Array(attributes.prefix(Self.attributeLimit))
        measuredPages = measured
        self.tables = tables.sorted { ($0.tableBytes ?? $0.rows ?? 0) > ($1.tableBytes ?? $1.rows ?? 0) }
        self.attributes = attributes

        if store.schema.table("ATRANSACTION") != nil, store.schema.table("ACHANGE") != nil {
            let summary = try Row.fetchOne(db, sql: "SELECT count(*), min(ZTIMESTAMP), max(ZTIMESTAMP) FROM ATRANSACTION")
            let changes = try Int64.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE") ?? 0
            let bytes = measured ? ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"].reduce(Int64(0)) { $0 + (pages[$1] ?? 0) + (indexBytes($1) ?? 0) } : nil
            history = HistorySpace(transactions: summary?.lenient(0) ?? 0, changes: changes, bytes: bytes,
                                   oldest: summary?.lenient(1), newest: summary?.lenient(2))
        } else {
            history = nil
        }
        modelCacheBytes = store.schema.table("Z_MODELCACHE") == nil ? nil
            : try Int64.fetchOne(db, sql: "SELECT CAST(total(length(Z_CONTENT)) AS INTEGER) FROM Z_MODELCACHE")
    }

    /// The files in the store's external data folder (`.<name>_SUPPORT/_EXTERNAL_DATA`),
    /// with their sizes; none when there is no such folder.
    static func externalFiles(of store: PersistentStore) -> [(name: String, bytes: Int64)] {
        let folder = AttributeValueDecoder.externalDataPath(for: store.path, name: "")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map {
            ($0, size(AttributeValueDecoder.externalDataPath(for: store.path, name: $0)))
        }
    }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Types whose size varies with the value: text and data. Numbers and dates are the
    /// same few bytes in every row.
    static func isSized(_ type: AttributeType) -> Bool {
        [.string, .binaryData, .transformable, .uri, .undefined].contains(type)
    }
}

import Foundation
import GRDB

/// What a store holds, as a crash test compares it: every table's rows in order, an external
/// reference read as the bytes of the file it names (so two runs that gave the same photo
/// different file names hold the same state), SQLite's `quick_check`, and the references
/// that name a missing file. Opened read-write, as an app opens a store after a crash (a hot
/// rollback journal is rolled back; a `-wal` is read).
struct StoreState: Equatable {
    var digest: UInt64
    var quickCheck: String
    /// Rows whose external reference names a file that is not there: `TABLE.COLUMN pK → NAME`.
    var dangling: [String]
    /// Files in the external data folder that no row names.
    var unreferenced: [String]

    static func read(_ path: String) throws -> StoreState {
        let external = URL(fileURLWithPath: path).deletingLastPathComponent()
            .appendingPathComponent(".\(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA")
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let check = try String.fetchAll(db, sql: "PRAGMA quick_check").joined(separator: "; ")
            var hash = FNV()
            var dangling: [String] = []
            var referenced: Set<String> = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            for table in tables {
                hash.add("table \(table)")
                let rows = try Row.fetchCursor(db, sql: "SELECT rowid, * FROM \"\(table)\" ORDER BY rowid")
                while let row = try rows.next() {
                    for (index, column) in row.columnNames.enumerated() {
                        let value = row[index] as DatabaseValue
                        switch value.storage {
                        case .null: hash.add("N")
                        case .int64(let n): hash.add("I\(n)")
                        case .double(let d): hash.add("R\(d.bitPattern)")
                        case .string(let s): hash.add("T\(s)")
                        case .blob(let data):
                            if data.count == 38, data.first == 2, data.last == 0 {
                                let name = String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
                                referenced.insert(name)
                                if let bytes = FileManager.default.contents(atPath: external.appendingPathComponent(name).path) {
                                    hash.add("F")
                                    hash.add(bytes)
                                } else {
                                    hash.add("MISSING")
                                    dangling.append("\(table).\(column) \(row[0] as Int64? ?? 0) → \(name)")
                                }
                            } else {
                                hash.add("B")
                                hash.add(data)
                            }
                        }
                    }
                }
            }
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: external.path)) ?? []).sorted()
            return StoreState(digest: hash.value, quickCheck: check, dangling: dangling,
                              unreferenced: files.filter { !referenced.contains($0) })
        }
    }

    /// The same rows and values (files compared by their bytes), whatever is left over.
    func holdsTheSame(as other: StoreState) -> Bool { digest == other.digest }
}

/// FNV-1a, 64 bits: a digest that is the same in every process (Swift's `Hasher` is seeded
/// per process).
struct FNV {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        add(separator: 0xff)
    }

    mutating func add(_ text: String) { add(text.utf8) }

    private mutating func add(separator: UInt8) {
        value ^= UInt64(separator)
        value = value &* 0x100_0000_01b3
    }
}

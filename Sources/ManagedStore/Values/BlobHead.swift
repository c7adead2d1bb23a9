import Foundation
import GRDB
import GRDBSQLite

/// The first bytes of one binary value and its whole length, read without loading the rest:
/// a 100 MB photo's page shows what kind of bytes it holds from its first few kilobytes.
/// SQLite's incremental blob I/O reads the row's column in place (a `SELECT` of the column,
/// or of `substr()` of it, would read every byte into memory first); a value Core Data keeps
/// in an external data file is read from the file. The same reads stream a value whole, in
/// pieces, for a download.
public struct BlobHead: Sendable, Equatable {
    /// The value's length in bytes (the file's, for an externally stored value).
    public var length: Int
    /// Its first bytes, at most as many as asked for.
    public var head: [UInt8]
    /// The external data file holding the value; nil when it is in the row.
    public var file: String?
    /// For an externally stored value whose file is missing: its path.
    public var missingFile: String?

    /// Errors in the store's terms.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        case notBinary(entity: String, key: String)
        case noSuchObject(String)

        public var description: String {
            switch self {
            case .notBinary(let entity, let key): return "\(entity).\(key) is no binary or transformable attribute stored in a column"
            case .noSuchObject(let uri): return "\(uri) is not in the store"
            }
        }
    }

    /// The head (`bytes` of it) of attribute `key` of the object `objectID`; nil when the value is nil.
    public static func read(_ objectID: ObjectID, key: String, bytes: Int, store: PersistentStore) throws -> BlobHead? {
        var result: BlobHead?
        try stream(objectID, key: key, store: store, limit: bytes) { length, chunk, file, missing in
            if result == nil { result = BlobHead(length: length, head: [], file: file, missingFile: missing) }
            result?.head += chunk
            return true
        }
        return result
    }

    /// The length of attribute `key` of each of `objects` that has a value, by primary key, in
    /// one read and without reading the values: SQLite's `length()` of a blob reads no
    /// overflow page, and an externally stored value's length is its file's size. (A grid of
    /// a hundred 100 MB photos reads none of them.)
    public static func lengths(_ objects: [ObjectID], key: String, store: PersistentStore) throws -> [Int64: Int] {
        guard let first = objects.first else { return [:] }
        let entity = try store.entity(first.entityName)
        guard let attribute = entity.attribute(key), let column = attribute.column,
              [.binaryData, .transformable, .codable, .undefined].contains(attribute.attribute.type) else {
            throw Failure.notBinary(entity: entity.name, key: key)
        }
        let external = attribute.attribute.allowsExternalBinaryDataStorage
        let keys = objects.map(\.primaryKey)
        return try store.reader.read { db in
            var lengths: [Int64: Int] = [:]
            let sql = "SELECT Z_PK, typeof(\(SQL.identifier(column))), length(\(SQL.identifier(column))) FROM \(SQL.identifier(entity.table)) "
                + "WHERE Z_PK IN (\(keys.map(String.init).joined(separator: ",")))"
            for row in try Row.fetchAll(db, sql: sql) {
                let key: Int64 = row[0]
                let type: String = row[1] ?? "null"
                guard type != "null", let length: Int = row[2] else { continue }
                guard external, type == "blob", length > 0 else {
                    lengths[key] = length
                    continue
                }
                // Tagged: 0x01 and the bytes, or 0x02 and a file's name.
                var handle: OpaquePointer?
                guard sqlite3_blob_open(db.sqliteConnection, "main", entity.table, column, key, 0, &handle) == SQLITE_OK, let blob = handle else {
                    if let handle { sqlite3_blob_close(handle) }
                    lengths[key] = length
                    continue
                }
                defer { sqlite3_blob_close(blob) }
                var head = [UInt8](repeating: 0, count: min(length, 64))
                _ = head.withUnsafeMutableBytes { sqlite3_blob_read(blob, $0.baseAddress, Int32($0.count), 0) }
                if head.first == ExternalDataFiles.referenceTag, let name = ExternalDataFiles.fileName(in: head) {
                    let path = AttributeValueDecoder.externalDataPath(for: store.path, name: name)
                    lengths[key] = StoreFile.status(path).map { Int($0.st_size) } ?? 0
                } else {
                    lengths[key] = head.first == ExternalDataFiles.inlineTag ? length - 1 : length
                }
            }
            return lengths
        }
    }

    /// Hands the value over in pieces of at most 256 KiB (`limit` bytes in all, or every one),
    /// with its length, until `body` returns false. Nothing is handed over for nil.
    public static func stream(_ objectID: ObjectID, key: String, store: PersistentStore, limit: Int = .max,
                              _ body: (_ length: Int, _ chunk: [UInt8], _ file: String?, _ missingFile: String?) throws -> Bool) throws {
        let entity = try store.entity(objectID.entityName)
        guard let attribute = entity.attribute(key), let column = attribute.column,
              [.binaryData, .transformable, .codable, .undefined].contains(attribute.attribute.type) else {
            throw Failure.notBinary(entity: entity.name, key: key)
        }
        let external = attribute.attribute.allowsExternalBinaryDataStorage
        let chunkSize = 256 << 10
        try store.reader.read { db in
            let typeSQL = "SELECT typeof(\(SQL.identifier(column))) FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?"
            guard let type = try String.fetchOne(db, sql: typeSQL, arguments: [objectID.primaryKey]) else {
                throw Failure.noSuchObject(objectID.uri)
            }
            switch type {
            case "null": return
            case "blob", "text": break
            default:
                // A number where bytes belong (a hand-edited row): its text is the value.
                let text = try String.fetchOne(db, sql: "SELECT CAST(\(SQL.identifier(column)) AS TEXT) FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?",
                                               arguments: [objectID.primaryKey]) ?? ""
                _ = try body(text.utf8.count, Array(text.utf8.prefix(limit)), nil, nil)
                return
            }
            var handle: OpaquePointer?
            let code = sqlite3_blob_open(db.sqliteConnection, "main", entity.table, column, objectID.primaryKey, 0, &handle)
            guard code == SQLITE_OK, let blob = handle else {
                if let handle { sqlite3_blob_close(handle) }
                throw StoreError.sqlite(String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            defer { sqlite3_blob_close(blob) }
            let total = Int(sqlite3_blob_bytes(blob))
            func read(_ offset: Int, _ count: Int) throws -> [UInt8] {
                var buffer = [UInt8](repeating: 0, count: count)
                let status = buffer.withUnsafeMutableBytes { sqlite3_blob_read(blob, $0.baseAddress, Int32(count), Int32(offset)) }
                guard status == SQLITE_OK else { throw StoreError.sqlite(String(cString: sqlite3_errmsg(db.sqliteConnection))) }
                return buffer
            }
            if external, total > 0 {
                let tag = try read(0, 1)[0]
                if tag == ExternalDataFiles.referenceTag, let name = ExternalDataFiles.fileName(in: try read(0, min(total, 64))) {
                    let path = AttributeValueDecoder.externalDataPath(for: store.path, name: name)
                    try streamFile(path, limit: limit, chunkSize: chunkSize, body)
                    return
                }
                if tag == ExternalDataFiles.inlineTag {
                    try streamRange(from: 1, total: total, limit: limit, chunkSize: chunkSize, read: read) { try body(total - 1, $0, nil, nil) }
                    return
                }
            }
            try streamRange(from: 0, total: total, limit: limit, chunkSize: chunkSize, read: read) { try body(total, $0, nil, nil) }
        }
    }

    private static func streamRange(from start: Int, total: Int, limit: Int, chunkSize: Int, read: (Int, Int) throws -> [UInt8],
                                    _ give: ([UInt8]) throws -> Bool) throws {
        var offset = start
        let end = start + min(total - start, limit)
        if end == start { _ = try give([]); return }
        while offset < end {
            try Cancellation.check()
            let count = min(chunkSize, end - offset)
            guard try give(try read(offset, count)) else { return }
            offset += count
        }
    }

    private static func streamFile(_ path: String, limit: Int, chunkSize: Int,
                                   _ body: (Int, [UInt8], String?, String?) throws -> Bool) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            _ = try body(0, [], nil, path)
            return
        }
        defer { try? handle.close() }
        let length = Int((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0)
        var left = min(length, limit)
        if left == 0 { _ = try body(length, [], path, nil); return }
        while left > 0 {
            try Cancellation.check()
            let chunk = [UInt8](handle.readData(ofLength: min(chunkSize, left)))
            if chunk.isEmpty { return }
            guard try body(length, chunk, path, nil) else { return }
            left -= chunk.count
        }
    }
}

import Foundation
import GRDBSQLite

/// Finds Core Data stores under folders (man cdinspect, `stores`), as simulator
/// devices and app containers lay them out, without changing anything: no store is opened
/// for writing, and no `-wal` or `-shm` is created beside one. A file is a candidate when it
/// starts with SQLite's header; its first page (the newest copy, from the `-wal` if one is
/// there) says whether it has Core Data's tables. Folders that cannot hold a store (bundles,
/// caches) are not entered.
public struct StoreFinder {
    /// Called about once a second while the walk lasts: folders read, stores found.
    public var progress: ((Int, Int) -> Void)?
    /// Folders that could not be read (permission denied, gone mid-walk).
    public private(set) var unreadable: [String] = []
    private var folders = 0
    private var found: [FoundStore] = []
    private var lastReport = Date()

    public init() {}

    static let skippedExtensions: Set<String> = ["app", "appex", "framework", "bundle", "dsym", "xcarchive", "lproj",
                                                 "xcassets", "xcdatamodeld", "xcdatamodel", "momd", "car", "photoslibrary-noindex"]
    static let skippedNames: Set<String> = ["Caches", "tmp", ".git", "node_modules", "SplashBoard", "Logs", "Snapshots"]
    static let containerMetadata = ".com.apple.mobile_container_manager.metadata.plist"

    /// What the folders around a store say about it.
    struct Place {
        var bundleID: String?
        var deviceName: String?
        var runtime: String?
    }

    /// The stores under `roots`, newest first.
    public mutating func find(in roots: [String]) -> [FoundStore] {
        lastReport = Date()
        for root in roots {
            var info = stat()
            guard lstat(root, &info) == 0 else { unreadable.append(root); continue }
            if info.st_mode & S_IFMT == S_IFREG {
                if let store = StoreFinder.inspect(root, place: Place()) { found.append(store) }
            } else {
                walk(root, place: Place())
            }
        }
        return found.sorted { ($0.modified, $1.path) > ($1.modified, $0.path) }
    }

    private mutating func walk(_ folder: String, place: Place) {
        var place = place
        if let device = StoreFinder.plist(folder + "/device.plist") {
            place.deviceName = device["name"] as? String
            place.runtime = (device["runtime"] as? String).map(StoreFinder.runtimeName)
        }
        if let metadata = StoreFinder.plist(folder + "/" + StoreFinder.containerMetadata) {
            place.bundleID = metadata["MCMMetadataIdentifier"] as? String
        }
        guard let directory = opendir(folder) else { unreadable.append(folder); return }
        var subfolders: [String] = []
        var files: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let path = folder + "/" + name
            var kind = entry.pointee.d_type
            if kind == UInt8(DT_UNKNOWN) {
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                kind = info.st_mode & S_IFMT == S_IFDIR ? UInt8(DT_DIR) : info.st_mode & S_IFMT == S_IFREG ? UInt8(DT_REG) : UInt8(DT_UNKNOWN)
            }
            // Symbolic links are not followed: a link back up the tree would never end.
            if kind == UInt8(DT_DIR) {
                let ext = (name as NSString).pathExtension.lowercased()
                if !StoreFinder.skippedExtensions.contains(ext) && !StoreFinder.skippedNames.contains(name) { subfolders.append(path) }
            } else if kind == UInt8(DT_REG), !["-wal", "-shm", "-journal"].contains(where: { name.hasSuffix($0) }) {
                files.append(path)
            }
        }
        closedir(directory)
        folders += 1
        for file in files.sorted() {
            if let store = StoreFinder.inspect(file, place: place) { found.append(store) }
        }
        if let progress, Date().timeIntervalSince(lastReport) >= 1 {
            lastReport = Date()
            progress(folders, found.count)
        }
        for subfolder in subfolders.sorted() { walk(subfolder, place: place) }
    }

    /// `com.apple.CoreSimulator.SimRuntime.iOS-17-2` → `iOS 17.2`.
    static func runtimeName(_ identifier: String) -> String {
        guard let last = identifier.split(separator: ".").last else { return identifier }
        let parts = last.split(separator: "-")
        guard let os = parts.first, parts.count > 1 else { return String(last) }
        return os + " " + parts.dropFirst().joined(separator: ".")
    }

    static func plist(_ path: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any]
    }

    // MARK: One candidate

    static func inspect(_ path: String, place: Place) -> FoundStore? {
        guard let page = FirstPage.read(path) else { return nil }
        var tables = page.tableNames
        var entityCount: Int?
        if tables == nil || tables?.contains("Z_PRIMARYKEY") == true {
            // The first page is a leaf that lists Core Data's tables, or an interior page
            // (a large schema) that does not say: the schema, read without writing, does.
            // The main file alone may be older than the page read from the `-wal`: both count.
            if let schema = ImmutableSchema.read(path) {
                tables = (tables ?? []).union(schema.tables)
                entityCount = schema.entityCount
            }
        }
        guard let names = tables, names.contains("Z_PRIMARYKEY"), names.contains("Z_METADATA") else { return nil }
        let wal = attributes(path + "-wal")
        let main = attributes(path)
        return FoundStore(path: path, size: (main?.size ?? 0) + (wal?.size ?? 0),
                          modified: max(main?.modified ?? .distantPast, wal?.modified ?? .distantPast),
                          journalMode: page.isWAL ? "wal" : "rollback", entityCount: entityCount,
                          hasHistory: names.contains("ATRANSACTION"), isMirrored: names.contains("ANSCKRECORDMETADATA"),
                          bundleID: place.bundleID, deviceName: place.deviceName, runtime: place.runtime)
    }

    static func attributes(_ path: String) -> (size: Int64, modified: Date)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return (Int64(info.st_size), Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9))
    }
}

/// A candidate's first page: the newest committed copy of it (from the `-wal` when one
/// holds it), and the table names its schema records list, when the page is a leaf.
struct FirstPage {
    let isWAL: Bool
    /// nil when page 1 is an interior page: the schema spans more pages.
    let tableNames: Set<String>?

    static func read(_ path: String) -> FirstPage? {
        // A store this process has open is read through its kept descriptor: closing
        // another would drop SQLite's locks (see `HeldDescriptors`).
        HeldDescriptors.reading(path) { read(fd: $0, path: path) } ?? nil
    }

    private static func read(fd: Int32, path: String) -> FirstPage? {
        var header = [UInt8](repeating: 0, count: 100)
        guard pread(fd, &header, 100, 0) == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        let raw = Int(header[16]) << 8 | Int(header[17])
        let pageSize = raw == 1 ? 65536 : raw
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return nil }
        var page = [UInt8](repeating: 0, count: pageSize)
        guard pread(fd, &page, pageSize, 0) == pageSize else { return nil }
        if let newer = newestFromWAL(path + "-wal", pageSize: pageSize) { page = newer }
        let isWAL = header[18] == 2 || header[19] == 2
        // The b-tree page header follows the 100-byte file header on page 1.
        switch page[100] {
        case 0x0D: return FirstPage(isWAL: isWAL, tableNames: names(in: page))
        default: return FirstPage(isWAL: isWAL, tableNames: nil)
        }
    }

    /// The last copy of page 1 in a `-wal` whose frame carries the WAL header's salts
    /// (sqlite.org/fileformat2.html, "4.1 WAL File Format"); older salts are left-overs.
    static func newestFromWAL(_ path: String, pageSize: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 32)
        guard pread(fd, &header, 32, 0) == 32, Int(header[8]) << 24 | Int(header[9]) << 16 | Int(header[10]) << 8 | Int(header[11]) == pageSize
        else { return nil }
        var offset = 32
        var newest: Int?
        var frame = [UInt8](repeating: 0, count: 24)
        while pread(fd, &frame, 24, off_t(offset)) == 24 {
            guard frame[8..<16].elementsEqual(header[16..<24]) else { break }
            if frame[0..<4].elementsEqual([0, 0, 0, 1]) { newest = offset + 24 }
            offset += 24 + pageSize
        }
        guard let newest else { return nil }
        var page = [UInt8](repeating: 0, count: pageSize)
        return pread(fd, &page, pageSize, off_t(newest)) == pageSize ? page : nil
    }

    /// Names after `CREATE TABLE` in the page's bytes: the schema records' SQL text.
    static func names(in page: [UInt8]) -> Set<String> {
        let text = String(decoding: page.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
        var names: Set<String> = []
        var rest = text[...]
        while let range = rest.range(of: "CREATE TABLE ") {
            rest = rest[range.upperBound...]
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "\"" }.replacingOccurrences(of: "\"", with: "")
            if !name.isEmpty { names.insert(name) }
        }
        return names
    }
}

/// The schema of a candidate, read through SQLite with `immutable=1`: no lock, no journal,
/// no `-shm` created, nothing written. It sees the main file only, not the `-wal`.
enum ImmutableSchema {
    static func read(_ path: String) -> (tables: Set<String>, entityCount: Int?)? {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(StoreFile.immutableURI(path), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK else { return nil }
        func strings(_ sql: String) -> [String]? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
            defer { sqlite3_finalize(statement) }
            var values: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
            }
            return values
        }
        guard let tables = strings("SELECT name FROM sqlite_master WHERE type = 'table'") else { return nil }
        let count = tables.contains("Z_PRIMARYKEY") ? strings("SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")?.first.flatMap { Int($0) } : nil
        return (Set(tables), count)
    }
}

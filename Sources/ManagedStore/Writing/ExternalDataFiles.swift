import Foundation

/// The files one write adds to and takes from a store's external data folder, as Core Data
/// keeps a Binary attribute that allows external storage (coredata-store-format.md, "External
/// binary storage"):
///
/// - a value of up to 131,072 bytes stays in the column, `01` and the bytes;
/// - a larger one is written to `.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>.interim` (created
///   exclusively, mode 0644 less the umask, the raw bytes and nothing else), and the column
///   holds `02`, the UUID in upper case and one NUL: 38 bytes;
/// - once the transaction commits, each `.interim` file is renamed to `<UUID>`, and the files
///   of values the write replaced or deleted are removed;
/// - a write rolled back leaves no file behind (nor a folder it made).
///
/// A batch delete writes past this, as Core Data's does: its files stay, and doctor reports
/// them as orphans.
public final class ExternalDataFiles {
    /// The largest value kept in the column: Core Data's fixed threshold.
    public static let threshold = 131_072
    /// The tag before an inline value, and before a file's name.
    static let inlineTag: UInt8 = 0x01
    static let referenceTag: UInt8 = 0x02

    let folder: URL
    /// Files this write created, by name, still `.interim` until the commit.
    private var created: [String] = []
    /// Files of values this write replaced or deleted, removed after the commit.
    private var released: [String] = []
    /// Folders this write made, removed again when it rolls back and they are empty.
    private var madeFolders: [URL] = []

    public init(storePath: String) {
        folder = StoreCompanions(storePath: storePath).externalData
    }

    /// The column's bytes for a Binary value of an attribute that allows external storage.
    public func stored(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.count > Self.threshold else { return [Self.inlineTag] + bytes }
        let name = UUID().uuidString.uppercased()
        try makeFolder()
        let path = folder.appendingPathComponent(name + ".interim").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.externalData(path: path, reason: String(cString: strerror(errno))) }
        created.append(name)
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { write(fd, $0 + offset, bytes.count - offset) } ?? 0
            }
            guard written > 0 else {
                if written < 0 && errno == EINTR { continue }
                throw StoreError.externalData(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
        return [Self.referenceTag] + Array(name.utf8) + [0]
    }

    /// The file a column's bytes name, when they are an external reference (`02`, the name,
    /// up to the first NUL).
    public static func fileName(in stored: [UInt8]) -> String? {
        guard stored.first == referenceTag else { return nil }
        let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
        // A name is one plain file name: a hand-edited row must not reach outside the folder.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return nil }
        return name
    }

    /// A stored value this write replaces or deletes: its file goes once the write commits.
    public func release(_ stored: [UInt8]) {
        if let name = Self.fileName(in: stored) { released.append(name) }
    }

    /// A value as read (`AttributeValue.externalFile`) that this write replaces or deletes.
    public func release(_ value: AttributeValue) {
        guard case .externalFile(let path, _) = value else { return }
        let name = URL(fileURLWithPath: path).lastPathComponent
        if !name.isEmpty, name != "..", name != "." { released.append(name) }
    }

    /// Whether `stored` names a file holding exactly `bytes`: a value written back unchanged
    /// keeps its reference, and no new file is made.
    public func holds(_ stored: [UInt8], _ bytes: [UInt8]) -> Bool {
        guard let name = Self.fileName(in: stored),
              let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { return false }
        return data.count == bytes.count && data.elementsEqual(bytes)
    }

    /// Where the write is now, for `discard(since:)`.
    public var mark: (created: Int, released: Int) { (created.count, released.count) }

    /// One object of a write was refused and the write goes on without it (an import that
    /// skips invalid objects): what it wrote and released since `mark` is undone.
    public func discard(since mark: (created: Int, released: Int)) {
        for name in created[mark.created...] { unlink(folder.appendingPathComponent(name + ".interim").path) }
        created.removeSubrange(mark.created...)
        released.removeSubrange(mark.released...)
    }

    /// The transaction committed: the new files take their names, the released ones go.
    /// (A failure here cannot undo the commit; a file left behind is an orphan doctor names.)
    public func committed() {
        for name in created {
            rename(folder.appendingPathComponent(name + ".interim").path, folder.appendingPathComponent(name).path)
        }
        for name in released where !created.contains(name) {
            unlink(folder.appendingPathComponent(name).path)
        }
        created = []
        released = []
        madeFolders = []
    }

    /// The transaction rolled back: nothing it wrote stays.
    public func rolledBack() {
        for name in created { unlink(folder.appendingPathComponent(name + ".interim").path) }
        for made in madeFolders.reversed() { rmdir(made.path) }
        created = []
        released = []
        madeFolders = []
    }

    /// Runs `write` (a transaction) and settles the files by how it ended.
    public func settle<T>(_ write: () throws -> T) throws -> T {
        do {
            let result = try write()
            committed()
            return result
        } catch {
            rolledBack()
            throw error
        }
    }

    private func makeFolder() throws {
        var missing: [URL] = []
        var url = folder
        while !FileManager.default.fileExists(atPath: url.path) {
            missing.append(url)
            url.deleteLastPathComponent()
        }
        for made in missing.reversed() {
            guard mkdir(made.path, 0o755) == 0 || errno == EEXIST else {
                throw StoreError.externalData(path: made.path, reason: String(cString: strerror(errno)))
            }
            madeFolders.append(made)
        }
    }
}

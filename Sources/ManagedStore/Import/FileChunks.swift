import Foundation

/// A file read 64 KiB at a time, for the import's readers: what they hold is one chunk,
/// whatever the file's size.
struct FileChunks {
    private let handle: FileHandle
    private let path: String
    private var atEnd = false

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ImportError.unreadable(path: path) }
        self.handle = handle
        self.path = path
    }

    func close() { try? handle.close() }

    /// The next chunk; nil at the end of the file.
    mutating func next() throws -> [UInt8]? {
        guard !atEnd else { return nil }
        let chunk: Data?
        do { chunk = try handle.read(upToCount: 1 << 16) } catch { throw ImportError.unreadable(path: path) }
        guard let chunk, !chunk.isEmpty else {
            atEnd = true
            return nil
        }
        return [UInt8](chunk)
    }
}

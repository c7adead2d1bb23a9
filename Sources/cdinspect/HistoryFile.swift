import Foundation

/// The REPL's history, kept per user under `$XDG_STATE_HOME/cdinspect/history` (else
/// `~/.local/state/cdinspect/history`). Commands can hold values from a store, so the file
/// is created readable by its owner only (0600).
///
/// The file is plain lines, one command each, read and written here rather than by the line
/// editor: GNU readline and libedit write history files in different formats, and a user who
/// switches builds keeps their history.
struct HistoryFile {
    let path: String
    static let limit = 2000

    static func standard() -> HistoryFile? {
        let environment = ProcessInfo.processInfo.environment
        let state: String
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            state = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            state = home + "/.local/state"
        } else {
            return nil
        }
        let folder = state + "/cdinspect"
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])) != nil else { return nil }
        let path = folder + "/history"
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { return nil }
        close(fd)
        return HistoryFile(path: path)
    }

    /// The newest `limit` commands, oldest first. A file that has grown past the limit
    /// (each session only appends) is cut back to it here, replaced in one step.
    func load() -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let lines = data.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count > HistoryFile.limit else { return lines }
        let kept = Array(lines.suffix(HistoryFile.limit))
        let temporary = path + ".new"
        if FileManager.default.createFile(atPath: temporary, contents: Data((kept.joined(separator: "\n") + "\n").utf8),
                                          attributes: [.posixPermissions: 0o600]) {
            if rename(temporary, path) != 0 { unlink(temporary) }
        }
        return kept
    }

    /// Appends one command at once, so a session that ends badly still keeps it.
    func append(_ line: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

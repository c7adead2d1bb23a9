import CReadline
import Foundation

/// The REPL's history, kept per user under `$XDG_STATE_HOME/cdinspect/history` (else
/// `~/.local/state/cdinspect/history`). Commands can hold values from a store, so the file
/// is created readable by its owner only (0600).
struct HistoryFile {
    let path: String
    static let limit: Int32 = 2000

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

    func load() {
        read_history(path)
    }

    /// Appends the newest entry at once, so a session that ends badly still keeps it.
    func append() {
        append_history(1, path)
        history_truncate_file(path, HistoryFile.limit)
    }
}

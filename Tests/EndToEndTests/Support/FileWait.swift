import Foundation

/// Waiting for a child process that writes to a file to reach a point: its output there says
/// so. Looked at every 20 ms up to a generous limit, which only a hang reaches; the test
/// waits for what happened, never for a time it guessed.
enum FileWait {
    /// True once `condition` holds for the file's text; false after `timeout` seconds.
    static func until(_ path: String, timeout: TimeInterval = 60, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: path), condition(String(decoding: data, as: UTF8.self)) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    static func until(_ path: String, contains text: String, timeout: TimeInterval = 60) -> Bool {
        until(path, timeout: timeout) { $0.contains(text) }
    }

    /// Until the file has at least `count` whole lines.
    static func until(_ path: String, lines count: Int, timeout: TimeInterval = 60) -> Bool {
        until(path, timeout: timeout) { $0.reduce(0) { $1 == "\n" ? $0 + 1 : $0 } >= count }
    }
}

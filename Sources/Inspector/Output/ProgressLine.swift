import Foundation
import ManagedStore

/// A line of progress on standard error, rewritten in place (`\r`) while long work runs and
/// cleared when it ends; nothing when standard error is no terminal, so logs and pipes see
/// only the result.
public struct ProgressLine {
    public let isShown = isatty(STDERR_FILENO) == 1

    public init() {}

    public func show(_ text: String) {
        guard isShown else { return }
        FileHandle.standardError.writeIgnoringErrors(Data("\r\(text)\u{1B}[K".utf8))
    }

    public func clear() {
        guard isShown else { return }
        FileHandle.standardError.writeIgnoringErrors(Data("\r\u{1B}[K".utf8))
    }
}

import Foundation

/// The process's environment variables, read one at a time. `ProcessInfo.environment` copies
/// every variable into a dictionary first, which is a measurable part of a one-shot
/// command's start when all it needs is one or two of them.
public enum ProcessEnvironment {
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

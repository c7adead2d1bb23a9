import ManagedStore

/// A failure of one command. Usage errors (a bad option, an unknown command) are kept apart
/// from failures of the work itself, because they exit differently.
public enum CommandError: Error, CustomStringConvertible {
    case usage(String)
    case failed(String)

    public var description: String {
        switch self {
        case .usage(let message), .failed(let message): return message
        }
    }
}

/// An answer of "they differ" or "something is wrong" (diff, model diff, doctor, cloudkit
/// check): the command exits 1, as diff(1) and linters do, and its answer already says so.
/// It is not a failure, so no front end prints an `error:` line for it; a script still stops
/// at it, as at any command that exits 1, unless it keeps going.
public protocol Finding: Error {}

/// The one place where errors become exit statuses: 0 success, 1 a command failed,
/// 64 a usage error (`EX_USAGE`), 130 a command stopped by Ctrl-C.
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
    /// 128 + SIGINT, as a shell reports a command stopped by Ctrl-C.
    public static let interrupted: Int32 = 130

    public static func code(for error: Error) -> Int32 {
        if case CommandError.usage = error { return usage }
        if Cancellation.isInterruption(error) { return interrupted }
        return failure
    }

    /// The line a front end prints after `cdinspect: error: `, or nil for a `Finding`, whose
    /// answer was the report itself.
    public static func errorLine(for error: Error) -> String? {
        error is Finding ? nil : message(for: error)
    }

    /// The text after `cdinspect: error: `.
    public static func message(for error: Error) -> String {
        if Cancellation.isInterruption(error) { return StoreError.interrupted.description }
        // The core says what is wrong; the command line adds how to change it.
        if case StoreError.readOnly = error { return "\(error) (drop --readonly)" }
        if let predicate = error as? PredicateFormatError, let missing = predicate.missing {
            switch missing {
            case .argument: return predicate.hinted("use --arg").description
            case .variable(let name): return predicate.hinted("give one with --var \(name)=VALUE").description
            }
        }
        if case BatchError.nothingToSet(let entity) = error { return "batch-update \(entity) needs at least one --set KEY=VALUE" }
        if case StoreError.walBesideImmutable = error { return "\(error) (drop --immutable, or copy the store after a checkpoint)" }
        if case ContextError.undoOff = error { return "\(error) (context set undo on)" }
        if case MigrationError.sourceModelUnknown = error { return "\(error) (give the model version it was written with: --source-model)" }
        if case SnapshotError.storeInUse = error { return "\(error) (--force restores anyway)" }
        if case ImportError.storeInUse = error { return "\(error) (--force imports anyway)" }
        if case ImportError.mirrored = error { return "\(error) (--allow-cloudkit imports anyway)" }
        if case ImportError.needsEntity = error { return "\(error) with --entity" }
        return String(describing: error)
    }
}

/// `NSPersistentCloudKitContainer.EventType` as its raw value is stored in
/// `ANSCKEVENT.ZCLOUDKITEVENTTYPE` (setup 0, import 1, export 2). A number a later OS may
/// add is kept, and shown as `#N`.
public enum CloudKitEventType: Sendable, Equatable, CustomStringConvertible {
    case setup, `import`, export
    case other(Int64)
    case missing

    init(_ stored: Int64?) {
        switch stored {
        case nil: self = .missing
        case 0: self = .setup
        case 1: self = .import
        case 2: self = .export
        case let n?: self = .other(n)
        }
    }

    public var description: String {
        switch self {
        case .setup: return "setup"
        case .import: return "import"
        case .export: return "export"
        case .other(let n): return "#\(n)"
        case .missing: return "NULL"
        }
    }
}

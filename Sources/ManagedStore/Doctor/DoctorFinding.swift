/// One thing `doctor` found wrong with a store (or with its rows under a new model): how
/// bad, how many, which objects, and what the app would meet because of it.
public struct DoctorFinding: Sendable, Equatable {
    public enum Severity: String, Sendable, Comparable, CaseIterable {
        case info, warning, error

        private var rank: Int { Severity.allCases.firstIndex(of: self) ?? 0 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    public var severity: Severity
    /// A short name of the check, stable for scripts (`z_max`, `dangling_to_one`, …).
    public var check: String
    public var entity: String?
    public var property: String?
    public var count: Int64
    /// Up to five objects, as (entity, primary key).
    public var examples: [(entity: String, primaryKey: Int64)]
    /// What the app meets because of it, in a sentence.
    public var detail: String

    public init(_ severity: Severity, _ check: String, entity: String? = nil, property: String? = nil, count: Int64,
                examples: [(entity: String, primaryKey: Int64)] = [], detail: String) {
        self.severity = severity
        self.check = check
        self.entity = entity
        self.property = property
        self.count = count
        self.examples = examples
        self.detail = detail
    }

    public static func == (a: DoctorFinding, b: DoctorFinding) -> Bool {
        a.severity == b.severity && a.check == b.check && a.entity == b.entity && a.property == b.property && a.count == b.count
            && a.examples.map(\.entity) == b.examples.map(\.entity) && a.examples.map(\.primaryKey) == b.examples.map(\.primaryKey)
            && a.detail == b.detail
    }

    /// How many examples a finding names.
    public static let exampleLimit = 5
}

/// An answer whose forms for programs and for people differ in more than layout: a
/// doctor's report, a store's CloudKit status, a schema. The command gives each face (as
/// closures: only the one asked for is built) and `Results` picks one by the format.
public struct Report {
    /// The answer as one value: what JSON prints and what a program is handed.
    public let value: () -> OutputValue
    /// The answer for people (a table or lines): records, tables and prose, in order.
    public let people: () -> [ReportPart]
    /// The answer in CSV, where it is not the people's records and tables without prose.
    public let csv: (() -> [ReportPart])?
    /// The answer in `key = value` lines, where it is not the people's.
    public let lines: (() -> [ReportPart])?

    public init(value: @escaping () -> OutputValue, people: @escaping () -> [ReportPart],
                csv: (() -> [ReportPart])? = nil, lines: (() -> [ReportPart])? = nil) {
        self.value = value
        self.people = people
        self.csv = csv
        self.lines = lines
    }
}

/// One part of a report as people read it.
public enum ReportPart {
    /// Named values, one a line (`key: value`).
    case record([(String, OutputValue)])
    /// A table: its columns and rows.
    case rows([String], [[OutputValue]])
    /// A line of prose.
    case line(String)
    /// A blank line between parts.
    case gap

    /// Records and tables are data; prose and spacing are for people only.
    var isData: Bool {
        switch self {
        case .record, .rows: return true
        case .line, .gap: return false
        }
    }
}

import Inspector

/// The tests' consumer of results: what a command answers, as values rather than text, so
/// a test asserts on the answer's content and not on how a format lays it out.
public final class ResultCollector: ResultReceiver {
    /// Rows, each as the record JSON shows it.
    public private(set) var rows: [OutputValue] = []
    /// Whole answers (a record, a named scalar, a report's value), in order.
    public private(set) var answers: [OutputValue] = []

    public init() {}

    public func receive(_ record: OutputValue) -> Bool {
        rows.append(record)
        return true
    }

    public func receive(answer: OutputValue) {
        answers.append(answer)
    }
}

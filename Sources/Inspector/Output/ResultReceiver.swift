/// Answers handed over as values instead of text, for a program that drives the command
/// layer itself: the MCP server's pages, and the tests' collector. Set on a session's
/// output sink; `Results` then gives it what it would have rendered: each row as the
/// record JSON shows it (built by the command's own `RowWriter`), and each whole answer (a
/// record, a named scalar, a report's value). Prose for people is not an answer and is
/// not given.
public protocol ResultReceiver: AnyObject {
    /// One row: its columns and values, composite attributes' leaves nested in their
    /// composite, as JSON prints it. Returns false when no more rows are wanted.
    func receive(_ record: OutputValue) -> Bool
    /// A whole answer, as JSON prints it.
    func receive(answer: OutputValue)
}

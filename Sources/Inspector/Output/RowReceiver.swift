/// Rows handed over as values instead of text, for a program that drives the command layer
/// itself (the MCP server): it gets each row as the record JSON shows it, built by the
/// command's own `RowWriter`, and may stop the command when it has enough. Set on a
/// session's output sink; every command that prints rows then hands them here.
public protocol RowReceiver: AnyObject {
    /// One row: its columns and values, composite attributes' leaves nested in their
    /// composite, as JSON prints it. Returns false when no more rows are wanted.
    func receive(_ record: OutputValue) -> Bool
}

/// What stops a history request, said so the user can act.
public enum HistoryError: Error, CustomStringConvertible, Equatable {
    /// The store has no `ATRANSACTION`/`ACHANGE` tables: the app never turned history on.
    case noHistory(path: String)
    /// A token past the newest transaction (or not a token at all).
    case unknownToken(String, last: Int64?)
    case badDate(String)

    public var description: String {
        switch self {
        case .noHistory(let path):
            return "\(path) has no persistent history (the app did not set NSPersistentHistoryTrackingKey)"
        case .unknownToken(let token, let last):
            let range = last.map { "tokens go from 0 to \($0)" } ?? "the history has no transactions"
            return "'\(token)' is not a history token of this store (\(range))"
        case .badDate(let text):
            return "'\(text)' is not a date (write 2024-05-01 or 2024-05-01T12:00:00Z)"
        }
    }
}

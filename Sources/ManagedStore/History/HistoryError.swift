/// What stops a history request, said so the user can act.
public enum HistoryError: Error, CustomStringConvertible, Equatable {
    /// The store has no `ATRANSACTION`/`ACHANGE` tables: the app never turned history on.
    case noHistory(path: String)
    /// Text where a token (a transaction number) belongs.
    case notAToken(String)
    /// A token past the newest transaction; `kept` is the span of transactions the history
    /// still holds (nil when it holds none).
    case unknownToken(Int64, kept: ClosedRange<Int64>?)
    /// `NSPersistentHistoryTokenExpiredError` (134301): transactions after the token were
    /// deleted, so what an app holding it has not seen is gone. `oldest` is the first kept.
    case tokenExpired(Int64, oldest: Int64?)
    case badDate(String)
    /// A purge while a context is pinned to a query generation: the generation promises a
    /// stable view, history included.
    case pinnedGeneration(count: Int)

    public var description: String {
        switch self {
        case .noHistory(let path):
            return "\(path) has no persistent history (the app did not set NSPersistentHistoryTrackingKey)"
        case .notAToken(let text):
            return "'\(text)' is not a history token: a token is a transaction number, as history lists them"
        case .unknownToken(let token, let kept):
            let span = kept.map { "its history holds transactions \($0.lowerBound) to \($0.upperBound)" } ?? "its history holds no transactions"
            return "\(token) is not a history token of this store: \(span)"
        case .tokenExpired(let token, let oldest):
            let rest = oldest.map { "the oldest transaction kept is \($0)" } ?? "no transaction is kept"
            return "the history token \(token) has expired (NSPersistentHistoryTokenExpiredError, 134301): transactions after it "
                + "were deleted, and \(rest)"
        case .badDate(let text):
            return "'\(text)' is not a date (write 2024-05-01 or 2024-05-01T12:00:00Z)"
        case .pinnedGeneration(let count):
            return "\(count) context(s) are pinned to a query generation, which promises them the history as it was: unpin them first"
        }
    }
}

/// A predicate that cannot be parsed or cannot be run: the message, and where in the
/// predicate string the problem is, so the error can point at it with a caret.
public struct PredicateFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The string is not a predicate.
        case syntax
        /// A well-formed predicate the store cannot answer (unknown key, to-many key, …).
        case unsupported
        /// Evaluating in memory failed, as `evaluateWithObject:` raises (a string ordered
        /// against a number, ANY on something that is not a collection, …).
        case evaluation
    }

    /// A value the predicate names and was not given: a front end says how to give it.
    public enum Missing: Sendable, Equatable {
        /// An argument for a format specifier (`%@`, `%K`, …).
        case argument
        /// A value for `$name`.
        case variable(String)
    }

    public let kind: Kind
    public let message: String
    public var missing: Missing?
    public let predicate: String
    /// Offset in Unicode scalars from the start of the predicate.
    public let position: Int

    public init(_ kind: Kind, _ message: String, predicate: String, position: Int) {
        self.kind = kind
        self.message = message
        self.predicate = predicate
        self.position = max(0, position)
    }

    /// 1-based column for people.
    public var column: Int { position + 1 }

    /// How much of a long predicate the error shows on either side of the caret: a predicate
    /// may be megabytes (one from a script or an assistant), and its error is a few lines.
    static let context = 80

    public var description: String {
        var scalars = Array(predicate.unicodeScalars)
        var caretOffset = min(position, scalars.count)
        if scalars.count > 2 * Self.context + 40 {
            let start = max(0, caretOffset - Self.context), end = min(scalars.count, caretOffset + Self.context)
            let head: [Unicode.Scalar] = start > 0 ? ["…"] : [], tail: [Unicode.Scalar] = end < scalars.count ? ["…"] : []
            scalars = head + scalars[start..<end] + tail
            caretOffset = caretOffset - start + head.count
        }
        let shown = String(String.UnicodeScalarView(scalars.map { $0 == "\n" || $0 == "\t" ? " " : $0 }))
        let pad = String(String.UnicodeScalarView(scalars.prefix(caretOffset).map { $0 == "\t" ? "\t" : " " }))
        let title = kind == .syntax ? "predicate syntax error" : kind == .evaluation ? "predicate evaluation error" : "predicate error"
        return "\(title) at column \(column): \(message)\n  \(shown)\n  \(pad)^"
    }

    /// The same error with a front end's hint after its message.
    public func hinted(_ hint: String) -> PredicateFormatError {
        var copy = PredicateFormatError(kind, message + " (" + hint + ")", predicate: predicate, position: position)
        copy.missing = missing
        return copy
    }
}

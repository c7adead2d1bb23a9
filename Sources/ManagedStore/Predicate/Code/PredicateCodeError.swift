/// A predicate that has no form in the code asked for: `LIKE` has no `#Predicate` spelling,
/// an aggregate `@avg` none either. It names the construct, in one line.
public struct PredicateCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public let construct: String
    public let reason: String

    public init(_ construct: String, _ reason: String) {
        self.construct = construct
        self.reason = reason
    }

    public var description: String { "\(construct) has no #Predicate form: \(reason)" }
}

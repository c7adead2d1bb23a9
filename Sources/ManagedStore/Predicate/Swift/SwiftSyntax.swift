/// A Swift expression as a `#Predicate` closure holds it: the part of Swift's grammar that
/// Foundation's `Predicate` macro turns into predicate expressions. The tree keeps where
/// each node starts (in Unicode scalars), so an error can put a caret under the construct.
indirect enum SwiftExpression: Equatable {
    case identifier(String)
    /// `$0`, `$1`: a closure's anonymous parameter.
    case anonymous(Int)
    case integer(Int64)
    case double(Double)
    case string(String)
    case bool(Bool)
    case nilLiteral
    case array([SwiftNode])
    /// `base.name`
    case member(SwiftNode, String)
    /// `base?.name`
    case optionalMember(SwiftNode, String)
    /// `.hot`, `.orderedSame`: a member of a type the context gives.
    case implicitMember(String)
    /// `base!`
    case forceUnwrap(SwiftNode)
    /// `callee(label: value, …)`; a trailing closure is an argument labelled nil, last.
    case call(SwiftNode, [SwiftArgument])
    /// `{ a in … }` or `{ $0 … }` (no parameters named).
    case closure(parameters: [SwiftParameter], body: SwiftNode)
    /// `!x`, `-x`
    case prefix(String, SwiftNode)
    /// `a op b`: `&&`, `||`, `??`, comparisons and arithmetic.
    case binary(String, SwiftNode, SwiftNode)
    /// `c ? a : b`
    case ternary(SwiftNode, SwiftNode, SwiftNode)
    /// `\.name.first`
    case keyPath([String])
}

struct SwiftNode: Equatable {
    var kind: SwiftExpression
    var position: Int

    init(_ kind: SwiftExpression, at position: Int) {
        self.kind = kind
        self.position = position
    }
}

struct SwiftArgument: Equatable {
    var label: String?
    var value: SwiftNode
}

struct SwiftParameter: Equatable {
    var name: String
    /// `(person: Person) in`: the type written, if any.
    var type: String?
}

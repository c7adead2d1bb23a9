import Foundation

/// A derived attribute's expression in its two spellings: as the model editor writes it
/// (`pages.@count`, `primaryLabel.code`) and as `NSExpression` describes it (`count:(pages)`),
/// which the version hash is made of and the model cache archives. One place for both, so
/// the XML reader, the XML writer and the archiver cannot drift apart. Only key paths and a
/// key path's count are spelled.
enum DerivationText {
    /// The key path a `count:(…)` counts; nil for any other expression.
    static func countedKeyPath(_ expression: String) -> String? {
        guard expression.hasPrefix("count:("), expression.hasSuffix(")") else { return nil }
        return String(expression.dropFirst(7).dropLast())
    }

    /// The model editor's text as `NSExpression` describes it; nil for forms not spelled.
    static func expression(fromModelEditor derivation: String) -> String? {
        let text = derivation.trimmingCharacters(in: .whitespaces)
        let isKeyPath = { (s: Substring) in
            !s.isEmpty && s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
        }
        if text.hasSuffix(".@count"), isKeyPath(text.dropLast(7)) { return "count:(" + text.dropLast(7) + ")" }
        return isKeyPath(Substring(text)) ? text : nil
    }

    /// `NSExpression`'s text as the model editor writes it.
    static func modelEditorText(_ expression: String) -> String {
        countedKeyPath(expression).map { $0 + ".@count" } ?? expression
    }
}

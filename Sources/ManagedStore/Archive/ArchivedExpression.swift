/// An archived `NSExpression` spelled as Foundation's `description` spells it, for the
/// version hash of a derived attribute, which is the SHA-256 of that text alone
/// (sql-entity.md §3; reproduced on every derived attribute of the fixtures: `count:(pages)`
/// in CoreDataPlus, `additionalAttributes.cameraCaptureDevice` and `primaryLabel.code` in Photos).
///
/// Only the shapes a derivation can take are spelled: key paths, functions of key paths,
/// and constants. Anything else is nil, so a hash that cannot be computed says so rather
/// than being computed from a guessed text.
enum ArchivedExpression {
    /// The most expressions one text is read from: an archive may share one sub-expression
    /// many times over at every level, which a walk would read exponentially often.
    static let nodeBudget = 256

    static func text(of ref: Int, in archive: KeyedArchive) -> String? {
        var budget = nodeBudget
        return text(of: ref, in: archive, depth: 0, budget: &budget)
    }

    private static func text(of ref: Int, in archive: KeyedArchive, depth: Int, budget: inout Int) -> String? {
        budget -= 1
        guard depth < 32, budget >= 0 else { return nil }
        switch archive.className(of: ref) {
        case "NSKeyPathSpecifierExpression":
            return archive.string(ref, "NSKeyPath")
        case "NSKeyPathExpression":
            // `valueForKeyPath:` / `valueForKey:` of SELF: the key path alone.
            var parts: [String?] = []
            for argument in archive.arrayReferences(archive.uid(archive.objects[ref]["NSArguments"])) {
                parts.append(text(of: argument, in: archive, depth: depth + 1, budget: &budget))
                if budget < 0 { return nil }
            }
            guard !parts.isEmpty, !parts.contains(where: { $0 == nil }) else { return nil }
            let path = parts.compactMap { $0 }.joined(separator: ".")
            if let operand = archive.uid(archive.objects[ref]["NSOperand"]),
               archive.className(of: operand) != "NSSelfExpression" {
                guard let base = text(of: operand, in: archive, depth: depth + 1, budget: &budget) else { return nil }
                return base + "." + path
            }
            return path
        case "NSFunctionExpression":
            guard let selector = archive.string(ref, "NSSelectorName") else { return nil }
            var arguments: [String?] = []
            for argument in archive.arrayReferences(archive.uid(archive.objects[ref]["NSArguments"])) {
                arguments.append(text(of: argument, in: archive, depth: depth + 1, budget: &budget))
                if budget < 0 { return nil }
            }
            guard !arguments.contains(where: { $0 == nil }) else { return nil }
            return selector + "(" + arguments.compactMap { $0 }.joined(separator: ", ") + ")"
        case "NSConstantValueExpression":
            switch archive.value(ref, "NSConstantValue") {
            case .integer(let i)?: return String(i)
            case .string(let s)?: return "\"" + s + "\""
            default: return nil
            }
        default:
            return nil
        }
    }
}

/// An archived `NSExpression` spelled as Foundation's `description` spells it, for the
/// version hash of a derived attribute, which is the SHA-256 of that text alone
/// (sql-entity.md §3; reproduced on every derived attribute of the fixtures: `count:(pages)`
/// in CoreDataPlus, `additionalAttributes.cameraCaptureDevice` and `primaryLabel.code` in Photos).
///
/// Only the shapes a derivation can take are spelled: key paths, functions of key paths,
/// and constants. Anything else is nil, so a hash that cannot be computed says so rather
/// than being computed from a guessed text.
enum ArchivedExpression {
    static func text(of ref: Int, in archive: KeyedArchive, depth: Int = 0) -> String? {
        guard depth < 32 else { return nil }
        switch archive.className(of: ref) {
        case "NSKeyPathSpecifierExpression":
            return archive.string(ref, "NSKeyPath")
        case "NSKeyPathExpression":
            // `valueForKeyPath:` / `valueForKey:` of SELF: the key path alone.
            let parts = archive.arrayReferences(archive.uid(archive.objects[ref]["NSArguments"])).map {
                text(of: $0, in: archive, depth: depth + 1)
            }
            guard !parts.isEmpty, !parts.contains(where: { $0 == nil }) else { return nil }
            let path = parts.compactMap { $0 }.joined(separator: ".")
            if let operand = archive.uid(archive.objects[ref]["NSOperand"]),
               archive.className(of: operand) != "NSSelfExpression" {
                guard let base = text(of: operand, in: archive, depth: depth + 1) else { return nil }
                return base + "." + path
            }
            return path
        case "NSFunctionExpression":
            guard let selector = archive.string(ref, "NSSelectorName") else { return nil }
            let arguments = archive.arrayReferences(archive.uid(archive.objects[ref]["NSArguments"])).map {
                text(of: $0, in: archive, depth: depth + 1)
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

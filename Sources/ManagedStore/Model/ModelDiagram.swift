/// The model as a diagram: entities with their attributes, relationships with their
/// cardinality on both ends and their inverse, and inheritance. Two texts, both always made
/// here: Mermaid's `erDiagram` (rendered by GitHub, Xcode-free wikis and most Markdown
/// viewers) and Graphviz's DOT, which `dot` lays out (as SVG for the web view). Names come
/// from the store's model, which a hand-edited store can fill with anything: every name is
/// quoted or escaped for the text it goes into.
public struct ModelDiagram: Sendable {
    public let model: ManagedObjectModel
    /// The entities drawn, in the model's order; a relationship is drawn when both its ends are.
    public let entities: [EntityDescription]
    /// Attributes listed per entity: a 300-attribute entity would drown the picture.
    public static let attributesShown = 30

    /// The diagram of `model`, or of the entities named in `only` (an unknown name is an error).
    public init(_ model: ManagedObjectModel, only: [String] = []) throws {
        self.model = model
        if only.isEmpty {
            entities = model.entities
        } else {
            entities = try only.map { name in
                guard let entity = model.entity(named: name) else {
                    throw StoreError.unknownEntity(name: name, suggestion: Spelling.nearest(name, in: model.entities.map(\.name)))
                }
                return entity
            }
        }
    }

    /// One line of the picture: a relationship, or a relationship and its inverse together.
    public struct Edge: Sendable, Equatable {
        public var from: String
        public var to: String
        public var relationship: RelationshipDescription
        public var inverse: RelationshipDescription?
    }

    /// The relationships drawn, each pair once (from the side whose entity and name sort
    /// first), in the model's order.
    public var edges: [Edge] {
        let drawn = Set(entities.map(\.name))
        var edges: [Edge] = []
        var seen: Set<String> = []
        for entity in entities {
            for case .relationship(let r) in entity.properties where drawn.contains(r.destinationEntityName) {
                let key = "\(entity.name).\(r.name)"
                guard !seen.contains(key) else { continue }
                seen.insert(key)
                var inverse: RelationshipDescription?
                if let name = r.inverseName, case .relationship(let found)? = model.property(name, of: r.destinationEntityName)?.property {
                    inverse = found
                    seen.insert("\(r.destinationEntityName).\(name)")
                }
                edges.append(Edge(from: entity.name, to: r.destinationEntityName, relationship: r, inverse: inverse))
            }
        }
        return edges
    }

    /// The attributes an entity declares, composites by their leaves, at most `attributesShown`.
    func attributes(of entity: EntityDescription) -> (shown: [AttributeDescription], more: Int) {
        let all = entity.properties.flatMap { property -> [AttributeDescription] in
            guard case .attribute(let a) = property else { return [] }
            return a.type == .composite ? a.leaves.map { leaf in var l = leaf; l.name = a.name + "." + leaf.name; return l } : [a]
        }
        return (Array(all.prefix(Self.attributesShown)), max(0, all.count - Self.attributesShown))
    }

    // MARK: Mermaid

    /// Mermaid's `erDiagram`: an entity block per entity (its attributes as `type name`), a
    /// line per relationship with crow's-foot ends (`||`, `|o`, `}o`, `}|`) and the names of
    /// both directions as its label, and inheritance as a line labelled `inherits`.
    public var mermaid: String {
        var lines = ["erDiagram"]
        for entity in entities {
            let (shown, more) = attributes(of: entity)
            lines.append("    \(Self.mermaidName(entity.name)) {")
            for a in shown {
                lines.append("        \(Self.mermaidWord(a.type.modelName)) \(Self.mermaidWord(a.name))" + (a.isOptional ? "" : " \"required\""))
            }
            if more > 0 { lines.append("        more \(Self.mermaidWord("\(more)_attributes"))") }
            lines.append("    }")
        }
        for edge in edges {
            let right = Self.mermaidEnd(edge.relationship, right: true)
            let left = edge.inverse.map { Self.mermaidEnd($0, right: false) } ?? "}o"
            let label = edge.relationship.name + (edge.inverse.map { " / " + $0.name } ?? "")
            lines.append("    \(Self.mermaidName(edge.from)) \(left)--\(right) \(Self.mermaidName(edge.to)) : \(Self.mermaidLabel(label))")
        }
        let drawn = Set(entities.map(\.name))
        for entity in entities {
            guard let parent = entity.superentityName, drawn.contains(parent) else { continue }
            lines.append("    \(Self.mermaidName(entity.name)) |o..|| \(Self.mermaidName(parent)) : \"inherits\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A relationship's end at its destination: zero or one, exactly one, zero or more, one or more.
    static func mermaidEnd(_ r: RelationshipDescription, right: Bool) -> String {
        switch (r.isToMany, r.isOptional || r.minCount == 0) {
        case (false, true): return right ? "o|" : "|o"
        case (false, false): return "||"
        case (true, true): return right ? "o{" : "}o"
        case (true, false): return right ? "|{" : "}|"
        }
    }

    /// An entity name as Mermaid takes it: letters, digits, `_` and `-`; anything else in
    /// quotes (Mermaid's entity name alias form).
    static func mermaidName(_ name: String) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        return plain ? name : mermaidLabel(name)
    }

    /// A word of an attribute line (its type or name): letters, digits and `_`, others replaced.
    static func mermaidWord(_ text: String) -> String {
        let word = String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" ? $0 : "_"
        }))
        return word.isEmpty ? "_" : word
    }

    /// A quoted label: Mermaid has no escape for `"` in one, so it becomes `'`, and a line
    /// break a space.
    static func mermaidLabel(_ text: String) -> String {
        "\"" + text.map { $0 == "\"" ? "'" : $0.isNewline ? " " : $0 }.map(String.init).joined() + "\""
    }

    // MARK: DOT

    /// Graphviz DOT: each entity a table (its name, then its attributes and their types), each
    /// relationship an edge with crow's-foot arrowheads on both ends and the names of both
    /// directions, inheritance a hollow arrow to the parent. `link` gives an entity's node a
    /// URL (the web view's entity page); nil leaves nodes plain.
    public func dot(link: ((String) -> String)? = nil) -> String {
        var lines = ["digraph model {",
                     "    graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, nodesep=0.4, ranksep=0.9];",
                     "    node [shape=plain, fontname=\"Helvetica\", fontsize=10];",
                     "    edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];"]
        for entity in entities {
            let (shown, more) = attributes(of: entity)
            var rows = ["<tr><td bgcolor=\"#dfe8f5\" colspan=\"2\"><b>\(Self.markup(entity.name))</b>"
                        + (entity.isAbstract ? " <i>abstract</i>" : "") + "</td></tr>"]
            for a in shown {
                rows.append("<tr><td align=\"left\">\(Self.markup(a.name))\(a.isOptional ? "" : " *")</td>"
                            + "<td align=\"left\"><font color=\"#666666\">\(Self.markup(a.type.modelName))</font></td></tr>")
            }
            if more > 0 { rows.append("<tr><td align=\"left\" colspan=\"2\"><i>… \(more) more</i></td></tr>") }
            var attributes = "label=<<table border=\"1\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"3\">\(rows.joined())</table>>"
            if let url = link?(entity.name) { attributes += ", URL=\(Self.quoted(url)), tooltip=\(Self.quoted(entity.name))" }
            lines.append("    \(Self.quoted(entity.name)) [\(attributes)];")
        }
        for edge in edges {
            let head = Self.arrow(edge.relationship)
            let tail = edge.inverse.map(Self.arrow) ?? "none"
            let label = edge.relationship.name + (edge.inverse.map { " / " + $0.name } ?? "")
            lines.append("    \(Self.quoted(edge.from)) -> \(Self.quoted(edge.to)) [dir=both, arrowhead=\(head), arrowtail=\(tail), "
                         + "label=\(Self.quoted(label))];")
        }
        let drawn = Set(entities.map(\.name))
        for entity in entities {
            guard let parent = entity.superentityName, drawn.contains(parent) else { continue }
            lines.append("    \(Self.quoted(entity.name)) -> \(Self.quoted(parent)) [arrowhead=empty, style=dashed, label=\"inherits\"];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// An edge end in crow's-foot notation: a tee for one, a crow for many, a circle before
    /// it when none is allowed.
    static func arrow(_ r: RelationshipDescription) -> String {
        (r.isOptional || r.minCount == 0 ? "o" : "") + (r.isToMany ? "crow" : "tee")
    }

    /// A DOT string: in quotes, `"` and `\` escaped, line breaks as spaces.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for c in text {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where c.isNewline: out += " "
            default: out.append(c)
            }
        }
        return out + "\""
    }

    /// Text inside an HTML-like label: `&`, `<`, `>` and `"` as entities.
    static func markup(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case _ where c.isNewline: out += " "
            default: out.append(c)
            }
        }
        return out
    }
}

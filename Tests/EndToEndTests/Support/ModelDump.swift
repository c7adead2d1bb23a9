import Foundation

/// The `*.model.txt` dumps beside the fixture stores: the expected entity and property
/// descriptions, decoded independently of cdinspect.
struct ModelDump {
    struct Property {
        let kind: String
        let name: String
        let fields: [String: String]
    }

    struct Entity {
        let name: String
        let superentity: String?
        let abstract: Bool
        var properties: [Property] = []
    }

    var entities: [String: Entity] = [:]

    init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        var current: Entity?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("entity ") {
                if let e = current { entities[e.name] = e }
                let words = line.split(separator: " ")
                let fields = ModelDump.fields(words.dropFirst(2))
                current = Entity(name: String(words[1]), superentity: fields["super"].flatMap { $0 == "None" ? nil : $0 },
                                 abstract: fields["abstract"] == "True")
            } else if line.hasPrefix("   NS"), current != nil {
                let words = line.split(separator: " ")
                current!.properties.append(Property(kind: String(words[0]), name: String(words[1]),
                                                    fields: ModelDump.fields(words.dropFirst(2))))
            }
        }
        if let e = current { entities[e.name] = e }
    }

    static func fields(_ words: ArraySlice<Substring>) -> [String: String] {
        var result: [String: String] = [:]
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }
}

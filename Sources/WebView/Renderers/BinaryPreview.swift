import Foundation
import Inspector
import ManagedStore

/// What a binary value holds, told from its first bytes (`BlobHead`), whatever its size:
/// an image (PNG, JPEG, GIF, WebP) shown from its download; HEIC as its size and a download
/// (browsers do not draw it); a property list or keyed archive as its tree, when small enough
/// to decode; text as text; anything else as its first bytes in hex. An externally stored
/// value is read from its file the same way.
struct BinaryPreview {
    /// Bytes read for a preview; a property list or archive up to `decodeBytes` is read whole.
    static let headBytes = 4096
    static let decodeBytes = 1 << 20

    enum Kind: String {
        case none, png, jpeg, gif, webp, heic, plist, text, bytes
    }

    let head: BlobHead?
    let kind: Kind
    let download: String?
    let tree: OutputValue?

    init(head: BlobHead?, attribute: AttributeDescription?, objectID: ObjectID, key: String, store: PersistentStore) {
        self.head = head
        guard let head, head.length > 0 || head.missingFile != nil else {
            kind = .none
            download = nil
            tree = nil
            return
        }
        let bytes = head.head
        kind = Self.kind(of: bytes)
        download = Paths.blob(objectID.entityName, objectID.primaryKey, key)
        if kind == .plist, head.length <= Self.decodeBytes,
           let whole = try? BlobHead.read(objectID, key: key, bytes: Self.decodeBytes, store: store) {
            tree = OutputValue(archiveBytes: whole.head)
        } else {
            tree = nil
        }
    }

    static func kind(of bytes: [UInt8]) -> Kind {
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), bytes.count >= 12, Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        if bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8),
           ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(String(decoding: bytes[8..<12], as: UTF8.self)) { return .heic }
        if starts(Array("bplist00".utf8)) || starts(Array("<?xml".utf8)) && String(decoding: bytes.prefix(200), as: UTF8.self).contains("plist") {
            return .plist
        }
        if !bytes.isEmpty, let text = String(bytes: bytes, encoding: .utf8) ?? String(bytes: bytes.dropLast(3), encoding: .utf8),
           text.unicodeScalars.allSatisfy({ $0.value >= 32 || $0 == "\n" || $0 == "\r" || $0 == "\t" }) { return .text }
        return .bytes
    }

    /// For the JSON twin: the length, the kind, where it is kept and where to download it.
    var value: OutputValue {
        guard let head else { return .null }
        var pairs: [(String, OutputValue)] = [("length", .integer(Int64(head.length))), ("kind", .string(kind.rawValue))]
        if let file = head.file { pairs.append(("externalFile", .string(file))) }
        if let missing = head.missingFile { pairs.append(("missingExternalFile", .string(missing))) }
        if let download { pairs.append(("download", .string(download))) }
        return .object(pairs)
    }

    var html: HTML {
        guard let head else { return "<span class=\"null\">nil</span>" }
        if let missing = head.missingFile {
            return "<span class=\"error\">external data file missing: \(missing)</span>"
        }
        let size: HTML = "<span class=\"muted\">\(head.length.groupedDigits) bytes\(head.file != nil ? ", in an external data file" : "")</span>"
        let link: HTML = download.map { " <a href=\"\($0)\" download>download</a>" } ?? .empty
        switch kind {
        case .none:
            return "<span class=\"muted\">0 bytes</span>"
        case .png, .jpeg, .gif, .webp:
            return "<div class=\"preview\"><img alt=\"\(kind.rawValue.uppercased()) image\" src=\"\(download ?? "")\"></div>\(size)\(link)"
        case .heic:
            return "\(size) <span class=\"muted\">HEIC image (browsers do not draw it)</span>\(link)"
        case .plist:
            if let tree { return "\(size)\(link)" + ValueView.html(tree, characters: ValueView.pageCharacters) }
            return "\(size) <span class=\"muted\">property list, too large to show here</span>\(link)"
        case .text:
            let text = String(decoding: head.head, as: UTF8.self)
            return "\(size)\(link)<pre>\(text)\(head.length > head.head.count ? "…" : "")</pre>"
        case .bytes:
            let lines = stride(from: 0, to: min(head.head.count, 256), by: 16).map { offset -> String in
                let slice = head.head[offset..<min(offset + 16, head.head.count)]
                return String(format: "%08x  ", offset) + ValueView.hex(slice)
            }
            return "\(size)\(link)<pre>\(lines.joined(separator: "\n"))\(head.length > 256 ? "\n…" : "")</pre>"
        }
    }
}

/// `/-/blob/Person/p3/photo/data`: a binary value whole, read and sent in pieces (never held
/// whole), as `application/octet-stream` and an attachment, except an image a page shows,
/// which goes with its own type; with `nosniff`, a browser never runs what it holds.
struct BlobDownload {
    let page: PageRequest
    let entityName: String
    let key: Int64
    let key2: String

    func response() throws -> WebResponse {
        let entity = try page.entity(entityName)
        let objectID = ObjectID(storeUUID: page.store.uuid, entityName: entity.name, primaryKey: key)
        guard let head = try BlobHead.read(objectID, key: key2, bytes: 64, store: page.store) else {
            throw PageNotFound(description: "\(entity.name)/p\(key).\(key2) is nil.")
        }
        let kind = BinaryPreview.kind(of: head.head)
        let type: String
        switch kind {
        case .png: type = "image/png"
        case .jpeg: type = "image/jpeg"
        case .gif: type = "image/gif"
        case .webp: type = "image/webp"
        default: type = "application/octet-stream"
        }
        var headers: [(name: String, value: String)] = [("Content-Type", type)]
        if type == "application/octet-stream" || page.request.query("download") != nil {
            headers.append(("Content-Disposition", "attachment; filename=\"\(EntityPage.fileName(entity.name))-p\(key)-\(EntityPage.fileName(key2))\""))
        }
        let site = page.site
        let attribute = key2
        return WebResponse(status: 200, headers: headers, body: .stream { writer in
            try site.withStore { store in
                try BlobHead.stream(objectID, key: attribute, store: store) { _, chunk, _, _ in
                    try writer.write(chunk)
                    return true
                }
            }
        })
    }
}

import Foundation
import XCTest

/// The stores tests run on: the genuine Apple-written fixture stores from `../shared`
/// (always copied into a temporary folder, never opened in place), and stores the tests
/// make themselves.
enum Fixtures {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The fixture stores' folder (`CDINSPECT_FIXTURES`, else ../shared/fixtures/stores).
    static var directory: URL {
        get throws {
            if let override = ProcessInfo.processInfo.environment["CDINSPECT_FIXTURES"] {
                return try SharedFiles.require(URL(fileURLWithPath: override))
            }
            return try SharedFiles.require("fixtures/stores")
        }
    }

    /// A fresh temporary folder anyone may read, removed when the test ends.
    static func temporaryDirectory(_ test: XCTestCase) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        test.addTeardownBlock {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            try? FileManager.default.removeItem(at: url)
        }
        return url
    }

    /// Copies `relativePath` (and its -wal/-shm, if present) into `folder`.
    static func copy(_ relativePath: String, into folder: URL, sidecars: [String] = ["-wal", "-shm"]) throws -> URL {
        let source = try directory.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw NSError(domain: "fixtures", code: 1, userInfo: [NSLocalizedDescriptionKey: "missing fixture \(source.path)"])
        }
        let target = folder.appendingPathComponent(source.lastPathComponent)
        for suffix in [""] + sidecars {
            let from = source.path + suffix
            guard FileManager.default.fileExists(atPath: from) else { continue }
            try FileManager.default.copyItem(atPath: from, toPath: target.path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path + suffix)
        }
        return target
    }

    /// Every genuine store of the fixtures, whatever its file's extension (.sqlite, SwiftData's
    /// .store, knowledgeC's .db), relative to the fixtures folder.
    static var everyStore: [String] {
        get throws {
            let fm = FileManager.default
            let directory = try directory
            return try fm.contentsOfDirectory(atPath: directory.path).sorted().flatMap { folder -> [String] in
                let files = (try? fm.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)) ?? []
                return files.filter { [".sqlite", ".store", ".db"].contains(where: $0.hasSuffix) }.sorted().map { "\(folder)/\($0)" }
            }
        }
    }

    /// Every fixture store, relative to the fixtures folder.
    static var stores: [String] {
        get throws {
            let fm = FileManager.default
            let directory = try directory
            return try fm.contentsOfDirectory(atPath: directory.path).sorted().flatMap { folder -> [String] in
                let files = (try? fm.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)) ?? []
                return files.filter { $0.hasSuffix(".sqlite") }.sorted().map { "\(folder)/\($0)" }
            }
        }
    }

    /// The example store's UUID, which the generator writes into every store it makes.
    static let exampleUUID = "5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F"

    /// The full URI of `Entity/pN` in the example store (or the store with `uuid`).
    static func uri(_ short: String, uuid: String = exampleUUID) -> String {
        let parts = short.split(separator: "/")
        return "x-coredata://\(uuid)/\(parts[0])/\(parts[1])"
    }

    /// Adds two million people (`bulk1` …, aged 200, no cars) to an example store with the
    /// sqlite3 shell, in about a second: enough rows that reading or changing them all takes
    /// far longer than a test waits before pressing Ctrl-C.
    static func addBulkPeople(to store: String) throws {
        try SQLiteShell.run(store, """
            INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) SELECT value + 1000, 3, 1, 'bulk' || value, 200
              FROM generate_series(1, 2000000);
            UPDATE Z_PRIMARYKEY SET Z_MAX = 2001000 WHERE Z_NAME = 'Person';
            """)
    }

    /// The example store, generated fresh into `folder` by the Examples generator.
    /// An empty store the example generator makes from a model's contents XML, written to
    /// `NAME.xcdatamodel` beside it: (the store's path, the model folder's path).
    static func emptyStore(model xml: String, named name: String, storeFile: String, in folder: URL) throws -> (store: String, model: String) {
        let modelFolder = folder.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: modelFolder.appendingPathComponent("contents"))
        let store = folder.appendingPathComponent(storeFile).path
        let made = try CLI.run([store, "--people", "0", "--model", modelFolder.path], executable: CLI.generator)
        guard made.status == 0 else {
            throw NSError(domain: "generator", code: Int(made.status), userInfo: [NSLocalizedDescriptionKey: made.stderr])
        }
        return (store, modelFolder.path)
    }

    /// The example model with an age range (0 to 150), as the model editor writes one, in
    /// `folder`: for `--model`, so that a value out of the range is refused.
    static func rangedExampleModel(in folder: URL) throws -> URL {
        let model = folder.appendingPathComponent("People.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let contents = try String(contentsOf: packageRoot.appendingPathComponent("Examples/People.xcdatamodeld/People.xcdatamodel/contents"), encoding: .utf8)
        let ranged = contents.replacingOccurrences(of: #"attributeType="Integer 32" defaultValueString="0""#,
                                                   with: #"attributeType="Integer 32" minValueString="0" maxValueString="150" defaultValueString="0""#)
        guard ranged != contents else { throw NSError(domain: "Fixtures", code: 1, userInfo: [NSLocalizedDescriptionKey: "the example model's age changed"]) }
        try ranged.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return model
    }

    /// `photos`: the sizes of the photos people get in turn (a photo over 131,072 bytes is an
    /// external data file, as Core Data stores it).
    static func exampleStore(in folder: URL, people: Int = 50, history: Bool = false, photos: [Int] = []) throws -> URL {
        let target = folder.appendingPathComponent("People.sqlite")
        let model = packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path
        let result = try CLI.run([target.path, "--people", String(people), "--model", model] + (history ? ["--history"] : [])
                                 + (photos.isEmpty ? [] : ["--photos", photos.map(String.init).joined(separator: ",")]),
                                 executable: CLI.generator)
        guard result.status == 0 else {
            throw NSError(domain: "generator", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
        return target
    }
}

extension XCTestCase {
    /// A store Core Data wrote (a fixture's copy), its model exported, and a store created
    /// from that model: (the copy, the created store, what create said on stderr).
    func createdFromTheModelOf(_ fixture: String) throws -> (original: String, store: String, stderr: String) {
        let folder = try Fixtures.temporaryDirectory(self)
        let original = try Fixtures.copy(fixture, into: folder).path
        let exported = folder.appendingPathComponent("model")
        XCTAssertEqual(try CLI.run(["model", original, "export", exported.path]).status, 0)
        let bundle = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: exported.path).first { $0.hasSuffix(".xcdatamodeld") })
        let store = folder.appendingPathComponent("Created.sqlite").path
        let created = try CLI.run(["create", store, "--model", exported.appendingPathComponent(bundle).path])
        XCTAssertEqual(created.status, 0, created.stderr)
        return (original, store, created.stderr)
    }
}

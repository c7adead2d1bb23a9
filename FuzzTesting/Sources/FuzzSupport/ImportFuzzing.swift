import Foundation
import ManagedStore

/// An import of hostile bytes into a copy of the example store, as `cdinspect import` runs it.
/// The input's first byte chooses the options, so that one corpus reaches every path: the
/// entity (none, for a JSON file of several; Person, Car or Tag), an upsert on the entity's
/// key, Car's owner linked by a person's name, skip-invalid, and a dry run. The rest is the
/// file. The import must answer or throw one typed error; the store is copied afresh every
/// 200 inputs, so that what the imports wrote stays small, and opened for each input (an
/// import closes the store it was given, as the one-shot command that runs it ends).
public final class ImportFuzzing: @unchecked Sendable {
    let format: ImportOptions.Format
    let folder: String
    let storePath: String
    let filePath: String
    var runs = 0

    public init(format: ImportOptions.Format) {
        self.format = format
        folder = FuzzFiles.scratchFolder("import-\(format.rawValue)")
        storePath = folder + "/People.sqlite"
        filePath = folder + "/input." + format.rawValue
    }

    public func run(_ bytes: [UInt8]) {
        guard let choice = bytes.first else { return }
        if runs % 200 == 0 { FuzzFiles.copyExampleStore(to: storePath) }
        runs += 1
        guard let store = try? PersistentStore(path: storePath) else { fatalError("cannot open the copy of the example store") }
        defer { store.close() }
        FuzzFiles.write(Array(bytes.dropFirst()), to: filePath)
        var options = ImportOptions()
        options.format = format
        let entities: [String?] = [nil, "Person", "Car", "Tag"]
        options.entity = entities[Int(choice & 3)] ?? (format == .csv ? "Person" : nil)
        if choice & 4 != 0 {
            options.upsertKeys = [options.entity == "Car" ? "plate" : "name"]
        }
        if choice & 8 != 0, options.entity == "Car" {
            options.links = ["owner": "name"]
        }
        if choice & 16 != 0 { options.mode = .skipInvalid }
        options.dryRun = choice & 32 != 0
        options.historyAuthor = "fuzz"
        options.ignoreOtherProcesses = true
        do {
            _ = try StoreImport(store: store, file: filePath, options: options).run()
        } catch {
            _ = "\(error)"  // every error says what it is in one line
        }
    }
}

import Foundation

/// Writes a model as an Xcode model bundle: `Name.xcdatamodeld/` holding one version,
/// `Name.xcdatamodel/contents`, and `.xccurrentversion` naming it, as Xcode lays them out.
public enum ModelExport {
    public enum Error: Swift.Error, CustomStringConvertible, Equatable {
        /// Nothing is overwritten: the bundle is already there.
        case exists(String)
        case cannotWrite(path: String, reason: String)

        public var description: String {
            switch self {
            case .exists(let path): return "\(path) already exists; it is left as it is"
            case .cannotWrite(let path, let reason): return "cannot write \(path): \(reason)"
            }
        }
    }

    /// The bundle's path for a destination: the destination itself when it names an
    /// `.xcdatamodeld`, else `name.xcdatamodeld` inside it.
    public static func bundlePath(destination: String, name: String) -> String {
        if destination.hasSuffix(".xcdatamodeld") || destination.hasSuffix(".xcdatamodeld/") {
            return String(destination.reversed().drop { $0 == "/" }.reversed())
        }
        return URL(fileURLWithPath: destination).appendingPathComponent(name + ".xcdatamodeld").path
    }

    /// Writes the bundle and returns the path of its `contents` file. A half-written bundle
    /// is removed again, so a failure leaves nothing behind.
    @discardableResult
    public static func write(_ model: ManagedObjectModel, toBundle bundle: String) throws -> String {
        let fm = FileManager.default
        guard !fm.fileExists(atPath: bundle) else { throw Error.exists(bundle) }
        let bundleURL = URL(fileURLWithPath: bundle)
        let version = bundleURL.deletingPathExtension().lastPathComponent + ".xcdatamodel"
        let versionURL = bundleURL.appendingPathComponent(version)
        let contents = versionURL.appendingPathComponent("contents")
        do {
            try fm.createDirectory(at: versionURL, withIntermediateDirectories: true)
            try Data(ModelXMLWriter.contents(of: model).utf8).write(to: contents)
            try Data(currentVersionPlist(version).utf8).write(to: bundleURL.appendingPathComponent(".xccurrentversion"))
        } catch {
            try? fm.removeItem(at: bundleURL)
            throw Error.cannotWrite(path: bundle, reason: (error as NSError).localizedDescription)
        }
        return contents.path
    }

    static func currentVersionPlist(_ version: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>\(ModelXMLWriter.escape(version))</string>
        </dict>
        </plist>

        """
    }
}

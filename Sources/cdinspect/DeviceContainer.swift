import Foundation
import Inspector

/// An app's data container on a connected device, reached through Xcode's `xcrun devicectl`
/// (found on PATH, so that a stand-in can serve files where there is no device: the tests').
struct DeviceContainer {
    let device: String
    let app: String

    /// The stores the container holds: the paths `devicectl device info files` lists that
    /// end in .sqlite or .store. Its JSON is walked for such strings, whatever its layout;
    /// empty when the listing fails.
    func storePaths(staging: URL) -> [String] {
        let listing = staging.appendingPathComponent("files.json")
        guard (try? devicectl(["device", "info", "files", "--device", device, "--domain-type", "appDataContainer",
                               "--domain-identifier", app, "--json-output", listing.path])) != nil,
              let data = FileManager.default.contents(atPath: listing.path),
              let json = try? JSONSerialization.jsonObject(with: data) else { return [] }
        var found: Set<String> = []
        func walk(_ value: Any) {
            switch value {
            case let text as String where text.hasSuffix(".sqlite") || text.hasSuffix(".store"):
                found.insert(text.hasPrefix("/") ? String(text.dropFirst()) : text)
            case let array as [Any]: array.forEach(walk)
            case let object as [String: Any]: object.values.forEach(walk)
            default: break
            }
        }
        walk(json)
        return found.sorted()
    }

    /// Copies one file or folder of the container to `destination`.
    func copy(_ source: String, to destination: URL) throws {
        try devicectl(["device", "copy", "from", "--device", device, "--domain-type", "appDataContainer",
                       "--domain-identifier", app, "--source", source, "--destination", destination.path])
    }

    private func devicectl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xcrun", "devicectl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw CommandError.failed("cannot run xcrun devicectl (it comes with Xcode 15 or later on macOS): \(error.localizedDescription)")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus == 127 {
            throw CommandError.failed("xcrun is not on PATH: pull copies through xcrun devicectl, which comes with Xcode 15 or later on macOS")
        }
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            throw CommandError.failed("xcrun devicectl \(arguments.prefix(3).joined(separator: " ")) failed (exit \(process.terminationStatus))"
                                      + (text.isEmpty ? "" : ": \(text)"))
        }
    }
}

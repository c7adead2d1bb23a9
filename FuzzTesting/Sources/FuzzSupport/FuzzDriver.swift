import CFuzzDriver
import Foundation

/// Runs libFuzzer with the process's arguments (`-max_total_time=600 -rss_limit_mb=2048
/// -timeout=10 CORPUS…`), handing each input to `body`. A target's `@_cdecl("<Target>_main")`
/// calls this: SwiftPM links an executable with `main` defined as that symbol.
public enum FuzzDriver {
    public static func run(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, body)
    }

    /// The input as an array of bytes (libFuzzer may hand over a null pointer for no bytes).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

/// LeakSanitizer checks each input that allocates more than it frees, and the process at its
/// end (`-detect_leaks=1`). It cannot follow Swift's enum payload pointers (their spare bits
/// carry the case), so a value that a long-lived fixture still holds looks leaked to it.
public enum LeakCheck {
    /// Runs `body`, whose allocations are exempt from the check: only for a fixture that lives
    /// on after the input that made it (the web view of a store copy, held until the next
    /// copy), never for the work an input drives.
    public static func exempt<T>(_ body: () throws -> T) rethrows -> T {
        __lsan_disable()
        defer { __lsan_enable() }
        return try body()
    }
}

/// Where a target finds the checkout's files and writes its scratch files.
public enum FuzzFiles {
    /// The cdinspect checkout (this file is FuzzTesting/Sources/FuzzSupport/FuzzDriver.swift).
    public static let checkout: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The example store, which the import, HTTP and whole-store targets work on copies of.
    public static var exampleStore: String { checkout + "/Examples/People.sqlite" }

    /// A fresh folder for this process's scratch files: in memory (/dev/shm) where there is
    /// one, since the store targets sync what they write.
    public static func scratchFolder(_ name: String) -> String {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = "\(base)/cdinspect-fuzz-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes `bytes` to `path`, replacing what was there.
    public static func write(_ bytes: [UInt8], to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    /// Copies the example store (without its -wal and -shm) to `path`, replacing it.
    public static func copyExampleStore(to path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent + "/.People_SUPPORT")
        guard (try? FileManager.default.copyItem(atPath: exampleStore, toPath: path)) != nil else {
            fatalError("cannot copy \(exampleStore) to \(path)")
        }
    }
}

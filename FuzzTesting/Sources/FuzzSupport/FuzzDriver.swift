import CFuzzDriver

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

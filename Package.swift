// swift-tools-version:6.2
import PackageDescription

/// Homebrew's readline is keg-only: pkg-config is how SwiftPM finds it on macOS, where the
/// SDK's own <readline/readline.h> is libedit's. On Linux the system's readline is on the
/// default paths, and its readline.pc only adds defines SwiftPM refuses (with a warning).
#if os(macOS)
let readlinePkgConfig: String? = "readline"
#else
let readlinePkgConfig: String? = nil
#endif

let package = Package(
    name: "cdinspect",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "cdinspect", targets: ["cdinspect"]),
        .executable(name: "cdinspect-mcp", targets: ["cdinspect-mcp"]),
        .executable(name: "cdinspect-browse", targets: ["cdinspect-browse"]),
        .library(name: "ManagedStore", targets: ["ManagedStore"]),
        .library(name: "Inspector", targets: ["Inspector"]),
        .library(name: "MCPLines", targets: ["MCPLines"]),
        .library(name: "WebView", targets: ["WebView"]),
    ],
    // The REPL's line editor: GNU readline by default, or libedit (`--traits Editline`), whose
    // readline emulation is what macOS ships. Both build the same REPL; see Sources/CLineEditor.
    traits: [
        .trait(name: "Readline", description: "Edit REPL lines with GNU readline (Homebrew's on macOS)."),
        .trait(name: "Editline", description: "Edit REPL lines with libedit instead of GNU readline."),
        .default(enabledTraits: ["Readline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `cdinspect mcp`: the Model Context Protocol's official Swift SDK (README, design notes).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        // Already in the graph through the MCP SDK; named because the server's own transport
        // implements the SDK's `Transport`, whose `logger` is swift-log's `Logger`.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `cdinspect browse`'s HTTP server: swift-nio's HTTP/1 (its parser is llhttp), already
        // in the graph and built for the MCP SDK, so the web view adds no package and no build
        // time (the design notes say why not Hummingbird).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // Without Homebrew's readline, macOS's <readline/readline.h> is libedit's: the shim
        // tells them apart by version and falls back to the calls libedit has.
        .systemLibrary(
            name: "CReadline",
            path: "Sources/CLineEditor/Readline",
            pkgConfig: readlinePkgConfig,
            providers: [.apt(["libreadline-dev"]), .brew(["readline"])]),
        // libedit: part of macOS's SDK; libedit-dev on Debian and Ubuntu.
        .systemLibrary(
            name: "CEditline",
            path: "Sources/CLineEditor/Editline",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]),
        // sqlite3_db_config for the read-only `sql` connection: variadic, so Swift needs a shim.
        .systemLibrary(
            name: "CSQLiteControls",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(
            name: "ManagedStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API itself, to read fetched columns without per-value generics.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CZlib",
                "CSQLiteControls",
            ]),
        // Fills stores with rows, for the example generator and the tests: a write path past
        // the coordinator, history and Z_OPT, so no product the package ships holds it.
        .target(
            name: "StoreCreation",
            dependencies: [
                "ManagedStore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .target(
            name: "Inspector",
            dependencies: [
                "ManagedStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "cdinspect",
            dependencies: [
                "Inspector",
                "ManagedStore",
                .target(name: "CReadline", condition: .when(traits: ["Readline"])),
                .target(name: "CEditline", condition: .when(traits: ["Editline"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The MCP server, apart: the SDK links Foundation's networking (libcurl, OpenSSL),
        // which cdinspect would otherwise load at every start. `cdinspect mcp` execs it.
        .executableTarget(
            name: "cdinspect-mcp",
            dependencies: [
                "MCPLines",
                "Inspector",
                "ManagedStore",
                "WebView",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The MCP server's standard input cut into lines and each line admitted or answered,
        // apart from the server so that the fuzz target reads hostile lines through it.
        .target(name: "MCPLines"),
        // The web view's pages, their JSON twins, its security and its live updates: what
        // `cdinspect browse` serves and the MCP server's views render, with no HTTP stack.
        .target(
            name: "WebView",
            dependencies: ["Inspector", "ManagedStore"]),
        // `cdinspect browse`, apart as the MCP server is: the HTTP stack is loaded by the web
        // view alone, never at the start of every other command. `cdinspect browse` execs it.
        .executableTarget(
            name: "cdinspect-browse",
            dependencies: [
                "WebView",
                "Inspector",
                "ManagedStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "cdi-example-store",
            dependencies: [
                "ManagedStore",
                "StoreCreation",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Examples/Generator"),
        // What every test target shares: seeded random numbers, and the in-process session harness.
        .target(
            name: "TestSupport",
            dependencies: ["Inspector", "ManagedStore"],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "ManagedStoreTests",
            dependencies: ["ManagedStore", "StoreCreation", "TestSupport"]),
        .testTarget(
            name: "InspectorTests",
            dependencies: ["Inspector", "TestSupport"]),
        .testTarget(
            name: "WebViewTests",
            dependencies: ["WebView", "Inspector", "ManagedStore", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ManagedStore",
                "StoreCreation",
                "cdinspect",
                "cdinspect-mcp",
                "cdinspect-browse",
                "cdi-example-store",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            // Expected debug logs, read from the source tree by SQLDebugLogTests.
            exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)

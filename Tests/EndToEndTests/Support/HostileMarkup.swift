import Foundation

/// Values that are markup, for the tests that show a store in a browser: each would run a
/// script that sets `window.__pwned` if it were taken for markup anywhere.
enum HostileMarkup {
    static let rows = """
        UPDATE ZPERSON SET ZNAME = '<script>window.__pwned=1</script>' WHERE Z_PK = 1;
        UPDATE ZPERSON SET ZNAME = '"><img src=x onerror="window.__pwned=1">' WHERE Z_PK = 2;
        UPDATE ZCAR SET ZPLATE = '</td></tr></table><script>window.__pwned=1</script>' WHERE Z_PK = 1;
        UPDATE ZTAG SET ZNAME = '<svg onload="window.__pwned=1">' WHERE Z_PK = 1;
        """

    /// `store` with the markup values, and `more` SQL of a test's own.
    static func apply(to store: String, _ more: String = "") throws {
        try SQLiteShell.run(store, rows + more)
    }
}

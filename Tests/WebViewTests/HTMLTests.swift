import XCTest
@testable import WebView

final class HTMLTests: XCTestCase {
    func testInterpolatedTextIsEscaped() {
        let hostile = "\"><img src=x onerror=alert(1)><script>x</script>'&"
        let html: HTML = "<td title=\"\(hostile)\">\(hostile)</td>"
        XCTAssertEqual(html.text, "<td title=\"&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;x&lt;/script&gt;&#39;&amp;\">"
                       + "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;x&lt;/script&gt;&#39;&amp;</td>")
    }
}

import RederiveReport
import Testing

@Suite("HTML escaping")
struct EscapingTests {
    @Test func markupCharactersBecomeCharacterReferences() {
        #expect(HTML.escape("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;")
        #expect(HTML.escape("a & b \"c\" 'd'") == "a &amp; b &quot;c&quot; &#39;d&#39;")
        #expect(HTML.escape("plain – ünïcode 🏠") == "plain – ünïcode 🏠")
        #expect(HTML.escape("&lt;") == "&amp;lt;")
    }
}

#if MetricsEndpoint
import Rederive
import RederiveMetricsEndpoint
import Testing

/// `--metrics-address` is read as HOST:PORT, and anything else is refused in one line naming it.
struct EndpointAddressTests {
    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464), ("localhost:0", "localhost", 0), ("[::1]:9090", "::1", 9090),
        ("0.0.0.0:65535", "0.0.0.0", 65535),
    ])
    func readsHostAndPort(text: String, host: String, port: Int) throws {
        let address = try EndpointAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.description == text)
    }

    @Test(arguments: [
        ("9464", "the port is missing"), ("127.0.0.1:", "the port is missing"), (":9464", "the host is missing"),
        ("127.0.0.1:http", "is not a number from 0 to 65535"), ("127.0.0.1:70000", "is not a number from 0 to 65535"),
        ("127.0.0.1:-1", "is not a number from 0 to 65535"), ("::1:9090", "an IPv6 host goes in brackets"),
        ("a host:80", "is not a host name or address"),
    ])
    func refusesWhatIsNotHostAndPort(text: String, why: String) {
        do {
            _ = try EndpointAddress(parsing: text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.message.contains("metrics address \"\(text)\" is not HOST:PORT"))
            #expect(error.message.contains(why), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }
}
#endif

import Rederive
import RederiveTestSupport
import Testing

@Suite("Registry")
struct RegistryTests {
    func pipeline(_ name: String, table: String, processors: [Processor<Sample>]) -> Pipeline {
        Pipeline(name: name, table: table, decoding: Sample.self, processors: processors)
    }

    func processor(_ name: String, _ columns: [String]) -> Processor<Sample> {
        Processor(name: name, version: 1, columns: columns.map { .integer($0) }) { _ in columns.map { _ in .integer(1) } }
    }

    @Test func acceptsPipelinesWithDistinctNamesTablesAndColumns() throws {
        let registry = try Registry([
            pipeline("a", table: "a", processors: [processor("p", ["x"]), processor("q", ["y"])]),
            pipeline("b", table: "b", processors: [processor("r", ["x"])]),
        ])
        #expect(registry.pipelines.map(\.name) == ["a", "b"])
        #expect(try registry.pipeline(named: "b").table == "b")
    }

    @Test(arguments: [
        ("duplicate processor", [[("p", ["x"]), ("p", ["y"])]], "has two processors named \"p\""),
        ("shared column", [[("p", ["x"]), ("q", ["X"])]], "both claim column \"X\""),
        ("id column", [[("p", ["id"])]], "which is the table's id, key or payload column"),
    ])
    func rejectsConflictsWithAMessageNamingThem(_ label: String, _ pipelines: [[(String, [String])]], _ message: String) {
        do {
            _ = try Registry(pipelines.enumerated().map { index, processors in
                pipeline("p\(index)", table: "t\(index)", processors: processors.map { processor($0.0, $0.1) })
            })
            Issue.record("\(label) was accepted")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func acceptsOneProcessorNameInTwoPipelines() throws {
        // Stamps are keyed by pipeline and processor, so the names do not collide.
        let registry = try Registry([
            pipeline("a", table: "a", processors: [processor("score", ["x"])]),
            pipeline("b", table: "b", processors: [processor("score", ["x"])]),
        ])
        #expect(registry.pipelines.count == 2)
    }

    @Test func rejectsTwoPipelinesOnOneTable() {
        #expect(throws: RederiveError.self) {
            _ = try Registry([
                pipeline("a", table: "t", processors: [processor("p", ["x"])]),
                pipeline("b", table: "t", processors: [processor("q", ["y"])]),
            ])
        }
    }
}

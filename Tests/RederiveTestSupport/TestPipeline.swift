import Rederive
import Synchronization

/// The payload of the test pipeline: `{"values": [1, 2, 3], "label": "a"}`.
package struct Sample: Decodable, Sendable {
    package let values: [Double]
    package let label: String

    package init(values: [Double], label: String) {
        self.values = values
        self.label = label
    }
}

/// Counts how often each processor derived each record, to prove that nothing runs twice or needlessly.
package final class DerivationLog: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    package init() {}

    package func record(_ processor: String, _ sample: Sample) {
        counts.withLock { $0["\(processor):\(sample.label)", default: 0] += 1 }
    }

    package func count(_ processor: String, _ label: String) -> Int {
        counts.withLock { $0["\(processor):\(label)"] ?? 0 }
    }

    package func total(_ processor: String) -> Int {
        counts.withLock { $0.filter { $0.key.hasPrefix(processor + ":") }.values.reduce(0, +) }
    }

    package var all: [String: Int] { counts.withLock { $0 } }
}

/// A small pipeline over table `items (id, key, payload)`:
/// - `total` (REAL `total`): the sum of `values`; throws for the label "explode".
/// - `stats` (INTEGER `value_count`, TEXT `label_upper`).
package struct TestPipeline {
    package var totalVersion: Int
    package var statsVersion: Int
    package var layout: Pipeline.Layout?
    package var log: DerivationLog
    /// Called with each sample before `total` derives it, for tests that act during a run.
    package var onTotal: @Sendable (Sample) -> Void

    package init(
        totalVersion: Int = 1,
        statsVersion: Int = 1,
        layout: Pipeline.Layout? = nil,
        log: DerivationLog = DerivationLog(),
        onTotal: @escaping @Sendable (Sample) -> Void = { _ in }
    ) {
        self.totalVersion = totalVersion
        self.statsVersion = statsVersion
        self.layout = layout
        self.log = log
        self.onTotal = onTotal
    }

    package struct Explosion: Error, CustomStringConvertible {
        package init() {}

        package var description: String { "refusing to total an exploding sample" }
    }

    package var pipeline: Pipeline {
        let log = self.log
        let onTotal = self.onTotal
        let total = Processor<Sample>(name: "total", version: totalVersion, columns: [.real("total")]) { sample in
            onTotal(sample)
            log.record("total", sample)
            if sample.label == "explode" { throw Explosion() }
            return [.real(sample.values.reduce(0, +))]
        }
        let stats = Processor<Sample>(
            name: "stats",
            version: statsVersion,
            columns: [.integer("value_count", default: 0), .text("label_upper")]
        ) { sample in
            log.record("stats", sample)
            return [.integer(Int64(sample.values.count)), .text(sample.label.uppercased())]
        }
        return Pipeline(
            name: "items",
            table: "items",
            keyColumn: "key",
            layout: layout,
            decoding: Sample.self,
            processors: [total, stats]
        )
    }
}

package func sampleJSON(_ label: String, _ values: [Double]) -> String {
    "{\"label\":\"\(label)\",\"values\":[\(values.map { String($0) }.joined(separator: ","))]}"
}

package func samples(_ count: Int) -> [(key: String, json: String)] {
    (0..<count).map { index in
        ("k\(index)", sampleJSON("s\(index)", [Double(index), 1, 2]))
    }
}

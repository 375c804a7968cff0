import Foundation
import Rederive
import Synchronization

/// A pipeline with processors that derive from other processors, over table `items (id, key, payload)`:
/// - `total` (REAL `total`): from the payload, the sum of `values` scaled by `totalScale`; throws for
///   the label "explode" unless `totalFixed`.
/// - `stats` (INTEGER `value_count`, TEXT `label_upper`): from the payload.
/// - `size` (TEXT `size`): from `total` alone: "big" above 10, else "small".
/// - `summary` (TEXT `summary`): from `size` and `stats`'s `label_upper`, two levels down.
///
/// The processors are listed dependents first, so that only the dependency order can put them right.
package struct DependentPipeline {
    package var totalVersion: Int
    package var totalScale: Double
    package var totalFixed: Bool
    package var sizeVersion: Int
    /// Called with each `total` that `size` derives from, before it derives.
    package var onSize: @Sendable (Double?) -> Void
    package var log: DerivationLog
    package let probe = DerivationProbe()

    package init(
        totalVersion: Int = 1,
        totalScale: Double = 1.0,
        totalFixed: Bool = false,
        sizeVersion: Int = 1,
        onSize: @escaping @Sendable (Double?) -> Void = { _ in },
        log: DerivationLog = DerivationLog()
    ) {
        self.totalVersion = totalVersion
        self.totalScale = totalScale
        self.totalFixed = totalFixed
        self.sizeVersion = sizeVersion
        self.onSize = onSize
        self.log = log
    }

    package var pipeline: Pipeline {
        let log = self.log
        let scale = totalScale
        let fixed = totalFixed
        let probe = self.probe
        let onSize = self.onSize
        let total = Processor<Sample>.real("total", version: totalVersion) { sample in
            probe.order.withLock { $0.append("total:\(sample.label)") }
            log.record("total", sample)
            if sample.label == "explode" && !fixed { throw TestPipeline.Explosion() }
            return sample.values.reduce(0, +) * scale
        }
        let stats = Processor<Sample>(
            name: "stats", version: 1, columns: [.integer("value_count", default: 0), .text("label_upper")]
        ) { sample in
            log.record("stats", sample)
            return [.integer(sample.values.count), .text(sample.label.uppercased())]
        }
        let size = Processor<Sample>.text("size", version: sizeVersion, from: total.real) { total in
            onSize(total)
            probe.order.withLock { $0.append("size") }
            log.record("size", Sample(values: [], label: ""))
            guard let total else { return nil }
            return total > 10 ? "big" : "small"
        }
        let summary = Processor<Sample>.text("summary", version: 1, from: size.text, stats.text("label_upper")) { size, label in
            probe.order.withLock { $0.append("summary") }
            log.record("summary", Sample(values: [], label: ""))
            return "\(label ?? "?"):\(size ?? "?")"
        }
        return Pipeline(
            name: "items", table: "items", keyColumn: "key",
            decode: { bytes in
                probe.decoded.add(1, ordering: .relaxed)
                return try JSONDecoder().decode(Sample.self, from: Data(bytes))
            },
            processors: [summary, size, total, stats]
        )
    }
}

/// What a test pipeline saw while deriving.
package final class DerivationProbe: Sendable {
    /// Each processor's name as it derives, in order: per record, inputs must come first.
    package let order = Mutex<[String]>([])
    /// How many payloads were decoded.
    package let decoded = Atomic<Int>(0)

    package var derivationOrder: [String] { order.withLock { $0 } }
    package var decodedCount: Int { decoded.load(ordering: .relaxed) }
}

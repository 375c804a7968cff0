import Foundation
import Rederive
import RederiveCodec

/// Writes a deterministic synthetic corpus into a pipeline's table, with a fraction of broken payloads.
struct SyntheticCorpus {
    let source: SampleSource
    let pipeline: Pipeline
    let seed: UInt64
    /// The share of records whose payload is deliberately broken, from 0 to 1.
    let corruptFraction: Double

    /// What was written.
    struct Outcome {
        var counts = ImportCounts()
        /// Broken records by defect.
        var broken: [String: Int] = [:]
        var brokenTotal: Int { broken.values.reduce(0, +) }
    }

    func key(_ index: Int) -> String {
        "synthetic-\(seed)-" + String(index).leftPadded(to: 7)
    }

    /// The stored bytes of record `index`, and its defect when it is broken.
    func record(_ index: Int) -> (payload: [UInt8], defect: String?) {
        var random = SplitMix64(seed: seed, stream: UInt64(truncatingIfNeeded: index))
        guard Double(random.next() >> 11) / Double(1 << 53) < corruptFraction else {
            return (PayloadCodec.encode(source.make(seed, index)), nil)
        }
        let valid = PayloadCodec.encode(source.make(seed, index))
        switch random.next() % 5 {
        case 0:
            let cut = max(2, valid.count / 2 + Int(random.next() % UInt64(max(1, valid.count / 4))))
            return (Array(valid.prefix(cut)), "truncated zlib stream")
        case 1:
            var flipped = valid
            flipped[flipped.count - 1] ^= 0xFF
            return (flipped, "bad zlib checksum")
        case 2:
            return ((0..<512).map { _ in UInt8.random(in: 0...255, using: &random) }, "random bytes")
        default:
            let broken = source.makeBroken(seed, index)
            return (PayloadCodec.encode(broken.json), broken.defect)
        }
    }

    /// About how many bytes `count` records add to a database: the mean stored size of a sample of
    /// them, made as they will be, times `count`, and a tenth more for the database's own pages.
    func estimatedBytes(count: Int) -> Int {
        let sample = (0..<min(count, 16)).map { record($0 * max(1, count / 16)).payload.count }
        guard !sample.isEmpty else { return 0 }
        let mean = Double(sample.reduce(0, +)) / Double(sample.count)
        return Int(mean * Double(count) * 1.1)
    }

    /// Makes `count` records on all cores, on the engine's pool of threads, and writes them in
    /// transactions of a few hundred.
    func write(count: Int, to store: any CommandStore, progress: (Int) -> Void = { _ in }) async throws -> Outcome {
        var outcome = Outcome()
        let chunk = 256
        let threads = WorkerThreads(count: ProcessInfo.processInfo.activeProcessorCount, name: "rederive generate")
        defer { threads.stop() }
        var start = 0
        while start < count {
            let indices = Array(start..<min(count, start + chunk))
            let made = await threads.map(indices) { index in
                let made = record(index)
                return (index, made.payload, made.defect)
            }
            // Cancelled: the threads stopped early, and a part of a chunk is not written.
            guard made.count == indices.count else { throw CancellationError() }
            for (_, _, defect) in made {
                if let defect { outcome.broken[defect, default: 0] += 1 }
            }
            let counts = try await store.importPayloads(made.map { (key($0.0), $0.1) }, into: pipeline)
            outcome.counts.inserted += counts.inserted
            outcome.counts.replaced += counts.replaced
            outcome.counts.unchanged += counts.unchanged
            start += chunk
            progress(min(count, start))
        }
        return outcome
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

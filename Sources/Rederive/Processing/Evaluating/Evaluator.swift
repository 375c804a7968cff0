import RederiveCodec

/// Where a derivation finds a record's payload.
enum PayloadSource: Sendable {
    /// As stored, inflated only if a processor that reads it runs; nil when `NULL`.
    case stored([UInt8]?, PayloadCodec)
    /// Already inflated.
    case inflated([UInt8])
    /// The record's stored projection, decoded by the pipeline's ``Projection`` instead of the payload.
    case projection([UInt8])
    /// Not read, because no processor that reads it was expected to run.
    case notRead
    /// Not readable from the store, for the reason given (a damaged page of its file).
    case unreadable(String)
}

/// One record's derivation: its payload, the processors that must run, and its stored state.
struct EvaluationRequest: Sendable {
    let payload: PayloadSource
    /// Processors that run whatever their inputs' values: the stale ones.
    let run: Set<Int>
    let dependencies: DependencyState
    /// Whether a payload decoded now is also encoded as the pipeline's projection, for the store to keep.
    var writesProjection = false
}

/// What one record's derivation produced, in derivation order.
struct Evaluation: Sendable {
    var outcomes: [(processor: Int, outcome: ProcessorOutcome)] = []
    /// Per dependent that derived: the ``InputDigest`` of the values it derived from.
    var inputDigests: [Int: Int64] = [:]
    /// The projection of the payload decoded from its stored or inflated bytes, when asked for.
    var projection: [UInt8]?
    /// Whether the payload was decoded from its stored projection.
    var decodedProjection = false
}

/// The type-erased decode-once, derive-many step of a pipeline.
///
/// Processors run in dependency order. A stale processor always runs; a watching dependent runs when
/// an input ran in this derivation and the digest of its inputs' values changed. A processor whose
/// input failed, now or before, is not run: it fails with kind `upstream`, naming the input. The
/// payload is inflated and decoded once, when the first processor that reads it runs.
struct Evaluator: Sendable {
    let evaluate: @Sendable (EvaluationRequest) -> Evaluation

    init<Payload: Sendable>(
        decode: @escaping @Sendable ([UInt8]) throws -> Payload,
        projection: Projection<Payload>?,
        processors: [Processor<Payload>],
        graph: ProcessorGraph
    ) {
        let descriptors = processors.map(\.descriptor)
        evaluate = { request in
            var evaluation = Evaluation()
            var decoded: Result<Payload, DerivationFailure>?
            func payload() -> Result<Payload, DerivationFailure> {
                if let decoded { return decoded }
                let result = Self.decode(request.payload, decode, projection)
                decoded = result
                if case .projection = request.payload {
                    evaluation.decodedProjection = true
                } else if request.writesProjection, let projection, case .success(let payload) = result {
                    // A projection that cannot be encoded is not kept: the record derives from its payload.
                    evaluation.projection = try? projection.encode(payload)
                }
                return result
            }
            let state = request.dependencies
            let watching = Set(state.watching)
            var fresh: [Int: [DerivedValue]] = [:]
            var failedNow: Set<Int> = []
            for index in graph.order where request.run.contains(index) || watching.contains(index) {
                let inputs = graph.inputs[index]
                let mustRun = request.run.contains(index)
                if !mustRun {
                    // Up to date, or waiting for a failed input: nothing to do unless an input ran now.
                    guard inputs.contains(where: { fresh[$0] != nil || failedNow.contains($0) }) else { continue }
                    if let kind = state.failures[index], kind != .upstream { continue }
                }
                let outcome: ProcessorOutcome
                var digest: Int64?
                if let failed = inputs.first(where: { failedNow.contains($0) || (fresh[$0] == nil && state.failures[$0] != nil) }) {
                    outcome = .failed(.upstream, "input processor \(descriptors[failed].name) failed for this record")
                } else if let missing = inputs.first(where: { fresh[$0] == nil && state.storedValues[$0] == nil }) {
                    outcome = .failed(.upstream, "input processor \(descriptors[missing].name) has no stored values for this record")
                } else {
                    var values: [String: [DerivedValue]] = [:]
                    var digested: [DerivedValue] = []
                    var types: [ColumnType] = []
                    for input in inputs {
                        let row = fresh[input] ?? state.storedValues[input] ?? []
                        values[descriptors[input].name] = row
                        digested += row
                        types += descriptors[input].columns.map(\.type)
                    }
                    if !inputs.isEmpty {
                        let inputDigest = InputDigest.of(digested, types: types, storedBy: state.storageRules)
                        if !mustRun, state.failures[index] == nil, state.consumedDigests[index] == inputDigest { continue }
                        digest = inputDigest
                    }
                    outcome = Self.derive(processors[index], descriptors[index], InputValues(values), payload)
                }
                switch outcome {
                case .derived(let values):
                    fresh[index] = values
                    if let digest { evaluation.inputDigests[index] = digest }
                case .failed:
                    failedNow.insert(index)
                }
                evaluation.outcomes.append((index, outcome))
            }
            return evaluation
        }
    }

    /// Why a payload could not be had: the failure every processor that reads it records.
    struct DerivationFailure: Error {
        let kind: FailureKind
        let message: String
    }

    private static func decode<Payload>(
        _ source: PayloadSource, _ decode: ([UInt8]) throws -> Payload, _ projection: Projection<Payload>?
    ) -> Result<Payload, DerivationFailure> {
        let json: [UInt8]
        switch source {
        case .inflated(let inflated):
            json = inflated
        case .projection(let bytes):
            guard let projection else {
                return .failure(DerivationFailure(kind: .processor, message: "the pipeline keeps no projection to derive from"))
            }
            do {
                return .success(try projection.decode(bytes))
            } catch {
                return .failure(DerivationFailure(
                    kind: .decoding,
                    message: "the stored projection (version \(projection.version)) does not decode: \(describe(error)); "
                        + "derive it from its payload with run --no-projection"
                ))
            }
        case .notRead:
            return .failure(DerivationFailure(kind: .processor, message: "the payload was not read for this derivation"))
        case .stored(nil, _):
            return .failure(DerivationFailure(kind: .decompression, message: "payload is NULL"))
        case .unreadable(let reason):
            return .failure(DerivationFailure(kind: .decompression, message: reason))
        case .stored(let bytes?, let codec):
            do {
                json = try codec.decode(bytes)
            } catch {
                return .failure(DerivationFailure(kind: .decompression, message: error.message))
            }
        }
        do {
            return .success(try decode(json))
        } catch {
            return .failure(DerivationFailure(kind: .decoding, message: describe(error)))
        }
    }

    private static func derive<Payload>(
        _ processor: Processor<Payload>, _ descriptor: ProcessorDescriptor, _ inputs: InputValues,
        _ payload: () -> Result<Payload, DerivationFailure>
    ) -> ProcessorOutcome {
        do {
            let values: [DerivedValue]
            switch processor.body {
            case .payload(let derive):
                switch payload() {
                case .success(let decoded): values = try derive(decoded)
                case .failure(let failure): return .failed(failure.kind, failure.message)
                }
            case .inputs(let derive):
                values = try derive(inputs)
            case .payloadAndInputs(let derive):
                switch payload() {
                case .success(let decoded): values = try derive(decoded, inputs)
                case .failure(let failure): return .failed(failure.kind, failure.message)
                }
            }
            if let problem = descriptor.check(values) {
                return .failed(.processor, problem)
            }
            return .derived(values)
        } catch {
            return .failed(.processor, describe(error))
        }
    }
}

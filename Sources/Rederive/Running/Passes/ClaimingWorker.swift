import RederiveCodec

/// The claim-and-evaluate loop of one pipeline's derivation, run by each of its workers: take the next
/// claimed record that no worker has started, evaluate it and send the result to the writer; when few
/// claimed records are left and no other worker is claiming, claim the next batch from the store first.
///
/// Records of a claim are shared by all workers, so a record that takes long (or hangs) holds up only
/// the worker evaluating it, never the rest of its batch; and one worker reads the next batch while
/// the others still evaluate, so reading and evaluating overlap.
///
/// Before each step a worker asks the lease's ``ClaimGate``: while a pause or a throttle holds the
/// work it claims nothing, derives what is claimed already (the writer commits it), and then waits
/// at the gate; a worker of a cancelled run ends instead.
package struct ClaimingWorker: Sendable {
    let plan: RunPlan
    /// The run the worker's commits count in: what a cancel names.
    let runID: Int64
    let store: any RecordStore
    let lease: LeaseKeeper
    let work: SynchronizedWork
    let channel: ResultChannel
    /// The size of the writer's next batch, which a claim never exceeds.
    let batchSize: SharedBatchSize
    /// Records claimed at once, at the most.
    let claimSize: Int
    /// Stored payload bytes one claim reads at the most.
    let claimBytes: Int
    /// A worker claims once fewer claimed records than this are left unstarted: the run's parallelism.
    let refillBelow: Int
    let recordTimeout: Duration?
    let maximumPayloadSize: Int
    /// Where records are evaluated instead of this worker's thread, when set.
    let deriver: (any RecordDeriver)?
    /// Tries a claim again after a transient error.
    let retry: TransientRetry
    /// The longest a cancelled worker waits for its record in flight before it leaves it uncommitted.
    var cancellationGrace: Duration = Self.cancellationGrace
    /// Asked before each claim of the plan's records, for records to derive ahead of them.
    var ahead: (any ClaimsAhead)? = nil

    /// The longest a cancelled run waits for a record in flight before it leaves it uncommitted.
    package static let cancellationGrace: Duration = .seconds(10)

    /// Runs worker `index` until nothing is left, the budget is spent, or the run is cancelled;
    /// returns whether it was cancelled. Records are evaluated on `thread`, or by the ``deriver``.
    func run(worker index: Int, thread: DerivationThread) async throws -> Bool {
        let codec = PayloadCodec(maximumSize: maximumPayloadSize)
        let gate = lease.control.gate
        gate.enter(work)
        defer { gate.leave(work) }
        while true {
            if Task.isCancelled { return true }
            let record: PendingRecord
            let step: SharedWork.Step
            if gate.hold(plan: plan, runID: runID) != nil || gate.isCancelled(runID) {
                // Held or cancelled: derive what is claimed, then wait at the gate with nothing in hand.
                guard let held = work.heldStep() else {
                    if await gate.pass(plan: plan, runID: runID) != .proceed {
                        work.cancelClaims()
                        return true
                    }
                    continue
                }
                step = held
            } else {
                step = work.nextStep(refillBelow: refillBelow)
            }
            switch step {
            case .evaluate(let next):
                record = next
            case .claim:
                // This worker refills the shared claims while the others go on evaluating.
                if try await !claim() { return true }
                continue
            case .wait(let claimsFinished):
                // Another worker's claim is under way and will bring records, or say there are none.
                await work.waitForClaim(after: claimsFinished)
                continue
            case .done:
                return false
            }
            work.started(record.recordID, worker: index)
            // Once cancelled, a record in flight gets this long to be committed, however long the
            // timeout: the run must end soon after it is asked to.
            let grace = min(recordTimeout ?? cancellationGrace, cancellationGrace)
            if let deriver {
                // A deriver's worker that hangs must not hold up a cancelled run beyond the grace either.
                let pipeline = plan.pipeline
                let maximumPayloadSize = self.maximumPayloadSize
                let evaluated = await Waiter.result(within: grace) {
                    await deriver.result(for: record, pipeline: pipeline, maximumPayloadSize: maximumPayloadSize, worker: index)
                }
                // Abandoned when the run was cancelled: the record stays stale, and overdue if it hangs.
                guard let result = evaluated else { return true }
                work.finished(worker: index)
                await channel.send(result)
            } else {
                // The thread takes the next claimed records and sends their results itself, rather than
                // come back to this task for each one: a hand-off per record costs two thread switches,
                // as much as evaluating a small record without its payload. It comes back only for what
                // a task does: a claim, or the end of the run.
                let end = await thread.run(grace: grace) { isCancelled in
                    evaluateSeries(from: record, worker: index, codec: codec, isCancelled: isCancelled)
                }
                switch end {
                case .needsClaim?: continue
                // The thread sent its last result; the task ends the worker at the top of the loop.
                case .cancelled?: work.finished(worker: index)
                // Abandoned when the run was cancelled: the record stays stale, and overdue if it hangs.
                case nil: return true
                }
            }
        }
    }

    /// Claims the next batch from the store for every worker to take from: as many records as the
    /// budget grants, after the wait the maximum rate asks for; the records claimed ``ahead`` first,
    /// when there are any, whose results the writer then commits with its next batch, ahead of the
    /// results waiting (``ResultChannel/expedite(_:)``), and the plan's own after them, up to the
    /// claim's size. False when cancelled during that wait.
    private func claim() async throws -> Bool {
        let (wanted, wait) = work.take(upTo: min(claimSize, batchSize.size))
        if await !pace(wait) {
            work.claimed([], wanted: wanted, exhausted: false)
            return false
        }
        var batch: [PendingRecord] = []
        do {
            if wanted > 0 {
                let store = self.store
                let plan = self.plan
                let claimBytes = self.claimBytes
                if let ahead {
                    batch = try await retry.run("claim") { try await ahead.claim(limit: wanted, byteLimit: claimBytes) }
                    // Claimed ahead of the plan's own, and committed ahead of them too.
                    if !batch.isEmpty { channel.expedite(batch.lazy.map(\.recordID)) }
                }
                // The plan's own records fill the rest of the claim: a few fresh records a look must not
                // take the place of a whole claim of the backlog, or fresh arrivals slow its drain.
                let rest = wanted - batch.count
                let restBytes = claimBytes - batch.reduce(0) { $0 + ($1.payload?.count ?? 0) }
                if rest > 0, restBytes > 0 {
                    batch += try await retry.run("claim") {
                        try await lease.withCurrentLease(pipeline: plan.pipeline.name) { held in
                            try await store.claim(plan, limit: rest, byteLimit: restBytes, lease: held)
                        }
                    }
                }
            }
        } catch {
            work.claimed([], wanted: wanted, exhausted: true)
            throw error
        }
        work.claimed(batch, wanted: wanted, exhausted: batch.isEmpty)
        return true
    }

    /// How a worker's thread ended a series of records, every result sent.
    private enum SeriesEnd: Sendable {
        /// Nothing claimed is left to start, or this worker must claim
        /// (``SharedWork/nextStep(refillBelow:)``); the worker has no record in flight.
        case needsClaim
        /// The run was cancelled; the last record is still counted in flight, for the task to end.
        case cancelled
    }

    /// Evaluates `first`, then the claimed records after it, one after the other on the worker's
    /// thread, sending each result to the writer as it is made, and waiting on this thread while the
    /// writer has no room for it. Records are taken one at a time, as by the task: a record that hangs
    /// holds up only its own worker, and each record in flight is visible to
    /// ``SynchronizedWork/overdue(after:)``.
    ///
    /// Once the run is cancelled the thread touches the shared work no more: the task that waits for it
    /// may have given up, and the work may be a later pass's.
    private func evaluateSeries(from first: PendingRecord, worker: Int, codec: PayloadCodec, isCancelled: () -> Bool) -> SeriesEnd {
        var record = first
        while true {
            let result = RecordResult(evaluating: record, pipeline: plan.pipeline, codec: codec)
            if isCancelled() {
                // The writer drains until every worker is done: committed when the task still waits.
                channel.sendBlocking(result)
                return .cancelled
            }
            if !channel.trySend(result) {
                // Waiting for the writer is not deriving: the record is no longer in flight meanwhile.
                work.finished(worker: worker)
                channel.sendBlocking(result)
                if isCancelled() { return .cancelled }
            }
            guard let next = work.finishedTakingNext(worker: worker, refillBelow: refillBelow) else { return .needsClaim }
            record = next
        }
    }

    /// Sleeps the `wait` that the maximum rate requires before a claim; false when cancelled meanwhile.
    private func pace(_ wait: Duration) async -> Bool {
        guard wait > .zero else { return true }
        do {
            try await Task.sleep(for: wait)
            return true
        } catch {
            return false
        }
    }
}

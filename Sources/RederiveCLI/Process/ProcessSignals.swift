@preconcurrency import Dispatch
import Foundation
import RederiveSQLite
import Synchronization

/// SIGINT and SIGTERM for the whole process: a signal never ends rederive by itself, whenever it comes.
///
/// The `rederive` executable takes them over before it parses its arguments (``takeOver()``). A command
/// that can stop cleanly registers what the first signal does (``respond(with:)``): ``SignalCancellation``
/// stops its work between records, ``SignalCleanup`` removes its temporary files. Without one, the
/// first signal ends the process at once with 130 or 143, having removed its temporary files; a
/// command that registers after its start (``deferUntilResponding()``) is told of a signal that came
/// before as soon as it registers, or the process ends after ``responderGrace`` when it cannot (its
/// database locked by another program, say). A second signal ends the process at once, as it says.
///
/// An app that mounts rederive's commands keeps its own signal handling: there, a command's
/// registration handles signals only while it lasts.
enum ProcessSignals {
    private struct State {
        var sources: [any DispatchSourceSignal] = []
        /// Whether the sources stay for the life of the process.
        var permanent = false
        var responder: (@Sendable () -> Void)?
        /// Whether a signal before a responder waits for it rather than ending the process.
        var deferring = false
        /// Whether the first signal was passed to a responder, or waits for one.
        var firstTaken = false
        /// Whether the first signal waits for a responder.
        var waiting = false
        /// Whether the command handles signals itself (``leaveToCommand()``).
        var leftToCommand = false
    }

    private enum Action {
        case respond(@Sendable () -> Void)
        /// Nothing: the command handles the signal itself.
        case nothing
        /// The signal waits for a responder, ``responderGrace`` at most.
        case waitAWhile
        case endNow
    }

    private static let state = Mutex(State())

    /// How long a signal waits for the command to register what it does before the process ends anyway.
    static let responderGrace: DispatchTimeInterval = .seconds(5)

    /// Handles SIGINT and SIGTERM from now to the end of the process: for the `rederive` executable's
    /// entry point, before anything else runs.
    static func takeOver() {
        state.withLock { state in
            if state.sources.isEmpty { state.sources = makeSources() }
            state.permanent = true
        }
    }

    /// From now on, a signal before a command registers what it does waits for it: for the commands
    /// that register one, once parsed, so that they end as they would later (their store closed).
    static func deferUntilResponding() {
        state.withLock { $0.deferring = true }
    }

    /// Stops deferring: for a command that will not register a responder after all, such as `run
    /// --dry-run`. A signal that waited for one ends the process now.
    static func stopDeferring() {
        let waited = state.withLock { state -> Bool in
            state.deferring = false
            return state.waiting
        }
        if waited { endNow() }
    }

    /// Leaves SIGINT and SIGTERM to the command from now on: `watch` stops through its service group,
    /// and an isolated worker ignores them (its parent ends it by closing its input).
    static func leaveToCommand() {
        // A mounted command's handling ends with it; a later command's must not be left to this one.
        state.withLock { state in
            if state.permanent { state.leftToCommand = true }
        }
    }

    /// What the first signal does while the command runs, until ``stopResponding()``: `respond` runs
    /// on a thread of its own, at once when a signal came before.
    static func respond(with responder: @escaping @Sendable () -> Void) {
        let pending = state.withLock { state -> Bool in
            if state.sources.isEmpty { state.sources = makeSources() }
            state.responder = responder
            defer { state.waiting = false }
            return state.waiting
        }
        if pending {
            Thread.detachNewThread { responder() }
        }
    }

    /// Ends what ``respond(with:)`` registered; in an app that did not let rederive take its signals
    /// over, their default behaviour comes back.
    static func stopResponding() {
        let ended = state.withLock { state -> [any DispatchSourceSignal] in
            state.responder = nil
            guard !state.permanent else { return [] }
            state.firstTaken = false
            state.waiting = false
            state.deferring = false
            defer { state.sources = [] }
            return state.sources
        }
        guard !ended.isEmpty else { return }
        for source in ended {
            source.cancel()
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    private static func makeSources() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { received(number) }
            source.resume()
            return source
        }
    }

    private static func received(_ number: Int32) {
        let action = state.withLock { state -> Action in
            guard !state.leftToCommand else { return .nothing }
            ReceivedSignal.record(number)
            guard !state.firstTaken else { return .endNow }
            if let responder = state.responder {
                state.firstTaken = true
                return .respond(responder)
            }
            guard state.deferring else { return .endNow }
            state.firstTaken = true
            state.waiting = true
            return .waitAWhile
        }
        switch action {
        case .respond(let responder):
            // Off the signal's queue: a responder may wait for a step to finish, and a second signal must still end the process.
            Thread.detachNewThread { responder() }
        case .nothing:
            break
        case .waitAWhile:
            // A command that cannot register (its database locked by another program, say) still ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + responderGrace) {
                guard state.withLock({ $0.waiting }) else { return }
                Console.standard.errorLine("\nrederive: interrupted before the command could start its work")
                endNow()
            }
        case .endNow:
            endNow()
        }
    }

    /// Ends the process with the signal's status, leaving no temporary file behind.
    static func endNow() -> Never {
        PartialFiles.removeAll()
        _exit(ReceivedSignal.exitStatus)
    }
}

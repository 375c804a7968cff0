import Foundation
import Glibc
import Subprocess
import Synchronization
import SystemPackage

/// A child process started and reaped by swift-subprocess, driven from threads that block.
///
/// `Foundation.Process` learns that a child ended through a descriptor the child inherits, which a
/// crashing Swift program passes on to its backtracer; waiting for it can then hang. swift-subprocess
/// watches the child's process descriptor instead. It hands a running child out only inside an async
/// closure and reaps it once that closure returns: the closure is held open here until ``wait()``, so
/// that the child is never signalled after it was reaped.
package final class ChildProcess: Sendable {
    /// How a child ended.
    package enum Ending: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signaled(let signal): "signal \(signal)" + (ChildProcess.signalNames[signal].map { " (\($0)" + ")" } ?? "")
            }
        }
    }

    package let pid: pid_t
    /// What the closure holding the child is asked: `true` to send SIGKILL, `false` to let it be reaped.
    private let requests: AsyncStream<Bool>.Continuation
    private let ending = Handoff<Ending>()

    /// Starts `executable` with `arguments`, its standard input, output and error on the given
    /// descriptors (which the caller still owns and may close), and the parent's environment with
    /// `environment`'s variables set and the variables whose names `removing` picks left out.
    package init(
        executable: String, arguments: [String], input: Int32, output: Int32, error: Int32,
        environment: [String: String] = [:], removing: (String) -> Bool = { _ in false }
    ) throws(SpawnError) {
        var variables: [Environment.Key: String?] = [:]
        for name in ProcessInfo.processInfo.environment.keys where removing(name) {
            variables[Environment.Key(stringLiteral: name)] = .some(nil)
        }
        for (name, value) in environment {
            variables[Environment.Key(stringLiteral: name)] = value
        }
        let configuration = Configuration(
            executable: .path(FilePath(executable)), arguments: Arguments(arguments), environment: .inherit.updating(variables)
        )
        let (stream, requests) = AsyncStream.makeStream(of: Bool.self)
        let started = Handoff<Result<pid_t, SpawnError>>()
        let ending = ending
        ChildProcess.thread.start {
            do {
                let result = try await Subprocess.run(
                    configuration,
                    input: .fileDescriptor(FileDescriptor(rawValue: input), closeAfterSpawningProcess: false),
                    output: .fileDescriptor(FileDescriptor(rawValue: output), closeAfterSpawningProcess: false),
                    error: .fileDescriptor(FileDescriptor(rawValue: error), closeAfterSpawningProcess: false)
                ) { execution in
                    started.put(.success(execution.processIdentifier.value))
                    for await killing in stream {
                        guard killing else { break }
                        try? execution.send(signal: .kill)
                    }
                }
                switch result.terminationStatus {
                case .exited(let status): ending.put(.exited(status))
                case .signaled(let signal): ending.put(.signaled(signal))
                }
            } catch {
                if !started.put(.failure(SpawnError(description: "cannot start \(executable): \(error)"))) {
                    ending.put(.exited(-1))
                }
            }
        }
        pid = try started.take().get()
        self.requests = requests
    }

    /// Waits for the child to end and reaps it. Call once.
    package func wait() -> Ending {
        requests.yield(false)
        return ending.take()
    }

    /// Sends `SIGKILL`: the child ends at once, with no handler and no cleanup.
    package func kill() {
        requests.yield(true)
    }

    static let signalNames: [Int32: String] = [
        SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
        SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM", SIGPIPE: "SIGPIPE", SIGXCPU: "SIGXCPU",
        SIGXFSZ: "SIGXFSZ",
    ]

    /// The thread the closures holding children run on: a caller that blocks on a child, even on a
    /// thread of the cooperative pool, never waits for a thread of that pool.
    private static let thread = ProcessThread()
}

/// A value handed over once from one thread to another that blocks until it comes.
private final class Handoff<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let arrived = DispatchSemaphore(value: 0)

    /// Hands `value` over; false when one was already handed over.
    @discardableResult
    func put(_ value: Value) -> Bool {
        let first = self.value.withLock { held in
            guard held == nil else { return false }
            held = value
            return true
        }
        if first { arrived.signal() }
        return first
    }

    /// Waits for the value. Call once.
    func take() -> Value {
        arrived.wait()
        return value.withLock { $0! }
    }
}

/// One thread that runs tasks, for work that must not wait for the cooperative pool.
private final class ProcessThread: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let queued = DispatchSemaphore(value: 0)

    init() {
        Thread.detachNewThread { [self] in
            while true {
                queued.wait()
                jobs.withLock { $0.removeFirst() }.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    func enqueue(_ job: UnownedJob) {
        jobs.withLock { $0.append(job) }
        queued.signal()
    }

    /// Starts `work` as a task on this thread.
    func start(_ work: @escaping @Sendable () async -> Void) {
        Task(executorPreference: self, operation: work)
    }
}

/// A child process could not be started.
package struct SpawnError: Error, CustomStringConvertible {
    package let description: String
}

/// A pipe whose descriptors are closed on exec. swift-subprocess closes every other descriptor in a
/// child it starts, so a child gets only the ends handed to it, whichever thread spawns it.
package struct ProcessPipe: Sendable {
    package let readEnd: Int32
    package let writeEnd: Int32

    package init() throws(SpawnError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw SpawnError(description: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
    }
}

import Glibc
import Synchronization

/// A child process started with `posix_spawn` and reaped with `waitpid`.
///
/// `Foundation.Process` learns that a child ended through a descriptor the child inherits, which a
/// crashing Swift program passes on to its backtracer; waiting for it can then hang. This reaps the
/// child directly instead.
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

    /// Starts `executable` with `arguments`, its standard input, output and error on the given
    /// descriptors (which the caller still owns and may close), and the parent's environment with
    /// `environment`'s variables set and the variables whose names `removing` picks left out.
    package init(
        executable: String, arguments: [String], input: Int32, output: Int32, error: Int32,
        environment: [String: String] = [:], removing: (String) -> Bool = { _ in false }
    ) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, error, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let name = text.split(separator: "=", maxSplits: 1).first.map(String.init), environment[name] == nil, !removing(name) {
                variables.append(text)
            }
            entry += 1
        }
        variables += environment.map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    /// Waits for the child to end and reaps it. Call once.
    package func wait() -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(-1) }
        }
        // WIFEXITED / WTERMSIG, which Swift does not import as macros.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// Sends `SIGKILL`: the child ends at once, with no handler and no cleanup.
    package func kill() {
        _ = Glibc.kill(pid, SIGKILL)
    }

    static let signalNames: [Int32: String] = [
        SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
        SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM", SIGPIPE: "SIGPIPE", SIGXCPU: "SIGXCPU",
        SIGXFSZ: "SIGXFSZ",
    ]
}

/// A child process could not be started.
package struct SpawnError: Error, CustomStringConvertible {
    package let description: String
}

/// A pipe whose descriptors are closed on exec, so that only the ends handed to a child reach it.
///
/// Create pipes and spawn children under ``spawning`` so that no child starts between a pipe's
/// creation and the marking of its ends.
package struct ProcessPipe: Sendable {
    /// Held while creating pipes and spawning the children they are for.
    package static let spawning = Mutex(())

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

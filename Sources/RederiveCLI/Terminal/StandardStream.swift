import Glibc

/// Standard output or standard error, written with `write(2)`.
///
/// When the reader goes away (`rederive status | head -1`), the process ends quietly, killed by
/// SIGPIPE as other command-line tools are, with nothing on standard error. That holds when SIGPIPE
/// is ignored too, as the PostgreSQL build's networking and `run --isolate` ignore it, where
/// `FileHandle` would trap with a "Fatal error" line instead.
struct StandardStream: Sendable {
    let descriptor: Int32

    static let output = StandardStream(descriptor: STDOUT_FILENO)
    static let error = StandardStream(descriptor: STDERR_FILENO)

    /// Writes all of `text`, waiting while the descriptor is full.
    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, start + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                switch errno {
                case EINTR:
                    continue
                case EAGAIN:
                    // A descriptor inherited in non-blocking mode: wait until it takes more.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                case EPIPE:
                    Self.endForClosedPipe()
                default:
                    failed(errno)
                    return
                }
            }
        }
    }

    /// Ends the process as SIGPIPE's default action does, whatever this process made of SIGPIPE.
    private static func endForClosedPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)  // Not reached: SIGPIPE's default action ends the process.
    }

    /// Output that cannot be written (a full disk, a closed descriptor) ends the command, which says
    /// why on standard error; an error that cannot be written is dropped.
    private func failed(_ number: Int32) {
        guard descriptor != STDERR_FILENO else { return }
        StandardStream.error.write("rederive: cannot write to standard output: \(String(cString: strerror(number)))\n")
        exit(ExitStatus.failure)
    }
}

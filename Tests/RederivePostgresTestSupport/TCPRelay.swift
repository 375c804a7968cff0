import Foundation
import Glibc
import Synchronization

/// A TCP relay on loopback between a client in the test process and a server, that a test can cut
/// as one pulls a cable: while cut, no byte moves either way and no connection opens or closes on
/// the other side; once plugged back, what was held goes through, closes included. It lets a test
/// cut off a store of its own process, where network namespaces cut off whole processes. It can
/// also break every open connection at once (a reset, an end of file), and refuse new ones as a
/// stopped server does.
///
/// One thread moves the bytes of every connection (poll), whatever their number.
package final class TCPRelay: Sendable {
    /// The port clients connect to, on 127.0.0.1.
    package let port: Int
    private let target: Int
    private let listener: Int32
    private let state = Mutex(State())
    private let finished = Mutex<Bool>(false)

    private struct State {
        var cut = false
        var stopped = false
        /// Whether new connections are reset as soon as they are accepted, as a server that is down.
        var refusing = false
        /// A fault for the relay's thread to do to every open connection, once.
        var fault: Fault?
        /// How many connections the last fault was done to.
        var faulted = 0
        /// Connections the relay opened to the server, and how many of them are closed.
        var opened = 0
    }

    /// Listens on a free port of 127.0.0.1, relaying each connection to `targetPort` there.
    package init(to targetPort: Int) throws {
        // Every socket of the relay is closed on exec: a child the test spawns (psql) would otherwise
        // hold a connection open after the relay closed or reset it, until the child ends.
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listening >= 0 else { throw RelayError("cannot create a socket: errno \(errno)") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listening, $0, length) == 0 && listen(listening, 64) == 0 && getsockname(listening, $0, &length) == 0
            }
        }
        guard bound else {
            close(listening)
            throw RelayError("cannot listen on loopback: errno \(errno)")
        }
        target = targetPort
        listener = listening
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in relay() }
        thread.name = "tcp relay"
        thread.start()
    }

    /// Stops moving bytes, either way, and opening or closing connections on the other side.
    package func cut() { state.withLock { $0.cut = true } }

    /// Moves bytes again, the held ones first.
    package func reconnect() { state.withLock { $0.cut = false } }

    /// What the relay can do to every open connection, as the network or the server would.
    package enum Fault: Sendable {
        /// Both ends get a reset (RST, a close with `SO_LINGER` 0): the client's next read fails with
        /// ECONNRESET, and the server's session ends.
        case reset
        /// Both ends get an end of file (FIN), as from a server whose process went away.
        case endOfFile
    }

    /// Does `fault` to every connection open now, and waits until it is done; how many it was done to.
    @discardableResult
    package func inject(_ fault: Fault) -> Int {
        state.withLock { $0.fault = fault }
        while state.withLock({ $0.fault != nil }) { usleep(5_000) }
        return state.withLock { $0.faulted }
    }

    /// Resets every connection a client opens from now on as soon as it is accepted (while
    /// `refusing`), as a server that is down refuses them; a connection attempt fails at once.
    package func refuse(_ refusing: Bool) { state.withLock { $0.refusing = refusing } }

    /// How many connections to the server the relay has opened.
    package var connectionsOpened: Int { state.withLock { $0.opened } }

    /// Closes every connection and the listener; waits for the relay's thread to end.
    package func stop() {
        state.withLock { $0.stopped = true }
        while !finished.withLock({ $0 }) { usleep(10_000) }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// The relay's loop: accepts, connects, and copies while not cut, until stopped.
    private func relay() {
        // Each pair: the client's socket and the server's.
        var pairs: [(client: Int32, server: Int32)] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        defer {
            for pair in pairs {
                close(pair.client)
                close(pair.server)
            }
            close(listener)
            finished.withLock { $0 = true }
        }
        while true {
            let (cut, stopped, fault) = state.withLock { ($0.cut, $0.stopped, $0.fault) }
            if stopped { return }
            if let fault {
                for pair in pairs {
                    if case .reset = fault {
                        Self.resetOnClose(pair.client)
                        Self.resetOnClose(pair.server)
                    }
                    close(pair.client)
                    close(pair.server)
                }
                state.withLock { [count = pairs.count] in
                    $0.fault = nil
                    $0.faulted = count
                }
                pairs.removeAll()
            }
            if cut {
                usleep(20_000)
                continue
            }
            var polled = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            for pair in pairs {
                polled.append(pollfd(fd: pair.client, events: Int16(POLLIN), revents: 0))
                polled.append(pollfd(fd: pair.server, events: Int16(POLLIN), revents: 0))
            }
            guard poll(&polled, nfds_t(polled.count), 20) > 0 else { continue }
            // Bytes may have come before the cut: they wait for the link too.
            if state.withLock({ $0.cut }) { continue }
            var ended: Set<Int> = []
            for (index, pair) in pairs.enumerated() {
                for (from, to, slot) in [(pair.client, pair.server, 1 + 2 * index), (pair.server, pair.client, 2 + 2 * index)]
                where polled[slot].revents != 0 {
                    let count = read(from, &buffer, buffer.count)
                    if count <= 0 || !Self.writeAll(to, buffer, count) { ended.insert(index) }
                }
            }
            for index in ended.sorted(by: >) {
                // Closed on one side: closed on the other, at once, as the peer would see it.
                close(pairs[index].client)
                close(pairs[index].server)
                pairs.remove(at: index)
            }
            if polled[0].revents & Int16(POLLIN) != 0 {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                if state.withLock({ $0.refusing }) {
                    Self.resetOnClose(client)
                    close(client)
                    continue
                }
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                var address = Self.loopback(port: target)
                let connected = withUnsafeMutablePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
                if connected {
                    pairs.append((client, server))
                    state.withLock { $0.opened += 1 }
                } else {
                    close(client)
                    close(server)
                }
            }
        }
    }

    /// Makes closing `socket` send a reset rather than an end of file.
    private static func resetOnClose(_ socket: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Writes `count` bytes of `buffer` to `socket`, all of them; false when the socket is closed.
    private static func writeAll(_ socket: Int32, _ buffer: [UInt8], _ count: Int) -> Bool {
        var written = 0
        while written < count {
            let result = buffer.withUnsafeBytes { send(socket, $0.baseAddress! + written, count - written, Int32(MSG_NOSIGNAL)) }
            if result <= 0 { return false }
            written += result
        }
        return true
    }

    package struct RelayError: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }
}

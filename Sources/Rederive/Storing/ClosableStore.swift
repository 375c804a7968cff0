/// A store that holds connections or files a process must give back before it exits, so that what it
/// committed is where other programs look for it: a SQLite file whose write-ahead log is copied back
/// into the file, a server's connections closed.
///
/// The command line closes every store it opened before it exits, after an error or a signal too.
public protocol ClosableStore: Sendable {
    /// Makes what was committed durable outside any log of the store's own, where it can, and closes
    /// the store's connections. Nothing can be done with the store afterwards; closing twice does nothing.
    func close() async
}

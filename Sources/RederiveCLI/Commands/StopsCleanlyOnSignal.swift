/// A command that stops cleanly on SIGINT or SIGTERM once it has started its work (``SignalCancellation``):
/// a signal that comes while it starts (opening its store, preparing its tables) waits for that
/// handling rather than ending the process with its store open (``ProcessSignals``).
protocol StopsCleanlyOnSignal {}

extension RunCommand: StopsCleanlyOnSignal {}
extension ImportCommand: StopsCleanlyOnSignal {}
extension ExportCommand: StopsCleanlyOnSignal {}

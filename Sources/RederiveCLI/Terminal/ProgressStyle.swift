import ArgumentParser
import Rederive

/// How `run` shows progress.
enum ProgressStyle: String, CaseIterable, ExpressibleByArgument {
    /// A bar on a terminal, plain lines otherwise.
    case auto
    case bar
    case plain
    case json
    case none

    func reporter(console: Console) -> any ProgressReporter {
        switch self {
        case .auto: console.isTerminal ? ProgressBar(console: console) : PlainProgress(console: console)
        case .bar: ProgressBar(console: console)
        case .plain: PlainProgress(console: console)
        case .json: JSONLinesProgress(console: console)
        case .none: NoProgress()
        }
    }
}

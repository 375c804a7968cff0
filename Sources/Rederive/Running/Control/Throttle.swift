/// A signal of the database's health (or the app's) that holds a run's claims while it says so:
/// replica lag, a growing write-ahead log, a maintenance flag, anything an app can measure.
///
/// A run checks each of its throttles (``Runner/Configuration/throttles``) every ``interval``. While
/// one holds, the run's workers claim nothing: they derive and commit what they had claimed, and
/// wait, keeping their lease, so the run resumes with its counts when every throttle is clear. While
/// it holds, the check backs off: its interval doubles, up to ``maximumInterval``. Each hold's start
/// and end is logged once, at notice level, with how long it held; `rederive status` names the
/// throttle that holds.
///
/// ```swift
/// var configuration = Runner.Configuration(parallelism: 4)
/// configuration.throttles = [
///     Throttle(name: "peak hours", every: .seconds(30)) {
///         Calendar.current.component(.hour, from: Date()) >= 18 ? "between 18:00 and 24:00" : nil
///     },
/// ]
/// ```
///
/// A check that throws holds the claims too, with the error as its reason, until a check succeeds:
/// a run that cannot tell whether the database is healthy does not load it.
public struct Throttle: Sendable {
    /// Names the throttle in `status`, in logs, and in the hold's reason.
    public var name: String
    /// How often it is checked while it is clear.
    public var interval: Duration
    /// The longest the checks back off to while it holds.
    public var maximumInterval: Duration
    /// Says why the claims must wait now, or nil when they may go on.
    public var check: @Sendable () async throws -> String?

    /// A throttle checked every `interval` (backing off to 4 times that while it holds) by `check`,
    /// which returns why claims must wait now, or nil when they may go on.
    public init(name: String, every interval: Duration = .seconds(5), check: @escaping @Sendable () async throws -> String?) {
        self.name = name
        self.interval = interval
        self.maximumInterval = interval * 4
        self.check = check
    }

    /// The shortest and longest interval a throttle may be checked at.
    package static let intervals: ClosedRange<Duration> = .milliseconds(100) ... .seconds(3600)

    /// Throws when the intervals are out of ``intervals`` or the maximum below the interval.
    package func validate() throws(RederiveError) {
        guard Self.intervals.contains(interval), Self.intervals.contains(maximumInterval), maximumInterval >= interval else {
            throw RederiveError(
                .invalidArgument,
                "throttle \"\(name)\" must be checked every 0.1 to 3,600 seconds, backing off to no less than that interval"
            )
        }
    }
}

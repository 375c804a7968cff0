/// The exit statuses rederive documents.
public enum ExitStatus {
    /// Everything worked.
    public static let success: Int32 = 0
    /// A fatal error: the command could not do its job. One line on standard error says why.
    public static let failure: Int32 = 1
    /// The command finished, but some records or files failed; they are reported.
    public static let someFailed: Int32 = 3
    /// `verify` found stored values that differ from what the processors produce now.
    public static let mismatch: Int32 = 4
    /// `run` ended by `rederive cancel`: what it committed stays, and can be rolled back.
    public static let cancelled: Int32 = 5
    /// `run --no-wait` or `run --wait` found another process holding the database's lease, with
    /// records stale: nothing was derived; try again later (`EX_TEMPFAIL`).
    public static let busy: Int32 = 75
    /// Bad arguments (ArgumentParser's usage error status).
    public static let usage: Int32 = 64
    /// `run` or `watch` found the database out of reach for longer than `--outage-limit`: what was
    /// committed stays, and the next run resumes (`EX_UNAVAILABLE`).
    public static let unavailable: Int32 = 69
    /// Interrupted by SIGINT; what was committed stays, the next run resumes.
    public static let interrupted: Int32 = 130
    /// The reader of standard output closed the pipe: ended by SIGPIPE, as other tools are.
    public static let closedPipe: Int32 = 141
    /// Ended by SIGTERM; as ``interrupted``, what was committed stays.
    public static let terminated: Int32 = 143

    /// Every status the README's table lists, in its order.
    public static let documented: [Int32] = [success, failure, someFailed, mismatch, cancelled, usage, unavailable, busy, interrupted, closedPipe, terminated]
}

import Rederive
import Synchronization

/// What one check expects, recorded as it goes: a failed expectation is noted and the check goes on,
/// a failed requirement ends it. ``StoreCheck/run(_:)`` throws every note at the end, in one
/// ``StoreCheckFailure``. Each note says where in the suite it was made and what differed.
final class Expectations: Sendable {
    private let notes = Mutex<[String]>([])

    /// What was noted, in order.
    var failures: [String] { notes.withLock { $0 } }

    /// Notes a failure at `file`:`line`.
    func record(_ message: String, file: String = #fileID, line: Int = #line) {
        let place = file.split(separator: "/").last.map(String.init) ?? file
        notes.withLock { $0.append("\(place):\(line): \(message)") }
    }

    /// Expects `condition`, the expression `code`, to hold.
    func callAsFunction(
        _ condition: Bool, _ code: String, _ comment: @autoclosure () -> String = "",
        file: String = #fileID, line: Int = #line
    ) {
        guard !condition else { return }
        record(Self.message("expected \(code)", comment()), file: file, line: line)
    }

    /// Expects `actual`, the expression `code`, to equal `expected`.
    func equal<Value: Equatable>(
        _ actual: Value, _ expected: Value, _ code: String, _ comment: @autoclosure () -> String = "",
        file: String = #fileID, line: Int = #line
    ) {
        guard actual != expected else { return }
        record(
            Self.message("\(code): expected \(Self.describe(expected)), got \(Self.describe(actual))", comment()),
            file: file, line: line
        )
    }

    /// Requires `value`, the expression `code`, to be present, ending the check otherwise.
    func require<Value>(
        _ value: Value?, _ code: String, _ comment: @autoclosure () -> String = "",
        file: String = #fileID, line: Int = #line
    ) throws -> Value {
        guard let value else {
            record(Self.message("required \(code), got nil", comment()), file: file, line: line)
            throw RequirementFailed()
        }
        return value
    }

    /// Requires `condition`, the expression `code`, to hold, ending the check otherwise.
    func require(
        _ condition: Bool, _ code: String, _ comment: @autoclosure () -> String = "",
        file: String = #fileID, line: Int = #line
    ) throws {
        guard condition else {
            record(Self.message("required \(code)", comment()), file: file, line: line)
            throw RequirementFailed()
        }
    }

    /// Expects `body` to throw a `RederiveError`, and returns it; nil, noted, when it throws nothing
    /// or another error.
    func throwsRederiveError(
        file: String = #fileID, line: Int = #line, _ body: () async throws -> Void
    ) async -> RederiveError? {
        do {
            try await body()
            record("expected a RederiveError, and nothing was thrown", file: file, line: line)
        } catch let error as RederiveError {
            return error
        } catch {
            record("expected a RederiveError, got \(type(of: error)): \(error)", file: file, line: line)
        }
        return nil
    }

    private static func message(_ text: String, _ comment: String) -> String {
        comment.isEmpty ? text : "\(text) (\(comment))"
    }

    /// The value as `String(describing:)` has it, an optional's without "Optional(…)" around it.
    private static func describe<Value>(_ value: Value) -> String {
        (value as? any OptionalDescribing)?.wrappedDescription ?? String(describing: value)
    }
}

/// An optional, described by what it wraps.
private protocol OptionalDescribing {
    var wrappedDescription: String { get }
}

extension Optional: OptionalDescribing {
    fileprivate var wrappedDescription: String {
        switch self {
        case .some(let value): String(describing: value)
        case .none: "nil"
        }
    }
}

/// Thrown by a failed requirement, after it was noted: ends the check without a note of its own.
struct RequirementFailed: Error {}

/// One behaviour every store has, checked on a fresh store: a value of ``StoreConformance/checks``.
public struct StoreCheck: Sendable, CustomStringConvertible {
    /// What the check covers, as the checks are grouped: "claims, leases and fencing", "staleness"…
    public let area: String
    /// The check's name, unique within the suite: what it holds a store to, in camel case.
    public let name: String
    /// What the store must offer beyond a run for this check to apply; nil for what every store does.
    public let capability: StoreCapability?
    private let body: @Sendable (CheckedFixture, Expectations) async throws -> Void

    /// `area: name`, as test reports show it.
    public var description: String { "\(area): \(name)" }

    init(
        _ area: String, needs capability: StoreCapability? = nil, _ name: String,
        _ body: @escaping @Sendable (CheckedFixture, Expectations) async throws -> Void
    ) {
        self.area = area
        self.name = name
        self.capability = capability
        self.body = body
    }

    /// Runs the check on `fixture`, which must be fresh; the caller closes it afterwards.
    ///
    /// - Throws: ``StoreCheckFailure`` naming the check and each difference it found, or what the
    ///   store threw, with what differed before it.
    public func run(_ fixture: StoreFixture) async throws {
        let expect = Expectations()
        var thrown: (any Error)?
        do {
            try await body(CheckedFixture(fixture, expect), expect)
        } catch is RequirementFailed {
            // Noted already.
        } catch {
            thrown = error
        }
        let failures = expect.failures
        guard failures.isEmpty && thrown == nil else {
            throw StoreCheckFailure(check: description, differences: failures, error: thrown)
        }
    }

    /// Runs the check on a fixture that `make` makes for it, and closes that fixture afterwards.
    public func run(making make: () async throws -> StoreFixture) async throws {
        let fixture = try await make()
        do {
            try await run(fixture)
        } catch {
            await fixture.close()
            throw error
        }
        await fixture.close()
    }
}

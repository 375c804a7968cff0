import Rederive
import Synchronization

/// A floor plan, as each record of table `plans` stores it: `{"label": "hall", "width": 3, "depth": 4}`.
package struct FloorPlan: Decodable, Sendable {
    package let label: String
    package let width: Double
    package let depth: Double
}

/// How often each processor's closure ran, to prove what a run did not derive.
package final class DeriveCalls: Sendable {
    package let area = Atomic<Int>(0)
    package let label = Atomic<Int>(0)
    package let kind = Atomic<Int>(0)
}

/// Pipeline `plans` over table `plans (id, key, payload)`: `area` and `label` derive from the payload,
/// `kind` from their values alone, as `"<label>-large"` for 20 m² and more, else `"<label>-small"`.
package struct FloorPipeline {
    /// `area` is width × depth at version 1, twice that at 2, and at 3 the same as at 2, computed otherwise.
    package var areaVersion: Int
    package var labelVersion: Int
    /// A label the `label` processor throws for.
    package var rejectedLabel: String?
    /// `kind` is lowercase at version 1, uppercase at 2.
    package var kindVersion: Int
    /// Where the derived columns go: the companion table `plans_derived` when nil.
    package var layout: Pipeline.Layout?
    package let calls = DeriveCalls()

    package init(
        areaVersion: Int = 1,
        labelVersion: Int = 1,
        rejectedLabel: String? = nil,
        kindVersion: Int = 1,
        layout: Pipeline.Layout? = nil
    ) {
        self.areaVersion = areaVersion
        self.labelVersion = labelVersion
        self.rejectedLabel = rejectedLabel
        self.kindVersion = kindVersion
        self.layout = layout
    }

    package struct Rejected: Error, CustomStringConvertible {
        package let label: String
        package var description: String { "label \(label) is rejected" }
    }

    package var pipeline: Pipeline {
        let (calls, areaVersion, rejectedLabel, kindVersion) = (calls, areaVersion, rejectedLabel, kindVersion)
        let area = Processor<FloorPlan>.real("area", version: areaVersion) { plan in
            calls.area.add(1, ordering: .relaxed)
            switch areaVersion {
            case 1: return plan.width * plan.depth
            case 2: return plan.width * plan.depth * 2
            default: return 2 * plan.depth * plan.width
            }
        }
        let label = Processor<FloorPlan>.text("label", version: labelVersion) { plan in
            calls.label.add(1, ordering: .relaxed)
            if plan.label == rejectedLabel { throw Rejected(label: plan.label) }
            return plan.label
        }
        let kind = Processor<FloorPlan>.text("kind", version: kindVersion, from: area.real, label.text) { area, label in
            calls.kind.add(1, ordering: .relaxed)
            let kind = "\(label ?? "?")-\((area ?? 0) >= 20 ? "large" : "small")"
            return kindVersion == 1 ? kind : kind.uppercased()
        }
        return Pipeline(
            name: "plans", table: "plans", keyColumn: "key", layout: layout, decoding: FloorPlan.self, processors: [area, label, kind]
        )
    }
}

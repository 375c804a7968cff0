#if PostgreSQL
import Foundation

/// The plans `auto_explain` sent as notices (`log_level = notice`, `log_format = json`) in a psql
/// session's output, nested statements included: what the server actually ran, trigger statements too.
package struct ExplainedPlan {
    package let query: String
    package let root: Node

    /// One node of a plan, with what `log_analyze` adds when it is on.
    package struct Node {
        package let type: String
        package let relation: String?
        package let actualRows: Int?
        package let children: [Node]

        package init(_ object: [String: Any]) {
            type = object["Node Type"] as? String ?? ""
            relation = object["Relation Name"] as? String
            actualRows = (object["Actual Rows"] as? NSNumber)?.intValue
            children = (object["Plans"] as? [[String: Any]] ?? []).map(Node.init)
        }

        /// This node and every node below it.
        package var all: [Node] { [self] + children.flatMap(\.all) }

        /// The scans this node reads from: its leaves.
        package var leaves: [Node] { children.isEmpty ? [self] : children.flatMap(\.leaves) }
    }

    /// Every plan in `output`, in the order the server ran their statements.
    package static func all(in output: String) -> [ExplainedPlan] {
        output.components(separatedBy: "NOTICE:").dropFirst().compactMap { notice in
            guard let start = notice.firstIndex(of: "{"), let end = notice.lastIndex(of: "}"),
                  let object = try? JSONSerialization.jsonObject(with: Data(notice[start...end].utf8)) as? [String: Any],
                  let plan = object["Plan"] as? [String: Any]
            else { return nil }
            return ExplainedPlan(query: object["Query Text"] as? String ?? "", root: Node(plan))
        }
    }

    /// The rows the statement's transition tables (named tuplestores) held, the most of them.
    package var transitionRows: Int {
        root.all.filter { $0.type == "Named Tuplestore Scan" }.compactMap(\.actualRows).max() ?? 0
    }

    /// A nested loop whose both sides read transition tables only: it compares every row of one with
    /// every row of the other.
    package var joinsTransitionTablesByNestedLoop: Bool {
        root.all.contains { node in
            node.type == "Nested Loop" && node.children.count == 2
                && node.children.allSatisfy { side in side.leaves.allSatisfy { $0.type == "Named Tuplestore Scan" } }
        }
    }

    /// Whether the plan reads the whole of `table`.
    package func scansAll(of table: String) -> Bool {
        root.all.contains { $0.type == "Seq Scan" && $0.relation == table }
    }
}
#endif

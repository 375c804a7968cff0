import Foundation
import Rederive

/// Writing an HTML report where the user asked: whole or not at all, with an error naming the path.
enum ReportFile {
    static func write(_ html: String, to path: String) throws {
        do {
            try html.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw RederiveError(.file, "cannot write the report to \(path): \((error as NSError).localizedDescription)")
        }
    }
}

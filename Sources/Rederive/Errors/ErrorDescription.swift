/// A one-line description of an error for failure reports, with the coding path of decoding errors.
func describe(_ error: any Error) -> String {
    if let decodingError = error as? DecodingError {
        return describe(decodingError)
    }
    return String(describing: error)
}

private func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
        let components = context.codingPath.map { key in
            key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
        }
        return components.isEmpty ? "at top level" : "at " + components.joined().trimmingPrefix(".")
    }
    switch error {
    case .typeMismatch(let type, let context):
        return "expected \(type) \(path(context)): \(context.debugDescription)"
    case .valueNotFound(let type, let context):
        return "missing \(type) value \(path(context)): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
        return "missing key \"\(key.stringValue)\" \(path(context))"
    case .dataCorrupted(let context):
        let underlying = (context.underlyingError).map { ": \($0)" } ?? ""
        return "invalid data \(path(context)): \(context.debugDescription)\(underlying)"
    @unknown default:
        return String(describing: error)
    }
}

/// How a pipeline's processors depend on one another: each processor's inputs and dependents by
/// index, and an order in which every processor comes after its inputs.
///
/// Built leniently from any list of processors, so that a pipeline can always be constructed;
/// ``problem(in:)`` names what registration rejects: unknown inputs, mistyped columns and cycles.
struct ProcessorGraph: Sendable {
    /// Per processor, the indices of the processors it reads, each once.
    let inputs: [[Int]]
    /// Per processor, the indices of the processors that read it.
    let dependents: [[Int]]
    /// Every processor after its inputs; processors on a cycle come last, in index order.
    let order: [Int]

    init(_ processors: [ProcessorDescriptor]) {
        let index = Dictionary(processors.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        inputs = processors.map { processor in processor.inputProcessors.compactMap { index[$0] } }
        var dependents = Array(repeating: [Int](), count: processors.count)
        for (reader, read) in inputs.enumerated() {
            for input in read { dependents[input].append(reader) }
        }
        self.dependents = dependents
        // Kahn's algorithm, taking the lowest ready index first so that the order is stable.
        var waiting = inputs.map(\.count)
        var ready = processors.indices.filter { waiting[$0] == 0 }
        var order: [Int] = []
        while let next = ready.min() {
            ready.removeAll { $0 == next }
            order.append(next)
            for dependent in dependents[next] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.append(dependent) }
            }
        }
        self.order = order + processors.indices.filter { !order.contains($0) }
    }

    /// Whether any processor derives from another.
    var hasDependencies: Bool { inputs.contains { !$0.isEmpty } }

    /// `processors` and every processor they read, directly or not.
    func upstream(of processors: [Int]) -> Set<Int> {
        closure(of: processors, along: inputs)
    }

    /// `processors` and every processor that reads them, directly or not.
    func downstream(of processors: [Int]) -> Set<Int> {
        closure(of: processors, along: dependents)
    }

    private func closure(of start: [Int], along edges: [[Int]]) -> Set<Int> {
        var reached = Set(start)
        var frontier = start
        while let next = frontier.popLast() {
            for neighbour in edges[next] where reached.insert(neighbour).inserted {
                frontier.append(neighbour)
            }
        }
        return reached
    }

    /// What registration rejects in a pipeline's inputs, or nil: an input that is not a processor of
    /// the pipeline, a column it does not have or has with another type, a processor reading itself,
    /// and a cycle, named processor by processor.
    static func problem(in pipeline: Pipeline) -> String? {
        let processors = pipeline.processors
        let byName = Dictionary(processors.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for processor in processors {
            for input in processor.inputs {
                guard let source = byName[input.processor] else {
                    return "processor \"\(processor.name)\" reads processor \"\(input.processor)\", which is not a processor of pipeline \"\(pipeline.name)\"; inputs must come from the same pipeline"
                }
                if source.name == processor.name {
                    return "processor \"\(processor.name)\" reads its own column \"\(input.column)\""
                }
                guard let index = input.index, index < source.columns.count, source.columns[index].name == input.column else {
                    let columns = source.columns.map(\.name)
                    return "processor \"\(processor.name)\" reads column \"\(input.column)\" of processor \"\(source.name)\", whose columns are \(columns.joined(separator: ", ")); a processor of several columns is read by naming one, as in \(source.name).real(\"\(columns.first ?? "")\")"
                }
                let column = source.columns[index]
                guard column.type == input.type else {
                    return "processor \"\(processor.name)\" reads column \"\(column.name)\" of processor \"\(source.name)\" as \(input.type.description), but it is \(column.type.description)"
                }
            }
        }
        return cycle(in: processors).map { names in
            "processors of pipeline \"\(pipeline.name)\" derive from each other in a cycle, each reading the next: \(names.joined(separator: " → "))"
        }
    }

    /// The names along one cycle, the first repeated at the end, or nil when there is none.
    private static func cycle(in processors: [ProcessorDescriptor]) -> [String]? {
        let graph = ProcessorGraph(processors)
        var state = Array(repeating: 0, count: processors.count)  // 0 unvisited, 1 on the path, 2 done
        var path: [Int] = []
        func visit(_ node: Int) -> [String]? {
            state[node] = 1
            path.append(node)
            for next in graph.inputs[node] {
                if state[next] == 1, let start = path.firstIndex(of: next) {
                    return (path[start...] + [next]).map { processors[$0].name }
                }
                if state[next] == 0, let found = visit(next) { return found }
            }
            path.removeLast()
            state[node] = 2
            return nil
        }
        for node in processors.indices where state[node] == 0 {
            if let found = visit(node) { return found }
        }
        return nil
    }
}

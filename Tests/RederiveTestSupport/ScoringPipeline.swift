import Rederive

/// A pipeline over table `table (id, key, payload)` with one processor named `score`: the sum of a
/// sample's values times `factor`; throws for the label "explode". Pipelines made by it share that
/// processor name, as two apps' pipelines on one database may.
package func scoringPipeline(_ name: String, table: String, version: Int = 1, factor: Double) -> Pipeline {
    let score = Processor<Sample>(name: "score", version: version, columns: [.real("score")]) { sample in
        if sample.label == "explode" { throw TestPipeline.Explosion() }
        return [.real(sample.values.reduce(0, +) * factor)]
    }
    return Pipeline(name: name, table: table, keyColumn: "key", decoding: Sample.self, processors: [score])
}

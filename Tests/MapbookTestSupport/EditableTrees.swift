/// A small project with an editable layer (issue 19): three trees as GeoJSON, their condition
/// from a list (default Good), their trunk diameter in a range, edit tracking on. The editing
/// tests build it with the packager or with `mapbook create`.
public enum EditableTrees {
    /// Writes `trees.geojson` and `project.yaml` into `dir`; returns the project's path.
    /// `conflicts` sets the layer's conflict policy (`last_sync_wins` when nil); `related`
    /// adds an inspections table related to the trees, and attachments (at most 1 MB each);
    /// `labels`, the map layer's `labels` (a YAML list).
    @discardableResult
    public static func write(in dir: String, conflicts: String? = nil, related: Bool = false, labels: String? = nil) throws -> String {
        if related { try writeFile(dir + "/inspections.csv", "tree_globalid,inspected,result\n") }
        let relatedKeys = related ? "\n      related: { inspections: { key: tree_globalid } }\n      attachments: { max_size_mb: 1 }" : ""
        let inspections = related ? """

              inspections:
                path: inspections.csv
                geometry: none
                edit: { fields: { result: { domain: [Healthy, Prune, Remove], required: true } } }
            """ : ""
        try writeFile(dir + "/trees.geojson", #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"common":"oak","dbh":10.5,"condition":"Good"},"geometry":{"type":"Point","coordinates":[-122.60,45.50]}},
            {"type":"Feature","properties":{"common":"elm","dbh":7.0,"condition":"Fair"},"geometry":{"type":"Point","coordinates":[-122.61,45.51]}},
            {"type":"Feature","properties":{"common":"ash","dbh":3.2,"condition":"Poor"},"geometry":{"type":"Point","coordinates":[-122.62,45.52]}}]}
            """#)
        try writeFile(dir + "/project.yaml", """
            title: Trees
            sources:
              trees:
                path: trees.geojson
                title: Street Trees
                edit:
                  fields:
                    condition: { domain: [Good, Fair, Poor, Dead], required: true, default: Good }
                    dbh: { range: [0, 300] }
                  tracking: true\(conflicts.map { "\n      conflicts: \($0)" } ?? "")\(relatedKeys)\(inspections)
            maps:
              - name: Trees
                layers: [\(labels.map { "{ source: trees, labels: \($0) }" } ?? "trees")]
            """)
        return dir + "/project.yaml"
    }
}

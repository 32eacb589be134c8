import MapbookPackager
import MapbookTestSupport

/// The packages the viewer's tests open, built with the packager.
enum TestMaps {
    /// The Naperville sample (three maps, a locator, a street network), built once for the run.
    static let naperville: Result<String, any Error> = Result {
        let dir = try NapervilleSample.project()
        _ = try Packager.build(try Project.load(path: dir.path + "/project.yaml"), output: dir.path + "/n.mmpk", timestamp: 1_767_225_600)
        return dir.path + "/n.mmpk"
    }

    /// `EditableTrees`' package: three trees in an editable layer.
    static func editableTrees(in dir: String) throws -> String {
        let project = try EditableTrees.write(in: dir)
        _ = try Packager.build(try Project.load(path: project), output: dir + "/trees.mmpk", timestamp: 1_700_000_000)
        return dir + "/trees.mmpk"
    }

    /// A package of one map over trees (editable, labelled with their names), stumps (not
    /// editable), a park and a path, with the project's `expiration` when given; returns its path.
    static func trees(in dir: String, expiration: String? = nil) throws -> String {
        try writeFile(dir + "/trees.geojson", #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"common":"oak","condition":"Good"},"geometry":{"type":"Point","coordinates":[-122.60,45.50]}},
            {"type":"Feature","properties":{"common":"elm","condition":"Fair"},"geometry":{"type":"Point","coordinates":[-122.61,45.52]}},
            {"type":"Feature","properties":{"common":"ash","condition":"Poor"},"geometry":{"type":"Point","coordinates":[-122.62,45.50]}}]}
            """#)
        try writeFile(dir + "/stumps.geojson", #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"note":"old stump"},"geometry":{"type":"Point","coordinates":[-122.60,45.50]}}]}
            """#)
        try writeFile(dir + "/park.geojson", #"""
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Laurelhurst"},"geometry":{"type":"Polygon",
            "coordinates":[[[-122.628,45.505],[-122.612,45.505],[-122.612,45.525],[-122.628,45.525],[-122.628,45.505]]]}}]}
            """#)
        try writeFile(dir + "/paths.geojson", #"""
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Trail"},"geometry":{"type":"LineString",
            "coordinates":[[-122.63,45.49],[-122.605,45.51],[-122.59,45.53]]}}]}
            """#)
        try writeFile(dir + "/project.yaml", """
            title: Screen Test
            \(expiration.map { "expiration: \($0)" } ?? "")
            sources:
              trees:
                path: trees.geojson
                title: Street Trees
                edit: { fields: { condition: { domain: [Good, Fair, Poor, Dead] } } }
              stumps: { path: stumps.geojson, title: Stumps }
              park: { path: park.geojson, title: Park }
              paths: { path: paths.geojson, title: Paths }
            maps:
              - name: Trees
                layers:
                  - park
                  - paths
                  - stumps
                  - source: trees
                    labels: [ { field: common } ]
            """)
        _ = try Packager.build(try Project.load(path: dir + "/project.yaml"), output: dir + "/trees.mmpk", timestamp: 1_767_225_600)
        return dir + "/trees.mmpk"
    }
}

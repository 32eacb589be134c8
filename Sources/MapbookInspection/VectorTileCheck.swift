import MapbookPackage
import MapbookTiles

/// Every tile of a vector tile package decoded with the MVT 2.1 checks (`VectorTileDecoder`),
/// for `validate`: one finding per tile that breaks the specification, naming the tile and its
/// first bad layer and feature, with how many more there are.
enum VectorTileCheck {
    static func findings(_ tiles: TilePackage, entry: String?) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        let reader: VectorTilePackageReader
        do {
            reader = try VectorTilePackageReader(package: tiles)
        } catch {
            return [Diagnostic(.error, "tiles.invalid", entry: entry, error.message)]
        }
        let decoder = VectorTileDecoder()
        // Polygons whose rings all collapsed draw nothing and every reader skips them: counted
        // for one note, not reported as broken tiles.
        var degenerate = 0
        var degenerateTiles = 0
        var firstDegenerate: MVTError?
        do throws(TileArchiveError) {
            try reader.forEachTile { coordinate, bytes in
                let source = "tile \(coordinate)"
                do throws(MVTError) {
                    let warnings = try decoder.decode(bytes, source: source).warnings
                    let collapsed = warnings.filter { $0.kind == .degeneratePolygon }
                    if !collapsed.isEmpty {
                        degenerate += collapsed.count
                        degenerateTiles += 1
                        if firstDegenerate == nil { firstDegenerate = collapsed[0] }
                    }
                    if let summary = MVTError.summary(warnings.filter { $0.kind != .degeneratePolygon }) {
                        findings.append(Diagnostic(.error, "tiles.mvt", entry: entry, summary))
                    }
                } catch {
                    findings.append(Diagnostic(.error, "tiles.mvt", entry: entry, "\(error)"))
                }
            }
        } catch {
            findings.append(Diagnostic(.error, "tiles.invalid", entry: entry, error.message))
        }
        if let firstDegenerate {
            findings.append(Diagnostic(
                .note, "tiles.degenerate", entry: entry,
                "\(degenerate) polygon\(degenerate == 1 ? "" : "s") in \(degenerateTiles) tile\(degenerateTiles == 1 ? "" : "s") \(degenerate == 1 ? "has" : "have") no ring with an area (collapsed at low zooms) and draw nothing; readers skip them, as MapLibre and GDAL do. The first: \(firstDegenerate)"))
        }
        return findings
    }
}

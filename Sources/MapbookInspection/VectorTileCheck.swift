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
        do throws(TileArchiveError) {
            try reader.forEachTile { coordinate, bytes in
                let source = "tile \(coordinate)"
                do throws(MVTError) {
                    if let summary = MVTError.summary(try decoder.decode(bytes, source: source).warnings) {
                        findings.append(Diagnostic(.error, "tiles.mvt", entry: entry, summary))
                    }
                } catch {
                    findings.append(Diagnostic(.error, "tiles.mvt", entry: entry, "\(error)"))
                }
            }
        } catch {
            findings.append(Diagnostic(.error, "tiles.invalid", entry: entry, error.message))
        }
        return findings
    }
}

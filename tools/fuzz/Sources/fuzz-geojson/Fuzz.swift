import FuzzSupport
import MapbookData

/// A GeoJSON file read as an import reads it: the schema scan, then every feature.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzInput.write(Array(UnsafeBufferPointer(start: data, count: size)), to: "input.geojson")
    guard let reader = try? GeoJSONReader(path: path) else { return 0 }
    while let feature = try? reader.next() { _ = feature }
    return 0
}

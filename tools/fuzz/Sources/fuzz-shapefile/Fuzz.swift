import FuzzSupport
import MapbookData

/// A shapefile: its .shp, .shx and .dbf (the input's three parts, tools/fuzz/seeds.py), the
/// header, every record's shape and the attributes in the DBF's encoding.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let parts = FuzzInput.parts(UnsafeBufferPointer(start: data, count: size), count: 3)
    let path = FuzzInput.write(parts[0], to: "input.shp")
    for (part, ext) in zip(parts.dropFirst(), ["shx", "dbf"]) {
        if part.isEmpty { FuzzInput.remove("input.\(ext)") } else { FuzzInput.write(part, to: "input.\(ext)") }
    }
    guard let reader = try? ShapefileReader(path: path) else { return 0 }
    while let feature = try? reader.next() { _ = feature }
    return 0
}

import FuzzSupport
import MapbookInspection

/// A whole package from a stranger: the ZIP's central directory and entries, the manifest,
/// item info, maps, and everything `validate` reads (hashes, GeoPackage, tiles, locators).
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzInput.write(Array(UnsafeBufferPointer(start: data, count: size)), to: "input.mmpk")
    _ = try? PackageInspector.inspect(path: path)
    _ = PackageCheck.validate(path: path)
    return 0
}

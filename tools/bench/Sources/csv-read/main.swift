// Reads a CSV file through `CSVReader` and prints what GDAL's `ogrinfo -al -so` prints: the
// feature count, the geometry type, the extent and the fields. For timing against GDAL.
//
//   csv-read FILE [x y | geometry COLUMN]
import MapbookData

#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// Reads the file; a function, not top-level code, so its variables are locals.
func run() -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else {
        print("usage: csv-read FILE [x y | geometry COLUMN]")
        return 64
    }
    var options = CSVOptions()
    if arguments.count == 4, arguments[2] == "geometry" {
        options.geometry = arguments[3]
    } else if arguments.count == 4 {
        options.x = arguments[2]
        options.y = arguments[3]
    }
    do {
        let reader = try CSVReader(path: arguments[1], options: options)
        var count = 0
        var extent = BoundingBox.empty
        var nonNull = 0
        while let feature = try reader.next() {
            count += 1
            if let e = feature.geometry?.envelope { extent.include(e) }
            nonNull += feature.values.reduce(0) { $0 + ($1 == .null ? 0 : 1) }
        }
        print("Geometry: \(reader.schema.geometryType?.gpkgName ?? "None")")
        print("Feature Count: \(count)")
        print("Extent: (\(extent.minX), \(extent.minY)) - (\(extent.maxX), \(extent.maxY))")
        for field in reader.schema.fields { print("\(field.name): \(field.type.rawValue)") }
        print("non-null values: \(nonNull)")
        for line in reader.report.lines { print(line) }
    } catch {
        print("csv-read: \(error)")
        return 1
    }
    return 0
}

exit(run())

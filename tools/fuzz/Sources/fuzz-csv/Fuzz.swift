import FuzzSupport
import MapbookData

/// A CSV file as an import reads it without options: delimiter, types and geometry columns
/// inferred from a first pass, then every row.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzInput.write(Array(UnsafeBufferPointer(start: data, count: size)), to: "input.csv")
    guard let reader = try? CSVReader(path: path) else { return 0 }
    while let feature = try? reader.next() { _ = feature }
    return 0
}

import FuzzSupport
import MapbookPackager

/// A project file, YAML or JSON (JSON is read as the YAML it is), checked key by key.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Project.load refuses text that is not UTF-8 before parsing.
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    _ = try? Project.parse(text, file: FuzzInput.folder + "/project.yaml")
    return 0
}

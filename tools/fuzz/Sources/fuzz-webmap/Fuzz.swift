import FuzzSupport
import MapbookPackage
import MapbookSupport

/// A map of a package (`.mmap`, or a bare web map): parsed, every layer's renderer, symbols,
/// pop-up and labels read, and written back as the model writes it.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let map = try? MobileMap.parse(bytes, path: "fuzz.mmap") else { return 0 }
    for top in map.map.operationalLayers ?? [] {
        for (layer, _) in top.flattened() {
            _ = layer.dataPath
            if let renderer = layer.layerDefinition?.drawingInfo?.renderer {
                _ = renderer.fields
                let classes = RendererClasses(renderer)
                _ = classes.legend
                for value: JSONValue in [.null, .integer(3), .number(12.5), .string("Cast Iron"), .string("<Null>")] {
                    _ = classes.symbol { _ in value }
                }
            }
            for label in layer.layerDefinition?.drawingInfo?.labelClasses ?? [] { _ = label.fields }
            _ = layer.popupInfo?.fieldInfos
        }
    }
    _ = map.json
    return 0
}

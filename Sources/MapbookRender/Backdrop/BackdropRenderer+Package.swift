import MapbookPackage
import MapbookSupport
import MapbookTiles

/// A vector tile package's tiles, style and sprite, read in place.
extension BackdropRenderer {
    /// The renderer for a tile package: its tiles, `resources/styles/root.json` beside its
    /// root and the sprite the style names (1x; a missing sprite draws labels without icons).
    public static func open(_ package: TilePackage) throws -> BackdropRenderer {
        let reader = try VectorTilePackageReader(package: package)
        let folder = FileSystem.parent(of: package.rootEntryName)
        let prefix = folder == "." || folder.isEmpty ? "" : folder + "/"
        let archive = package.archive
        guard let styleEntry = archive.entry(named: prefix + "resources/styles/root.json") else {
            throw PackageFormatError(kind: .missingEntry, path: archive.displayPath, message: "no style (\(prefix)resources/styles/root.json)")
        }
        let style = try JSONParser.parseObject(try archive.read(styleEntry, limit: 64 << 20), path: "\(archive.displayPath)[\(styleEntry.name)]", expecting: "a MapLibre style")
        let renderer = BackdropRenderer(archive: reader, style: style)
        if let sprite = style.string("sprite") {
            // Relative to the style's folder: "../sprites/sprite".
            var parts = (prefix + "resources/styles").split(separator: "/").map(String.init)
            for part in sprite.split(separator: "/") {
                if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(String(part)) }
            }
            let base = parts.joined(separator: "/")
            if let index = archive.entry(named: base + ".json"), let png = archive.entry(named: base + ".png") {
                do {
                    renderer.sprite = try Sprite(index: try archive.read(index, limit: 16 << 20), png: try archive.read(png, limit: 64 << 20), path: base)
                } catch {
                    renderer.spriteProblem = "the sprite \(base) is not used: \(error)"
                }
            }
        }
        return renderer
    }
}

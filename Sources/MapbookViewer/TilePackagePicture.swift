import MapbookPackage
import MapbookRender
import MapbookSupport
import MapbookTiles

/// A standalone vector tile package (a `.vtpk` file or the folder it was unpacked into) drawn
/// with its own style and nothing else, as `mapbook render` draws one.
public struct TilePackagePicture {
    public var canvas: MapCanvas
    public var view: MapView
    /// What the style asks for that is not drawn, and problems that do not stop the drawing.
    public var warnings: [String]
    /// Tiles that could not be read: the package is damaged.
    public var damage: [String]

    /// Draws the package at `path` in the view `request` names (the whole package when it
    /// names none).
    public init(path: String, request: ViewRequest, format: PictureFormat) throws {
        let archive = FileSystem.kind(path) == .directory ? try ZipArchive(folder: path) : try ZipArchive(path: path)
        let renderer = try BackdropRenderer.open(try TilePackage(archive: archive))
        view = try request.webMercatorView(fullExtent: renderer.archive.metadata.bounds.map(WebMercator.project))
        canvas = try MapCanvas(width: view.width, height: view.height, extent: view.extent, format: format)
        renderer.draw(on: canvas, dpi: view.dpi)
        warnings = renderer.problems + renderer.unsupported.sorted(by: { $0.key < $1.key }).map { key, layers in
            "the style's \(key) is not drawn (\(layers) style layer\(layers == 1 ? "" : "s"))"
        }
        damage = renderer.damage
    }
}

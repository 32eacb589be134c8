/// The files a canvas can be written as: pixels (PNG) or vectors (SVG, PDF), all through Cairo.
public enum PictureFormat: String, CaseIterable, Sendable {
    case png, svg, pdf

    /// The format a file name's extension names (any case); nil for any other extension.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }

    /// The extensions, for messages: ".png, .svg or .pdf".
    public static var extensions: String { ".png, .svg or .pdf" }
}

/// Packages with numbers no real file holds, to prove readers do not trap on them.
public enum HostilePackages {
    /// Colours past 255, a scale of 1e300, dates at the ends of Int64 and beyond it.
    public static func absurdNumbers(at path: String) throws {
        let map = #"""
            {"map": {"operationalLayers": [{"id": "x", "title": "X", "layerDefinition": {"drawingInfo": {"renderer":
              {"type": "simple", "symbol": {"type": "esriSMS", "color": [1e300, -5, 3, 1e999], "size": 1e308}}}}}],
             "bookmarks": [{"name": "far", "viewpoint": {"targetGeometry": {"x": 1e308, "y": 0}, "scale": 1e300}}]},
             "item": {}}
            """#
        try RawZip([
            .init(name: "p20/M.mmap", text: map),
            .init(name: "P.info", text: #"{"title": "P", "created": -9223372036854775808, "modified": 1e300, "expiration": {"dateTime": 9223372036854775807, "type": "allowExpiredAccess"}}"#),
        ]).write(to: path)
    }
}

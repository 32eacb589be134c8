import MapbookData
import MapbookPackage
import MapbookTiles

extension Packager.Context {
    /// Field names that usually hold a feature's label; the first a layer has goes into its tiles.
    static let labelFields = ["name", "full_name", "fullname", "fulladdr", "streetname", "street", "label", "title"]

    /// Builds the backdrop from its layers' imported tables into a `.vtpk` at `file`: tiled by
    /// `BackdropBuilder`, styled from each layer's renderer, carried into the package as
    /// `<title>.vtpk` and referenced by every map as its base layer.
    mutating func buildBackdrop(
        _ spec: Project.BackdropSpec, sources: [String: Packager.ResolvedSource], file: String, timestamp: Int64,
        progress: ((String, Int) -> Void)?
    ) throws -> (Packager.ResolvedBackdrop, TilerReport) {
        var layers: [BackdropBuilder.Layer] = []
        for (index, layerSpec) in spec.layers.enumerated() {
            guard let source = sources[layerSpec.source], imported?.layers[layerSpec.source] != nil else {
                throw error(.unsupported, layerSpec.key, layerSpec.line, "'\(layerSpec.source)' is an Esri mobile geodatabase, packaged as it is; backdrop layers are tiled from imported sources (GeoJSON, CSV, Shapefile, GeoPackage)")
            }
            guard !source.isTable else {
                throw error(.noGeometry, layerSpec.key, layerSpec.line, "'\(layerSpec.source)' has no geometry; a backdrop layer needs points, lines or polygons")
            }
            let columnNames = source.columns.map(\.name)
            let mapLayer = Project.LayerSpec(source: layerSpec.source, renderer: layerSpec.renderer, line: layerSpec.line, key: layerSpec.key)
            var renderer: Renderer?
            if let short = try self.renderer(for: mapLayer, source: source, index: index, columnNames: columnNames) {
                renderer = short
            } else if let json = layerSpec.renderer {
                renderer = Renderer(value: json)
            }
            var fields = layerSpec.fields ?? []
            if let label = layerSpec.label, !fields.contains(label) { fields.append(label) }
            // The style draws by the renderer's fields, so the tiles carry them whatever `fields` says.
            for field in renderer?.fields ?? [] where !fields.contains(field) { fields.append(field) }
            if layerSpec.fields == nil,
                let label = Self.labelFields.lazy.compactMap({ name in columnNames.first { $0.lowercased() == name } }).first, !fields.contains(label)
            {
                fields.append(label)
            }
            for field in fields where !columnNames.contains(field) {
                throw error(.noSuchColumn, layerSpec.key, layerSpec.line, "'\(field)' is not a column of \(source.spec.name); its columns are: \(columnNames.joined(separator: ", "))")
            }
            let reader = try GeoPackageReader(path: source.file, table: source.table)
            layers.append(BackdropBuilder.Layer(
                name: layerSpec.source, reader: reader, fields: fields, minZoom: layerSpec.minZoom, maxZoom: layerSpec.maxZoom, renderer: renderer,
                label: layerSpec.label))
        }
        var options = TilerOptions()
        options.minZoom = spec.minZoom
        options.maxZoom = spec.maxZoom
        options.maxTileBytes = spec.maxTileBytes
        options.maxTileFeatures = spec.maxTileFeatures
        options.memory = project.tilerMemory
        let title = spec.title ?? "Reference Backdrop"
        let result = try BackdropBuilder.build(
            layers: layers, options: options, name: title, timestamp: timestamp, to: file, format: .vectorTilePackage,
            credits: project.credits ?? "", progress: progress.map { p in { message in p("backdrop: " + message, -1) } })
        var stem = String(title.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        if stem.isEmpty { stem = "Backdrop" }
        let entry = entryName(for: file, named: stem + ".vtpk")
        return (Packager.ResolvedBackdrop(file: file, entry: entry, title: title, extent: result.extent), result.report)
    }
}

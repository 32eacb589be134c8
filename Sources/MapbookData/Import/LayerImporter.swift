import MapbookPackage

/// Moves one source layer into the package's feature store: every feature is checked,
/// reprojected to the package CRS, cut at the project extent and written; what is dropped or
/// changed is counted in the report.
///
/// Without a writer (a dry run) the same work is done and counted, and nothing is written.
public struct LayerImporter {
    public var target: CoordinateReferenceSystem
    /// The project extent in WGS 84 longitude/latitude; features are cut at its edges.
    public var extent: BoundingBox?
    /// Called every `progressInterval` features with the count read so far.
    public var progress: ((Int) -> Void)?
    public var progressInterval = 10_000

    public init(target: CoordinateReferenceSystem, extent: BoundingBox? = nil) {
        self.target = target
        self.extent = extent
    }

    /// What one layer import did.
    public struct Summary: Sendable {
        public var table: String
        public var schema: LayerSchema
        public var read = 0
        public var kept = 0
        public var report = ImportReport()
        /// The extent of the kept features, in the package CRS.
        public var extent: BoundingBox?
        /// Bytes of geometry and attributes written (or that would be), for size estimates.
        public var payloadBytes = 0

        public var dropped: Int { read - kept }
        public var clipped: Int { report.count(.clipped) }
    }

    /// Imports everything `reader` holds as table `table`; `writer` nil counts without writing.
    public func run(
        _ reader: FeatureReader, table: String, writer: GeoPackageWriter?,
        identifier: String, description: String, aliases: [String: String] = [:], metadata: String? = nil
    ) throws -> Summary {
        var schema = reader.schema
        let sourceCRS = schema.crs ?? .wgs84
        let transform: CoordinateTransform
        do {
            transform = try CoordinateTransform(from: sourceCRS, to: target)
        } catch {
            throw DataError(kind: .crs(error.kind), path: reader.path, message: "\(error.description); give the layer's coordinate system with `crs:` in the project file")
        }
        let geographic = transform.sourceIsGeographic
        let clipper = try extent.map { box -> RectangleClipper in
            if target.isWGS84 { return RectangleClipper(box) }
            let toTarget = try CoordinateTransform(from: .wgs84, to: target)
            guard let a = toTarget.apply(Position(x: box.minX, y: box.minY)), let b = toTarget.apply(Position(x: box.maxX, y: box.maxY)) else {
                throw DataError(kind: .crs(.noTransformation), path: reader.path, message: "the project extent cannot be expressed in \(target)")
            }
            return RectangleClipper(BoundingBox(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y)))
        }
        schema.crs = target
        for i in schema.fields.indices {
            if let alias = aliases[schema.fields[i].name] { schema.fields[i].alias = alias }
        }
        var summary = Summary(table: table, schema: schema)
        var extentSeen = BoundingBox.empty
        var local = ImportReport()
        var needsMulti = false
        let declared = schema.geometryType

        try writer?.beginLayer(table: table, schema: schema, identifier: identifier, description: description)
        do {
            while let feature = try reader.next() {
                summary.read += 1
                if let progress, summary.read % progressInterval == 0 { progress(summary.read) }
                var geometry = feature.geometry
                if declared != nil {
                    guard var g = geometry else { continue }
                    if g.isEmpty {
                        local.note(.emptyGeometry, row: feature.row, "the geometry has no coordinates")
                        continue
                    }
                    var finite = true
                    g.forEachPosition { if !$0.x.isFinite || !$0.y.isFinite { finite = false } }
                    guard finite else {
                        local.note(.badCoordinate, row: feature.row, "a coordinate is not a finite number")
                        continue
                    }
                    if geographic {
                        let (wrapped, changed) = Antimeridian.normalize(g)
                        if changed {
                            g = wrapped
                            local.note(.coercedValue, row: feature.row, "cut at the antimeridian (longitudes put back in -180...180)")
                        }
                        if target.isWebMercator {
                            var clamped = false
                            g.forEachPosition { if abs($0.y) > CoordinateTransform.mercatorMaxLatitude && abs($0.y) <= 90 { clamped = true } }
                            if clamped { local.note(.clampedLatitude, row: feature.row, "a latitude beyond ±85.0511° was moved to the edge of Web Mercator") }
                        }
                    }
                    guard let projected = transform.apply(g) else {
                        local.note(.badCoordinate, row: feature.row, "a position cannot be projected to \(target) (latitude beyond ±90°?)")
                        continue
                    }
                    g = projected
                    if let clipper {
                        guard let cut = clipper.clip(g) else {
                            local.note(.outsideExtent, row: feature.row, "the feature lies outside the project extent")
                            continue
                        }
                        if cut != g {
                            local.note(.clipped, row: feature.row, "cut at the project extent")
                            g = cut
                        }
                    }
                    if let declared {
                        if declared.isMulti {
                            g = g.promotedToMulti()
                        } else if g.type.isMulti || g.type == .geometryCollection {
                            needsMulti = true
                        }
                    }
                    geometry = g.withDimensions(z: schema.hasZ, m: schema.hasM)
                    if let e = geometry?.envelope { extentSeen.include(e) }
                    summary.payloadBytes += 40 + (geometry?.positionCount ?? 0) * (16 + (schema.hasZ ? 8 : 0) + (schema.hasM ? 8 : 0))
                }
                for v in feature.values {
                    switch v {
                    case .text(let s): summary.payloadBytes += s.utf8.count + 2
                    case .blob(let b): summary.payloadBytes += b.count + 2
                    case .null: summary.payloadBytes += 1
                    default: summary.payloadBytes += 8
                    }
                }
                try writer?.add(geometry: geometry, values: feature.values)
                summary.kept += 1
            }
            if needsMulti, let declared, let family = declared.family {
                summary.schema.geometryType = family.type(multi: true)
                try writer?.promoteCurrentLayerToMulti(family.type(multi: true))
            }
            try writer?.finishLayer(aliases: aliases, metadata: metadata)
        } catch {
            writer?.abandonLayer()
            throw error
        }
        summary.report = reader.report
        summary.report.merge(local)
        summary.extent = extentSeen.isEmpty ? nil : extentSeen
        return summary
    }
}

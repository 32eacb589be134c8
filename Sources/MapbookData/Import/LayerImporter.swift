import MapbookSupport

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

        /// What concerns the whole source rather than rows: the coordinate system assumed for
        /// a source without one, coordinates that look like degrees in a projected system.
        /// `--strict` fails on these as on the report's rows.
        public var warnings: [String] = []

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
        var warnings: [String] = []
        if reader.schema.crs == nil, reader.schema.geometryType != nil {
            warnings.append("no coordinate system is given (\(Self.whereACRSComesFrom(reader.path))); WGS84 longitude/latitude (EPSG:4326) was assumed; say so with `crs: EPSG:4326`, or give the right one")
        }
        // Where the source's positions fall, before projection: degrees in a projected system.
        var sourceExtent = BoundingBox.empty
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
            // The source is parsed on a core of its own while this one checks, reprojects and
            // writes (issue 36: a third of an import was parsing).
            try HandOff<Feature>.run(produce: { try Self.read(reader, into: $0) }, consume: { pipe in
                var batch: [Feature] = []
                var at = 0
                while true {
                    if at == batch.count {
                        guard let more = try pipe.receive() else { break }
                        (batch, at) = (more, 0)
                        continue
                    }
                    let feature = batch[at]
                    at += 1
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
                        if !geographic, let e = g.envelope { sourceExtent.include(e) }
                        if geographic {
                            if let problem = Self.impossibleDegrees(g) {
                                local.note(.badCoordinate, row: feature.row, problem)
                                continue
                            }
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
            })
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
        if !geographic, !sourceExtent.isEmpty, sourceExtent.minX >= -180, sourceExtent.maxX <= 180, sourceExtent.minY >= -90, sourceExtent.maxY <= 90 {
            warnings.append("every coordinate lies within ±180/±90, though \(sourceCRS) is a projected system (metres or feet): the coordinates look like degrees, and all \(summary.kept) features land within \(Int(max(abs(sourceExtent.minX), abs(sourceExtent.maxX), abs(sourceExtent.minY), abs(sourceExtent.maxY)).rounded(.up))) units of its origin; if they are longitude and latitude, say `crs: EPSG:4326`")
        }
        summary.warnings = warnings
        return summary
    }
}

extension LayerImporter {
    /// Features in batches of this many cross from the parsing thread to the writing one.
    static let batchSize = 1024

    /// Reads every feature of `reader` into `pipe` (on the parsing thread).
    static func read(_ reader: FeatureReader, into pipe: HandOff<Feature>) throws {
        var batch: [Feature] = []
        batch.reserveCapacity(batchSize)
        while let feature = try reader.next() {
            batch.append(feature)
            guard batch.count == batchSize else { continue }
            guard pipe.send(batch) else { return }
            batch.removeAll(keepingCapacity: true)
        }
        if !batch.isEmpty { _ = pipe.send(batch) }
    }

    /// Why a geometry in degrees cannot be a place on Earth, or nil when it can.
    ///
    /// A latitude beyond ±90° never can. A point's longitude beyond ±180° is a typo or swapped
    /// columns, not a place: moving it by 360° would put it on the other side of the world and
    /// stretch the package's extent over it. Lines and polygons may run on past ±180° to cross
    /// the antimeridian continuously (Aleutian islands, Pacific routes); those are cut there
    /// as GDAL's `-wrapdateline` does, unless no position is within ±180° or one is beyond ±360°.
    static func impossibleDegrees(_ g: Geometry) -> String? {
        var latitude: Double?
        var longitude: Double?
        var inRange = false
        var farOut: Double?
        g.forEachPosition { p in
            if abs(p.y) > 90, latitude == nil { latitude = p.y }
            if abs(p.x) > 180, longitude == nil { longitude = p.x }
            if abs(p.x) > 360, farOut == nil { farOut = p.x }
            if abs(p.x) <= 180 { inRange = true }
        }
        if let latitude {
            return "latitude \(Self.degrees(latitude)) is outside -90...90 (are longitude and latitude swapped?); the feature was dropped"
        }
        guard let longitude else { return nil }
        let pointLike = g.type.family == .point
        if pointLike || !inRange || farOut != nil {
            return "longitude \(Self.degrees(farOut ?? longitude)) is outside -180...180; the feature was dropped"
        }
        return nil
    }

    /// Where a source of this kind names its coordinate system, for the message saying none did.
    static func whereACRSComesFrom(_ path: String) -> String {
        let lower = path.lowercased()
        if lower.hasSuffix(".shp") || lower.hasSuffix(".zip") || lower.hasSuffix(".dbf") { return "the Shapefile has no .prj" }
        if lower.hasSuffix(".gpkg") { return "the table's srs_id is undefined" }
        return "neither the file nor the project's `crs:` names one"
    }

    private static func degrees(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}

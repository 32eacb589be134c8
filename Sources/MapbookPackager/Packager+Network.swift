#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookRouting
import MapbookSearch
import MapbookSupport

extension Packager {
    /// What building the street network did, for `create` to print.
    public struct NetworkReport: Sendable {
        public var name: String
        /// `network/<name>.mnet`, then the path in the archive.
        public var entry: String
        public var source: String
        public var lines: Int
        public var nodes: Int
        public var edges: Int
        /// Turns the restrictions forbid (arc pairs), and the restrictions they came from.
        public var forbiddenTurns: Int
        public var restrictions: Int
        /// Parts of the network no route leads between (ignoring one-way rules); the largest
        /// first, and where the small ones are.
        public var components: Int
        public var cutOff: [CutOff]
        /// Seconds spent building the graph and its hierarchies.
        public var seconds: Double
        public var bytes: Int
        /// Shortcuts each hierarchy added, by metric.
        public var shortcuts: [(metric: StreetNetwork.Metric, count: Int)]

        public struct CutOff: Sendable {
            public var street: String
            public var edges: Int
            public var lon: Double
            public var lat: Double
        }
    }
}

extension Packager.Context {
    /// Builds the project's street network from its source layer in `dataFile` and adds the
    /// entry `network/<name>.mnet`. A layer that is not lines, an unknown field, a oneway or
    /// speed value that cannot be read, or no edges at all stop the build.
    mutating func buildNetwork(dataFile: String, sources: [String: Packager.ResolvedSource], progress: ((String, Int) -> Void)?) throws -> Packager.NetworkReport? {
        guard let spec = project.network else { return nil }
        guard let layer = imported?.layers[spec.source] else {
            throw error(.unsupported, spec.key + ".source", spec.line, "'\(spec.source)' is an Esri mobile geodatabase, packaged as it is; a network is built from imported sources (GeoJSON, CSV, Shapefile, GeoPackage)")
        }
        let schema = layer.summary.schema
        guard schema.geometryType?.family == .line else {
            throw error(.invalidValue, spec.key + ".source", spec.line, "'\(spec.source)' holds \(schema.geometryType.map { "\($0.gpkgName.lowercased())s" } ?? "no geometry"); a street network is built from lines")
        }
        let names = schema.fields.map(\.name)
        func check(_ field: String?, _ key: String) throws {
            guard let field else { return }
            try checkColumn(field, key.replacingOccurrences(of: "_", with: " ") + " field", of: spec.source, columns: names, key: spec.key + "." + key, line: spec.line)
        }
        try check(spec.nameField, "name_field")
        try check(spec.classField, "class")
        try check(spec.oneway?.field, "oneway")
        try check(spec.speed.field, "speed")
        try check(spec.roundaboutField, "roundabout")
        try check(spec.levelField, "level")
        if let r = spec.restrictions, let idField = r.idField {
            try checkColumn(idField, "restrictions' id field", of: spec.source, columns: names, key: r.key + ".id_field", line: r.line)
        }
        // The restrictions' table is read before the long work, so a mistake in it stops
        // the build early.
        let restrictionTable = try spec.restrictions.map { r throws in try readRestrictions(r) }
        let nameField = spec.nameField ?? LocatorDefinition.nameField(in: names)

        let clock = ContinuousClock()
        let started = clock.now
        progress?("network: reading \(spec.source)", -1)
        let database = try SQLiteDatabase(readOnlyPath: dataFile)
        let table = try FeatureTable(database: database, table: layer.table)
        let toWGS84 = try CoordinateTransform(from: table.crs ?? CoordinateReferenceSystem(epsg: project.crs), to: .wgs84)
        let wanted = [nameField, spec.classField, spec.oneway?.field, spec.speed.field, spec.roundaboutField, spec.levelField, spec.restrictions?.idField]
        let fields = wanted.compactMap { $0 }.filter(names.contains)
        func text(_ value: FieldValue) -> String {
            if case .blob = value { return "" }
            return value.displayText ?? ""
        }
        var unreadable: [String: [String: Int]] = [:]
        var lines: [StreetLine] = []
        // The restrictions' ids: the id field's values as text, to the features they name.
        var featuresById: [String: [Int64]] = [:]
        let cursor = try table.allFeatures(fields: fields)
        while let feature = try cursor.next() {
            var values: [String: FieldValue] = [:]
            for (i, name) in fields.enumerated() where i < feature.values.count { values[name] = feature.values[i] }
            let roadClass = spec.classField.map { text(values[$0] ?? .null) } ?? ""
            var direction = TravelDirection.both
            if let oneway = spec.oneway {
                let v = text(values[oneway.field] ?? .null).trimming(" ").lowercased()
                if oneway.with.contains(where: { $0.lowercased() == v }) { direction = .with }
                else if oneway.against.contains(where: { $0.lowercased() == v }) { direction = .against }
                else if oneway.closed.contains(where: { $0.lowercased() == v }) { direction = .closed }
                else if oneway.both.contains(where: { $0.lowercased() == v }) { direction = .both }
                else { unreadable["oneway '\(oneway.field)'", default: [:]][v, default: 0] += 1 }
            }
            var speed = spec.speed.byClass[roadClass] ?? spec.speed.defaultSpeed
            if let field = spec.speed.field {
                let value = values[field] ?? .null
                if let s = value.double ?? Double(text(value)), s > 0, s.isFinite {
                    speed = s
                } else if value != .null {
                    unreadable["speed '\(field)'", default: [:]][text(value), default: 0] += 1
                }
            }
            let roundabout = spec.roundaboutField.map { ["1", "true", "yes", "y", "t", "roundabout"].contains(text(values[$0] ?? .null).lowercased()) } ?? false
            let level = spec.levelField.map { Int(text(values[$0] ?? .null)) ?? 0 } ?? 0
            if let r = spec.restrictions {
                featuresById[r.idField.map { text(values[$0] ?? .null) } ?? String(feature.id), default: []].append(feature.id)
            }
            guard let geometry = feature.geometry, let wgs = toWGS84.apply(geometry) else { continue }
            for part in wgs.flattenedMembers {
                guard case .lineString(let points) = part.shape else { continue }
                lines.append(StreetLine(
                    points: points.map { StreetNetwork.Node(lon: $0.x, lat: $0.y) }, name: nameField.map { text(values[$0] ?? .null) } ?? "", roadClass: roadClass,
                    direction: direction, speed: speed, roundabout: roundabout, level: level, sourceId: feature.id))
            }
        }
        if !unreadable.isEmpty {
            let detail = unreadable.sorted { $0.key < $1.key }.map { field, counts in
                "\(field): " + counts.sorted { $0.value > $1.value }.prefix(10).map { "'\($0.key)' (\($0.value) line\($0.value == 1 ? "" : "s"))" }.joined(separator: ", ")
            }.joined(separator: "; ")
            throw error(.invalidValue, spec.key, spec.line, "values of \(spec.source) the network cannot read: \(detail); list them under oneway's with/against/both/closed, or fix the speeds (km/h over 0)")
        }
        progress?("network: \(lines.count) lines", -1)
        var network = StreetNetworkBuilder.build(lines, options: .init(tolerance: spec.tolerance, splitAtCrossings: spec.splitAtCrossings))
        guard !network.edges.isEmpty else {
            throw error(.invalidValue, spec.key + ".source", spec.line, "'\(spec.source)' gives a network with no edges (no line has two distinct points)")
        }
        if let r = spec.restrictions, let rows = restrictionTable {
            try forbidTurns(&network, r, rows, featuresById: featuresById, layer: spec.source)
        }
        progress?("network: \(network.nodes.count) nodes, \(network.edges.count) edges; preprocessing", -1)
        var hierarchies: [ContractionHierarchy] = []
        // The limit holds for the network's whole preprocessing, from reading its source on.
        let deadline = started + .milliseconds(Int64(spec.timeLimit * 60_000))
        // One order for every metric; each metric is a customisation of it.
        let customizable: CustomizableHierarchy
        do {
            customizable = try CustomizableHierarchy(network)
        } catch {
            throw self.error(.unsupported, spec.key, spec.line, error.message)
        }
        progress?("network: ordered, \(customizable.arcCount) arcs to customise", -1)
        // Each metric is customised on its own core; the first reports the progress.
        func customise(_ metric: StreetNetwork.Metric, reporting: Bool) -> Result<ContractionHierarchy, RoutingError> {
            var lastSaid = ContinuousClock.now
            let names = spec.metrics.map(\.name).joined(separator: " and ")
            return Result { () throws(RoutingError) in
                try customizable.customise(network, metric: metric, until: deadline) { done, all in
                    // A line every two seconds or so, not every thousand nodes.
                    guard reporting, ContinuousClock.now - lastSaid > .seconds(2) || done == 0 else { return }
                    lastSaid = ContinuousClock.now
                    progress?("network: hierarchies by \(names): \(done * 100 / max(all, 1))%", -1)
                }
            }
        }
        var results: [Result<ContractionHierarchy, RoutingError>] = []
        if spec.metrics.count == 2 {
            var first: Result<ContractionHierarchy, RoutingError>?, second: Result<ContractionHierarchy, RoutingError>?
            bothAtOnce({ first = customise(spec.metrics[0], reporting: true) }, { second = customise(spec.metrics[1], reporting: false) })
            results = [first!, second!]
        } else {
            results = spec.metrics.map { customise($0, reporting: true) }
        }
        for (metric, result) in zip(spec.metrics, results) {
            switch result {
            case .success(let hierarchy): hierarchies.append(hierarchy)
            case .failure(let error):
                let others = spec.metrics.filter { $0 != metric }.map(\.name)
                let leaveOut = others.isEmpty ? "" : "leave it out with `metrics: [\(others.joined(separator: ", "))]` under network:, or "
                throw self.error(
                    .timeLimit, spec.key + ".metrics", spec.line,
                    "\(error.message) after \(spec.timeLimit == spec.timeLimit.rounded() ? String(Int(spec.timeLimit)) : String(spec.timeLimit)) minute\(spec.timeLimit == 1 ? "" : "s"); \(leaveOut)raise `time_limit:` (minutes) under network:")
            }
        }
        let dataEntry = "../" + (sources[spec.source]?.entry ?? "data.gpkg")
        let bytes = StreetNetworkFile.encode(network, hierarchies: hierarchies, source: .init(data: dataEntry, layer: layer.table, tolerance: spec.tolerance))
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let entry = "network/\(spec.name).mnet"
        files.append(PackageContents.File(path: entry, source: .bytes(bytes)))

        let parts = NetworkComponents.find(network)
        for part in parts.dropFirst() {
            let edge = network.edges[Int(part.sampleEdge)]
            let street = network.names[Int(edge.name)]
            let at = network.nodes[Int(edge.from)]
            warnings.add("network: \(street.isEmpty ? "an unnamed street" : street) near \(at.text) (\(part.edges) edge\(part.edges == 1 ? "" : "s")) is cut off from the rest of the network")
        }
        return Packager.NetworkReport(
            name: spec.name, entry: entry, source: spec.source, lines: lines.count, nodes: network.nodes.count, edges: network.edges.count,
            forbiddenTurns: network.forbiddenTurns.count, restrictions: restrictionTable?.count ?? 0,
            components: parts.count,
            cutOff: parts.dropFirst().prefix(20).map { part in
                let edge = network.edges[Int(part.sampleEdge)]
                let at = network.nodes[Int(edge.from)]
                return .init(street: network.names[Int(edge.name)], edges: part.edges, lon: at.lon, lat: at.lat)
            },
            seconds: seconds, bytes: bytes.count,
            shortcuts: hierarchies.map { ($0.metric, $0.arcs.filter(\.isShortcut).count) })
    }
}

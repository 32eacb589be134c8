import MapbookPackage
import MapbookRouting

extension Project {
    /// `network:`: a line layer made the package's street network (issue 18).
    public struct NetworkSpec: Sendable {
        /// The network's name: its entry is `p14/network/<name>.mnet`.
        public var name: String
        public var source: String
        /// The street names directions read; nil takes the layer's first name-like field.
        public var nameField: String?
        public var classField: String?
        public var oneway: OnewaySpec?
        public var speed: SpeedSpec
        public var roundaboutField: String?
        public var levelField: String?
        /// Metres within which line ends meet.
        public var tolerance: Double = 1
        public var splitAtCrossings = false
        public var restrictions: RestrictionsSpec?
        /// What routes may minimise: a hierarchy is built for each (both by default).
        public var metrics: [StreetNetwork.Metric] = StreetNetwork.Metric.allCases
        /// How long the network may take to build (its source read, its hierarchies made)
        /// before `create` stops, in minutes.
        public var timeLimit: Double = 10
        public var line: Int?
        public var key: String
    }

    /// `restrictions:`: a CSV table of forbidden turns, a row per turn, naming the street
    /// turned from and the street turned onto by an id of the network's source layer.
    public struct RestrictionsSpec: Sendable {
        /// Relative to the project file.
        public var file: String
        public var fromField = "from"
        public var toField = "to"
        /// The streets' field the ids are; nil: the features' ids (fid).
        public var idField: String?
        public var line: Int?
        public var key: String
    }

    /// Which values of the oneway field mean what. Values are compared without case.
    public struct OnewaySpec: Sendable {
        public var field: String
        public var with: [String] = ["FT", "F", "1", "yes", "true", "Y", "T"]
        public var against: [String] = ["TF", "-1", "reverse", "R"]
        public var both: [String] = ["B", "0", "no", "false", "N", ""]
        public var closed: [String] = ["closed", "C"]
    }

    /// Speeds in km/h: a field, or by class with a default.
    public struct SpeedSpec: Sendable {
        public var field: String?
        public var byClass: [String: Double] = [:]
        public var defaultSpeed: Double = 40
    }

    static func parseNetwork(_ node: ProjectNode, sources: Set<String>) throws(ProjectError) -> NetworkSpec {
        try node.checkKeys(["name", "source", "name_field", "class", "oneway", "speed", "roundabout", "level", "tolerance", "split_at_crossings", "restrictions", "metrics", "time_limit"])
        let sourceNode = try node.required("source")
        let source = try sourceNode.string()
        guard sources.contains(source) else {
            throw sourceNode.error(.unknownSource, "no source is named '\(source)'; the sources are: \(sources.sorted().joined(separator: ", "))")
        }
        let name = try node["name"]?.string() ?? "Streets"
        guard !name.isEmpty, !name.contains("/"), EntryName.problem("network/\(name).mnet") == nil else {
            throw (node["name"] ?? node).error(.invalidValue, "'\(name)' cannot be a file name (the network is network/<name>.mnet)")
        }
        var spec = NetworkSpec(name: name, source: source, speed: SpeedSpec(), line: node.line, key: node.path)
        spec.nameField = try node["name_field"]?.string()
        spec.classField = try node["class"]?.string()
        spec.roundaboutField = try node["roundabout"]?.string()
        spec.levelField = try node["level"]?.string()
        if let t = node["tolerance"] {
            spec.tolerance = try t.double()
            guard spec.tolerance >= 0, spec.tolerance <= 100 else { throw t.error(.invalidValue, "tolerance is metres from 0 to 100") }
        }
        spec.splitAtCrossings = try node["split_at_crossings"]?.bool() ?? false
        if let metrics = node["metrics"] {
            var chosen: [StreetNetwork.Metric] = []
            for name in try metrics.strings() {
                guard let metric = ["time": StreetNetwork.Metric.time, "distance": .distance][name] else {
                    throw metrics.error(.invalidValue, "'\(name)' is not a metric; routes minimise time or distance")
                }
                if !chosen.contains(metric) { chosen.append(metric) }
            }
            guard !chosen.isEmpty else { throw metrics.error(.invalidValue, "a network needs at least one metric: time or distance") }
            spec.metrics = chosen.sorted { $0.rawValue < $1.rawValue }
        }
        if let limit = node["time_limit"] {
            spec.timeLimit = try limit.double()
            guard spec.timeLimit > 0, spec.timeLimit <= 10_080 else { throw limit.error(.invalidValue, "time_limit is minutes, more than 0 and at most a week (10080)") }
        }
        if let restrictions = node["restrictions"] {
            if let file = try? restrictions.string() {
                spec.restrictions = RestrictionsSpec(file: file, line: restrictions.line, key: restrictions.path)
            } else {
                try restrictions.checkKeys(["file", "from", "to", "id_field"])
                var r = RestrictionsSpec(file: try restrictions.required("file").string(), line: restrictions.line, key: restrictions.path)
                r.fromField = try restrictions["from"]?.string() ?? r.fromField
                r.toField = try restrictions["to"]?.string() ?? r.toField
                r.idField = try restrictions["id_field"]?.string()
                spec.restrictions = r
            }
        }
        if let oneway = node["oneway"] {
            if let field = try? oneway.string() {
                spec.oneway = OnewaySpec(field: field)
            } else {
                try oneway.checkKeys(["field", "with", "against", "both", "closed"])
                var o = OnewaySpec(field: try oneway.required("field").string())
                if let v = oneway["with"] { o.with = try v.strings() }
                if let v = oneway["against"] { o.against = try v.strings() }
                if let v = oneway["both"] { o.both = try v.strings() }
                if let v = oneway["closed"] { o.closed = try v.strings() }
                spec.oneway = o
            }
        }
        if let speed = node["speed"] {
            if let field = try? speed.string(), Double(field) == nil {
                spec.speed.field = field
            } else if let value = try? speed.double() {
                guard value > 0 else { throw speed.error(.invalidValue, "a speed is km/h over 0") }
                spec.speed.defaultSpeed = value
            } else {
                try speed.checkKeys(["field", "by_class", "default"])
                spec.speed.field = try speed["field"]?.string()
                if let d = speed["default"] {
                    spec.speed.defaultSpeed = try d.double()
                    guard spec.speed.defaultSpeed > 0 else { throw d.error(.invalidValue, "a speed is km/h over 0") }
                }
                if let byClass = speed["by_class"] {
                    guard spec.classField != nil else { throw byClass.error(.missingKey, "speeds by class need the network's 'class' field") }
                    for (k, v) in try byClass.entries() {
                        let value = try v.double()
                        guard value > 0 else { throw v.error(.invalidValue, "a speed is km/h over 0") }
                        spec.speed.byClass[k] = value
                    }
                }
            }
        }
        return spec
    }
}

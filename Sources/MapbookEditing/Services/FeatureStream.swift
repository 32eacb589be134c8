import MapbookData
import MapbookSupport

/// A query's answer written as it is read: the answer's other members, then its features one
/// by one as ArcGIS JSON or GeoJSON, straight into bytes. Building thousands of features as
/// `JSONValue` objects first cost more than reading them (docs/PERFORMANCE.md, "Feature
/// services").
struct FeatureStream {
    private var out: [UInt8] = []
    private let idKey: [UInt8]
    /// Each field's `"name":`, made once.
    private let keys: [[UInt8]]
    private let fields: [Field]
    private var first = true

    /// Starts the answer: `head`'s members, then the features' array.
    init(head: JSONObject, idField: String, fields: [Field], capacity: Int) {
        out.reserveCapacity(capacity)
        JSONWriter.append(.object(head), to: &out)
        out.removeLast()  // the closing brace: features follow
        if !head.isEmpty { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: Array(#""features":["#.utf8))
        func key(_ name: String) -> [UInt8] {
            var bytes: [UInt8] = []
            JSONWriter.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            return bytes
        }
        idKey = key(idField)
        keys = fields.map { key($0.name) }
        self.fields = fields
    }

    private mutating func separate() {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
    }

    private mutating func attributes(_ row: TableFeature) {
        out.append(UInt8(ascii: "{"))
        out.append(contentsOf: idKey)
        JSONWriter.append(.integer(row.id), to: &out)
        for i in fields.indices {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: keys[i])
            JSONWriter.append(FeatureService.attribute(row.values[i], fields[i].type), to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `{"attributes": {...}, "geometry": {...}}`.
    mutating func esri(_ row: TableFeature, geometry: Geometry?) {
        separate()
        out.append(contentsOf: Array(#"{"attributes":"#.utf8))
        attributes(row)
        if let geometry {
            out.append(contentsOf: Array(#","geometry":"#.utf8))
            JSONWriter.append(geometry.esriJSON(), to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `{"type": "Feature", "id", "geometry", "properties"}`.
    mutating func geoJSON(_ row: TableFeature, geometry: Geometry?) {
        separate()
        out.append(contentsOf: Array(#"{"type":"Feature","id":"#.utf8))
        JSONWriter.append(.integer(row.id), to: &out)
        out.append(contentsOf: Array(#","geometry":"#.utf8))
        JSONWriter.append(geometry?.geoJSON ?? .null, to: &out)
        out.append(contentsOf: Array(#","properties":"#.utf8))
        attributes(row)
        out.append(UInt8(ascii: "}"))
    }

    /// Ends the array, adds `tail`'s members, and gives the answer.
    mutating func finish(tail: JSONObject) -> [UInt8] {
        out.append(UInt8(ascii: "]"))
        for (key, value) in tail {
            out.append(UInt8(ascii: ","))
            JSONWriter.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONWriter.append(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

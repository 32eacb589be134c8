import MapbookPackage
import MapbookSupport

/// JSON read into the package's models and written back, compared with what was read.
public enum JSONRoundTrip {
    /// The first place where `written` differs from `original`, by its path (`$.map.baseMap`):
    /// a value, an element count, or the keys of an object or their order. Nil when the two
    /// are equal as JSON values (`JSONValue` equality: `1` and `1.0` are one number) with every
    /// object's keys in the same order.
    public static func difference(_ written: JSONValue, _ original: JSONValue, at path: String = "$") -> String? {
        switch (written, original) {
        case let (.object(w), .object(o)):
            guard w.keys == o.keys else { return "\(path): keys \(w.keys) written for \(o.keys)" }
            for (key, value) in o {
                if let found = difference(w[key]!, value, at: path + "." + key) { return found }
            }
            return nil
        case let (.array(w), .array(o)):
            guard w.count == o.count else { return "\(path): \(w.count) elements written for \(o.count)" }
            for (i, (a, b)) in zip(w, o).enumerated() {
                if let found = difference(a, b, at: "\(path)[\(i)]") { return found }
            }
            return nil
        default:
            guard written != original else { return nil }
            return "\(path): \(JSONWriter.string(written, style: .compact)) written for \(JSONWriter.string(original, style: .compact))"
        }
    }

    /// A web map (item data: an object with `operationalLayers`) read and written back.
    public static func webMap(_ original: JSONValue) -> String? {
        difference(WebMap(value: original).jsonValue, original)
    }

    /// A `.mmap` read and written back; with `sameBytes`, also written to the same bytes, as
    /// the toolkit's own packages must be (`JSONWriter`'s layout).
    public static func mobileMap(_ bytes: [UInt8], sameBytes: Bool) throws -> String? {
        let original = try JSONParser.parse(bytes)
        let written = MobileMap(value: original).jsonValue
        if let found = difference(written, original) { return found }
        return sameBytes && JSONWriter.bytes(written) != bytes ? "written with other bytes than were read" : nil
    }

    /// Every map and the manifest of the package at `path`, each read and written back: the
    /// differences, named by entry, and how many entries were compared.
    public static func package(at path: String, sameBytes: Bool) throws -> (problems: [String], entries: Int) {
        let package = try MobileMapPackage(path: path)
        var problems: [String] = []
        for entry in package.mapEntries {
            if let found = try mobileMap(package.bytes(of: entry), sameBytes: sameBytes) { problems.append("\(entry.name): \(found)") }
        }
        let manifestBytes = try package.bytes(of: package.manifestEntry)
        let manifest = try JSONParser.parse(manifestBytes)
        let written = PackageManifest(value: manifest).jsonValue
        if let found = difference(written, manifest) {
            problems.append("\(package.manifestEntry.name): \(found)")
        } else if sameBytes, JSONWriter.bytes(written) != manifestBytes {
            problems.append("\(package.manifestEntry.name): written with other bytes than were read")
        }
        return (problems, package.mapEntries.count + 1)
    }
}

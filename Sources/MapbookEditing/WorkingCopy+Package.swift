import MapbookData
import MapbookPackage
import MapbookSupport

extension WorkingCopy {
    /// The table of a layer named by its table or by its title in any of the package's maps,
    /// matched without regard to case; tables no map shows but that are editable (a layer's
    /// attachments) by their name. Refused with `notEditable`, listing the layers there are.
    public static func table(named name: String, in package: MobileMapPackage) throws(EditError) -> String {
        var titles: [String: String] = [:]
        for entry in package.mapEntries {
            guard let map = try? package.map(entry) else { continue }
            for layer in (map.map.operationalLayers ?? []) + (map.map.tables ?? []) {
                guard let table = layer.path.flatMap(LayerDataPath.init)?.table else { continue }
                titles[table.lowercased()] = table
                if let title = layer.title { titles[title.lowercased()] = table }
            }
        }
        if titles[name.lowercased()] == nil, let entry = package.dataEntry,
            let data = try? package.database(entry), let editable = try? EditSchema.editableTables(data)
        {
            for table in editable { titles[table.lowercased()] = table }
        }
        guard let table = titles[name.lowercased()] else {
            throw EditError(kind: .notEditable, layer: name, field: "", message: "is not a layer of \(package.path); its layers are: \(Set(titles.values).sorted().joined(separator: ", "))")
        }
        return table
    }

    /// Refuses a place outside the package's extent (WGS84), widened by half its size on each
    /// side (what a map opened on the whole package shows around its data, where a new
    /// feature beside the last one is still expected): a typo, swapped or unsigned degrees.
    public static func checkInside(_ place: Geometry, package: MobileMapPackage, layer: String) throws {
        guard let extent = try package.itemInfo()?.extent, let envelope = place.envelope else { return }
        let dx = (extent.maxX - extent.minX) / 2, dy = (extent.maxY - extent.minY) / 2
        guard envelope.minX >= extent.minX - dx, envelope.maxX <= extent.maxX + dx, envelope.minY >= extent.minY - dy, envelope.maxY <= extent.maxY + dy else {
            throw EditError(kind: .outsideExtent, layer: layer, field: "", message: "the place \(envelope.minX),\(envelope.minY) is outside the package's extent \(extent) (LON,LAT in WGS84; check the order and the signs)")
        }
    }

    /// The package's GUID, which names its working copy; `EditError` (`notEditable`) for a
    /// package without one, whose edits could not be kept.
    public static func guid(of package: MobileMapPackage) throws(EditError) -> String {
        guard let guid = package.manifest.guid else {
            throw EditError(kind: .notEditable, layer: "", field: "", message: "\(package.path) has no GUID in its manifest, so its edits cannot be kept; build it again with mapbook create")
        }
        return guid
    }

    /// The bytes of a file to attach to a feature of `layer`; `EditError` (`tooLarge`) past
    /// 1 GB, whatever the layer allows.
    public static func attachmentBytes(file: String, layer: String) throws -> [UInt8] {
        let handle = try RandomAccessFile(path: file)
        guard handle.size <= 1 << 30 else { throw EditError(kind: .tooLarge, layer: layer, field: "", message: "'\(file)' is larger than 1 GB") }
        return try handle.read(at: 0, count: Int(handle.size))
    }
}

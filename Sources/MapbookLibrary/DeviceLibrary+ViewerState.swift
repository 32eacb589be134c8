import MapbookPackage
import MapbookSupport

/// What a viewer keeps per device and per map (docs/LIBRARY.md, `viewer.json`): the layers a
/// user turned on or off, and the last place the map was looked at.
///
/// Keyed by the package's GUID (not its file, which an update replaces and a user may rename),
/// the map's key (its item id, else its name) and the layer's id, so a choice survives an
/// update of the package as long as the layer is still there; entries for layers that are gone
/// are ignored, not deleted, in case a later update brings them back.
public struct MapViewerState: Sendable, Equatable {
    /// Layer id to the visibility the user chose; layers not listed follow the map.
    public var layerVisibility: [String: Bool] = [:]
    /// The last view: centre x, y in the map's spatial reference and its scale.
    public var lastViewpoint: Viewpoint?

    public init(layerVisibility: [String: Bool] = [:], lastViewpoint: Viewpoint? = nil) {
        self.layerVisibility = layerVisibility
        self.lastViewpoint = lastViewpoint
    }

    public var isEmpty: Bool { layerVisibility.isEmpty && lastViewpoint == nil }

    init(json: JSONObject) {
        for (id, value) in json.object("layers") ?? [:] {
            if case .bool(let visible) = value { layerVisibility[id] = visible }
        }
        lastViewpoint = json.object("viewpoint").map(Viewpoint.init(json:))
    }

    var json: JSONObject {
        var o = JSONObject()
        if !layerVisibility.isEmpty {
            var layers = JSONObject()
            for id in layerVisibility.keys.sorted() { layers[id] = .bool(layerVisibility[id]!) }
            o["layers"] = .object(layers)
        }
        if let lastViewpoint { o["viewpoint"] = lastViewpoint.jsonValue }
        return o
    }
}

extension DeviceLibrary {
    var viewerStatePath: String { root + "/viewer.json" }

    /// The state kept for one map of a package; empty when nothing was kept.
    public func viewerState(package guid: String, map: String) throws -> MapViewerState {
        try withLock(creating: false) {
            let all = try readViewerState()
            return all.object(guid)?.object(map).map(MapViewerState.init(json:)) ?? MapViewerState()
        }
    }

    /// Changes the state kept for one map of a package: `change` gets the current state and
    /// edits it; an empty result removes the map's entry.
    @discardableResult
    public func updateViewerState(package guid: String, map: String, _ change: (inout MapViewerState) throws -> Void) throws -> MapViewerState {
        try withLock(creating: true) {
            var all = try readViewerState()
            var maps = all.object(guid) ?? JSONObject()
            var state = maps.object(map).map(MapViewerState.init(json:)) ?? MapViewerState()
            try change(&state)
            maps[map] = state.isEmpty ? nil : .object(state.json)
            all[guid] = maps.isEmpty ? nil : .object(maps)
            try AtomicFile.write(JSONWriter.bytes(.object(all)), to: viewerStatePath)
            return state
        }
    }

    func readViewerState() throws -> JSONObject {
        guard let bytes = try LibraryFiles.read(viewerStatePath, limit: 16 << 20) else { return JSONObject() }
        let fix = "fix it, or delete it to forget the layers turned on and off"
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw LibraryError(kind: .json(error.kind), path: viewerStatePath, message: "is not valid JSON (\(error)); \(fix)")
        }
        guard let o = value.objectValue else {
            throw LibraryError(kind: .invalidState, path: viewerStatePath, message: "is not a JSON object of packages; \(fix)")
        }
        return o
    }
}

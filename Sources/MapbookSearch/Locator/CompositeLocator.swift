import MapbookData
import MapbookPackage
import MapbookSupport

/// The package's locator: single-field participants searched in order and merged by score,
/// ties going to the earlier participant (DESIGN.md section 3.5).
///
/// Not Sendable: its participants cache what they read. Use one from one task at a time.
public final class CompositeLocator {
    public let definition: CompositeDefinition
    public let participants: [SingleFieldLocator]
    /// The `.loc.json` entry (or file) it was read from.
    public let path: String

    public init(definition: CompositeDefinition, participants: [SingleFieldLocator], path: String) {
        self.definition = definition
        self.participants = participants
        self.path = path
    }

    /// Edited data the locator reads instead of the package's: a working copy of the data
    /// entry, and the participants rebuilt from it (`LocatorRefresh`).
    public struct EditedData: Sendable {
        public var dataEntry: String
        public var dataPath: String
        public var rebuilt: [LocatorRefresh.Rebuilt]

        public init(dataEntry: String, dataPath: String, rebuilt: [LocatorRefresh.Rebuilt]) {
            self.dataEntry = dataEntry
            self.dataPath = dataPath
            self.rebuilt = rebuilt
        }
    }

    /// The package's locator, read in place; nil when the package has none. With `edited`,
    /// the edited data and the participants rebuilt from it stand in for the package's.
    public static func open(_ package: MobileMapPackage, edited: EditedData? = nil) throws -> CompositeLocator? {
        let archive = package.archive
        let listed = (package.manifest.locators ?? []).compactMap { archive.entry(named: $0) }
        let candidates = listed + archive.entries.filter { $0.hasSuffix(ignoringCase: ".loc.json") && !listed.contains($0) }
        guard let entry = candidates.first(where: { $0.hasSuffix(ignoringCase: ".loc.json") || $0.name.hasSuffix("/locator.json") }) else {
            return nil
        }
        let display = "\(package.path)[\(entry.name)]"
        let folder = LayerDataPath.folder(of: entry.name)
        var definition: CompositeDefinition
        if entry.name.hasSuffix("/locator.json") {
            // A single-field locator listed on its own: a composite of one.
            let name = folder.split(separator: "/").last.map(String.init) ?? "Locator"
            definition = CompositeDefinition(name: name, participants: [.init(name: name, path: ".", order: 1)])
        } else {
            definition = try CompositeDefinition.parse(try package.bytes(of: entry, limit: 4 << 20), path: display)
        }
        var databases: [String: SQLiteDatabase] = [:]
        var participants: [SingleFieldLocator] = []
        for p in definition.participants {
            let base = resolve(p.path, in: folder)
            guard let json = archive.entry(named: base + "/locator.json") else {
                throw LocatorError(kind: .missingEntry, path: display, message: "participant '\(p.name)' has no '\(base)/locator.json' in the package")
            }
            let single: LocatorDefinition, index: LocatorIndex
            if let rebuilt = edited?.rebuilt.first(where: { $0.entryFolder == base }) {
                single = try LocatorDefinition.parse(try LocatorRefresh.readFile(rebuilt.definition), path: rebuilt.definition)
                index = try LocatorIndex(path: rebuilt.index)
            } else {
                single = try LocatorDefinition.parse(try package.bytes(of: json, limit: 4 << 20), path: "\(package.path)[\(json.name)]")
                guard let indexEntry = archive.entry(named: base + "/index.sqlite") else {
                    throw LocatorError(kind: .missingEntry, path: display, message: "participant '\(p.name)' has no '\(base)/index.sqlite' in the package")
                }
                index = try LocatorIndex(range: try archive.dataRange(of: indexEntry), displayPath: "\(package.path)[\(indexEntry.name)]")
            }
            let dataName = resolve(single.data, in: base)
            guard let dataEntry = archive.entry(named: dataName) else {
                throw LocatorError(kind: .missingEntry, path: "\(package.path)[\(json.name)]", message: "its data '\(single.data)' (\(dataName)) is not in the package")
            }
            if databases[dataName] == nil {
                if let edited, edited.dataEntry == dataName {
                    do { databases[dataName] = try SQLiteDatabase(readOnlyPath: edited.dataPath) } catch { throw LocatorError(error, path: edited.dataPath) }
                } else {
                    do { databases[dataName] = try package.database(dataEntry) } catch { throw LocatorError(error, path: "\(package.path)[\(dataName)]") }
                }
            }
            participants.append(try SingleFieldLocator(definition: single, index: index, data: databases[dataName]!))
        }
        return CompositeLocator(definition: definition, participants: participants, path: entry.name)
    }

    /// An entry name relative to a folder of the package ("../../data.gpkg"), resolved as map
    /// layer paths are.
    public static func resolve(_ relative: String, in folder: String) -> String {
        LayerDataPath(file: relative, table: "").entryName(relativeTo: folder)
    }

    /// Merges participants' ranked lists: score first, then participant order, each list
    /// keeping its own order.
    static func merge<T>(_ lists: [[T]], score: (T) -> Double, max: Int) -> [T] {
        var tagged: [(item: T, participant: Int, position: Int)] = []
        for (p, list) in lists.enumerated() {
            for (i, item) in list.enumerated() { tagged.append((item, p, i)) }
        }
        tagged.sort { a, b in
            let sa = score(a.item), sb = score(b.item)
            if sa != sb { return sa > sb }
            return (a.participant, a.position) < (b.participant, b.position)
        }
        return tagged.prefix(max).map(\.item)
    }

    /// Suggestions while typing, best first.
    public func suggest(_ text: String, near: (longitude: Double, latitude: Double)? = nil, max: Int = 10) throws -> [SearchSuggestion] {
        guard max > 0 else { return [] }
        let lists = try participants.enumerated().map { i, p in try p.suggestions(text, near: near, max: max, participant: i) }
        return Self.merge(lists, score: \.score, max: max)
    }

    /// Features matching `text`, best first.
    public func geocode(_ text: String, near: (longitude: Double, latitude: Double)? = nil, max: Int = 10) throws -> [GeocodeCandidate] {
        guard max > 0 else { return [] }
        let lists = try participants.map { try $0.geocode(text, near: near, max: max) }
        return Self.merge(lists, score: \.score, max: max)
    }

    /// The features of a suggestion, nearest to `near` first.
    public func geocode(suggestion: SearchSuggestion, near: (longitude: Double, latitude: Double)? = nil, max: Int = 10) throws -> [GeocodeCandidate] {
        let parts = suggestion.key.split(separator: ":")
        guard parts.count == 2, let p = Int(parts[0]), let g = UInt32(parts[1]), participants.indices.contains(p) else {
            throw LocatorError(kind: .notOffered, path: path, message: "'\(suggestion.key)' is not a suggestion of this locator")
        }
        return try participants[p].geocode(group: g, score: suggestion.score, near: near, max: max)
    }

    /// What is at a place, as a user asks "what is here": the point and line features of
    /// every participant within `maxDistance` metres, nearest first by true distance (at the
    /// same distance an address participant's first, then by participant order), at most `max`; then the polygons that contain the place, as
    /// context ("in Arbor Lodge"), in participant order. With no point or line in range the
    /// containing polygons alone answer. Empty when the place is not a WGS84 position.
    public func reverseGeocode(longitude: Double, latitude: Double, maxDistance: Double = 100, max: Int = 1) throws -> [GeocodeCandidate] {
        guard longitude.isFinite, latitude.isFinite, (-180...180).contains(longitude), (-90...90).contains(latitude), maxDistance > 0 else {
            return []
        }
        var near: [(candidate: GeocodeCandidate, order: Int)] = []
        var containing: [GeocodeCandidate] = []
        for (order, p) in participants.enumerated() {
            let found = try p.reverseGeocode(longitude: longitude, latitude: latitude, maxDistance: maxDistance, max: max)
            near += found.near.map { ($0, p.definition.isAddress ? order : order + participants.count) }
            containing += found.containing
        }
        near.sort { ($0.candidate.distance ?? .infinity, $0.order) < ($1.candidate.distance ?? .infinity, $1.order) }
        return near.prefix(Swift.max(max, 0)).map(\.candidate) + containing
    }
}

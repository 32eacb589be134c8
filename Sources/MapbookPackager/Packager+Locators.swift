#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookSearch
import MapbookSupport
import Yams

extension Packager {
    /// What the locators build did, for `create` and `--dry-run` to print.
    public struct LocatorReport: Sendable {
        /// The composite's name and its entry (`p20/locators/<name>.loc.json`), which the
        /// manifest lists.
        public var name: String
        public var entry: String
        /// The queries of the search-quality file, when the project gives one.
        public var qualityQueries: Int?
        /// The search-quality queries run against the new indexes: first hits, hits in the
        /// first five, and the queries that missed.
        public var qualityHitsAt1: Int?
        public var qualityHitsAt5: Int?
        public var qualityMisses: [String] = []
        public var participants: [ParticipantReport]
    }

    /// One single-field locator: what its index holds.
    public struct ParticipantReport: Sendable {
        public var name: String
        public var source: String
        public var field: String
        /// The locator's folder under `locators/`.
        public var folder: String
        public var isAddress: Bool
        /// Features in the layer.
        public var features: Int
        /// Features indexed, and the distinct texts (groups) they form.
        public var entries: Int
        public var groups: Int
        /// Features left out: their search field is empty (null, blank, or without a letter
        /// or digit), so no search finds them.
        public var skipped: Int
        public var indexBytes: Int64
        /// The UTF-8 size of the indexed texts.
        public var textBytes: Int
    }
}

extension Packager.Context {
    /// Checks every `search` against the imported tables (fields exist, the rank is numeric,
    /// the source is imported and has geometry) and reads the search-quality file, before
    /// anything is built.
    func checkLocators(sources: [String: Packager.ResolvedSource]) throws -> SearchQuality? {
        for (source, search) in project.searches {
            guard let layer = imported?.layers[source.name] else {
                throw error(.unsupported, search.key, search.line, "'\(source.name)' is an Esri mobile geodatabase, packaged as it is; locators are built from imported sources (GeoJSON, CSV, Shapefile, GeoPackage)")
            }
            guard sources[source.name]?.isTable == false, layer.summary.schema.geometryType != nil else {
                throw error(.noGeometry, search.key, search.line, "'\(source.name)' has no geometry; a locator answers with places, so its layer needs points, lines or polygons")
            }
            let fields = layer.summary.schema.fields
            let names = fields.map(\.name)
            func check(_ field: String, _ what: String, key: String) throws {
                try checkColumn(field, what, of: source.name, columns: names, key: search.key + key, line: search.line)
            }
            try check(search.field, "search field", key: "")
            if let display = search.displayField { try check(display, "display field", key: ".display") }
            if let rank = search.rankField {
                try check(rank, "rank field", key: ".rank")
                let type = fields.first { $0.name == rank }?.type
                guard type == .integer || type == .real else {
                    throw error(.invalidValue, search.key + ".rank", search.line, "the rank field '\(rank)' holds \(type?.rawValue ?? "no") values; a rank must be a number (higher first), e.g. a population or a class")
                }
            }
            for field in search.outputFields { try check(field, "output field", key: ".output_fields") }
        }
        guard let path = project.locator?.quality else { return nil }
        let quality = try readQuality(path)
        let participants = project.searches.map(\.search.name)
        for (i, query) in quality.queries.enumerated() {
            if let p = query.participant, !participants.contains(p) {
                throw ProjectError(
                    kind: .unknownSource, file: resolve(path), key: "queries[\(i)].participant", line: nil,
                    message: "query \(i + 1) ('\(query.text)') expects participant '\(p)', which is not a locator of this project; they are: \(participants.joined(separator: ", "))")
            }
        }
        return quality
    }

    /// Reads a search-quality file, YAML or JSON (`SearchQuality`'s format); a mistake is
    /// reported with the file, the query's line and what is wrong.
    func readQuality(_ path: String) throws -> SearchQuality {
        let file = resolve(path)
        let key = (project.locator?.key ?? "locator") + ".quality"
        let bytes: [UInt8]
        do {
            bytes = try ByteRange(file: try RandomAccessFile(path: file)).readAll()
        } catch {
            throw self.error(.file(error.kind), key, project.locator?.line, "cannot read the search-quality file '\(path)': \(error.message)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw self.error(.notUTF8, key, project.locator?.line, "the search-quality file '\(path)' is not UTF-8 text")
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw Project.syntaxError(error, file: file)
        }
        guard let node else { throw self.error(.empty, key, project.locator?.line, "the search-quality file '\(path)' is empty") }
        let root = ProjectNode(node: node, path: "", file: file)
        let list = root.node.sequence != nil ? root : root["queries"]
        // Query texts are text as written: `text: 00123` must not become the number 123.
        var queries: [JSONValue] = []
        for item in try list?.items() ?? [] {
            guard case .object(var object) = try item.json() else {
                queries.append(try item.json())
                continue
            }
            for name in ["text", "expect", "participant"] {
                if let value = item[name], let scalar = value.node.scalar { object[name] = .string(scalar.string) }
            }
            queries.append(.object(object))
        }
        let json: JSONValue = list == nil ? try root.json() : .object(["queries": .array(queries)])
        do {
            return try SearchQuality.parse(json, path: file)
        } catch let error as LocatorError {
            // The first query that fails alone is the one the message is about: give its line.
            let items = (try? list?.items()) ?? []
            for (i, item) in items.enumerated() where (try? SearchQuality.parse(.array([queries[i]]), path: file)) == nil {
                throw item.error(.packageFormat(error.kind), error.message)
            }
            throw root.error(.packageFormat(error.kind), error.message)
        }
    }

    /// What a locator's results show when the project does not say: a name beside a code
    /// (`LocatorDefinition.defaultDisplayField`), and the fields of the source's first pop-up
    /// in the maps as attributes (none listed: the locator reports every field).
    func resultFields(source: String, search: Project.SearchSpec, fields: [String]) -> (display: String?, output: [String]) {
        let display = search.displayField ?? LocatorDefinition.defaultDisplayField(searchField: search.field, fields: fields)
        guard search.outputFields.isEmpty else { return (display, search.outputFields) }
        let popup = project.maps.lazy.flatMap(\.layers).first { $0.source == source && $0.popup?.fields?.isEmpty == false }
        return (display, (popup?.popup?.fields ?? []).map(\.name).filter(fields.contains))
    }

    /// Builds every locator's index from `dataFile` (complete: imported and its defaults
    /// written) into `indexFiles`, and adds the package entries: per locator
    /// `locators/<folder>/locator.json` and `index.sqlite`, then the composite
    /// `locators/<name>.loc.json` and its `<name>.quality.json`.
    mutating func buildLocators(
        sources: [String: Packager.ResolvedSource], dataFile: String, indexFiles: [String], quality: SearchQuality?
    ) throws -> Packager.LocatorReport? {
        let searches = project.searches
        guard !searches.isEmpty else { return nil }
        precondition(indexFiles.count == searches.count, "one index work file per locator")
        var participants: [CompositeDefinition.Participant] = []
        var reports: [Packager.ParticipantReport] = []
        for (i, (source, search)) in searches.enumerated() {
            guard let layer = imported?.layers[source.name], let resolved = sources[source.name] else { continue }
            let (display, output) = resultFields(source: source.name, search: search, fields: layer.summary.schema.fields.map(\.name))
            let spec = LocatorSpec(
                name: search.name, layer: layer.table, field: search.field, displayField: display, rankField: search.rankField,
                outputFields: output, isAddress: search.isAddress)
            let built: (definition: LocatorDefinition, summary: LocatorIndexSummary)
            do {
                built = try LocatorBuilder.build(spec, geoPackage: dataFile, indexPath: indexFiles[i], dataEntry: "../../" + resolved.entry)
            } catch let e as LocatorError {
                throw error(.packageFormat(e.kind), search.key, search.line, "cannot build the locator '\(search.name)': \(e.message)")
            }
            let folder = "locators/\(search.folder)"
            files.append(PackageContents.File(path: folder + "/locator.json", source: .bytes(JSONWriter.bytes(built.definition.jsonValue))))
            files.append(PackageContents.File(path: folder + "/index.sqlite", source: .file(path: indexFiles[i])))
            participants.append(CompositeDefinition.Participant(name: search.name, path: search.folder, order: participants.count + 1))
            let size = (try? RandomAccessFile(path: indexFiles[i]).size) ?? 0
            reports.append(Packager.ParticipantReport(
                name: search.name, source: source.name, field: search.field, folder: search.folder, isAddress: search.isAddress,
                features: layer.summary.kept, entries: built.summary.entries, groups: built.summary.groups,
                skipped: max(0, layer.summary.kept - built.summary.entries), indexBytes: size, textBytes: built.summary.textBytes))
        }
        let name = project.locatorName
        let composite = CompositeDefinition(name: name, participants: participants, quality: quality.map { _ in name + ".quality.json" })
        files.append(PackageContents.File(path: "locators/\(name).loc.json", source: .bytes(JSONWriter.bytes(composite.jsonValue))))
        if let quality {
            files.append(PackageContents.File(path: "locators/\(name).quality.json", source: .bytes(JSONWriter.bytes(quality.jsonValue))))
        }
        var report = Packager.LocatorReport(name: name, entry: "locators/\(name).loc.json", qualityQueries: quality?.queries.count, participants: reports)
        if let quality {
            // The queries run now, against the work files, so a wrong expectation shows at
            // `create` (and `--dry-run`) rather than at `validate`.
            var locators: [SingleFieldLocator] = []
            for (i, (source, search)) in searches.enumerated() {
                guard let layer = imported?.layers[source.name] else { continue }
                let (display, output) = resultFields(source: source.name, search: search, fields: layer.summary.schema.fields.map(\.name))
                let definition = LocatorDefinition(
                    name: search.name, layer: layer.table, field: search.field, displayField: display, rankField: search.rankField,
                    outputFields: output, isAddress: search.isAddress)
                locators.append(try SingleFieldLocator(definition: definition, index: try LocatorIndex(path: indexFiles[i]), data: try SQLiteDatabase(readOnlyPath: dataFile)))
            }
            let outcome = try quality.run(CompositeLocator(definition: composite, participants: locators, path: report.entry))
            report.qualityHitsAt1 = outcome.hitsAt1
            report.qualityHitsAt5 = outcome.hitsAt5
            report.qualityMisses = outcome.misses.map { "'\($0.query.text)' should find '\($0.query.expect)'" + ($0.first.map { ", first is '\($0)'" } ?? ", nothing found") }
            for miss in report.qualityMisses { warnings.add("search quality: " + miss) }
        }
        return report
    }
}

import MapbookPackager
import MapbookSupport
import Testing

@Suite struct ProjectFileTests {
    let base = """
        title: Water
        sources:
          mains: { path: data.gpkg, table: mains }
        maps:
          - name: Map
            layers: [mains]

        """

    func error(_ yaml: String) -> ProjectError? {
        do {
            _ = try Project.parse(yaml, file: "project.yaml")
            return nil
        } catch let e as ProjectError {
            return e
        } catch {
            Issue.record("not a ProjectError: \(error)")
            return nil
        }
    }

    @Test func readsEveryKey() throws {
        let project = try Project.parse("""
            name: Water
            title: Naperville Water Company
            summary: Field maps
            description: "<p>HTML</p>"
            tags: [water, utilities]
            credits: City GIS
            use_limitations: Internal
            crs: EPSG:3857
            extent: [-88.2, 41.7, -88.1, 41.8]
            thumbnail: thumb.png
            expiration: { date: 2027-01-01, type: preventExpiredAccess, message: Renew }
            sources:
              mains: { path: data/water.gpkg, table: mains, title: Water Mains }
              valves: data/valves.gpkg
            backdrop: { path: data/ref.vtpk, title: Reference }
            maps:
              - name: 811 Map
                title: Locates
                extent: [-88.16, 41.74, -88.14, 41.76]
                layers:
                  - source: mains
                    visible: false
                    opacity: 0.5
                    min_scale: 50000
                    max_scale: 100
                    definition_expression: DIAMETER > 6
                    renderer: { type: simple, symbol: { type: esriSLS, color: "#0072b2", width: 2 } }
                    popup: { title: "{FACILITYID}", fields: [FACILITYID, { name: MATERIAL, label: Material }] }
                  - valves
                bookmarks:
                  - { name: Downtown, extent: [-88.16, 41.74, -88.14, 41.76] }
                  - { name: Tower, center: [-88.15, 41.75], scale: 4000 }
              - name: CIP Map
                backdrop: false
            """, file: "/p/project.yaml")
        #expect(project.name == "Water")
        #expect(project.directory == "/p")
        #expect(project.tags == ["water", "utilities"])
        #expect(project.extent == BoundingBox(minX: -88.2, minY: 41.7, maxX: -88.1, maxY: 41.8))
        #expect(project.expiration?.date == 1_798_761_600)
        #expect(project.expiration?.kind == .preventExpiredAccess)
        #expect(project.sources.map(\.name) == ["mains", "valves"])
        #expect(project.sources[1].path == "data/valves.gpkg")
        #expect(project.maps.count == 2)
        let layer = project.maps[0].layers[0]
        #expect(layer.visible == false && layer.opacity == 0.5 && layer.minScale == 50000)
        #expect(layer.renderer?.objectValue?.object("symbol")?["color"] == [0, 114, 178, 255])
        #expect(layer.popup?.fields?.map(\.name) == ["FACILITYID", "MATERIAL"])
        #expect(project.maps[0].bookmarks.count == 2)
        #expect(project.maps[1].showBackdrop == false)
    }

    @Test func defaultsTheNameFromTheTitle() throws {
        let project = try Project.parse("title: Naperville Water Company\nmaps: [{name: A}]\n", file: "p.yaml")
        #expect(project.name == "NapervilleWaterCompany")
        #expect(project.crs == 3857)
    }

    @Test func backdropMistakesNameTheKey() {
        let both = error("title: T\nsources: { roads: a.geojson }\nbackdrop: { path: b.vtpk, layers: [roads] }\nmaps: [{name: A}]\n")
        #expect(both?.kind == .conflictingKeys)
        #expect(both?.file == "project.yaml")
        let neither = error("title: T\nbackdrop: { title: B }\nmaps: [{name: A}]\n")
        #expect(neither?.kind == .missingKey)
        let unknown = error("title: T\nsources: { roads: a.geojson }\nbackdrop:\n  layers:\n    - { source: rails }\nmaps: [{name: A}]\n")
        #expect(unknown?.key == "backdrop.layers[0]")
        #expect(unknown?.kind == .unknownSource)
        let zooms = error("title: T\nsources: { roads: a.geojson }\nbackdrop: { layers: [roads], minzoom: 9, maxzoom: 4 }\nmaps: [{name: A}]\n")
        #expect(zooms?.kind == .invalidValue)
    }

    @Test func jsonProjectFilesReportLinesToo() {
        let e = error("""
            {
              "title": "T",
              "maps": [
                {"name": "A", "layers": ["nope"]}
              ]
            }
            """)
        #expect(e?.line == 4)
        #expect(e?.key == "maps[0].layers[0]")
        #expect(e?.kind == .unknownSource)
    }

    @Test(arguments: [
        // (change to the base project, key named, line, what is wrong)
        ("title: Water\nsources:\n  mains: { path: data.gpkg, tabel: mains }\nmaps: [{name: M}]\n", "sources.mains.tabel", 3, ProjectError.Kind.unknownKey),
        ("titel: Water\nmaps: [{name: M}]\n", "titel", 1, .unknownKey),
        ("maps: [{name: M}]\n", "", 1, .missingKey),
        ("title: W\nmaps: []\n", "maps", 2, .missingKey),
        ("title: W\nextent: [10, 0, 5, 1]\nmaps: [{name: M}]\n", "extent", 2, .invalidValue),
        ("title: W\nextent: [0, 0, 500, 1]\nmaps: [{name: M}]\n", "extent", 2, .invalidValue),
        ("title: W\ncrs: EPSG:2154\nmaps: [{name: M}]\n", "crs", 2, .unsupported),
        ("title: W\nexpiration: { date: soon }\nmaps: [{name: M}]\n", "expiration.date", 2, .invalidValue),
        ("title: W\nexpiration: { date: 2027-01-01, type: never }\nmaps: [{name: M}]\n", "expiration.type", 2, .invalidValue),
        ("title: W\nmaps:\n  - name: M\n  - name: m\n", "maps[1]", 4, .duplicateName),
        ("title: W\nsources: {a: x.gpkg}\nmaps:\n  - name: M\n    layers:\n      - { source: a, opacity: 2 }\n", "maps[0].layers[0].opacity", 6, .invalidValue),
        ("title: W\nsources: {a: x.gpkg}\nmaps:\n  - name: M\n    layers:\n      - { source: a, renderer: { type: heatmap } }\n", "maps[0].layers[0].renderer.type", 6, .invalidValue),
        ("title: W\nsources: {a: x.gpkg}\nmaps:\n  - name: M\n    layers:\n      - { source: a, renderer: { type: simple, symbol: { color: \"#zz0000\" } } }\n", "maps[0].layers[0].renderer", 6, .invalidValue),
        ("title: W\nsources: {a: x.gpkg}\nmaps:\n  - name: M\n    layers:\n      - source: a\n        labels: [{ size: 9 }]\n", "maps[0].layers[0].labels[0]", 7, .missingKey),
        ("title: W\nsources: {a: x.gpkg}\nmaps:\n  - name: M\n    layers:\n      - source: a\n        labels: [{ field: N, placement: beside }]\n", "maps[0].layers[0].labels[0].placement", 7, .invalidValue),
        ("title: W\nsources: {a: x.gpkg}\nmaps:\n  - name: M\n    layers:\n      - source: a\n        labels:\n          - { expression: \"Upper($feature.N)\" }\n", "maps[0].layers[0].labels[0].expression", 8, .invalidValue),
        ("title: W\nsources: {a: x.gpkg}\nmaps:\n  - name: M\n    layers:\n      - source: a\n        labels: [{ field: N, colour: red }]\n", "maps[0].layers[0].labels[0].colour", 7, .unknownKey),
        ("title: W\nmaps:\n  - name: M\n    bookmarks:\n      - { name: B }\n", "maps[0].bookmarks[0]", 5, .missingKey),
        ("title: W\nmaps:\n  - name: M\n    bookmarks:\n      - { name: B, center: [1, 2] }\n", "maps[0].bookmarks[0]", 5, .missingKey),
        ("title: W\nmaps:\n  - name: ../M\n", "maps[0].name", 3, .invalidValue),
        ("title: W\nmaps: [{name: M}\n", "", 3, .syntax),
        ("title: W\nsources:\n  mains: { path: data.gpkg }\n  mains: { path: other.gpkg }\nmaps: [{name: M}]\n", "", 3, .duplicateKey),
    ])
    func namesTheKeyAndLineOfEachMistake(_ input: (String, String, Int, ProjectError.Kind)) throws {
        let e = try #require(error(input.0))
        #expect(e.key == input.1)
        #expect(e.line == input.2)
        #expect(e.kind == input.3, "\(e)")
        #expect(e.description.hasPrefix("project.yaml:\(input.2)"))
    }

    @Test func readsSearchInEveryFormWithItsDefaults() throws {
        let project = try Project.parse("""
            title: Water
            sources:
              valves: { path: v.shp, title: Water System Valves, search: FACILITYID }
              addresses:
                path: a.csv
                search: { field: FULLADDR, display: LABEL, rank: PRIORITY, outputFields: [ZIP, PIN], name: Addresses }
              trees:
                path: t.csv
                title: Street Trees
                search: [address, { field: common, address: false, output_fields: common }]
              "Fire Hydrants.v2": { path: h.gpkg, search: { field: HYDRANTADDR, address: false } }
            locator: { name: Water Search, quality: search-quality.yaml }
            maps: [{name: M}]
            """, file: "/p/project.yaml")
        let valves = try #require(project.sources[0].search.first)
        #expect(valves.field == "FACILITYID" && valves.name == "Water System Valves" && valves.folder == "valves")
        #expect(!valves.isAddress && valves.outputFields.isEmpty && valves.displayField == nil && valves.key == "sources.valves.search")
        let address = try #require(project.sources[1].search.first)
        #expect(address.isAddress, "a field whose name has 'addr' is an address")
        #expect(address.displayField == "LABEL" && address.rankField == "PRIORITY" && address.outputFields == ["ZIP", "PIN"] && address.name == "Addresses")
        let trees = project.sources[2].search
        #expect(trees.map(\.name) == ["Street Trees (address)", "Street Trees (common)"])
        #expect(trees.map(\.folder) == ["trees-address", "trees-common"])
        #expect(trees.map(\.isAddress) == [true, false])
        #expect(trees[1].outputFields == ["common"] && trees[1].key == "sources.trees.search[1]")
        let hydrants = try #require(project.sources[3].search.first)
        #expect(hydrants.folder == "Fire_Hydrants_v2" && hydrants.name == "Fire Hydrants.v2" && !hydrants.isAddress)
        #expect(project.searches.map(\.source.name) == ["valves", "addresses", "trees", "trees", "Fire Hydrants.v2"])
        #expect(project.locatorName == "Water Search")
        #expect(project.locator?.quality == "search-quality.yaml")
        // Without `locator:`, the composite is named after the package.
        let plain = try Project.parse("title: Water\nsources: { valves: { path: v.shp, search: FACILITYID } }\nmaps: [{name: M}]\n", file: "p.yaml")
        #expect(plain.locator == nil && plain.locatorName == "WaterLocator")
    }

    @Test(arguments: [
        // (sources and locator lines after `title`, key named, line, what is wrong)
        ("sources:\n  v: { path: v.shp, search: { feild: ID } }\n", "sources.v.search.feild", 3, ProjectError.Kind.unknownKey),
        ("sources:\n  v: { path: v.shp, search: { display: ID } }\n", "sources.v.search", 3, .missingKey),
        ("sources:\n  v: { path: v.shp, search: [] }\n", "sources.v.search", 3, .missingKey),
        ("sources:\n  v: { path: v.shp, search: { field: ID, address: maybe } }\n", "sources.v.search.address", 3, .wrongType),
        ("sources:\n  v: { path: v.shp, search: { field: ID, output_fields: [A], outputFields: [B] } }\n", "sources.v.search.outputFields", 3, .conflictingKeys),
        ("sources:\n  v: { path: v.shp, search: { field: ID, output_fields: [A, A] } }\n", "sources.v.search.output_fields", 3, .duplicateName),
        ("sources:\n  v: { path: v.shp, search: { field: ID, name: \" \" } }\n", "sources.v.search.name", 3, .invalidValue),
        ("sources:\n  v: { path: v.shp, title: Valves, search: ID }\n  w: { path: w.shp, search: { field: ID, name: valves } }\n", "sources.w.search", 4, .duplicateName),
        ("sources:\n  a b: { path: v.shp, search: ID }\n  a_b: { path: w.shp, search: ID }\n", "sources.a_b.search", 4, .duplicateName),
        ("sources:\n  v: v.shp\nlocator: { name: L }\n", "locator", 4, .missingKey),
        ("sources:\n  v: { path: v.shp, search: ID }\nlocator: { name: a/b }\n", "locator.name", 4, .invalidValue),
        ("sources:\n  v: { path: v.shp, search: ID }\nlocator: { qualty: q.yaml }\n", "locator.qualty", 4, .unknownKey),
    ])
    func namesTheKeyAndLineOfEachSearchMistake(_ input: (String, String, Int, ProjectError.Kind)) throws {
        let e = try #require(error("title: W\n" + input.0 + "maps: [{name: M}]\n"))
        #expect(e.key == input.1)
        #expect(e.line == input.2)
        #expect(e.kind == input.3, "\(e)")
    }
}

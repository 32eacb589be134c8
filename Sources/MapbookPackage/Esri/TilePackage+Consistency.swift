import MapbookSupport

extension TilePackage {
    /// The entry holding the tile map: root.json's `tileMap` folder, else `tilemap/`, when present.
    public var tileMapEntry: ZipEntry? {
        let folder = rootEntryName.contains("/") ? String(rootEntryName.split(separator: "/")[0]) + "/" : ""
        var names: [String] = []
        if var declared = root.string("tileMap"), !declared.isEmpty {
            while declared.hasPrefix("./") { declared.removeFirst(2) }
            names.append(folder + declared + "/root.json")
        }
        names.append(folder + "tilemap/root.json")
        return names.lazy.compactMap { self.archive.entry(named: $0) }.first
    }

    /// Reads the tile map, when the package has one.
    public func tileMap() throws(PackageFormatError) -> TileMap? {
        guard let entry = tileMapEntry else { return nil }
        let path = "\(archive.displayPath)[\(entry.name)]"
        let bytes: [UInt8]
        do {
            bytes = try archive.read(entry, limit: 256 << 20)
        } catch {
            throw PackageFormatError(kind: .archive(error.kind), path: path, message: error.message)
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw PackageFormatError(kind: .json(error.kind), path: path, message: "not JSON: \(error)")
        }
        return try TileMap(json: json, path: path)
    }

    /// Every tile the bundles hold, read from their indexes.
    public func bundledTiles() throws(PackageFormatError) -> [TileCoordinate] {
        var tiles: [TileCoordinate] = []
        for bundle in bundles {
            let index = try index(of: bundle)
            for slot in 0..<index.records.count where index.records[slot] >> 40 != 0 {
                tiles.append(TileCoordinate(
                    level: bundle.level, row: bundle.row + slot / CompactCacheBundle.packetSize,
                    column: bundle.column + slot % CompactCacheBundle.packetSize))
            }
        }
        return tiles
    }

    /// The `minLOD` and `maxLOD` of root.json, when both are given.
    public var levelRange: ClosedRange<Int>? {
        guard let low = root.int("minLOD"), let high = root.int("maxLOD"), low <= high else { return nil }
        return low...high
    }

    /// Findings about root.json's levels of detail and, for a vector tile package, about the
    /// tile map against the bundles: every tile the map lists is in a bundle and every bundled
    /// tile is listed. `entry` names the package in the findings (nil for a standalone file).
    public func consistencyFindings(entry: String? = nil) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        func add(_ severity: Diagnostic.Severity, _ code: String, _ message: String) {
            findings.append(Diagnostic(severity, code, entry: entry, message))
        }
        let vector = kind == .vectorTilePackage
        let lods = (tileInfo?.array("lods") ?? []).compactMap(\.objectValue)
        let levels = lods.compactMap { $0.int("level") }
        if lods.isEmpty {
            add(vector ? .error : .warning, "tiles.lods", "\(rootEntryName) has no tileInfo.lods: clients cannot tell the levels of detail")
        } else if levels.count != lods.count {
            add(.error, "tiles.lods", "\(rootEntryName): a level of detail in tileInfo.lods has no integer 'level'")
        } else {
            for (a, b) in zip(lods, lods.dropFirst()) {
                let (la, lb) = (a.int("level")!, b.int("level")!)
                if lb != la + 1 {
                    add(.error, "tiles.lods", "\(rootEntryName): tileInfo.lods goes from level \(la) to \(lb); levels must rise by one")
                    break
                }
                if let ra = a.double("resolution"), let rb = b.double("resolution"), vector, abs(ra / rb - 2) > 0.01 {
                    add(.warning, "tiles.lods", "\(rootEntryName): the resolution of level \(lb) (\(rb)) is not half that of level \(la) (\(ra)), as the Web Mercator tile pyramid has it")
                    break
                }
            }
            for lod in lods where lod.double("resolution") == nil || lod.double("scale") == nil {
                add(.error, "tiles.lods", "\(rootEntryName): level \(lod.int("level") ?? -1) of tileInfo.lods lacks a resolution or scale")
                break
            }
        }
        let low = root.int("minLOD"), high = root.int("maxLOD")
        if let low, let high {
            if low > high {
                add(.error, "tiles.lod-range", "\(rootEntryName): minLOD \(low) is above maxLOD \(high)")
            } else if !levels.isEmpty, !(levels.contains(low) && levels.contains(high)) {
                add(.error, "tiles.lod-range", "\(rootEntryName): minLOD \(low) to maxLOD \(high) is not within the levels tileInfo.lods defines (\(levels.min()!) to \(levels.max()!))")
            }
        } else if vector {
            add(.warning, "tiles.lod-range", "\(rootEntryName) has no minLOD and maxLOD: clients assume every level of tileInfo.lods holds tiles")
        }
        let range = levelRange
        let lodSet = Set(levels)
        var reported = Set<Int>()
        for bundle in bundles where reported.insert(bundle.level).inserted {
            if !lodSet.isEmpty, !lodSet.contains(bundle.level) {
                add(.warning, "tiles.level", "\(bundle.entry.name) is for level \(bundle.level), which root.json's tileInfo.lods does not define")
            } else if let range, !range.contains(bundle.level) {
                add(.warning, "tiles.lod-range", "\(bundle.entry.name) is for level \(bundle.level), outside minLOD \(range.lowerBound) to maxLOD \(range.upperBound): clients never show it")
            }
        }
        guard vector else { return findings }

        let map: TileMap?
        let bundled: [TileCoordinate]
        do {
            map = try tileMap()
            bundled = try bundledTiles()
        } catch {
            add(.error, "tiles.tilemap", error.message)
            return findings
        }
        guard let map else {
            if root.string("tileMap") != nil {
                add(.error, "tiles.tilemap", "root.json names tile map '\(root.string("tileMap")!)', which the package does not hold")
            }
            return findings
        }
        let mapName = tileMapEntry?.name ?? "tilemap/root.json"
        let inBundles = Set(bundled)
        let minimum = range?.lowerBound ?? 0
        // Array nodes below minLOD only lead to the tiles; from minLOD on they are tiles.
        let listed = map.leaves + map.branches.filter { $0.level >= minimum }
        let missing = listed.filter { !inBundles.contains($0) }.sorted()
        if !missing.isEmpty {
            add(.error, "tiles.tilemap", "\(mapName) lists \(missing.count) tile\(missing.count == 1 ? "" : "s") no bundle holds, so clients request them and draw nothing: \(Self.sample(missing))")
        }
        let external = Set(map.externalSubtrees)
        let known = Set(map.leaves).union(map.branches)
        let unlisted = bundled.filter { tile in
            guard !known.contains(tile) else { return false }
            // Tiles under a subtree kept in another file are not judged.
            var up: TileCoordinate? = tile
            while let t = up {
                if external.contains(t) { return false }
                up = t.parent
            }
            return true
        }.sorted()
        if !unlisted.isEmpty {
            add(.error, "tiles.tilemap", "\(mapName) does not list \(unlisted.count) tile\(unlisted.count == 1 ? "" : "s") the bundles hold, so clients never request them: \(Self.sample(unlisted))")
        }
        if !map.externalSubtrees.isEmpty {
            add(.note, "tiles.tilemap", "\(mapName) keeps \(map.externalSubtrees.count) subtree\(map.externalSubtrees.count == 1 ? "" : "s") in other files; the tiles under them were not checked")
        }
        return findings
    }

    private static func sample(_ tiles: [TileCoordinate]) -> String {
        let shown = tiles.prefix(5).map { "\($0.level)/\($0.row)/\($0.column)" }.joined(separator: ", ")
        return tiles.count > 5 ? "\(shown) and \(tiles.count - 5) more (level/row/column)" : "\(shown) (level/row/column)"
    }
}

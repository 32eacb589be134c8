import MapbookPackage
import MapbookSupport

/// The search checks of `validate` (DESIGN.md section 3.6): every feature of a searchable
/// layer is in its locator's index under the terms its text gives, the index holds nothing
/// else, and the package's search-quality file (when it ships one) finds what it expects.
public enum LocatorValidator {
    /// Findings for the package's locator; none when it has no Mapbook locator.
    public static func validate(_ package: MobileMapPackage) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let locator: CompositeLocator
        do {
            guard let opened = try CompositeLocator.open(package) else { return [] }
            locator = opened
        } catch {
            return [Diagnostic(.error, "locator.invalid", "\(error)")]
        }
        for participant in locator.participants {
            out += coverage(participant)
        }
        if let quality = locator.definition.quality {
            out += runQuality(quality, locator: locator, package: package)
        }
        return out
    }

    /// Compares a participant's index with its layer.
    static func coverage(_ locator: SingleFieldLocator) -> [Diagnostic] {
        // "package.mmpk[p20/locators/x/index.sqlite]" -> the entry name.
        var entry = locator.index.path
        if entry.hasSuffix("]"), let open = entry.lastIndex(of: "[") { entry = String(entry[entry.index(after: open)..<entry.index(before: entry.endIndex)]) }
        do {
            // What the layer says the index must hold.
            var expected: [Int64: (text: String, terms: Set<String>)] = [:]
            for (fid, value) in try locator.layer.allValues(locator.definition.field) {
                guard let text = LocatorBuilder.text(of: value) else { continue }
                let tokens = SearchText.tokens(text)
                if !tokens.isEmpty { expected[fid] = (text, Set(tokens.map(\.text))) }
            }
            let contents = try locator.index.contents()
            var found = Set<Int64>()
            var wrong: [String] = []
            var stray: [Int64] = []
            for (g, range) in contents.groupEntries.enumerated() {
                let terms = Set(contents.groupTerms[g])
                for e in range {
                    let fid = contents.fids[e]
                    found.insert(fid)
                    guard let want = expected[fid] else {
                        stray.append(fid)
                        continue
                    }
                    if want.terms != terms { wrong.append("\(fid) ('\(want.text)')") }
                }
            }
            let missing = expected.keys.filter { !found.contains($0) }.sorted()
            var out: [Diagnostic] = []
            func examples<T>(_ list: [T]) -> String {
                list.prefix(5).map { "\($0)" }.joined(separator: ", ") + (list.count > 5 ? ", ..." : "")
            }
            let name = "locator '\(locator.name)' (layer \(locator.definition.layer), field \(locator.definition.field))"
            if !missing.isEmpty {
                let texts = missing.prefix(5).map { "\($0) ('\(expected[$0]!.text)')" }
                out.append(Diagnostic(.error, "locator.coverage", entry: entry, "\(name): \(missing.count) of \(expected.count) searchable features are not in the index, e.g. fid \(texts.joined(separator: ", ")); rebuild the package"))
            }
            if !stray.isEmpty {
                out.append(Diagnostic(.error, "locator.coverage", entry: entry, "\(name): the index holds \(stray.count) features that the layer does not have (or whose field is empty), e.g. fid \(examples(stray)); rebuild the package"))
            }
            if !wrong.isEmpty {
                out.append(Diagnostic(.error, "locator.coverage", entry: entry, "\(name): \(wrong.count) features are indexed under other words than their text, e.g. fid \(examples(wrong)); rebuild the package"))
            }
            if out.isEmpty {
                out.append(Diagnostic(.note, "locator.coverage", entry: entry, "\(name): all \(expected.count) searchable features indexed"))
            }
            return out
        } catch {
            return [Diagnostic(.error, "locator.invalid", entry: entry, "\(error)")]
        }
    }

    static func runQuality(_ relative: String, locator: CompositeLocator, package: MobileMapPackage) -> [Diagnostic] {
        let folder = LayerDataPath.folder(of: locator.path)
        let name = CompositeLocator.resolve(relative, in: folder)
        guard let entry = package.archive.entry(named: name) else {
            return [Diagnostic(.error, "search.quality", entry: locator.path, "names the search-quality file '\(relative)', which is not in the package")]
        }
        do {
            let json = try JSONParser.parse(try package.bytes(of: entry, limit: 64 << 20))
            let quality = try SearchQuality.parse(json, path: "\(package.path)[\(name)]")
            let outcome = try quality.run(locator)
            var out: [Diagnostic] = []
            for miss in outcome.misses {
                let found = miss.first.map { "the first result is '\($0)'" } ?? "nothing was found"
                out.append(Diagnostic(.warning, "search.quality.miss", entry: name, "'\(miss.query.text)' should find '\(miss.query.expect)' but it is not in the first five; \(found)"))
            }
            for late in outcome.late {
                out.append(Diagnostic(.note, "search.quality.late", entry: name, "'\(late.query.text)' finds '\(late.query.expect)' at position \(late.position)"))
            }
            func percent(_ n: Int) -> String { outcome.total == 0 ? "-" : "\((n * 1000 / outcome.total + 5) / 10)%" }
            out.append(Diagnostic(.note, "search.quality", entry: name, "\(outcome.total) queries: hit@1 \(outcome.hitsAt1)/\(outcome.total) (\(percent(outcome.hitsAt1))), hit@5 \(outcome.hitsAt5)/\(outcome.total) (\(percent(outcome.hitsAt5)))"))
            return out
        } catch {
            return [Diagnostic(.error, "search.quality", entry: name, "\(error)")]
        }
    }
}

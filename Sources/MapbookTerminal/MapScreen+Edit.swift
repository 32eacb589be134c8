import MapbookData
import MapbookEditing
import MapbookViewer

/// Editing in `mapbook view` (issue 19): `a` adds a feature at the map's centre, `e` on a
/// pop-up edits its fields (coded values chosen from their domain's names), `x` on a pop-up
/// deletes its feature after a y. Every change goes through the package's working copy, as
/// `mapbook edit` does, and is refused with the same message when a value does not fit.
extension MapScreen {
    /// The fields being edited: an existing feature's (each change is saved as it is made) or
    /// a new one's (saved when the user adds it).
    struct EditState {
        typealias Field = EditForm.Field

        var table: String
        var layerTitle: String
        /// Nil for a feature not added yet.
        var fid: Int64?
        /// Where a new feature goes (WGS84).
        var position: Position?
        var fields: [Field]
        var selection = 0
        /// The text being typed into the chosen field.
        var typing: String?
        /// The choice being made among the chosen field's coded values.
        var choosing: Int?
        var note: String?

        /// The lines: a field per line, then "Add" for a new feature.
        var lineCount: Int { fields.count + (fid == nil ? 1 : 0) }
    }

    /// The package's working copy, opened for one edit.
    func workingCopy() throws -> WorkingCopy {
        try DeviceEdits.workingCopy(of: map.session.package, library: context.library)
    }

    /// The editable layer a pop-up's feature is in (its table), or nil: editable is a layer
    /// whose table has an edit schema in the package, as `mapbook edit` requires
    /// (`WorkingCopy.checkEditable`), asked once per layer.
    func editableTable(layerID: String) -> (table: String, title: String)? {
        guard let layer = map.layers.first(where: { $0.id == layerID }) else { return nil }
        if editableLayers[layerID] == nil {
            editableLayers[layerID] = EditForm.editableTable(layer, package: map.session.package) != nil
        }
        guard editableLayers[layerID] == true, let table = layer.definition.dataPath?.table else { return nil }
        return (table, layer.title)
    }

    /// `e` on a pop-up: its feature's editable fields with their current values.
    func startEditing(_ popup: Popup) {
        guard let (table, title) = editableTable(layerID: popup.layerID) else {
            message = "'\(popup.layerTitle)' is not editable"
            return
        }
        do {
            guard let layer = map.layers.first(where: { $0.id == popup.layerID }) else { return }
            let form = try EditForm(layer, table: table, copy: try workingCopy(), fid: popup.featureID)
            panel = .edit(EditState(table: table, layerTitle: title, fid: popup.featureID, position: nil, fields: form.fields))
            mark = nil
        } catch {
            message = "cannot edit: \(error)"
        }
    }

    /// `a`: a new feature at the centre of the map, in the one editable point layer shown (or
    /// the first of them); its fields start at their defaults.
    func startAdding() {
        let candidates = map.layers.reversed().filter { layer in
            map.isShown(layer) && editableTable(layerID: layer.id) != nil
        }
        do {
            guard let position = nearCenter.map({ Position(x: $0.longitude, y: $0.latitude) }) else { return }
            let copy = try workingCopy()
            for layer in candidates {
                guard let table = layer.definition.dataPath?.table else { continue }
                let form = try EditForm(layer, table: table, copy: copy, fid: nil)
                guard form.isPointLayer else { continue }
                panel = .edit(EditState(table: table, layerTitle: layer.title, fid: nil, position: position, fields: form.fields))
                mark = nil
                return
            }
            message = "no editable point layer is shown to add to"
        } catch {
            message = "cannot add: \(error)"
        }
    }

    /// Keys while editing: ↑↓ choose a field, Enter changes it (types, or chooses among coded
    /// values), Enter on "Add" adds a new feature, Esc closes (a new feature unsaved).
    func handleEdit(_ state: EditState, _ key: TerminalKey) -> ScreenAction {
        var state = state
        state.note = nil
        if let typed = state.typing {
            switch key {
            case .escape: state.typing = nil
            case .enter:
                state.typing = nil
                set(&state, typed)
            case .backspace: state.typing = String(typed.dropLast())
            case .control("u"): state.typing = ""
            case .character(let c): state.typing = typed + String(c)
            default: return .none
            }
        } else if let choice = state.choosing, let choices = state.fields[state.selection].choices {
            switch key {
            case .escape: state.choosing = nil
            case .up, .character("k"): state.choosing = max(choice - 1, 0)
            case .down, .character("j"): state.choosing = min(choice + 1, choices.count - 1)
            case .enter:
                state.choosing = nil
                set(&state, choices[choice])
            default: return .none
            }
        } else {
            switch key {
            case .escape, .character("q"):
                panel = nil
                return .redraw
            case .up, .character("k"): state.selection = max(state.selection - 1, 0)
            case .down, .character("j"), .tab: state.selection = min(state.selection + 1, state.lineCount - 1)
            case .enter:
                if state.selection == state.fields.count {
                    add(&state)
                    if case .edit = panel {} else { return .redraw }
                } else if let choices = state.fields[state.selection].choices {
                    state.choosing = choices.firstIndex(of: state.fields[state.selection].text) ?? 0
                } else {
                    state.typing = state.fields[state.selection].text
                }
            default: return .none
            }
        }
        panel = .edit(state)
        return .redraw
    }

    /// Sets the chosen field: saved at once for an existing feature (refused with the reason
    /// when it does not fit), kept for a new one.
    func set(_ state: inout EditState, _ text: String) {
        let field = state.fields[state.selection]
        guard let fid = state.fid else {
            state.fields[state.selection].text = text
            return
        }
        do {
            let copy = try workingCopy()
            _ = try copy.update(layer: state.table, fid: fid, values: [(field.name, text)], user: DeviceEdits.user(library: context.library), now: DeviceEdits.now())
            state.fields[state.selection].text = text
            edited("\(field.label) set to \(text.isEmpty ? "nothing" : text)")
        } catch let error as EditError {
            state.note = error.message
        } catch {
            state.note = "\(error)"
        }
    }

    /// Adds the new feature with the fields as set.
    func add(_ state: inout EditState) {
        guard let position = state.position else { return }
        let values = state.fields.filter { !$0.text.isEmpty }.map { (field: $0.name, text: $0.text) }
        do {
            let copy = try workingCopy()
            let change = try copy.add(
                layer: state.table, geometry: Geometry(.point(position), hasZ: false, hasM: false), values: values, user: DeviceEdits.user(library: context.library), now: DeviceEdits.now())
            state.fid = change.fid
            state.position = nil
            state.selection = 0
            edited("added feature \(change.fid) to \(state.layerTitle)")
        } catch let error as EditError {
            state.note = error.field.isEmpty ? error.message : "\(error.field): \(error.message)"
        } catch {
            state.note = "\(error)"
        }
    }

    /// `x` on a pop-up, then `y`: deletes its feature.
    func delete(_ popup: Popup) {
        guard let (table, _) = editableTable(layerID: popup.layerID) else {
            message = "'\(popup.layerTitle)' is not editable"
            return
        }
        do {
            _ = try workingCopy().delete(layer: table, fid: popup.featureID, now: DeviceEdits.now())
            panel = nil
            mark = nil
            edited("deleted '\(popup.title)'")
        } catch {
            message = "cannot delete: \(error)"
        }
    }

    /// After an edit: the map, pop-ups and search read the data again.
    func edited(_ what: String) {
        map.dataChanged()
        picture = nil
        locator = Result { try EditedLocator.open(map.session.package, library: context.library) }
        message = what + " (mapbook sync sends it)"
    }
}

extension MapPanel {
    /// The edit panel's lines.
    static func editPanel(_ state: MapScreen.EditState, width: Int) -> TextPanel {
        var lines = [TextPanel.Line(state.fid.map { "\(state.layerTitle) · feature \($0)" } ?? "New feature in \(state.layerTitle)", dim: true)]
        for (i, field) in state.fields.enumerated() {
            var value = field.text
            if i == state.selection, let typed = state.typing { value = typed + "▏" }
            let hint = field.hint.isEmpty ? "" : "  (\(field.hint))"
            lines.append(TextPanel.Line(field.label + ": " + value + (field.choices != nil && i != state.selection ? "" : hint)))
            if i == state.selection, let choice = state.choosing, let choices = field.choices {
                for (k, name) in choices.enumerated() { lines.append(TextPanel.Line((k == choice ? "  ▸ " : "    ") + name, bold: k == choice)) }
            }
        }
        if state.fid == nil { lines.append(TextPanel.Line("[ Add the feature ]", bold: true)) }
        if let note = state.note { lines += TextPanel.wrap(note, width: width - 1).map { TextPanel.Line($0, dim: true) } }
        // The chosen line, counting the choices listed under the chosen field.
        let chosen = 1 + state.selection + (state.choosing.map { $0 + 1 } ?? 0)
        let footer = state.typing != nil ? "type · Enter set · Esc cancel"
            : state.choosing != nil ? "↑↓ choose · Enter set · Esc cancel"
            : state.fid == nil ? "↑↓ field · Enter change · Enter on Add adds · Esc close" : "↑↓ field · Enter change · Esc close"
        return TextPanel(title: state.fid == nil ? "Add" : "Edit", lines: lines, selection: chosen, footer: footer)
    }
}

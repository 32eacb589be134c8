// The map viewer: a web map online. The base map comes from the portal's style; each
// operational layer is a GeoJSON source filled from its feature service for the area in view
// (`query`, f=geojson), so what others edit shows on the next move. A click shows a feature's
// attributes; the search box searches the layers' text fields; those allowed to edit change,
// add and delete features with `applyEdits`. Every request carries the session's CSRF token:
// without it the API answers the session's GETs as for anyone and refuses the rest.
"use strict";
(function () {
  const element = document.getElementById("webmap");
  if (!element || !window.maplibregl) return;
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";
  const canEdit = element.dataset.edit === "true";
  const status = document.getElementById("webmap-status");
  const featurePanel = document.getElementById("webmap-feature");
  const featureBody = document.getElementById("webmap-feature-body");
  const layers = []; // { id, title, url, source, info, styleLayers, visible }
  let map = null;
  let adding = null;

  function say(text) { status.textContent = text || ""; }

  function make(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  // The API, as this page's session: GETs with parameters, POSTs as forms.
  async function call(url, parameters, post) {
    const body = new URLSearchParams(Object.assign({ f: "json" }, parameters));
    const response = post
      ? await fetch(url, { method: "POST", body, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } })
      : await fetch(url + "?" + body.toString(), { credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
    const answer = await response.json();
    if (answer.error) throw new Error(answer.error.message || "The portal refused the request.");
    return answer;
  }

  // MARK: Layers from the services

  function viewBox() {
    const b = map.getBounds();
    const clamp = (v, m) => Math.max(-m, Math.min(m, v));
    return [clamp(b.getWest(), 180), clamp(b.getSouth(), 85), clamp(b.getEast(), 180), clamp(b.getNorth(), 85)].join(",");
  }

  // A layer's features in the view, a page of the service's maximum at a time, up to `limit`.
  async function queryAll(layer, parameters, limit) {
    const size = Math.min(layer.info.maxRecordCount || 2000, 2000);
    const features = [];
    for (let offset = 0; ; ) {
      const data = await call(layer.url + "/query", Object.assign({}, parameters, { resultOffset: String(offset), resultRecordCount: String(size) }));
      const page = data.features || [];
      features.push(...page);
      const more = data.exceededTransferLimit || (data.properties && data.properties.exceededTransferLimit);
      if (!more || !page.length) return { features, truncated: false };
      if (features.length >= limit) return { features, truncated: true };
      offset += page.length;
    }
  }

  // The features' label texts, made from their fields as the package's tiles had them made:
  // each label's parts are text, and fields by value or by coded value's name. A label with a
  // `where` labels only the features its SQL selects, which the service finds (`selected`: the
  // object ids for each such label, by its attribute).
  function addLabels(layer, features, selected) {
    if (!layer.labels || !layer.labels.length) return;
    const fields = {};
    for (const field of layer.info.fields || []) fields[field.name.toLowerCase()] = field;
    for (const feature of features) {
      const labels = layer.labels.filter((l) => !selected[l.attribute] || selected[l.attribute].has(feature.id));
      addFeatureLabels(labels, fields, feature);
    }
  }

  // For each of the layer's labels with a `where`, the ids of the features in `box` it selects.
  async function labelSelections(layer, box) {
    const selected = {};
    await Promise.all((layer.labels || []).filter((l) => l.where).map(async (label) => {
      const data = await call(layer.url + "/query", {
        where: label.where, geometry: box, geometryType: "esriGeometryEnvelope", inSR: "4326",
        spatialRel: "esriSpatialRelIntersects", returnIdsOnly: "true",
      });
      selected[label.attribute] = new Set(data.objectIds || []);
    }));
    return selected;
  }

  function addFeatureLabels(labels, fields, feature) {
    const properties = feature.properties || (feature.properties = {});
    const values = {};
    for (const key of Object.keys(properties)) values[key.toLowerCase()] = properties[key];
    for (const label of labels) {
      properties[label.attribute] = label.parts.map((part) => {
        if (part.text !== undefined) return part.text;
        const value = values[part.field.toLowerCase()];
        if (value === null || value === undefined) return "";
        const field = fields[part.field.toLowerCase()];
        if (!field) return String(value);
        // A code stays a code unless the label asks for the coded value's name.
        return part.coded || !field.domain ? shownValue(field, value) : String(value);
      }).join("");
    }
  }

  let generation = 0;
  async function refresh() {
    const mine = ++generation;
    const box = viewBox();
    let truncated = false;
    const failed = [];
    await Promise.all(layers.filter((l) => l.visible).map(async (layer) => {
      try {
        const [found, selected] = await Promise.all([queryAll(layer, {
          f: "geojson", where: "1=1", geometry: box, geometryType: "esriGeometryEnvelope", inSR: "4326",
          spatialRel: "esriSpatialRelIntersects", outFields: "*", outSR: "4326",
        }, 20000), labelSelections(layer, box)]);
        if (mine !== generation) return;
        truncated = truncated || found.truncated;
        addLabels(layer, found.features, selected);
        map.getSource(layer.source).setData({ type: "FeatureCollection", features: found.features });
      } catch (error) {
        failed.push(layer.title + ": " + error.message);
      }
    }));
    if (mine === generation) {
      say(failed.concat(truncated ? ["Some layers have more features here than are drawn: zoom in."] : []).join(" "));
      map.once("idle", () => { element.dataset.state = "idle"; });
    }
  }

  function setVisible(layer, visible) {
    layer.visible = visible;
    for (const id of layer.styleLayers) map.setLayoutProperty(id, "visibility", visible ? "visible" : "none");
    if (visible) refresh();
  }

  function layerList() {
    const list = document.getElementById("webmap-layers");
    list.replaceChildren(...layers.map((layer) => {
      const box = make("input", { type: "checkbox", id: "layer-" + layer.id, checked: layer.visible, onchange: (e) => setVisible(layer, e.target.checked) });
      return make("li", { class: "check" }, [make("label", {}, [box, " " + layer.title])]);
    }));
    const picker = document.getElementById("webmap-add-layer");
    if (picker) {
      const takers = layers.filter((l) => l.info && /Create/.test(l.info.capabilities || "") && shapes[l.info.geometryType]);
      picker.replaceChildren(...takers.map((l) => make("option", { value: l.id, text: l.title })));
      picker.onchange = () => { addButton.textContent = shapes[(chosenLayer() || { info: {} }).info.geometryType] === "Point" ? "Add at the next click on the map" : "Draw on the map"; };
      picker.onchange();
      document.getElementById("webmap-add-section").hidden = !takers.length;
    }
  }

  // MARK: A feature

  function editableFields(layer) {
    const skip = new Set([layer.info.objectIdField, layer.info.globalIdField].filter(Boolean).map((f) => f.toLowerCase()));
    return (layer.info.fields || []).filter((f) => f.editable !== false && !skip.has(f.name.toLowerCase()) &&
      !["esriFieldTypeOID", "esriFieldTypeGlobalID", "esriFieldTypeGeometry", "esriFieldTypeBlob", "esriFieldTypeRaster"].includes(f.type));
  }

  function isDate(field) { return field.type === "esriFieldTypeDate"; }

  // A date field's value (milliseconds since 1970) as people read it.
  function shownValue(field, value) {
    if (value === null || value === undefined) return "";
    if (isDate(field) && typeof value === "number") return new Date(value).toISOString().slice(0, 16).replace("T", " ") + " UTC";
    if (field.domain && field.domain.type === "codedValue") return (field.domain.codedValues.find((c) => c.code === value) || {}).name || String(value);
    return String(value);
  }

  function input(field, value) {
    const id = "field-" + field.name;
    if (isDate(field)) {
      return make("input", { id, name: field.name, type: "date", required: field.nullable === false,
        value: typeof value === "number" ? new Date(value).toISOString().slice(0, 10) : "" });
    }
    if (field.domain && field.domain.type === "codedValue") {
      const select = make("select", { id, name: field.name, required: field.nullable === false }, [make("option", { value: "", text: "" })].concat(
        field.domain.codedValues.map((c) => make("option", { value: String(c.code), text: c.name, selected: String(c.code) === String(value) }))));
      return select;
    }
    const numeric = ["esriFieldTypeInteger", "esriFieldTypeSmallInteger", "esriFieldTypeDouble", "esriFieldTypeSingle", "esriFieldTypeBigInteger"].includes(field.type);
    return make("input", { id, name: field.name, type: numeric ? "number" : "text", step: numeric ? "any" : null, required: field.nullable === false,
      value: value === null || value === undefined ? "" : String(value) });
  }

  function valueOf(field, control) {
    const raw = control.value;
    if (raw === "") return null;
    if (isDate(field)) return Date.parse(raw + "T00:00:00Z");
    const numeric = ["esriFieldTypeInteger", "esriFieldTypeSmallInteger", "esriFieldTypeDouble", "esriFieldTypeSingle", "esriFieldTypeBigInteger"].includes(field.type);
    if (numeric) return Number(raw);
    if (field.domain && field.domain.type === "codedValue") {
      const coded = field.domain.codedValues.find((c) => String(c.code) === raw);
      return coded ? coded.code : raw;
    }
    return raw;
  }

  function highlight(feature) {
    map.getSource("selection").setData(feature ? { type: "FeatureCollection", features: [feature] } : { type: "FeatureCollection", features: [] });
  }

  async function applyEdits(layer, edits) {
    const answer = await call(layer.url + "/applyEdits", Object.fromEntries(Object.entries(edits).map(([k, v]) => [k, JSON.stringify(v)])), true);
    const results = [].concat(answer.addResults || [], answer.updateResults || [], answer.deleteResults || []);
    const failed = results.find((r) => !r.success);
    if (failed) throw new Error((failed.error && failed.error.description) || "The service refused the edit.");
    return results;
  }

  async function showFeature(layer, objectId, geometry) {
    featurePanel.hidden = false;
    document.getElementById("webmap-feature-heading").textContent = layer.title;
    featureBody.replaceChildren(make("p", { text: "Loading…" }));
    let attributes;
    try {
      const answer = await call(layer.url + "/query", { objectIds: String(objectId), outFields: "*", returnGeometry: "false" });
      attributes = answer.features && answer.features[0] && answer.features[0].attributes;
    } catch (error) {
      featureBody.replaceChildren(make("p", { class: "error", text: error.message }));
      return;
    }
    if (!attributes) {
      featureBody.replaceChildren(make("p", { text: "This feature is no longer there." }));
      return;
    }
    highlight(geometry ? { type: "Feature", geometry, properties: {} } : null);
    const fields = layer.info.fields || [];
    const editable = canEdit && /Update/.test(layer.info.capabilities || "") ? new Set(editableFields(layer).map((f) => f.name)) : new Set();
    const rows = fields.filter((f) => f.type !== "esriFieldTypeGeometry").map((field) => {
      const value = attributes[field.name];
      const cell = editable.has(field.name) ? input(field, value) : document.createTextNode(shownValue(field, value));
      // What the form showed first: only fields changed from it are sent, so a value the form
      // cannot show exactly (a date's time of day, a code outside its list) is kept.
      if (editable.has(field.name)) cell.dataset.shown = cell.value;
      const label = editable.has(field.name) ? make("label", { for: "field-" + field.name, text: field.alias || field.name }) : document.createTextNode(field.alias || field.name);
      return make("tr", {}, [make("th", { scope: "row" }, [label]), make("td", {}, [cell])]);
    });
    const table = make("table", { class: "attributes" }, [make("caption", { class: "visually-hidden", text: "Attributes" }), make("tbody", {}, rows)]);
    const files = layer.info.hasAttachments ? attachments(layer, objectId) : null;
    if (!editable.size) {
      featureBody.replaceChildren(...[table, files].filter(Boolean));
      return;
    }
    const form = make("form", { id: "webmap-edit" }, [table]);
    const message = make("p", { role: "status" });
    const save = make("button", { type: "submit", text: "Save the changes" });
    form.append(make("p", {}, [save]), message);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const changed = { [layer.info.objectIdField]: objectId };
      for (const field of editableFields(layer)) {
        const control = form.elements.namedItem(field.name);
        if (control && control.value !== control.dataset.shown) changed[field.name] = valueOf(field, control);
      }
      save.disabled = true;
      try {
        await applyEdits(layer, { updates: [{ attributes: changed }] });
        message.textContent = "Saved.";
        message.className = "notice";
        refresh();
      } catch (error) {
        message.textContent = error.message;
        message.className = "error";
      }
      save.disabled = false;
    });
    if (/Delete/.test(layer.info.capabilities || "")) {
      const remove = askedTwice("Delete this feature", async () => {
        try {
          await applyEdits(layer, { deletes: [objectId] });
          featureBody.replaceChildren(make("p", { class: "notice", text: "Deleted." }));
          highlight(null);
          refresh();
        } catch (error) {
          message.textContent = error.message;
          message.className = "error";
        }
      });
      form.append(make("p", {}, [remove]));
    }
    featureBody.replaceChildren(...[form, files].filter(Boolean));
  }

  // A feature's attachments (photos, documents): listed with their sizes, images shown small,
  // each opened or saved from the page's session; those who may edit add and delete them.
  function attachments(layer, objectId) {
    const base = layer.url + "/" + encodeURIComponent(objectId);
    const list = make("ul", { class: "attachments" });
    const message = make("p", { role: "status" });
    const section = make("section", { "aria-labelledby": "webmap-attachments-heading" }, [
      make("h3", { id: "webmap-attachments-heading", text: "Attachments" }), list, message]);
    // The file through the session (a plain link would go without the CSRF token and be
    // answered as for anyone); an object URL the page shows or saves.
    async function blob(info) {
      const response = await fetch(base + "/attachments/" + info.id, { credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
      if (!response.ok) throw new Error("The attachment could not be read.");
      return URL.createObjectURL(await response.blob());
    }
    async function load() {
      let infos;
      try {
        infos = (await call(base + "/attachments", {})).attachmentInfos || [];
      } catch (error) {
        message.textContent = error.message;
        message.className = "error";
        return;
      }
      list.replaceChildren(...infos.map((info) => {
        const open = make("button", { type: "button", class: "linkish", text: info.name + " (" + size(info.size) + ")" });
        open.addEventListener("click", async () => {
          try {
            const link = make("a", { href: await blob(info), download: info.name });
            document.body.append(link);
            link.click();
            link.remove();
          } catch (error) { message.textContent = error.message; message.className = "error"; }
        });
        const item = make("li", {}, [open]);
        if (/^image\//.test(info.contentType || "")) {
          blob(info).then((url) => item.prepend(make("img", { src: url, alt: info.name, class: "attachment-thumbnail" }))).catch(() => {});
        }
        if (mayEdit) {
          const remove = askedTwice("Delete", async () => {
            try {
              const answer = await call(base + "/deleteAttachments", { attachmentIds: String(info.id) }, true);
              const result = (answer.deleteAttachmentResults || [])[0];
              if (!result || !result.success) throw new Error((result && result.error && result.error.description) || "The service refused it.");
              message.textContent = "Deleted " + info.name + ".";
              message.className = "notice";
              load();
            } catch (error) { message.textContent = error.message; message.className = "error"; }
          });
          item.append(" ", remove);
        }
        return item;
      }));
      if (!infos.length) list.replaceChildren(make("li", { text: "None." }));
    }
    const mayEdit = canEdit && /Update/.test(layer.info.capabilities || "");
    if (mayEdit) {
      const file = make("input", { type: "file", id: "webmap-attachment-file", name: "attachment" });
      const add = make("button", { type: "submit", text: "Add the attachment" });
      const form = make("form", { id: "webmap-attachment-add" }, [
        make("p", { class: "field" }, [make("label", { for: "webmap-attachment-file", text: "A file to attach" }), file]), make("p", {}, [add])]);
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        if (!file.files.length) { message.textContent = "Choose a file first."; message.className = "error"; return; }
        const body = new FormData();
        body.append("f", "json");
        body.append("attachment", file.files[0]);
        add.disabled = true;
        try {
          const response = await fetch(base + "/addAttachment", { method: "POST", body, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
          const answer = await response.json();
          const result = answer.addAttachmentResult;
          if (answer.error || !result || !result.success) {
            throw new Error((answer.error && answer.error.message) || (result && result.error && result.error.description) || "The service refused the file.");
          }
          message.textContent = "Added " + file.files[0].name + ".";
          message.className = "notice";
          form.reset();
          load();
        } catch (error) { message.textContent = error.message; message.className = "error"; }
        add.disabled = false;
      });
      section.append(form);
    }
    load();
    return section;
  }

  // A button that deletes only when clicked a second time, having said so after the first.
  function askedTwice(text, action) {
    const button = make("button", { type: "button", class: "secondary", text });
    button.addEventListener("click", () => {
      if (button.dataset.armed !== "yes") {
        button.dataset.armed = "yes";
        button.textContent = "Delete it: click again";
        return;
      }
      action();
    });
    return button;
  }

  function size(bytes) {
    if (bytes >= 1 << 20) return (bytes / (1 << 20)).toFixed(1) + " MB";
    if (bytes >= 1024) return Math.round(bytes / 1024) + " KB";
    return bytes + " bytes";
  }

  // A new feature's attributes, asked for before it is added (the service refuses a feature
  // without its required fields, as `mapbook edit` does).
  function newFeature(layer, geometry) {
    featurePanel.hidden = false;
    document.getElementById("webmap-feature-heading").textContent = "New feature in " + layer.title;
    highlight({ type: "Feature", geometry, properties: {} });
    const rows = editableFields(layer).map((field) => make("tr", {}, [
      make("th", { scope: "row" }, [make("label", { for: "field-" + field.name, text: (field.alias || field.name) + (field.nullable === false ? " (required)" : "") })]),
      make("td", {}, [input(field, null)]),
    ]));
    const message = make("p", { role: "status" });
    const form = make("form", { id: "webmap-new" }, [
      make("table", { class: "attributes" }, [make("caption", { class: "visually-hidden", text: "Attributes" }), make("tbody", {}, rows)]),
      make("p", {}, [make("button", { type: "submit", text: "Add the feature" }), " ", make("button", { type: "button", class: "secondary", text: "Cancel",
        onclick: () => { featurePanel.hidden = true; highlight(null); } })]),
      message,
    ]);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const attributes = {};
      for (const field of editableFields(layer)) {
        const value = valueOf(field, form.elements.namedItem(field.name));
        if (value !== null) attributes[field.name] = value;
      }
      try {
        const results = await applyEdits(layer, { adds: [{ geometry: esriGeometry(geometry), attributes }] });
        await refresh();
        say("Added to " + layer.title + ".");
        showFeature(layer, results[0].objectId, geometry);
      } catch (error) {
        message.textContent = error.message;
        message.className = "error";
      }
    });
    featureBody.replaceChildren(form);
    const first = form.querySelector("input, select");
    if (first) first.focus();
  }

  // A GeoJSON point, line or area as ArcGIS JSON, in degrees.
  function esriGeometry(geometry) {
    const spatialReference = { wkid: 4326 };
    if (geometry.type === "Point") return { x: geometry.coordinates[0], y: geometry.coordinates[1], spatialReference };
    if (geometry.type === "LineString") return { paths: [geometry.coordinates], spatialReference };
    return { rings: geometry.coordinates, spatialReference };
  }

  // MARK: Drawing a new line or area: a vertex per click, finished with its button or a
  // double click (an area is closed back to its first vertex).

  const shapes = { esriGeometryPoint: "Point", esriGeometryPolyline: "LineString", esriGeometryPolygon: "Polygon" };
  let sketch = null;
  const sketchBar = document.getElementById("webmap-sketch");

  // The points back to the first: an area's ring.
  function closed(points) { return points.concat([points[0]]); }

  function sketchGeometry() {
    const points = sketch.points;
    if (sketch.shape === "LineString") return points.length >= 2 ? { type: "LineString", coordinates: points } : null;
    return points.length >= 3 ? { type: "Polygon", coordinates: [closed(points)] } : null;
  }

  function drawSketch() {
    const features = sketch ? sketch.points.map((p) => ({ type: "Feature", geometry: { type: "Point", coordinates: p }, properties: {} })) : [];
    if (sketch && sketch.points.length >= 2) {
      const line = sketch.shape === "Polygon" && sketch.points.length >= 3 ? closed(sketch.points) : sketch.points;
      features.push({ type: "Feature", geometry: { type: "LineString", coordinates: line }, properties: {} });
    }
    map.getSource("sketch").setData({ type: "FeatureCollection", features });
  }

  function endSketch() {
    sketch = null;
    sketchBar.hidden = true;
    map.getCanvas().style.cursor = "";
    map.doubleClickZoom.enable();
    drawSketch();
  }

  function finishSketch() {
    const geometry = sketch && sketchGeometry();
    if (!geometry) {
      say(sketch && sketch.shape === "Polygon" ? "An area needs three points or more." : "A line needs two points or more.");
      return;
    }
    const layer = sketch.layer;
    endSketch();
    say("");
    newFeature(layer, geometry);
  }

  // MARK: Search

  async function search(text) {
    const results = document.getElementById("webmap-results");
    results.replaceChildren();
    const quoted = text.replace(/'/g, "''");
    const found = [];
    await Promise.all(layers.map(async (layer) => {
      const fields = (layer.info.fields || []).filter((f) => f.type === "esriFieldTypeString").slice(0, 8);
      if (!fields.length) return;
      try {
        const answer = await call(layer.url + "/query", {
          f: "geojson", where: fields.map((f) => f.name + " LIKE '%" + quoted + "%'").join(" OR "), outFields: "*", outSR: "4326", resultRecordCount: "10",
        });
        for (const feature of answer.features || []) found.push({ layer, feature });
      } catch (error) {
        say(layer.title + ": " + error.message);
      }
    }));
    if (!found.length) {
      results.append(make("li", { text: "Nothing found for “" + text + "”." }));
      return;
    }
    for (const { layer, feature } of found) {
      const p = feature.properties || {};
      const label = p[layer.info.displayField] || Object.values(p).find((v) => typeof v === "string" && v.toLowerCase().includes(text.toLowerCase())) || ("#" + feature.id);
      results.append(make("li", {}, [make("button", {
        type: "button", text: label + " · " + layer.title,
        onclick: () => {
          const box = bounds(feature.geometry);
          if (box) map.fitBounds(box, { maxZoom: 18, padding: 40, duration: 0 });
          showFeature(layer, feature.id !== undefined ? feature.id : p[layer.info.objectIdField], feature.geometry);
        },
      })]));
    }
  }

  function bounds(geometry) {
    if (!geometry) return null;
    let w = 180, s = 90, e = -180, n = -90;
    (function walk(c) {
      if (typeof c[0] === "number") { w = Math.min(w, c[0]); e = Math.max(e, c[0]); s = Math.min(s, c[1]); n = Math.max(n, c[1]); } else c.forEach(walk);
    })(geometry.coordinates);
    return w <= e ? [[w, s], [e, n]] : null;
  }

  // MARK: Start

  async function start() {
    say("Loading the map…");
    let style;
    try {
      style = await window.mapbookPortal.style(element.dataset.style);
    } catch (error) {
      say(error.message);
      return;
    }
    const online = (style.metadata && style.metadata["mapbook:online"]) || [];
    style.sources.selection = { type: "geojson", data: { type: "FeatureCollection", features: [] } };
    style.sources.sketch = { type: "geojson", data: { type: "FeatureCollection", features: [] } };
    style.layers.push(
      { id: "selection-fill", type: "fill", source: "selection", filter: ["==", ["geometry-type"], "Polygon"], paint: { "fill-color": "#00e5ff", "fill-opacity": 0.25 } },
      { id: "selection-line", type: "line", source: "selection", paint: { "line-color": "#00e5ff", "line-width": 4 } },
      { id: "selection-point", type: "circle", source: "selection", filter: ["==", ["geometry-type"], "Point"], paint: { "circle-radius": 9, "circle-color": "rgba(0,0,0,0)", "circle-stroke-color": "#00e5ff", "circle-stroke-width": 3 } },
      { id: "sketch-line", type: "line", source: "sketch", paint: { "line-color": "#d55e00", "line-width": 3, "line-dasharray": [2, 1] } },
      { id: "sketch-vertex", type: "circle", source: "sketch", filter: ["==", ["geometry-type"], "Point"], paint: { "circle-radius": 5, "circle-color": "#ffffff", "circle-stroke-color": "#d55e00", "circle-stroke-width": 2 } });
    const options = { container: element, style, attributionControl: { compact: true } };
    const box = style.metadata && style.metadata["mapbook:bounds"];
    if (box) options.bounds = [[box[0], box[1]], [box[2], box[3]]];
    map = new maplibregl.Map(options);
    map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
    window.mapbookWebMap = map;
    map.on("load", async () => {
      for (const entry of online) {
        const layer = Object.assign({ visible: true, info: {} }, entry);
        layer.styleLayers = style.layers.filter((l) => l.source === layer.source).map((l) => l.id);
        layer.visible = layer.styleLayers.some((id) => map.getLayoutProperty(id, "visibility") !== "none");
        try { layer.info = await call(layer.url, {}); } catch (error) { say(layer.title + ": " + error.message); }
        layers.push(layer);
      }
      layerList();
      say("");
      await refresh();
    });
    let timer = null;
    map.on("dblclick", (event) => {
      if (!sketch) return;
      event.preventDefault();
      // The double click's two clicks each added the same vertex: one is enough.
      const points = sketch.points;
      if (points.length >= 2 && points[points.length - 1][0] === points[points.length - 2][0] && points[points.length - 1][1] === points[points.length - 2][1]) points.pop();
      finishSketch();
    });
    map.on("moveend", () => {
      element.dataset.state = "loading";
      clearTimeout(timer);
      timer = setTimeout(refresh, 150);
    });
    map.on("click", async (event) => {
      if (adding) {
        const layer = adding;
        adding = null;
        map.getCanvas().style.cursor = "";
        say("");
        newFeature(layer, { type: "Point", coordinates: [event.lngLat.lng, event.lngLat.lat] });
        return;
      }
      if (sketch) {
        sketch.points.push([event.lngLat.lng, event.lngLat.lat]);
        drawSketch();
        return;
      }
      const ids = layers.filter((l) => l.visible).flatMap((l) => l.styleLayers);
      const near = [[event.point.x - 5, event.point.y - 5], [event.point.x + 5, event.point.y + 5]];
      // What is under the click, top first; a point is what a click on it means, over the
      // line or area it sits on.
      const hits = ids.length ? map.queryRenderedFeatures(near, { layers: ids }) : [];
      const rank = (f) => ({ Point: 0, MultiPoint: 0, LineString: 1, MultiLineString: 1 })[f.geometry.type] ?? 2;
      const hit = hits.slice().sort((a, b) => rank(a) - rank(b))[0];
      if (!hit) {
        featurePanel.hidden = true;
        highlight(null);
        return;
      }
      const layer = layers.find((l) => l.source === hit.source);
      const objectId = hit.id !== undefined ? hit.id : hit.properties[layer.info.objectIdField];
      showFeature(layer, objectId, hit.geometry);
    });
  }

  document.getElementById("webmap-search").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = document.getElementById("webmap-q").value.trim();
    if (text.length >= 2) search(text);
  });
  function chosenLayer() { return layers.find((l) => l.id === document.getElementById("webmap-add-layer").value); }
  const addButton = document.getElementById("webmap-add");
  if (addButton) addButton.addEventListener("click", () => {
    const chosen = chosenLayer();
    if (!chosen) { say("No layer here takes new features."); return; }
    const shape = shapes[chosen.info.geometryType];
    map.getCanvas().style.cursor = "crosshair";
    if (shape === "Point") {
      adding = chosen;
      say("Click on the map where the new feature goes.");
      return;
    }
    sketch = { layer: chosen, shape, points: [] };
    sketchBar.hidden = false;
    // A double click ends the shape rather than zooming in.
    map.doubleClickZoom.disable();
    drawSketch();
    say(shape === "Polygon" ? "Click the area's corners, then Finish the shape (or double-click)." : "Click along the line, then Finish the shape (or double-click).");
  });
  if (sketchBar) {
    document.getElementById("webmap-sketch-finish").addEventListener("click", finishSketch);
    document.getElementById("webmap-sketch-cancel").addEventListener("click", () => { endSketch(); say(""); });
  }
  start();
})();

// Mapbook in a browser: the map page's behaviour over the server's JSON API (docs/SERVE.md).
// Everything the panels show comes from the server, which answers with the same library code
// as the command line; this file only draws it. No inline script, no eval (the pages' CSP).
'use strict';

(function () {
  // The application's shell opens again without the network (secure contexts only).
  if ('serviceWorker' in navigator && window.isSecureContext) {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(function () {});
  }

  // The library's Update buttons: the portal's new version fetched (only what changed, when
  // the portal keeps its layouts), what it cost said, then the library shown again.
  document.querySelectorAll('.update-now').forEach(function (button) {
    button.addEventListener('click', function () {
      var outcome = button.parentNode.querySelector('.update-outcome');
      button.disabled = true;
      outcome.textContent = 'Updating\u2026';
      postJSON(button.dataset.api, {}).then(function (r) {
        outcome.textContent = r.summary.charAt(0).toUpperCase() + r.summary.slice(1);
        setTimeout(function () { location.reload(); }, 2000);
      }).catch(function (error) {
        button.disabled = false;
        outcome.textContent = (error.kind === 'unreachable' ? 'Offline: ' : 'Not updated: ') + error.message;
      });
    });
  });

  var app = document.getElementById('map-app');
  if (!app) return;
  var api = app.dataset.api;
  var statusLine = document.getElementById('status');
  var panel = document.getElementById('panel');
  var panelTitle = document.getElementById('panel-title');
  var panelBody = document.getElementById('panel-body');
  var state = { info: null, map: null, lastLocation: null, pick: null, openPanel: null };
  // What tests and people debugging read: the map, and whether the page is ready.
  window.mapbook = state;

  function say(text) { statusLine.textContent = text || ''; }

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (key) {
      if (attributes[key] === null || attributes[key] === undefined) return;
      if (key === 'text') node.textContent = attributes[key];
      else if (key === 'class') node.className = attributes[key];
      else if (key.indexOf('on') === 0) node.addEventListener(key.slice(2), attributes[key]);
      else node.setAttribute(key, attributes[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  async function getJSON(url, options) {
    var response = await fetch(url, Object.assign({ credentials: 'same-origin', headers: { Accept: 'application/json' } }, options || {}));
    var body = response.status === 204 ? null : await response.json();
    if (!response.ok) {
      var error = new Error(body && body.error ? body.error.message : response.statusText);
      error.kind = body && body.error ? body.error.kind : 'failed';
      error.field = body && body.error ? body.error.field : undefined;
      throw error;
    }
    return body;
  }

  function postJSON(url, value) {
    return getJSON(url, { method: 'POST', body: JSON.stringify(value), headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });
  }

  // Paths in the style become addresses on this server (MapLibre wants them absolute).
  function absolute(path) { return path && path.charAt(0) === '/' ? location.origin + path : path; }

  function absolutize(style) {
    Object.keys(style.sources || {}).forEach(function (id) {
      var source = style.sources[id];
      if (source.tiles) source.tiles = source.tiles.map(absolute);
      if (source.url) source.url = absolute(source.url);
    });
    if (typeof style.sprite === 'string') style.sprite = absolute(style.sprite);
    if (style.glyphs) style.glyphs = absolute(style.glyphs);
    return style;
  }

  // MARK: - Panels

  function openPanel(name, title, build) {
    state.openPanel = name;
    panelTitle.textContent = title;
    panelBody.replaceChildren();
    panel.hidden = false;
    panel.dataset.panel = name;
    document.querySelectorAll('.tools button').forEach(function (b) { b.setAttribute('aria-expanded', String(b.dataset.panel === name)); });
    return Promise.resolve(build(panelBody)).catch(function (error) {
      panelBody.replaceChildren(el('p', { class: 'problem', text: error.message }));
    });
  }

  function closePanel() {
    panel.hidden = true;
    state.openPanel = null;
    document.querySelectorAll('.tools button').forEach(function (b) { b.setAttribute('aria-expanded', 'false'); });
  }

  document.getElementById('panel-close').addEventListener('click', closePanel);
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape' && !panel.hidden) closePanel(); });

  // Style layers carry the viewer layer they draw in metadata['mapbook:layer'].
  function styleLayersOf(id) {
    return state.map.getStyle().layers.filter(function (l) { return l.metadata && l.metadata['mapbook:layer'] === id; });
  }

  function showLayers(layers) {
    layers.forEach(function (layer) {
      styleLayersOf(layer.id).forEach(function (l) {
        state.map.setLayoutProperty(l.id, 'visibility', layer.shown ? 'visible' : 'none');
      });
    });
  }

  function layersPanel(body) {
    return getJSON(api + '/layers?zoom=' + state.map.getZoom()).then(function (layers) {
      var list = el('ul', { class: 'toc' });
      layers.forEach(function (layer) {
        var box = el('input', { type: 'checkbox', id: 'toc-' + layer.id });
        box.checked = layer.visible;
        box.addEventListener('change', function () {
          box.disabled = true;
          postJSON(api + '/layers', { layer: layer.id, visible: box.checked }).then(function (updated) {
            showLayers(updated);
            box.disabled = false;
          }).catch(function (error) { box.checked = !box.checked; box.disabled = false; say(error.message); });
        });
        var note = layer.inScale === false ? el('span', { class: 'dim', text: ' (not at this scale)' }) : null;
        list.appendChild(el('li', { style: 'padding-left:' + (layer.depth * 1.2) + 'em' }, [
          box, el('label', { for: 'toc-' + layer.id, text: layer.title }), note,
        ]));
      });
      body.appendChild(list);
      body.appendChild(el('button', {
        type: 'button', class: 'secondary', text: 'Reset to the map\u2019s layers',
        onclick: function () { postJSON(api + '/layers', { reset: true }).then(function (updated) { showLayers(updated); openPanel('layers', 'Layers', layersPanel); }); },
      }));
    });
  }

  function legendPanel(body) {
    return getJSON(api + '/legend').then(function (layers) {
      if (!layers.length) body.appendChild(el('p', { text: 'No layer shown has a legend.' }));
      layers.forEach(function (layer) {
        body.appendChild(el('h3', { text: layer.title }));
        layer.legend.forEach(function (section) {
          if (section.field) body.appendChild(el('p', { class: 'dim', text: section.field }));
          var list = el('ul', { class: 'legend' });
          section.entries.forEach(function (entry) {
            list.appendChild(el('li', {}, [
              el('img', { src: entry.swatch, alt: '', width: '20', height: '20' }),
              el('span', { text: entry.label }),
            ]));
          });
          body.appendChild(list);
        });
      });
    });
  }

  function bookmarksPanel(body) {
    var bookmarks = state.info.bookmarks;
    if (!bookmarks.length) { body.appendChild(el('p', { text: 'This map has no bookmarks.' })); return; }
    var list = el('ul', { class: 'choices' });
    bookmarks.forEach(function (bookmark) {
      list.appendChild(el('li', {}, [el('button', {
        type: 'button', text: bookmark.name, disabled: bookmark.bounds ? null : 'disabled',
        onclick: function () { fit(bookmark.bounds); if (window.innerWidth < 700) closePanel(); },
      })]));
    });
    body.appendChild(list);
  }

  function basemapsPanel(body) {
    var list = el('ul', { class: 'choices' });
    state.info.basemaps.forEach(function (basemap) {
      var radio = el('input', { type: 'radio', name: 'basemap', id: 'bm-' + basemap.id, value: basemap.id });
      radio.checked = basemap.visible;
      radio.addEventListener('change', function () {
        state.info.basemaps.forEach(function (other) {
          other.visible = other.id === basemap.id;
          styleLayersOf(other.id).forEach(function (l) { state.map.setLayoutProperty(l.id, 'visibility', other.visible ? 'visible' : 'none'); });
        });
      });
      list.appendChild(el('li', {}, [radio, el('label', { for: 'bm-' + basemap.id, text: basemap.title })]));
    });
    body.appendChild(list);
  }

  // The part of the map the open panel leaves free: its side on wide screens, above it on phones.
  function viewPadding(margin) {
    var padding = { top: margin, bottom: margin, left: margin, right: margin };
    if (!panel.hidden) {
      var r = panel.getBoundingClientRect(), m = state.map.getContainer().getBoundingClientRect();
      if (r.width >= m.width - 1) padding.bottom += Math.max(0, m.bottom - r.top);
      else padding.right += Math.max(0, m.right - r.left);
    }
    return padding;
  }

  function fit(bounds, margin) {
    if (bounds) state.map.fitBounds([[bounds[0], bounds[1]], [bounds[2], bounds[3]]], { padding: viewPadding(margin || 0), duration: 0 });
  }

  // MARK: - Pop-ups (identify and search)

  function popupView(popup) {
    var section = el('section', { class: 'popup' }, [el('h3', { text: popup.title }), el('p', { class: 'dim', text: popup.layerTitle })]);
    if (popup.text) section.appendChild(el('p', { text: popup.text }));
    var fields = el('dl', {});
    popup.fields.forEach(function (f) {
      fields.appendChild(el('dt', { text: f.label }));
      fields.appendChild(el('dd', { text: f.value }));
    });
    section.appendChild(fields);
    popup.related.forEach(function (related) {
      section.appendChild(el('h4', { text: related.table + ' (' + related.records.length + ')' }));
      related.records.forEach(function (record) {
        var dl = el('dl', { class: 'related' });
        record.fields.forEach(function (f) { dl.appendChild(el('dt', { text: f.label })); dl.appendChild(el('dd', { text: f.value })); });
        section.appendChild(dl);
      });
    });
    if (state.editable && state.editable[popup.layer]) {
      var fileInput = el('input', { type: 'file', accept: 'image/*', capture: 'environment', class: 'visually-hidden', id: 'attach-' + popup.layer + '-' + popup.featureId });
      fileInput.addEventListener('change', function () {
        var file = fileInput.files[0];
        if (!file) return;
        say('Attaching ' + file.name + '\u2026');
        fetch(api + '/layers/' + encodeURIComponent(popup.layer) + '/features/' + popup.featureId + '/attachments?name=' + encodeURIComponent(file.name),
          { method: 'POST', body: file, credentials: 'same-origin' })
          .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b.error.message); return b; }); })
          .then(function () { say('Attached ' + file.name); edited([popup.layer]); })
          .catch(function (error) { say(error.message); });
      });
      section.appendChild(el('div', { class: 'row' }, [
        el('button', { type: 'button', class: 'secondary', text: 'Edit', onclick: function () { editForm(popup.layer, popup.featureId); } }),
        el('label', { class: 'button secondary', for: fileInput.id, text: 'Attach a photo' }), fileInput,
        el('button', { type: 'button', class: 'secondary danger', text: 'Delete', onclick: function () { deleteFeature(popup); } }),
      ]));
    }
    if (popup.attachments.length) {
      section.appendChild(el('h4', { text: 'Attachments' }));
      popup.attachments.forEach(function (a) {
        var url = api + '/layers/' + encodeURIComponent(popup.layer) + '/features/' + popup.featureId + '/attachments/' + a.id;
        if (a.contentType.indexOf('image/') === 0) section.appendChild(el('img', { class: 'photo', src: url, alt: a.name }));
        else section.appendChild(el('p', {}, [el('a', { href: url, download: a.name, text: a.name })]));
      });
    }
    return section;
  }

  function highlight(geometry) {
    var source = state.map.getSource('mapbook-highlight');
    if (source) source.setData(geometry ? { type: 'Feature', geometry: geometry, properties: {} } : { type: 'FeatureCollection', features: [] });
  }

  function identifyAt(point, lngLat) {
    var center = state.map.getCenter();
    var canvas = state.map.getCanvas();
    var query = new URLSearchParams({
      lon: lngLat.lng, lat: lngLat.lat, zoom: state.map.getZoom(), centerLon: center.lng, centerLat: center.lat,
      width: canvas.clientWidth, height: canvas.clientHeight, tolerance: matchMedia('(pointer: coarse)').matches ? 12 : 6,
    });
    return getJSON(api + '/identify?' + query).then(function (answer) {
      if (!answer.results.length) { highlight(null); say('Nothing here'); return; }
      say('');
      highlight(answer.results[0].geometry);
      openPanel('popup', answer.results.length === 1 ? 'Pop-up' : answer.results.length + ' features', function (body) {
        answer.results.forEach(function (r) { body.appendChild(popupView(r.popup)); });
      });
    });
  }

  // MARK: - Search with suggestions

  var searchInput = document.getElementById('search-input');
  var suggestionList = document.getElementById('suggestions');
  var suggestController = null;

  function near() {
    var c = state.map ? state.map.getCenter() : null;
    return c ? c.lng + ',' + c.lat : '';
  }

  function showSuggestions(items) {
    suggestionList.replaceChildren();
    items.forEach(function (s, i) {
      var li = el('li', { role: 'option', id: 'suggestion-' + i, text: s.label, tabindex: '-1' });
      li.addEventListener('mousedown', function (e) { e.preventDefault(); searchInput.value = s.label; search(s.label); });
      suggestionList.appendChild(li);
    });
    suggestionList.hidden = items.length === 0;
    searchInput.setAttribute('aria-expanded', String(items.length > 0));
  }

  searchInput.addEventListener('input', function () {
    var text = searchInput.value;
    if (suggestController) suggestController.abort();
    if (!text.trim()) { showSuggestions([]); return; }
    suggestController = new AbortController();
    getJSON(api + '/suggest?' + new URLSearchParams({ text: text, near: near() }), { signal: suggestController.signal })
      .then(function (items) { showSuggestions(items); state.suggestedFor = text; })
      .catch(function (error) { if (error.name !== 'AbortError') say(error.message); });
  });

  searchInput.addEventListener('keydown', function (e) {
    var options = Array.prototype.slice.call(suggestionList.children);
    var current = options.findIndex(function (o) { return o.getAttribute('aria-selected') === 'true'; });
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!options.length) return;
      var next = e.key === 'ArrowDown' ? Math.min(current + 1, options.length - 1) : Math.max(current - 1, 0);
      options.forEach(function (o, i) { o.setAttribute('aria-selected', String(i === next)); });
      searchInput.setAttribute('aria-activedescendant', options[next].id);
      searchInput.value = options[next].textContent;
    }
  });

  searchInput.addEventListener('blur', function () { setTimeout(function () { showSuggestions([]); }, 150); });

  document.getElementById('search-form').addEventListener('submit', function (e) {
    e.preventDefault();
    search(searchInput.value);
  });

  function search(text) {
    showSuggestions([]);
    if (!text.trim()) return;
    say('Searching\u2026');
    getJSON(api + '/search?' + new URLSearchParams({ text: text, near: near() })).then(function (answer) {
      if (!answer.candidates.length) { say('No results for \u201c' + text + '\u201d'); return; }
      say('');
      var best = answer.candidates[0];
      var at = best.location ? [best.location.x, best.location.y] : null;
      highlight(at ? { type: 'Point', coordinates: at } : null);
      var opened = openPanel('popup', 'Search: ' + text, function (body) {
        if (answer.popups.length) answer.popups.forEach(function (p) { body.appendChild(popupView(p)); });
        else body.appendChild(el('p', { text: best.label }));
        if (answer.candidates.length > 1) {
          body.appendChild(el('h4', { text: 'Other results' }));
          var list = el('ul', { class: 'choices' });
          answer.candidates.slice(1).forEach(function (c) {
            list.appendChild(el('li', {}, [el('button', { type: 'button', text: c.label, onclick: function () { searchInput.value = c.label; search(c.label); } })]));
          });
          body.appendChild(list);
        }
      });
      // Centred in what the pop-up's panel leaves of the map.
      opened.then(function () { if (at) state.map.jumpTo({ center: at, zoom: Math.max(state.map.getZoom(), 17), padding: viewPadding(0) }); });
    }).catch(function (error) { say(error.message); });
  }

  // MARK: - Editing (through the working copy, as `mapbook edit`)

  // Feature tiles are made from the data as it is: asking again shows the edit.
  function edited(layerIDs) {
    layerIDs.forEach(function (id) {
      var source = state.map.getSource('layer:' + id);
      if (source && source.tiles) source.setTiles(source.tiles.map(function (t) { return t.replace(/[?].*$/, '') + '?v=' + Date.now(); }));
    });
  }

  function fieldInput(field, id) {
    var input;
    if (field.choices) {
      input = el('select', { id: id, name: field.name }, [el('option', { value: '', text: '' })].concat(field.choices.map(function (c) { return el('option', { value: c, text: c }); })));
      input.value = field.text;
    } else {
      var type = field.type === 'integer' || field.type === 'real' ? 'number' : field.type === 'date' ? 'date' : 'text';
      input = el('input', { id: id, name: field.name, type: type, value: field.text });
      if (field.type === 'real') input.step = 'any';
    }
    if (field.required) input.required = true;
    return input;
  }

  function editForm(layerID, featureID, place) {
    return openPanel('edit', featureID ? 'Edit feature' : 'New feature', function (body) {
      var query = featureID ? '?feature=' + featureID : '';
      return getJSON(api + '/layers/' + encodeURIComponent(layerID) + '/form' + query).then(function (form) {
        body.appendChild(el('p', { class: 'dim', text: form.layerTitle + (place ? ' at ' + place.lng.toFixed(6) + ', ' + place.lat.toFixed(6) : '') }));
        var f = el('form', { class: 'edit-form', novalidate: 'novalidate' });
        var problem = el('p', { class: 'problem', role: 'alert' });
        form.fields.forEach(function (field, i) {
          var id = 'edit-' + i;
          f.appendChild(el('div', { class: 'field', 'data-field': field.name }, [
            el('label', { for: id, text: field.label }), fieldInput(field, id),
            field.hint ? el('span', { class: 'dim hint', text: field.hint }) : null,
          ]));
        });
        f.appendChild(problem);
        f.appendChild(el('button', { type: 'submit', text: featureID ? 'Save' : 'Add' }));
        f.addEventListener('submit', function (e) {
          e.preventDefault();
          var values = {};
          form.fields.forEach(function (field) {
            var value = f.elements[field.name].value;
            if (featureID ? value !== field.text : value !== '') values[field.name] = value;
          });
          var url = api + '/layers/' + encodeURIComponent(layerID) + '/features' + (featureID ? '/' + featureID : '');
          var request = featureID ? { values: values } : { lon: place.lng, lat: place.lat, values: values };
          f.querySelectorAll('.field').forEach(function (d) { d.classList.remove('invalid'); });
          postJSON(url, request).then(function (change) {
            edited([layerID]);
            say((featureID ? 'Saved' : 'Added') + ' feature ' + change.fid + ' (mapbook sync sends it)');
            closePanel();
          }).catch(function (error) {
            problem.textContent = error.message;
            f.querySelectorAll('.field').forEach(function (d) {
              if (error.field && d.dataset.field.toLowerCase() === error.field.toLowerCase()) {
                d.classList.add('invalid');
                d.querySelector('input, select').focus();
              }
            });
          });
        });
        body.appendChild(f);
      });
    });
  }

  function deleteFeature(popup) {
    if (!confirm('Delete \u201c' + popup.title + '\u201d?')) return;
    postJSON(api + '/layers/' + encodeURIComponent(popup.layer) + '/features/' + popup.featureId, { delete: true }).then(function () {
      edited([popup.layer]);
      highlight(null);
      closePanel();
      say('Deleted \u201c' + popup.title + '\u201d (mapbook sync sends it)');
    }).catch(function (error) { say(error.message); });
  }

  function editPanel(body) {
    var layers = Object.keys(state.editable).map(function (id) { return state.editable[id]; });
    var choose = el('select', { id: 'edit-layer' }, layers.map(function (l) { return el('option', { value: l.id, text: l.title }); }));
    function add(place) { editForm(choose.value, null, place); }
    body.appendChild(el('label', { for: 'edit-layer', text: 'Add a feature to' }));
    body.appendChild(choose);
    body.appendChild(el('div', { class: 'row' }, [
      el('button', { type: 'button', text: 'Tap the map where it goes', onclick: function () { state.pick = add; say('Tap the map where the new feature goes'); } }),
      el('button', { type: 'button', class: 'secondary', text: 'Here (my location)', onclick: function () {
        if (state.lastLocation) add(state.lastLocation); else { state.geolocate.trigger(); say('Finding your location\u2026'); }
      } }),
    ]));
    var list = el('ul', { class: 'edits', id: 'pending-edits' });
    body.appendChild(el('h3', { text: 'Edits not yet synchronised' }));
    body.appendChild(list);
    var sync = el('section', { class: 'sync', id: 'sync', 'aria-live': 'polite' });
    body.appendChild(sync);
    return Promise.all([getJSON(api + '/edits').then(function (edits) {
      if (!edits.length) list.appendChild(el('li', { class: 'dim', text: 'None' }));
      edits.forEach(function (e) { list.appendChild(el('li', { text: e.operation + ' ' + e.layer + ' ' + e.fid + ' \u00b7 ' + e.time })); });
    }), syncSection(sync)]);
  }

  // Synchronising with the portal (a downloaded package, someone signed in): the same sync
  // as `mapbook sync`, run by the server; what it did, and the conflicts it reported.
  var packageApi = api.replace(/\/maps\/[^/]+$/, '');

  function conflictValue(v) { return v === null || v === undefined ? '(none)' : String(v); }

  function syncSection(box) {
    return getJSON(packageApi + '/sync').then(function (s) {
      box.replaceChildren(el('h3', { text: 'Synchronise with the portal' }));
      if (!s.available) {
        box.appendChild(el('p', { class: 'dim', text: s.reason }));
      } else {
        box.appendChild(el('p', { text: 'Sends the edits above to ' + s.portal + ' as ' + s.user + ' and receives everyone else\u2019s.' }));
        var button = el('button', { type: 'button', id: 'sync-now', text: 'Synchronise now' });
        var outcome = el('p', { id: 'sync-outcome', class: 'outcome' });
        button.addEventListener('click', function () {
          button.disabled = true;
          outcome.textContent = 'Synchronising\u2026';
          postJSON(packageApi + '/sync', {}).then(function (r) {
            var text = 'Synchronised: sent ' + r.sent + ' change' + (r.sent === 1 ? '' : 's') + ', received ' + r.received + ' feature' + (r.received === 1 ? '' : 's')
              + (r.conflicts.length ? ', ' + r.conflicts.length + ' conflict' + (r.conflicts.length === 1 ? '' : 's') + ' (listed below)' : ', no conflicts') + '.';
            edited(Object.keys(state.editable || {}));
            say(text);
            return openPanel('edit', 'Edit', editPanel).then(function () {
              var shown = document.getElementById('sync-outcome');
              if (shown) shown.textContent = text;
            });
          }).catch(function (error) {
            button.disabled = false;
            outcome.textContent = (error.kind === 'unreachable' ? 'Offline: ' : 'Not synchronised: ') + error.message;
            outcome.classList.add('problem');
          });
        });
        box.appendChild(button);
        box.appendChild(outcome);
      }
      var conflicts = s.conflicts || [];
      if (!conflicts.length) return;
      box.appendChild(el('h3', { text: 'Conflicts reported' }));
      var rows = conflicts.slice().reverse().map(function (c) {
        return el('tr', {}, [c.layer + ' ' + c.globalid.replace(/[{}]/g, '').slice(0, 8), c.column, conflictValue(c.ours), conflictValue(c.theirs), ({ ours: 'this device\u2019s', manual: 'the portal\u2019s, to choose', deleted: 'deleted' })[c.outcome] || c.outcome, c.time]
          .map(function (t) { return el('td', { text: t }); }));
      });
      var head = el('tr', {}, ['Feature', 'Field', 'This device', 'The portal', 'Kept', 'When'].map(function (t) { return el('th', { scope: 'col', text: t }); }));
      box.appendChild(el('div', { class: 'table-scroll' }, [el('table', { class: 'conflicts', id: 'sync-conflicts' }, [el('thead', {}, [head]), el('tbody', {}, rows)])]));
    });
  }

  // MARK: - Offline areas

  // Taking the area on screen offline: the portal cuts the package to it (features, base map
  // tiles down to the chosen detail, locators) and the server downloads the result into the
  // library, as `mapbook library take-offline` does.
  var details = [['Streets and buildings (1:2,000)', 2000], ['Neighbourhood (1:10,000)', 10000], ['Town (1:50,000)', 50000], ['All the detail the package has', 0]];

  function offlinePanel(body) {
    var bounds = state.map.getBounds();
    // Zoomed out past the world, MapLibre's bounds go beyond it: the area stops at its edges.
    function clamp(v, limit) { return Math.max(-limit, Math.min(limit, Math.round(v * 1e6) / 1e6)); }
    var box = [clamp(bounds.getWest(), 180), clamp(bounds.getSouth(), 85.05), clamp(bounds.getEast(), 180), clamp(bounds.getNorth(), 85.05)];
    body.appendChild(el('p', { text: 'Makes a package of the area on screen on the portal: its features as they are now, base map tiles down to the detail you choose, and search. It joins your library and synchronises with the same data.' }));
    body.appendChild(el('p', { class: 'dim', id: 'offline-area', text: 'Area: ' + box.map(function (v) { return v.toFixed(4); }).join(', ') + ' (west, south, east, north)' }));
    var choose = el('select', { id: 'offline-detail' }, details.map(function (d) { return el('option', { value: String(d[1]), text: d[0] }); }));
    body.appendChild(el('label', { for: 'offline-detail', text: 'Detail to keep' }));
    body.appendChild(choose);
    var button = el('button', { type: 'button', id: 'offline-now', text: 'Take this area offline' });
    var outcome = el('p', { id: 'offline-outcome', class: 'outcome' });
    button.addEventListener('click', function () {
      button.disabled = true;
      outcome.classList.remove('problem');
      outcome.textContent = 'The portal is making the package\u2026';
      postJSON(packageApi + '/offline', { bbox: box, maxScale: Number(choose.value) }).then(function (r) {
        outcome.replaceChildren(document.createTextNode('Took offline: \u201c' + r.title + '\u201d (' + (r.size / 1048576).toFixed(1) + ' MiB). '),
          el('a', { href: '/', text: 'Open it from the library' }));
        say('Took \u201c' + r.title + '\u201d offline');
      }).catch(function (error) {
        button.disabled = false;
        outcome.textContent = (error.kind === 'unreachable' ? 'Offline: ' : 'Not taken offline: ') + error.message;
        outcome.classList.add('problem');
      });
    });
    body.appendChild(button);
    body.appendChild(outcome);
  }

  // MARK: - Directions

  function directionsPanel(body) {
    if (!state.info.hasNetwork) { body.appendChild(el('p', { text: 'This package has no street network for directions.' })); return; }
    var form = el('form', { class: 'directions' });
    function place(name, label) {
      var input = el('input', { type: 'search', id: 'route-' + name, name: name, placeholder: 'Address, or LON,LAT', autocomplete: 'off' });
      var tap = el('button', { type: 'button', class: 'secondary', text: 'Tap the map', onclick: function () {
        state.pick = function (lngLat) { input.value = lngLat.lng.toFixed(6) + ',' + lngLat.lat.toFixed(6); };
        say('Tap the map for the ' + label.toLowerCase());
      } });
      var here = el('button', { type: 'button', class: 'secondary', text: 'My location', onclick: function () {
        if (state.lastLocation) { input.value = state.lastLocation.lng.toFixed(6) + ',' + state.lastLocation.lat.toFixed(6); return; }
        state.geolocate.trigger();
        say('Finding your location\u2026');
      } });
      return el('div', { class: 'place' }, [el('label', { for: 'route-' + name, text: label }), input, el('div', { class: 'row' }, [tap, here])]);
    }
    var by = el('select', { id: 'route-by', name: 'by' }, [el('option', { value: 'time', text: 'Quickest' }), el('option', { value: 'distance', text: 'Shortest' })]);
    var summary = el('p', { class: 'route-summary', id: 'route-summary' });
    var list = el('ol', { class: 'steps', id: 'route-steps' });
    form.appendChild(place('from', 'From'));
    form.appendChild(place('to', 'To'));
    form.appendChild(el('div', { class: 'row' }, [el('label', { for: 'route-by', text: 'Route' }), by, el('button', { type: 'submit', text: 'Get directions' })]));
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var from = form.elements.from.value, to = form.elements.to.value;
      if (!from || !to) { say('Give where from and where to'); return; }
      say('Finding the route\u2026');
      getJSON(api + '/route?' + new URLSearchParams({ from: from, to: to, by: by.value })).then(function (answer) {
        say('');
        var feature = answer.solve.routes.features[0];
        var line = { type: 'LineString', coordinates: feature.geometry.paths[0] };
        state.map.getSource('mapbook-route').setData({ type: 'Feature', geometry: line, properties: {} });
        var lons = line.coordinates.map(function (c) { return c[0]; }), lats = line.coordinates.map(function (c) { return c[1]; });
        fit([Math.min.apply(null, lons), Math.min.apply(null, lats), Math.max.apply(null, lons), Math.max.apply(null, lats)], 40);
        // The first line sums the route up; the others are its numbered steps.
        list.replaceChildren();
        summary.textContent = answer.lines[0] || '';
        answer.lines.slice(1).forEach(function (text) { list.appendChild(el('li', { text: text.trim().replace(/^\d+\.\s*/, '') })); });
      }).catch(function (error) { say(error.message); list.replaceChildren(el('li', { class: 'problem', text: error.message })); });
    });
    body.appendChild(form);
    body.appendChild(summary);
    body.appendChild(list);
  }

  var panels = {
    layers: ['Layers', layersPanel], legend: ['Legend', legendPanel], bookmarks: ['Bookmarks', bookmarksPanel],
    directions: ['Directions', directionsPanel], basemaps: ['Basemaps', basemapsPanel], edit: ['Edit', editPanel],
    offline: ['Take offline', offlinePanel],
  };

  document.querySelectorAll('.tools button').forEach(function (button) {
    button.addEventListener('click', function () {
      var name = button.dataset.panel;
      if (state.openPanel === name) { closePanel(); return; }
      if (panels[name]) openPanel(name, panels[name][0], panels[name][1]);
    });
  });

  // MARK: - The map

  async function start() {
    try {
      var container = document.getElementById('map');
      state.info = await getJSON(api + '?' + new URLSearchParams({ width: container.clientWidth, height: container.clientHeight }));
      var style = absolutize(await getJSON(api + '/style.json'));
      var options = { container: 'map', style: style, attributionControl: { compact: true }, dragRotate: false, pitchWithRotate: false };
      if (state.info.bounds) options.bounds = state.info.bounds;
      var map = new maplibregl.Map(options);
      state.map = map;
      map.touchZoomRotate.disableRotation();
      map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'bottom-right');
      state.geolocate = new maplibregl.GeolocateControl({ positionOptions: { enableHighAccuracy: true }, trackUserLocation: true, showAccuracyCircle: true });
      map.addControl(state.geolocate, 'bottom-right');
      map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
      state.geolocate.on('geolocate', function (e) {
        state.lastLocation = { lng: e.coords.longitude, lat: e.coords.latitude, accuracy: e.coords.accuracy };
        var from = document.getElementById('route-from');
        if (from && !from.value) from.value = e.coords.longitude.toFixed(6) + ',' + e.coords.latitude.toFixed(6);
        say('');
      });
      state.geolocate.on('error', function () { say('Your location is not available'); });
      if (state.info.basemaps.length > 1) document.querySelector('[data-panel=basemaps]').hidden = false;
      getJSON(api + '/editable').then(function (layers) {
        state.editable = {};
        layers.forEach(function (l) { state.editable[l.id] = l; });
        document.querySelector('[data-panel=edit]').hidden = layers.length === 0;
      }).catch(function () { state.editable = {}; });
      getJSON(packageApi + '/sync').then(function (s) {
        document.querySelector('[data-panel=offline]').hidden = !s.takeOffline;
      }).catch(function () {});
      map.on('load', function () {
        map.addSource('mapbook-route', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
        map.addLayer({ id: 'mapbook-route', type: 'line', source: 'mapbook-route', paint: { 'line-color': '#0072b2', 'line-width': 6, 'line-opacity': 0.85 }, layout: { 'line-cap': 'round', 'line-join': 'round' } });
        map.addSource('mapbook-highlight', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
        map.addLayer({ id: 'mapbook-highlight-fill', type: 'fill', source: 'mapbook-highlight', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': '#00e5ff', 'fill-opacity': 0.25 } });
        map.addLayer({ id: 'mapbook-highlight-line', type: 'line', source: 'mapbook-highlight', filter: ['!=', ['geometry-type'], 'Point'], paint: { 'line-color': '#00e5ff', 'line-width': 4 } });
        map.addLayer({ id: 'mapbook-highlight-point', type: 'circle', source: 'mapbook-highlight', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-radius': 10, 'circle-color': 'rgba(0,0,0,0)', 'circle-stroke-color': '#00e5ff', 'circle-stroke-width': 3 } });
        state.ready = true;
      });
      map.on('click', function (e) {
        if (state.pick) { var pick = state.pick; state.pick = null; pick(e.lngLat); say(''); return; }
        identifyAt(e.point, e.lngLat).catch(function (error) { say(error.message); });
      });
      // Tests wait for this: the map drew everything it asked for.
      map.on('idle', function () { state.idle = (state.idle || 0) + 1; });
      map.on('dataloading', function () { state.idle = 0; });
      map.on('error', function (e) { if (e && e.error && e.error.message) say(e.error.message); });
    } catch (error) {
      say(error.message);
    }
  }

  if (window.maplibregl) start();
  else say('MapLibre GL JS did not load: run tools/setup, then build mapbook again');
})();

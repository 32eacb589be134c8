// The portal's pages work without this script, but for uploading; it adds what helps:
// requests to the API carry the session's CSRF token (the `csrf-token` meta element), and the
// upload form sends its file in parts with a progress bar.
"use strict";
// What the map pages share (preview.js, webmap.js): a style from the portal made absolute, as
// MapLibre wants its URLs (the portal writes paths).
window.mapbookPortal = {
  async style(url) {
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) throw new Error("The portal answered " + response.status + " for the map's style.");
    const style = await response.json();
    const absolute = (path) => (typeof path === "string" && path.startsWith("/") ? location.origin + path : path);
    for (const source of Object.values(style.sources || {})) {
      if (source.tiles) source.tiles = source.tiles.map(absolute);
      if (source.url) source.url = absolute(source.url);
    }
    if (style.sprite) style.sprite = absolute(style.sprite);
    if (style.glyphs) style.glyphs = absolute(style.glyphs);
    return style;
  },
};
(function () {
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";

  // A POST to the sharing API from this page: with the CSRF token; the answer's JSON, or an
  // Error carrying the API's message and details.
  async function api(url, body) {
    const response = await fetch(url, { method: "POST", body, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
    const answer = await response.json();
    if (answer.error) {
      const error = new Error(answer.error.message || "The portal refused the request.");
      error.details = answer.error.details || [];
      throw error;
    }
    return answer;
  }

  // One part by XMLHttpRequest, whose upload reports its progress (fetch's does not).
  function sendPart(url, body, progress) {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open("POST", url);
      request.setRequestHeader("X-CSRF-Token", csrf);
      request.upload.onprogress = (event) => progress(event.loaded);
      request.onerror = () => reject(new Error("The connection to the portal was lost."));
      request.onload = () => {
        let answer;
        try { answer = JSON.parse(request.responseText); } catch (e) { reject(new Error("The portal answered " + request.status + ".")); return; }
        if (answer.error) {
          const error = new Error(answer.error.message);
          error.details = answer.error.details || [];
          reject(error);
        } else resolve(answer);
      };
      request.send(body);
    });
  }

  const types = { mmpk: "Mobile Map Package", vtpk: "Vector Tile Package", tpkx: "Compact Tile Package", geojson: "GeoJson", json: "GeoJson", zip: "Shapefile" };
  const partSize = 8 * 1024 * 1024;

  const form = document.getElementById("upload");
  if (form) {
    const bar = document.getElementById("upload-progress");
    const status = document.getElementById("upload-status");
    const findings = document.getElementById("upload-findings");
    const button = document.getElementById("upload-now");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const file = form.elements.file.files[0];
      if (!file) return;
      const user = encodeURIComponent(form.dataset.user);
      const existing = form.dataset.item;
      const base = `/sharing/rest/content/users/${user}`;
      findings.replaceChildren();
      button.disabled = true;
      bar.hidden = false;
      bar.value = 0;
      let id = existing;
      try {
        const fields = new URLSearchParams({ f: "json", multipart: "true", fileName: file.name });
        if (!existing) {
          const ext = file.name.split(".").pop().toLowerCase();
          fields.set("type", types[ext] || "Mobile Map Package");
          for (const name of ["title", "snippet", "tags"]) {
            const value = form.elements[name].value.trim();
            if (value) fields.set(name, value);
          }
        }
        status.textContent = "Starting the upload";
        const started = await api(existing ? `${base}/items/${existing}/update` : `${base}/addItem`, fields);
        id = id || started.id;
        const parts = Math.max(1, Math.ceil(file.size / partSize));
        for (let n = 1; n <= parts; n++) {
          const start = (n - 1) * partSize;
          const body = new FormData();
          body.set("f", "json");
          body.set("partNum", String(n));
          body.set("file", file.slice(start, start + partSize), file.name);
          await sendPart(`${base}/items/${id}/addPart`, body, (loaded) => {
            const sent = Math.min(file.size, start + loaded);
            bar.value = file.size ? Math.round((sent / file.size) * 100) : 100;
            status.textContent = `Sending part ${n} of ${parts}: ${bar.value}%`;
          });
        }
        status.textContent = "Checking the package";
        await api(`${base}/items/${id}/commit`, new URLSearchParams({ f: "json" }));
        if (!existing && form.elements.access.value !== "private") {
          const share = new URLSearchParams({ f: "json", everyone: String(form.elements.access.value === "public"), org: "true" });
          await api(`/sharing/rest/content/items/${id}/share`, share);
        }
        status.textContent = "Uploaded";
        window.location.assign(`/home/item.html?id=${id}`);
      } catch (error) {
        bar.hidden = true;
        status.textContent = "";
        const heading = document.createElement("p");
        heading.className = "error";
        heading.textContent = error.message;
        findings.append(heading);
        if (error.details && error.details.length) {
          const list = document.createElement("ul");
          for (const detail of error.details) {
            const item = document.createElement("li");
            item.textContent = detail;
            list.append(item);
          }
          findings.append(list);
        }
        // A new item that never got its file goes now, not at the next sweep.
        if (!existing && id) {
          api(`${base}/items/${id}/delete`, new URLSearchParams({ f: "json" })).catch(() => {});
        }
        findings.focus();
      } finally {
        button.disabled = false;
      }
    });
  }
})();

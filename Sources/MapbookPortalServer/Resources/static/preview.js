// The item page's live map preview: the package's map drawn by MapLibre GL JS from the
// portal's own style, tiles and fonts (read in place from the stored package). One map at a
// time; the map picker, when the package has several, switches the style.
"use strict";
(function () {
  const element = document.getElementById("preview");
  if (!element) return;
  const status = element.querySelector(".preview-status");
  const picker = document.getElementById("preview-map");
  const base = element.dataset.base;

  function say(text) {
    status.textContent = text;
    status.hidden = !text;
  }

  if (!window.maplibregl) {
    say("The preview cannot be drawn: MapLibre GL JS did not load.");
    return;
  }

  function style(number) {
    return window.mapbookPortal.style(base + "/" + number + "/style.json");
  }

  function fit(map, loaded) {
    const bounds = loaded.metadata && loaded.metadata["mapbook:bounds"];
    if (bounds) map.fitBounds([[bounds[0], bounds[1]], [bounds[2], bounds[3]]], { duration: 0, padding: 8 });
  }

  let map = null;
  async function show(number) {
    say("Loading the map…");
    try {
      const loaded = await style(number);
      if (!map) {
        const options = { container: element, style: loaded, attributionControl: { compact: true }, cooperativeGestures: false };
        const bounds = loaded.metadata && loaded.metadata["mapbook:bounds"];
        if (bounds) options.bounds = [[bounds[0], bounds[1]], [bounds[2], bounds[3]]];
        map = new maplibregl.Map(options);
        map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
        map.on("error", (event) => console.warn("preview:", event.error && event.error.message));
        // Tests and the benchmark wait for this: the first tiles drawn, nothing left to load.
        map.once("idle", () => { element.dataset.state = "idle"; });
      } else {
        element.dataset.state = "loading";
        map.setStyle(loaded);
        fit(map, loaded);
        map.once("idle", () => { element.dataset.state = "idle"; });
      }
      say("");
    } catch (error) {
      say("The preview cannot be drawn: " + error.message);
    }
  }

  if (picker) picker.addEventListener("change", () => show(picker.value));
  show(picker ? picker.value : 1);
})();

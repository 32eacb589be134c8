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
  let asked = 0;
  async function show(number) {
    // Only the last map picked is shown, whichever style comes back first.
    const mine = ++asked;
    say("Loading the map…");
    try {
      const loaded = await style(number);
      if (mine !== asked) return;
      element.dataset.state = "loading";
      if (!map) {
        const options = { container: element, style: loaded, attributionControl: { compact: true }, fadeDuration: 0 };
        const bounds = loaded.metadata && loaded.metadata["mapbook:bounds"];
        if (bounds) options.bounds = [[bounds[0], bounds[1]], [bounds[2], bounds[3]]];
        map = new maplibregl.Map(options);
        map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
        map.on("error", (event) => console.warn("preview:", event.error && event.error.message));
      } else {
        map.setStyle(loaded);
        fit(map, loaded);
      }
      // Tests and the benchmark wait for this: the tiles in view drawn, nothing left to load.
      map.once("idle", () => { if (mine === asked) element.dataset.state = "idle"; });
      say("");
    } catch (error) {
      if (mine === asked) say("The preview cannot be drawn: " + error.message);
    }
  }

  if (picker) picker.addEventListener("change", () => show(picker.value));
  show(picker ? picker.value : 1);
})();

// Keeps the application's own files so that a device that opened Mapbook once opens its
// shell again without the network. The map data stays on the serving device: API answers and
// tiles are never cached here; pages are fetched from the network first and fall back to the
// last copy kept.
'use strict';
var SHELL = 'mapbook-shell-v1';
var FILES = ['/', '/static/app.js', '/static/app.css', '/static/maplibre-gl.js', '/static/maplibre-gl.css', '/static/icon.svg', '/manifest.webmanifest'];

self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) { return cache.addAll(FILES); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== SHELL; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener('fetch', function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.indexOf('/api/') === 0 || url.pathname.indexOf('/tiles/') >= 0 || url.pathname.indexOf('/resources/') >= 0) return;
  var isPage = request.mode === 'navigate';
  var isShell = url.pathname.indexOf('/static/') === 0 || url.pathname === '/manifest.webmanifest';
  if (!isPage && !isShell) return;
  event.respondWith(fetch(request).then(function (response) {
    if (response.ok) {
      var copy = response.clone();
      caches.open(SHELL).then(function (cache) { cache.put(isPage ? url.pathname : request, copy); });
    }
    return response;
  }).catch(function () {
    return caches.match(isPage ? url.pathname : request).then(function (kept) {
      return kept || caches.match('/');
    });
  }));
});

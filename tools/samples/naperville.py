#!/usr/bin/env python3
"""Generates the data of the naperville-water sample: a fictional water utility.

    python3 tools/samples/naperville.py OUTDIR        (normally samples/naperville-water)

writes, from a fixed seed and byte-identical on every run, the files a utility's GIS staff
would hand over, each in a format the packager imports:

    OUTDIR/data/mains.geojson      Water Mains: GeoJSON (RFC 7946), WGS84 lon/lat to 7 decimals
    OUTDIR/data/laterals.zip       Water Lateral Lines: a zipped polyline shapefile
                                   (laterals.shp/.shx/.dbf/.prj/.cpg), WGS84, UTF-8 attributes
    OUTDIR/data/valves.shp         Water System Valves: a point shapefile with .shx, .dbf
                                   (dBASE III: C, N and D fields), .prj (WGS84), .cpg (UTF-8)
    OUTDIR/data/addresses.csv      Address Points: CSV (RFC 4180, UTF-8) with lon/lat columns
    OUTDIR/data/streets.geojson    the backdrop's and the network's streets (segment, name, class,
                                   oneway), split at intersections
    OUTDIR/data/turns.csv          the network's turn restrictions: two no-left-turns downtown,
                                   by street segment
    OUTDIR/data/parcels.geojson    the backdrop's parcels (land use); the packager tiles both
                                   into the package's vector tile backdrop
    OUTDIR/data/relief.tpkx        a second base map to choose: made-up shaded relief as an Esri
                                   compact tile package (raster), by tools/samples/relief.py

The shapefiles are in WGS84 (GCS_WGS_1984), not State Plane: projecting to NAD83 / Illinois
East (ftUS) properly needs PROJ, and the generator stays standard-library only. The town is
modelled in ground metres east and north of a centre near downtown Naperville, Illinois, and
converted to longitude and latitude only when written.
Everything in it is made up. Standard library only, so `make samples` needs nothing but
Python 3.11.
"""

import csv
import datetime
import io
import json
import math
import os
import random
import struct
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import relief  # noqa: E402
from dataclasses import dataclass

SEED = "naperville-water-1"
LON0, LAT0 = -88.1535, 41.7508          # the town centre: Washington St and Chicago Ave
EARTH_RADIUS = 6378137.0                 # the Web Mercator sphere
FIXED_TIME = "2026-01-01T00:00:00.000Z"  # every date written, so reruns are identical
FIXED_UNIX = 1767225600                  # the same instant in Unix seconds
ZIP_TIME = (2026, 1, 1, 0, 0, 0)
FIXED_DATE = datetime.date(2026, 1, 1)   # the .dbf "last update"
EXERCISE_START, EXERCISE_DAYS = datetime.date(2021, 3, 1), 1740   # valve exercising, to 2025-12

# The grid: 15 north-south streets 200 m apart, 25 east-west streets 125 m apart, running
# STUB metres past the outermost cross street (where they leave town).
NS_SPACING, EW_SPACING, STUB = 200.0, 125.0, 60.0
NS_STREETS = [  # west to east; the 8th (Washington St) divides addresses into W and E
    ("Brainard St", "local"), ("Columbia St", "collector"), ("Beaupré St", "local"),
    ("Ellsworth St", "local"), ("Eagle St", "collector"), ("Webster St", "local"),
    ("Main St", "local"), ("Washington St", "arterial"), ("Center St", "local"),
    ("Wright St", "local"), ("Sleight St", "collector"), ("Mill St", "local"),
    ("Julian St", "local"), ("Ewing St", "collector"), ("Huffman St", "local"),
]
EW_STREETS = [  # south to north; the 13th (Chicago Ave) divides addresses into S and N
    ("Royce Rd", "arterial"), ("Tuthill Ave", "local"), ("Plank Ave", "local"),
    ("Knoch Ave", "local"), ("Wehrli Ave", "local"), ("Osler Ave", "local"),
    ("Olesen Ave", "collector"), ("Prairie Ave", "local"), ("Hillside Ave", "local"),
    ("Bailey Ave", "local"), ("O'Brien Ave", "local"), ("Douglas Ave", "local"),
    ("Chicago Ave", "arterial"), ("Jackson Ave", "local"), ("Jefferson Ave", "collector"),
    ("Van Buren Ave", "local"), ("Benton Ave", "local"), ("Franklin Ave", "local"),
    ("Spring Ave", "collector"), ("Porter Ave", "local"), ("Highland Ave", "local"),
    ("Bauer Ave", "local"), ("Martin Ave", "local"), ("Müller Ave", "local"),
    ("Warrenville Rd", "arterial"),
]
ROW_HALF_WIDTH = {"arterial": 15.0, "collector": 12.0, "local": 10.0}
# A one-way couplet downtown, as the streets' `oneway` field says (relative to the line's
# direction, south to north): Main St northbound, Center St southbound; every other street
# both ways.
ONEWAY = {"Main St": "FT", "Center St": "TF"}
MAIN_OFFSET = 3.5  # mains run this far right of the street centreline (south or east side)

# Blocks are named by the index of the north-south street on their west side (0-13) and of
# the east-west street on their south side (0-23).
PARK_BLOCKS = [(2, 3), (9, 6), (5, 19), (11, 16)]
SCHOOL_BLOCKS = [(4, 9), (10, 15), (1, 21)]
TOWER_BLOCK = (11, 11)                      # fronts Chicago Ave, east of downtown
DOWNTOWN = range(5, 9), range(12, 16)       # blocks around Washington St and Jefferson Ave
DEVELOPMENT = range(11, 14), range(0, 2)    # south-east corner: platted, mains proposed

SCHOOL_NAMES = ["Beaupré Elementary School", "Jefferson Junior High School", "Highland Elementary School"]
BUSINESS_NAMES = ["Kroehler", "Egermann", "Hiltscher", "O'Malley", "Sindt", "Peña", "Nguyen", "Scott",
                  "Müller", "Beaumont", "Ritzert", "Nichols", "Kowalski", "D'Angelo", "Larsen", "Yamada"]
BUSINESS_TRADES = ["Hardware", "Bakery", "Dry Cleaning", "Pharmacy", "Insurance", "Dental Care", "Tavern",
                   "Flowers", "Café", "Books", "Auto Repair", "Tailoring"]
BUSINESS_TEMPLATES = ["{name}'s {trade}", "{name}'s {trade}", "{name} {trade}", "{name} & Sons, Inc.",
                      "{name} & Partners, LLP", 'The "Old {name}" Tap']

# Every value the renderers of samples/naperville-water/project.yaml list; the generator
# refuses to write any other, so the maps never fall back to "Other" by accident.
STATUSES = {"Existing", "Proposed Replacement", "Proposed New"}
DOMAINS = {
    ("mains", "MATERIAL"): {"Ductile Iron", "Cast Iron", "PVC", "Asbestos Cement", "HDPE"},
    ("mains", "DIAMETER"): {4, 6, 8, 12, 16},
    ("mains", "PROPSTATUS"): STATUSES,
    ("laterals", "MATERIAL"): {"Copper", "PVC", "Galvanized", "Lead"},
    ("laterals", "DIAMETER"): {0.75, 1.0, 1.5, 2.0},
    ("laterals", "PROPSTATUS"): STATUSES,
    ("valves", "VALVETYPE"): {"Gate", "Butterfly", "Check", "Air Release"},
}


# ---------------------------------------------------------------------------------------------
# Plane geometry in local metres

def cross(ax, ay, bx, by):
    return ax * by - ay * bx


def segment_hit(p1, p2, q1, q2):
    """(t, u, point) where segment p1-p2 meets q1-q2 at p1 + t(p2-p1) = q1 + u(q2-q1), or None."""
    rx, ry = p2[0] - p1[0], p2[1] - p1[1]
    sx, sy = q2[0] - q1[0], q2[1] - q1[1]
    denom = cross(rx, ry, sx, sy)
    if abs(denom) < 1e-12:
        return None
    qpx, qpy = q1[0] - p1[0], q1[1] - p1[1]
    t = cross(qpx, qpy, sx, sy) / denom
    u = cross(qpx, qpy, rx, ry) / denom
    if 0 <= t <= 1 and 0 <= u <= 1:
        return t, u, (p1[0] + t * rx, p1[1] + t * ry)
    return None


def line_intersection(p, d, q, e):
    """Where the infinite lines p + s*d and q + t*e meet."""
    s = cross(q[0] - p[0], q[1] - p[1], e[0], e[1]) / cross(d[0], d[1], e[0], e[1])
    return (p[0] + s * d[0], p[1] + s * d[1])


def closest_on_segment(p, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return (a[0] + t * dx, a[1] + t * dy)


def closest_on_polyline(p, pts):
    best, best_d = None, math.inf
    for a, b in zip(pts, pts[1:]):
        c = closest_on_segment(p, a, b)
        d = math.dist(p, c)
        if d < best_d:
            best, best_d = c, d
    return best, best_d


def polyline_length(pts):
    return sum(math.dist(a, b) for a, b in zip(pts, pts[1:]))


def point_along(pts, distance):
    """The point `distance` metres from the start of a polyline (clamped to its end)."""
    for a, b in zip(pts, pts[1:]):
        step = math.dist(a, b)
        if distance <= step and step > 0:
            t = distance / step
            return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        distance -= step
    return pts[-1]


def offset_polyline(pts, d):
    """The polyline moved d metres to its right, each vertex mitred so both sides stay d away."""
    normals = []
    for a, b in zip(pts, pts[1:]):
        length = math.dist(a, b)
        normals.append(((b[1] - a[1]) / length, -(b[0] - a[0]) / length))
    out = []
    for k, (x, y) in enumerate(pts):
        adjacent = normals[max(k - 1, 0):k + 1]
        nx, ny = sum(n[0] for n in adjacent), sum(n[1] for n in adjacent)
        length = math.hypot(nx, ny)
        nx, ny = nx / length, ny / length
        mitre = nx * adjacent[0][0] + ny * adjacent[0][1]
        out.append((x + nx * d / mitre, y + ny * d / mitre))
    return out


def split_at_crossings(polylines):
    """Splits every polyline where it crosses another one.

    Returns, per input polyline, its pieces as (points, start_node, end_node); a node is the
    crossing point (the same tuple object for every piece meeting there) or None at a free end.
    """
    cuts = [[] for _ in polylines]
    for ia, a in enumerate(polylines):
        for ib in range(ia + 1, len(polylines)):
            b = polylines[ib]
            for ka, (a1, a2) in enumerate(zip(a, a[1:])):
                for kb, (b1, b2) in enumerate(zip(b, b[1:])):
                    hit = segment_hit(a1, a2, b1, b2)
                    # A crossing through a shared vertex is counted on the earlier segment only.
                    if hit and (hit[0] < 1 or ka == len(a) - 2) and (hit[1] < 1 or kb == len(b) - 2):
                        cuts[ia].append((ka + hit[0], hit[2]))
                        cuts[ib].append((kb + hit[1], hit[2]))
    result = []
    for pts, polyline_cuts in zip(polylines, cuts):
        polyline_cuts.sort(key=lambda c: c[0])
        stops = [(0.0, pts[0], None)] + [(p, pt, pt) for p, pt in polyline_cuts] + [(len(pts) - 1.0, pts[-1], None)]
        pieces = []
        for (p0, pt0, n0), (p1, pt1, n1) in zip(stops, stops[1:]):
            inner = [pts[k] for k in range(len(pts)) if p0 < k < p1]
            piece = [pt0] + inner + [pt1]
            if polyline_length(piece) >= 0.5:  # drop slivers where three streets nearly meet
                pieces.append((piece, n0, n1))
        result.append(pieces)
    return result


def segment_boxes(pts):
    """[(xmin, xmax, ymin, ymax, a, b)] for each segment of a polyline."""
    return [(min(a[0], b[0]), max(a[0], b[0]), min(a[1], b[1]), max(a[1], b[1]), a, b) for a, b in zip(pts, pts[1:])]


def polygon_distance_to_polyline(ring, boxes, horizon):
    """0 when a ring and a polyline (as segment_boxes) touch or cross, else the shortest
    distance between their edges; inf when that is surely more than `horizon`."""
    xmin, xmax = min(p[0] for p in ring) - horizon, max(p[0] for p in ring) + horizon
    ymin, ymax = min(p[1] for p in ring) - horizon, max(p[1] for p in ring) + horizon
    near = [(c, d) for x0, x1, y0, y1, c, d in boxes if x0 <= xmax and x1 >= xmin and y0 <= ymax and y1 >= ymin]
    best = math.inf
    for a, b in zip(ring, ring[1:]):
        for c, d in near:
            if segment_hit(a, b, c, d):
                return 0.0
            best = min(best, math.dist(a, closest_on_segment(a, c, d)), math.dist(c, closest_on_segment(c, a, b)))
    return best


# ---------------------------------------------------------------------------------------------
# Projection

def to_lonlat(e, n):
    lat = LAT0 + math.degrees(n / EARTH_RADIUS)
    lon = LON0 + math.degrees(e / (EARTH_RADIUS * math.cos(math.radians(LAT0))))
    return lon, lat


# ---------------------------------------------------------------------------------------------
# The town

@dataclass(eq=False)
class Street:
    name: str          # "Jefferson Ave": the direction prefix depends on the side of town
    cls: str           # arterial, collector, local
    axis: str          # "ew": prefixed W/E by Washington St; "ns": N/S by Chicago Ave
    points: list       # west to east, or south to north
    main: list = None  # the water main under it


@dataclass
class Parcel:
    ring: list                     # closed, counter-clockwise
    block: tuple                   # (i, j) of its block
    landuse: str
    year: int                      # when it was built (or will be)
    proposed: bool = False         # in the development area: nothing built yet
    front: Street = None           # the street it is addressed on and served from
    front_point: tuple = None      # middle of the lot line along that street
    pin: str = ""
    housenum: int = 0
    streetname: str = ""
    zip: str = ""
    sitename: str = ""

    @property
    def centroid(self):
        pts = self.ring[:-1]
        return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))

    @property
    def fulladdr(self):
        return f"{self.housenum} {self.streetname}" if self.front else None


class Town:
    """Streets, parcels and the water system, all in local metres."""

    def __init__(self):
        self.ns, self.ew = self.grid_streets(random.Random(SEED + ":grid"))
        self.washington, self.chicago = self.ns[7], self.ew[12]
        self.ogden = Street("Ogden Ave", "arterial", "ew", [(-1460.0, 420.0), (1460.0, 1380.0)])
        self.hobson = Street("Hobson Rd", "arterial", "ew", self.hobson_curve())
        self.arterials = [self.ogden, self.hobson]
        self.streets = self.ns + self.ew + self.arterials
        self.street_pieces = split_at_crossings([s.points for s in self.streets])
        self.parcels = self.build_parcels(random.Random(SEED + ":parcels"))
        self.address_parcels()
        self.mains, self.valves = self.build_water_system(random.Random(SEED + ":mains"))
        self.laterals = self.build_laterals(random.Random(SEED + ":laterals"))
        self.describe_valves(random.Random(SEED + ":valve-records"))
        self.name_sites(random.Random(SEED + ":sites"))

    # Streets ---------------------------------------------------------------------------------

    @staticmethod
    def grid_streets(rng):
        """Straight streets, each shifted and turned a little so the grid is not a lattice."""
        half_ns = (len(EW_STREETS) - 1) / 2 * EW_SPACING + STUB
        half_ew = (len(NS_STREETS) - 1) / 2 * NS_SPACING + STUB
        ns, ew = [], []
        for k, (name, cls) in enumerate(NS_STREETS):
            x0 = (k - 7) * NS_SPACING + (0 if k == 7 else rng.uniform(-14, 14))
            slope = rng.uniform(-0.012, 0.012)
            ns.append(Street(name, cls, "ns", [(x0 - slope * half_ns, -half_ns), (x0 + slope * half_ns, half_ns)]))
        for k, (name, cls) in enumerate(EW_STREETS):
            y0 = (k - 12) * EW_SPACING + (0 if k == 12 else rng.uniform(-10, 10))
            slope = rng.uniform(-0.008, 0.008)
            ew.append(Street(name, cls, "ew", [(-half_ew, y0 - slope * half_ew), (half_ew, y0 + slope * half_ew)]))
        return ns, ew

    @staticmethod
    def hobson_curve():
        """A road that swings south across the lower third of town, as a river road would."""
        pts = []
        for k in range(74):
            e = -1460.0 + k * 40.0
            u = (e + 1460.0) / 2920.0
            pts.append((e, round(-800.0 - 250.0 * math.sin(math.pi * u) + 80.0 * math.sin(3 * math.pi * u), 2)))
        return pts

    def prefixed(self, street, p):
        """The street's name with the direction prefix for point p ("W Jefferson Ave")."""
        if street.axis == "ew":
            a, b = self.washington.points
            side = cross(b[0] - a[0], b[1] - a[1], p[0] - a[0], p[1] - a[1])  # > 0: west
            return ("W " if side > 0 else "E ") + street.name
        a, b = self.chicago.points
        side = cross(b[0] - a[0], b[1] - a[1], p[0] - a[0], p[1] - a[1])      # > 0: north
        return ("N " if side > 0 else "S ") + street.name

    def house_number(self, street, p, even_side):
        """Chicago-style numbering: 100 per 200 m block east-west, per 125 m block north-south."""
        if street.axis == "ew":
            a, b = self.washington.points
            distance = abs(p[0] - (a[0] + (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1])))
            number = 2 * round(distance / 4)
        else:
            a, b = self.chicago.points
            distance = abs(p[1] - (a[1] + (b[1] - a[1]) * (p[0] - a[0]) / (b[0] - a[0])))
            number = 2 * round(distance / 2.5)
        return max(number, 2) + (0 if even_side else 1)

    def north_of_ogden(self, p):
        a, b = self.ogden.points
        return cross(b[0] - a[0], b[1] - a[1], p[0] - a[0], p[1] - a[1]) > 0

    def south_of_hobson(self, p):
        pts = self.hobson.points
        k = min(max(int((p[0] - pts[0][0]) // 40), 0), len(pts) - 2)  # vertices are 40 m apart
        (e0, n0), (e1, n1) = pts[k], pts[k + 1]
        return p[1] < n0 + (n1 - n0) * (p[0] - e0) / (e1 - e0)

    def in_development(self, p):
        """Inside the south-east development, 20 m clear of the streets around it."""
        sw = self.block_corners(DEVELOPMENT[0][0], DEVELOPMENT[1][0])[0]
        ne = self.block_corners(DEVELOPMENT[0][-1], DEVELOPMENT[1][-1])[2]
        return sw[0] + 20 < p[0] < ne[0] - 20 and sw[1] + 20 < p[1] < ne[1] - 20

    def era(self, p, rng):
        """When an area was built: outward from the 1890s core to the 1970s edge of the grid;
        north of Ogden Ave in the 1980s and 1990s."""
        distance_km = math.hypot(p[0], p[1] - 250) / 1000
        if self.north_of_ogden(p):
            year = 1984 + 10 * distance_km + rng.gauss(0, 4)
        else:
            year = 1890 + 42 * distance_km + rng.gauss(0, 6)
        return int(min(year, 2015))

    @staticmethod
    def replaced(year, rng):
        """Many pipes older than 1960 have since been relaid."""
        return rng.randint(1966, 2018) if year < 1960 and rng.random() < 0.3 else year

    # Parcels ---------------------------------------------------------------------------------

    def block_corners(self, i, j):
        """South-west, south-east, north-east, north-west corners of block (i, j)."""
        def corner(ns, ew):
            (p, q), (r, s) = ns.points, ew.points
            return line_intersection(p, (q[0] - p[0], q[1] - p[1]), r, (s[0] - r[0], s[1] - r[1]))
        west, east, south, north = self.ns[i], self.ns[i + 1], self.ew[j], self.ew[j + 1]
        return corner(west, south), corner(east, south), corner(east, north), corner(west, north)

    def build_parcels(self, rng):
        """Lots in two back-to-back rows per block, fronting the east-west streets."""
        parcels = []
        for i in range(len(self.ns) - 1):
            for j in range(len(self.ew) - 1):
                parcels += self.block_parcels(i, j, rng)
        # Lots the diagonal and curved arterials run through were never platted.
        kept = []
        arterial_boxes = [segment_boxes(a.points) for a in self.arterials]
        for parcel in parcels:
            clearances = [polygon_distance_to_polyline(parcel.ring, boxes, 60) for boxes in arterial_boxes]
            if min(clearances) < ROW_HALF_WIDTH["arterial"]:
                continue
            if clearances[0] < 60 and parcel.landuse == "Residential":
                parcel.landuse = "Commercial"  # Ogden Ave frontage
            kept.append(parcel)
        return kept

    def block_parcels(self, i, j, rng):
        sw, se, ne, nw = self.block_corners(i, j)
        west, east, south, north = self.ns[i], self.ns[i + 1], self.ew[j], self.ew[j + 1]
        width, height = math.dist(sw, se), math.dist(sw, nw)
        u0, u1 = ROW_HALF_WIDTH[west.cls] / width, 1 - ROW_HALF_WIDTH[east.cls] / width
        v0, v1 = ROW_HALF_WIDTH[south.cls] / height, 1 - ROW_HALF_WIDTH[north.cls] / height

        def at(u, v):  # bilinear: blocks are near-rectangles
            return (
                round((1 - u) * (1 - v) * sw[0] + u * (1 - v) * se[0] + u * v * ne[0] + (1 - u) * v * nw[0], 2),
                round((1 - u) * (1 - v) * sw[1] + u * (1 - v) * se[1] + u * v * ne[1] + (1 - u) * v * nw[1], 2),
            )

        def lot(ua, ub, va, vb, landuse, year):
            corners = [at(ua, va), at(ub, va), at(ub, vb), at(ua, vb)]
            return Parcel(corners + [corners[0]], (i, j), landuse, year)

        centre = at(0.5, 0.5)
        year = self.era(centre, rng)
        block = (i, j)
        if block in PARK_BLOCKS:
            return [lot(u0, u1, v0, v1, "Park", year)]
        if block in SCHOOL_BLOCKS or block == TOWER_BLOCK:
            parcel = lot(u0, u1, v0, v1, "Institutional" if block in SCHOOL_BLOCKS else "Utility", year)
            parcel.front, parcel.front_point = (north, at(0.5, v1)) if block == TOWER_BLOCK else (south, at(0.5, v0))
            return [parcel]
        downtown = i in DOWNTOWN[0] and j in DOWNTOWN[1]
        development = i in DEVELOPMENT[0] and j in DEVELOPMENT[1]
        block_use = "Commercial" if downtown else "Multi-Family" if rng.random() < 0.07 else "Residential"
        vm = (v0 + v1) / 2 + rng.uniform(-0.04, 0.04)
        parcels = []
        for va, vb, street, v_front in [(v0, vm, south, v0), (vm, v1, north, v1)]:
            landuse = "Commercial" if street.cls == "arterial" and block_use == "Residential" else block_use
            target = {"Commercial": 16 if downtown else 34, "Multi-Family": 36, "Residential": 20}[landuse]
            count = max(1, round(width * (u1 - u0) / target))
            weights = [rng.uniform(0.85, 1.15) for _ in range(count)]
            edges = [u0]
            for w in weights:
                edges.append(edges[-1] + (u1 - u0) * w / sum(weights))
            edges[-1] = u1
            for k in range(count):
                parcel = lot(edges[k], edges[k + 1], va, vb, landuse, year + round(rng.gauss(0, 3)))
                if development:
                    parcel.proposed, parcel.year = True, 2027
                # Corner lots of longer rows are addressed on the side street.
                if count >= 3 and k == 0:
                    parcel.front, parcel.front_point = west, at(u0, (va + vb) / 2)
                elif count >= 3 and k == count - 1:
                    parcel.front, parcel.front_point = east, at(u1, (va + vb) / 2)
                else:
                    parcel.front, parcel.front_point = street, at((edges[k] + edges[k + 1]) / 2, v_front)
                parcels.append(parcel)
        return parcels

    def address_parcels(self):
        """House numbers, street names, ZIP codes and DuPage-style PINs (township 07)."""
        block_numbers, lots_in_block = {}, {}
        for parcel in self.parcels:
            i, j = parcel.block
            # Four survey sections meet at Washington St and Chicago Ave.
            section = {(True, True): 13, (False, True): 18, (True, False): 24, (False, False): 19}[(i < 7, j >= 12)]
            numbers = block_numbers.setdefault(section, {})
            block = numbers.setdefault(parcel.block, 101 + len(numbers))
            lots_in_block[parcel.block] = lots_in_block.get(parcel.block, 0) + 1
            parcel.pin = f"07-{section:02d}-{block:03d}-{lots_in_block[parcel.block]:03d}"
            if parcel.front is None:
                continue
            street, p, c = parcel.front, parcel.front_point, parcel.centroid
            a, b = street.points[0], street.points[-1]
            # Even numbers on the north and west sides of a street (its left), as in Chicago.
            even = cross(b[0] - a[0], b[1] - a[1], c[0] - a[0], c[1] - a[1]) > 0
            parcel.housenum = self.house_number(street, p, even)
            parcel.streetname = self.prefixed(street, p)
            if self.north_of_ogden(c):
                parcel.zip = "60563"
            elif self.south_of_hobson(c):
                parcel.zip = "60564" if c[0] < 0 else "60565"
            else:
                parcel.zip = "60540"

    # Water system ----------------------------------------------------------------------------

    def main_attributes(self, street, collector_diameter, midpoint, rng):
        """Diameter, install year, material and proposal status of one main piece."""
        if self.in_development(midpoint):
            return {"diameter": 8, "year": None, "material": "PVC", "status": "Proposed New"}
        year = self.replaced(self.era(midpoint, rng), rng)
        if street is self.ogden or street is self.washington:
            diameter, year = 16, max(year, 1958)  # the transmission mains were laid later
        elif street.cls == "arterial":
            diameter = 12
        elif street.cls == "collector":
            diameter = collector_diameter
        else:
            diameter = 4 if year < 1935 and rng.random() < 0.35 else 6
        if year < 1950:
            material = "Cast Iron"
        elif year < 1970:
            material = rng.choice(["Cast Iron", "Asbestos Cement"])
        elif year < 1985:
            material = "Ductile Iron" if rng.random() < 0.7 else "Asbestos Cement"
        elif year < 2000:
            material = "Ductile Iron" if rng.random() < 0.6 else "PVC"
        else:
            material = rng.choices(["PVC", "HDPE", "Ductile Iron"], [5, 2, 3])[0]
        replace_odds = {"Cast Iron": 0.55 if year < 1935 else 0.1, "Asbestos Cement": 0.15}.get(material, 0.0)
        if diameter == 4:
            replace_odds = 0.8
        status = "Proposed Replacement" if rng.random() < replace_odds else "Existing"
        return {"diameter": diameter, "year": year, "material": material, "status": status}

    def build_water_system(self, rng):
        """Mains under every street, split where they cross; valves near each junction."""
        valves = []

        def valve(main, distance, kind=None):
            if main["status"] == "Proposed New":
                return
            if kind is None:
                big = main["diameter"] >= 16 or (main["diameter"] == 12 and rng.random() < 0.3)
                kind = "Butterfly" if big else "Gate"
            valves.append({"point": point_along(main["points"], distance), "type": kind,
                           "diameter": main["diameter"], "year": main["year"], "main": main})

        for street in self.streets:
            street.main = offset_polyline(street.points, MAIN_OFFSET)
        mains, junctions = [], {}
        for street, pieces in zip(self.streets, split_at_crossings([s.main for s in self.streets])):
            collector_diameter = rng.choice([8, 8, 12])  # one size along the whole street
            for pts, start, end in pieces:
                midpoint = point_along(pts, polyline_length(pts) / 2)
                main = dict(self.main_attributes(street, collector_diameter, midpoint, rng), points=pts, street=street)
                mains.append(main)
                for node, ends_here in ((start, False), (end, True)):
                    if node is not None:
                        junctions.setdefault(node, []).append((main, ends_here))
                # Where a large main leaves town it meets the neighbouring system: a check valve.
                if main["diameter"] >= 12 and (start is None or end is None):
                    length = polyline_length(pts)
                    valve(main, 10.0 if start is None else length - 10.0, "Check")
        mains.append(self.tower_feed())

        # At each junction every main but one gets a valve 5 m out, so any block can be shut.
        for node, incident in junctions.items():
            skipped = rng.randrange(len(incident))
            for k, (main, ends_here) in enumerate(incident):
                if k == skipped:
                    continue
                length = polyline_length(main["points"])
                distance = min(5.0, length / 2)
                valve(main, length - distance if ends_here else distance)
        for main in mains:
            length = polyline_length(main["points"])
            if length > 150 and rng.random() < 0.3:
                valve(main, length / 2)
            if main["diameter"] >= 12 and length > 100 and rng.random() < 0.15:
                valve(main, length / 3, "Air Release")
        tower = mains[-1]
        valve(tower, 6.0, "Check")
        valve(tower, polyline_length(tower["points"]) - 6.0, "Butterfly")
        return mains, valves

    def tower_feed(self):
        """The 16-inch main from the water tower (middle of its block) to the Chicago Ave main."""
        sw, se, ne, nw = self.block_corners(*TOWER_BLOCK)
        tower = ((sw[0] + ne[0]) / 2, (sw[1] + ne[1]) / 2)
        self.water_tower = tower
        joint, _ = closest_on_polyline(tower, self.ew[TOWER_BLOCK[1] + 1].main)
        return {"points": [tower, joint], "diameter": 16, "year": 1962, "material": "Ductile Iron", "status": "Existing",
                "street": None}

    def build_laterals(self, rng):
        """A service line from the main under each lot's street to the house."""
        laterals = []
        for parcel in self.parcels:
            if parcel.front is None:
                continue
            house = ((parcel.front_point[0] + parcel.centroid[0]) / 2, (parcel.front_point[1] + parcel.centroid[1]) / 2)
            tap, _ = closest_on_polyline(house, parcel.front.main)
            if parcel.proposed:
                year, material, status = None, "PVC", "Proposed New"
            else:
                year = self.replaced(parcel.year, rng)
                if year < 1930:
                    material = rng.choices(["Lead", "Galvanized", "Copper"], [50, 35, 15])[0]
                elif year < 1960:
                    material = rng.choices(["Galvanized", "Copper", "Lead"], [40, 50, 10])[0]
                elif year < 1990:
                    material = "Copper" if rng.random() < 0.85 else "PVC"
                else:
                    material = "PVC" if rng.random() < 0.55 else "Copper"
                replace_odds = {"Lead": 0.9, "Galvanized": 0.4}.get(material, 0.0)
                status = "Proposed Replacement" if rng.random() < replace_odds else "Existing"
            # Houses got 3/4-inch services until the 1970s and 1-inch since; flats, shops and
            # schools 1 1/2 or 2 inches.
            if parcel.landuse == "Residential":
                diameter = 0.75 if (year or 2027) < 1975 and rng.random() < 0.8 else 1.0
            elif parcel.landuse == "Multi-Family":
                diameter = rng.choice([1.5, 2.0])
            else:
                diameter = 2.0 if parcel.landuse != "Commercial" or rng.random() < 0.4 else 1.5
            laterals.append({"points": [tap, house], "material": material, "diameter": diameter,
                             "year": year, "status": status, "parcel": parcel})
        return laterals

    def nearest_street(self, p, exclude):
        """The street other than `exclude` closest to p, and how far it is (metres)."""
        best, best_d = None, math.inf
        for street in self.streets:
            if street is not exclude:
                _, d = closest_on_polyline(p, street.points)
                if d < best_d:
                    best, best_d = street, d
        return best, best_d

    def describe_valves(self, rng):
        """What a crew needs to operate a valve: where it is, its normal position, the turns to
        shut it and when it was last exercised (a five-year cycle, not yet complete)."""
        for v in self.valves:
            street = v["main"]["street"]
            p = v["point"]
            cross_street, d = self.nearest_street(p, street)
            on = self.prefixed(street, p) if street else "Water tower lead"
            feet = 5 * round(d * 3.28084 / 5)
            v["location"] = f"{on} at {self.prefixed(cross_street, p)}" if feet <= 40 else \
                f"{on}, {feet} ft from {self.prefixed(cross_street, p)}"
            if v["type"] in ("Gate", "Butterfly"):
                # Valves at the edge of a pressure zone are kept shut.
                v["position"] = "Closed" if v["type"] == "Gate" and rng.random() < 0.015 else "Open"
                v["turns"] = 3 * v["diameter"] + 3 if v["type"] == "Gate" else round(2.5 * v["diameter"])
                v["exercised"] = None if rng.random() < 0.18 else \
                    EXERCISE_START + datetime.timedelta(days=rng.randrange(EXERCISE_DAYS))
            else:
                v["position"], v["turns"], v["exercised"] = "Open", None, None

    def name_sites(self, rng):
        """Names for schools, the water tower and some shops, with the apostrophes, commas,
        ampersands and quotes that real business names have."""
        schools = iter(SCHOOL_NAMES)
        for parcel in self.parcels:
            if parcel.front is None:
                continue
            if parcel.landuse == "Institutional":
                parcel.sitename = next(schools)
            elif parcel.landuse == "Utility":
                parcel.sitename = "Water Tower No. 2"
            elif parcel.landuse == "Commercial" and rng.random() < 0.3:
                template = rng.choice(BUSINESS_TEMPLATES)
                parcel.sitename = template.format(name=rng.choice(BUSINESS_NAMES), trade=rng.choice(BUSINESS_TRADES))


# ---------------------------------------------------------------------------------------------
# The sources, as a utility's GIS staff would hand them over

def lonlat(p):
    """Local metres to WGS84 longitude and latitude, rounded to 7 decimals (about 1 cm)."""
    lon, lat = to_lonlat(*p)
    return (round(lon, 7), round(lat, 7))


def check_domains(layer, records):
    """Refuses values the project's renderers do not list, so no map falls back to "Other"."""
    for (name, column), allowed in DOMAINS.items():
        if name == layer:
            stray = {r[column] for r in records} - allowed
            if stray:
                raise ValueError(f"{layer}.{column} has values the project's renderers do not list: {sorted(stray, key=str)}")


def mains_records(town):
    records = []
    for n, m in enumerate(town.mains, start=1):
        pts = m["points"]
        street = town.prefixed(m["street"], point_along(pts, polyline_length(pts) / 2)) if m["street"] else "Water tower lead"
        records.append({"FACILITYID": f"WM-{n:05d}", "MATERIAL": m["material"], "DIAMETER": m["diameter"],
                        "INSTALLYEAR": m["year"], "PROPSTATUS": m["status"], "STREETNAME": street,
                        "LENGTHFT": round(polyline_length(pts) * 3.28084, 1), "geometry": [lonlat(p) for p in pts]})
    check_domains("mains", records)
    return records


def laterals_records(town):
    records = [{"FACILITYID": f"WL-{n:05d}", "MATERIAL": s["material"], "DIAMETER": s["diameter"],
                "INSTALLYR": s["year"], "PROPSTATUS": s["status"], "ADDRESS": s["parcel"].fulladdr,
                "geometry": [lonlat(p) for p in s["points"]]}
               for n, s in enumerate(town.laterals, start=1)]
    check_domains("laterals", records)
    return records


def valves_records(town):
    records = [{"FACILITYID": f"WV-{n:05d}", "VALVETYPE": v["type"], "DIAMETER": v["diameter"],
                "NORMPOS": v["position"], "TURNS": v["turns"], "INSTALLYR": v["year"],
                "LASTEXER": v["exercised"], "LOCDESC": v["location"], "geometry": lonlat(v["point"])}
               for n, v in enumerate(town.valves, start=1)]
    check_domains("valves", records)
    return records


def address_records(town):
    return [{"lon": f"{p[0]:.7f}", "lat": f"{p[1]:.7f}", "HOUSENUM": parcel.housenum, "STREETNAME": parcel.streetname,
             "FULLADDR": parcel.fulladdr, "ZIP": parcel.zip, "PIN": parcel.pin, "SITENAME": parcel.sitename}
            for parcel in town.parcels if parcel.front is not None for p in [lonlat(parcel.centroid)]]


# GeoJSON (RFC 7946): a FeatureCollection in WGS84 longitude/latitude, one feature a line.

def geojson_bytes(records, geometry_type):
    lines = []
    for r in records:
        properties = {k: v for k, v in r.items() if k != "geometry"}
        coordinates = [list(p) for p in r["geometry"]] if geometry_type == "LineString" else list(r["geometry"])
        feature = {"type": "Feature", "geometry": {"type": geometry_type, "coordinates": coordinates},
                   "properties": properties}
        lines.append(json.dumps(feature, ensure_ascii=False, separators=(",", ":")))
    return ('{"type":"FeatureCollection","features":[\n' + ",\n".join(lines) + "\n]}\n").encode()


# CSV (RFC 4180): a header row, CRLF line ends, fields quoted only when they must be; UTF-8.

def csv_bytes(records):
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue().encode()


# Shapefile (ESRI Shapefile Technical Description, July 1998): the .shp holds the shapes, the
# .shx their offsets and the .dbf (dBASE III) the attributes, record n in each for feature n.
# File headers are big-endian where the whitepaper says so (file code, file length in 16-bit
# words, record numbers and content lengths); everything else is little-endian.

SHP_POINT, SHP_POLYLINE = 1, 3
ESRI_WGS84_WKT = ('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
                  'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')


def shp_header(shape_type, file_bytes, bbox):
    return (struct.pack(">7i", 9994, 0, 0, 0, 0, 0, file_bytes // 2)
            + struct.pack("<2i4d4d", 1000, shape_type, *bbox, 0.0, 0.0, 0.0, 0.0))


def shapefile_members(records, shape_type, fields):
    """{extension: bytes} for a point or polyline shapefile with one part per line.

    fields: [(name, type letter C/N/D, length, decimals)], names at most 10 characters.
    """
    contents = []
    for r in records:
        if shape_type == SHP_POINT:
            contents.append(struct.pack("<i2d", SHP_POINT, *r["geometry"]))
        else:
            pts = r["geometry"]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            contents.append(struct.pack("<i4d2ii", SHP_POLYLINE, min(xs), min(ys), max(xs), max(ys), 1, len(pts), 0)
                            + b"".join(struct.pack("<2d", *p) for p in pts))
    pts = [r["geometry"] for r in records] if shape_type == SHP_POINT else [p for r in records for p in r["geometry"]]
    bbox = (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))

    shp, shx, offset = bytearray(), bytearray(), 100
    for n, content in enumerate(contents, start=1):
        shx += struct.pack(">2i", offset // 2, len(content) // 2)
        shp += struct.pack(">2i", n, len(content) // 2) + content
        offset += 8 + len(content)
    return {
        "shp": shp_header(shape_type, 100 + len(shp), bbox) + bytes(shp),
        "shx": shp_header(shape_type, 100 + len(shx), bbox) + bytes(shx),
        "dbf": dbf_bytes(records, fields),
        "prj": ESRI_WGS84_WKT.encode(),
        "cpg": b"UTF-8",
    }


def dbf_bytes(records, fields):
    """A dBASE III table: 32-byte header, 32-byte field descriptors, 0x0D, fixed-width records
    (a space, not '*', in front: not deleted), 0x1A. Text is UTF-8 (the .cpg says so); an empty
    C, N or D value is all spaces, which readers take as null."""
    header_length = 32 + 32 * len(fields) + 1
    record_length = 1 + sum(f[2] for f in fields)
    header = struct.pack("<4BIHH20x", 3, FIXED_DATE.year - 1900, FIXED_DATE.month, FIXED_DATE.day,
                         len(records), header_length, record_length)
    descriptors = b"".join(struct.pack("<11sc4xBB14x", name.encode("ascii"), letter.encode("ascii"), length, decimals)
                           for name, letter, length, decimals in fields)
    body = bytearray()
    for r in records:
        body += b" "
        for name, letter, length, decimals in fields:
            value = r[name]
            if value is None or value == "":
                cell = b" " * length
            elif letter == "C":
                cell = value.encode().ljust(length, b" ")
            elif letter == "N":
                cell = f"{value:{length}.{decimals}f}".encode("ascii")
            else:
                cell = value.strftime("%Y%m%d").encode("ascii")
            if len(cell) != length:
                raise ValueError(f"{name}: {value!r} does not fit {letter}({length},{decimals})")
            body += cell
    return header + descriptors + b"\r" + bytes(body) + b"\x1a"


def text_width(records, name):
    """The widest value of a text field, in UTF-8 bytes: dBASE widths count bytes."""
    return max(len((r[name] or "").encode()) for r in records)


LATERAL_FIELDS = [("FACILITYID", "C", 8, 0), ("MATERIAL", "C", 10, 0), ("DIAMETER", "N", 4, 2),
                  ("INSTALLYR", "N", 4, 0), ("PROPSTATUS", "C", 20, 0), ("ADDRESS", "C", None, 0)]
VALVE_FIELDS = [("FACILITYID", "C", 8, 0), ("VALVETYPE", "C", 11, 0), ("DIAMETER", "N", 2, 0), ("NORMPOS", "C", 6, 0),
                ("TURNS", "N", 3, 0), ("INSTALLYR", "N", 4, 0), ("LASTEXER", "D", 8, 0), ("LOCDESC", "C", None, 0)]


def sized(fields, records):
    """Fields with the width of the free-text ones (length None) taken from the data."""
    return [(n, t, text_width(records, n) if length is None else length, d) for n, t, length, d in fields]


def write_file(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def write_zip(path, entries, compression=zipfile.ZIP_STORED):
    """A ZIP with fixed metadata, so it is identical on every run."""
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=compression) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = compression
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            archive.writestr(info, data, compresslevel=9 if compression == zipfile.ZIP_DEFLATED else None)
    os.replace(tmp, path)


def reference_layers(town):
    """The backdrop's streets (split at intersections) and parcels, as GeoJSON records in WGS84.
    Each street piece has a `segment` id, which the turn restrictions name."""
    streets = []
    for street, pieces in zip(town.streets, town.street_pieces):
        for pts, _, _ in pieces:
            name = town.prefixed(street, point_along(pts, polyline_length(pts) / 2))
            streets.append({"segment": f"S{len(streets) + 1:04d}", "name": name, "class": street.cls,
                            "oneway": ONEWAY.get(street.name, "B"), "geometry": [lonlat(p) for p in pts]})
    parcels = []
    for parcel in town.parcels:
        ring = [list(lonlat(p)) for p in parcel.ring]
        if ring[0] != ring[-1]:
            ring.append(ring[0])
        parcels.append({"landuse": parcel.landuse, "geometry": [ring]})
    return streets, parcels


def turn_restrictions(town, streets):
    """No left turns at the town centre (Washington St and Chicago Ave): from Washington St
    northbound onto Chicago Ave westbound, and southbound onto eastbound. Rows name the
    street pieces by their `segment` id: the piece arriving at the crossing, then the one
    leaving it."""
    ends = {}
    for street, street_pieces in zip(town.streets, town.street_pieces):
        for pts, _, _ in street_pieces:
            for end in (pts[0], pts[-1]):
                ends.setdefault((round(end[0], 1), round(end[1], 1)), set()).add(street.name)
    cx, cy = next(p for p, names in ends.items() if {town.washington.name, town.chicago.name} <= names)
    pieces = []  # (segment, street, the piece's other end) for pieces touching the centre
    index = 0
    for street, street_pieces in zip(town.streets, town.street_pieces):
        for pts, _, _ in street_pieces:
            index += 1
            for end, other in ((pts[0], pts[-1]), (pts[-1], pts[0])):
                if abs(end[0] - cx) < 0.5 and abs(end[1] - cy) < 0.5:
                    pieces.append((streets[index - 1]["segment"], street, other))

    def piece(street, side):
        return next(seg for seg, st, (x, y) in pieces if st is street and side(x - cx, y - cy))
    south, north = piece(town.washington, lambda dx, dy: dy < 0), piece(town.washington, lambda dx, dy: dy > 0)
    west, east = piece(town.chicago, lambda dx, dy: dx < 0), piece(town.chicago, lambda dx, dy: dx > 0)
    return [{"from_segment": south, "to_segment": west, "note": "no left turn from Washington St northbound onto Chicago Ave westbound"},
            {"from_segment": north, "to_segment": east, "note": "no left turn from Washington St southbound onto Chicago Ave eastbound"}]


# ---------------------------------------------------------------------------------------------

def main(argv):
    if len(argv) != 2:
        print("usage: python3 tools/samples/naperville.py OUTDIR", file=sys.stderr)
        return 64
    data = os.path.join(argv[1], "data")
    os.makedirs(data, exist_ok=True)

    town = Town()
    mains, laterals, valves, addresses = mains_records(town), laterals_records(town), valves_records(town), address_records(town)

    write_file(os.path.join(data, "mains.geojson"), geojson_bytes(mains, "LineString"))
    members = shapefile_members(laterals, SHP_POLYLINE, sized(LATERAL_FIELDS, laterals))
    write_zip(os.path.join(data, "laterals.zip"), [(f"laterals.{ext}", members[ext]) for ext in ("shp", "shx", "dbf", "prj", "cpg")],
              zipfile.ZIP_DEFLATED)
    for ext, blob in shapefile_members(valves, SHP_POINT, sized(VALVE_FIELDS, valves)).items():
        write_file(os.path.join(data, f"valves.{ext}"), blob)
    write_file(os.path.join(data, "addresses.csv"), csv_bytes(addresses))
    streets, parcels = reference_layers(town)
    write_file(os.path.join(data, "streets.geojson"), geojson_bytes(streets, "LineString"))
    write_file(os.path.join(data, "parcels.geojson"), geojson_bytes(parcels, "Polygon"))
    turns = turn_restrictions(town, streets)
    write_file(os.path.join(data, "turns.csv"), csv_bytes(turns))
    points = [c for s in streets for c in s["geometry"]]
    relief.write(os.path.join(data, "relief.tpkx"), min(p[0] for p in points), min(p[1] for p in points),
                 max(p[0] for p in points), max(p[1] for p in points))

    for name, count in (("mains.geojson", len(mains)), ("laterals.zip", len(laterals)), ("valves.shp", len(valves)),
                        ("addresses.csv", len(addresses)), ("streets.geojson", len(streets)), ("parcels.geojson", len(parcels)),
                        ("turns.csv", len(turns))):
        print(f"{os.path.join(data, name)}: {count:,} features, {os.path.getsize(os.path.join(data, name)):,} bytes")
    print(f"{os.path.join(data, 'relief.tpkx')}: {os.path.getsize(os.path.join(data, 'relief.tpkx')):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Zig: functions, tests and containers (``const Point = struct {...}``, a function returning a type, the file
itself) as symbols; ``@import`` as imports; calls through imports, aliases, ``@This()`` and declared types."""

from __future__ import annotations

import textwrap

import pytest
from conftest import called_by, edges_of, spans, write_files

from codebase import index_project
from codebase.languages import zig
from codebase.chunker import parse_file

MAIN = r"""
    const std = @import("std");
    const list = @import("list.zig");
    const List = list.List;
    const geo = @import("geo.zig");
    const Point = geo.Point;
    const assert = std.debug.assert;

    /// Sums the points.
    pub fn sum(points: []const Point) Point {
        var total = Point.origin();
        for (points) |p| total = total.add(p);
        return total;
    }

    pub fn main() !void {
        var gpa = std.heap.GeneralPurposeAllocator(.{}){};
        var l = List(Point).init(gpa.allocator());
        defer l.deinit();
        try l.append(Point.origin());
        var p: Point = .{ .x = 1, .y = 2 };
        p.scale(2);
        assert(geo.distance(p, sum(l.items)) > 0);
        const box = geo.Box{ .corner = p };
        box.corner.scale(3);
        std.debug.print("{}\n", .{p});
    }

    test "sum of none" {
        try std.testing.expect(sum(&.{}).x == 0);
    }
    """

GEO = """
    const std = @import("std");

    /// A point on the plane.
    pub const Point = struct {
        x: i32,
        y: i32,

        const Self = @This();

        pub fn origin() Self {
            return .{ .x = 0, .y = 0 };
        }

        pub fn add(self: Self, other: Self) Self {
            return .{ .x = self.x + other.x, .y = self.y + other.y };
        }

        pub fn scale(self: *Self, k: i32) void {
            self.x *= k;
            self.y *= k;
            self.check();
        }

        fn check(self: Self) void {
            std.debug.assert(self.x >= 0);
        }
    };

    pub const Box = struct {
        corner: Point,
    };

    pub fn distance(a: Point, b: Point) i32 {
        return @intCast(@abs(a.x - b.x) + @abs(a.y - b.y));
    }
    """

LIST = """
    const std = @import("std");

    pub fn List(comptime T: type) type {
        return struct {
            items: []T = &.{},
            allocator: std.mem.Allocator,

            const Self = @This();

            pub fn init(allocator: std.mem.Allocator) Self {
                return .{ .allocator = allocator };
            }

            pub fn deinit(self: *Self) void {
                self.allocator.free(self.items);
            }

            pub fn append(self: *Self, item: T) !void {
                try self.grow();
                self.items[self.items.len - 1] = item;
            }

            fn grow(self: *Self) !void {
                self.items = try self.allocator.realloc(self.items, self.items.len + 1);
            }
        };
    }
    """

COUNTER = """
    //! A counter: the file is the struct.
    count: usize = 0,

    const Counter = @This();

    pub fn bump(c: *Counter) void {
        c.count += 1;
        c.reset_if_big();
    }

    fn reset_if_big(self: *Counter) void {
        if (self.count > 10) self.count = 0;
    }
    """

USE_COUNTER = """
    const Counter = @import("Counter.zig");

    pub fn twice(c: *Counter) void {
        c.bump();
        c.bump();
    }
    """

HASH = """
    const std = @import("std");

    pub fn Map(comptime V: type) type {
        return struct {
            value: ?V = null,

            pub fn init() @This() {
                return .{};
            }

            pub fn put(self: *@This(), v: V) void {
                self.value = v;
                self.check();
            }

            fn check(_: *const @This()) void {}
        };
    }

    pub fn IntMap(comptime V: type) type {
        return Map(V);
    }

    pub const ByteMap = IntMap(u8);

    test "put" {
        var m: ByteMap = .init();
        m.put(1);
        var n = try IntMap(u16).init();
        n.put(2);
    }
    """

PROJECT = {"src/main.zig": MAIN, "src/geo.zig": GEO, "src/list.zig": LIST, "src/Counter.zig": COUNTER,
           "src/use_counter.zig": USE_COUNTER, "src/hash.zig": HASH}


def _parsed(text: str, path: str):
    return parse_file(path, textwrap.dedent(text).lstrip("\n"), "zig")  # line 1 is the first line


def test_functions_containers_fields_and_tests_are_symbols():
    geo = _parsed(GEO, "src/geo.zig")
    assert not geo.parse_error
    assert spans(geo) == {
        "Point": ("struct", 3, 27),  # with its doc comment
        "Point.x": ("attribute", 5, 5), "Point.y": ("attribute", 6, 6),
        "Point.origin": ("method", 10, 12), "Point.add": ("method", 14, 16), "Point.scale": ("method", 18, 22),
        "Point.check": ("method", 24, 26),
        "Box": ("struct", 29, 31), "Box.corner": ("attribute", 30, 30),
        "distance": ("function", 33, 35),
    }
    signatures = {s.qualname: s.signature for s in geo.symbols}
    assert signatures["Point"] == "pub const Point = struct"  # not its body
    assert signatures["Point.scale"] == "pub fn scale(self: *Self, k: i32) void"
    chunks = {c.breadcrumb: c for c in geo.chunks}
    assert chunks["struct Point"].content.startswith("/// A point on the plane.\npub const Point = struct {")
    assert "struct Point > fn scale" in chunks and "fn distance" in chunks
    assert geo.imports == {"std": "std", "Point.Self": zig.THIS + "Point"}  # each struct has its own Self
    main = _parsed(MAIN, "src/main.zig")
    kinds = {s.qualname: s.kind for s in main.symbols}
    assert kinds == {"": "module", "sum": "function", "main": "function", "sum of none": "test"}
    assert next(c for c in main.chunks if c.breadcrumb == "fn sum").content.startswith("/// Sums the points.")
    assert any(c.breadcrumb == 'test sum of none' for c in main.chunks)
    assert main.imports == {"std": "std", "list": "./list.zig", "List": "=list.List", "geo": "./geo.zig",
                            "Point": "=geo.Point", "assert": "=std.debug.assert"}
    # a function returning a type is one: its struct's fields and functions are its members
    assert spans(_parsed(LIST, "src/list.zig")) == {
        "List": ("struct", 3, 27), "List.items": ("attribute", 5, 5), "List.allocator": ("attribute", 6, 6),
        "List.init": ("method", 10, 12), "List.deinit": ("method", 14, 16), "List.append": ("method", 18, 21),
        "List.grow": ("method", 23, 25)}
    # a file with fields is a struct: `@This()` names it
    counter = _parsed(COUNTER, "src/Counter.zig")
    assert spans(counter) == {"count": ("attribute", 2, 2), "bump": ("function", 6, 9),
                              "reset_if_big": ("function", 11, 13)}
    assert counter.imports == {"Counter": zig.THIS}


def test_calls_go_through_imports_aliases_this_and_declared_types():
    called = called_by(PROJECT, "src/")
    # `Point.origin()` through an alias of an import's member; `total.add()` through what origin returns (Self)
    assert called["sum"] == {"geo.zig:Point.origin", "geo.zig:Point.add"}
    assert called["main"] == {
        "list.zig:List", "list.zig:List.init",  # `List(Point).init(...)`: the type function, then its struct's
        "list.zig:List.deinit", "list.zig:List.append",  # `l` holds what init returns: Self, the struct
        "geo.zig:Point.origin", "geo.zig:Point.scale",  # `var p: Point`, and `box.corner`: Box's field's type
        "geo.zig:distance", "main.zig:sum",
        "?GeneralPurposeAllocator", "?allocator", "?assert", "?print"}  # the standard library's: not guessed
    assert called["Point.scale"] == {"geo.zig:Point.check"}  # `self: *Self`, `const Self = @This();`
    assert called["List.append"] == {"list.zig:List.grow"}
    assert called["bump"] == {"Counter.zig:reset_if_big"}  # the file's own @This()
    assert called["twice"] == {"Counter.zig:bump"}  # a file imported as a type
    assert called["sum of none"] == {"main.zig:sum", "?expect"}
    # `.init()` of a declared type; a type function returning another's type; a constant holding one
    assert called["put"] == {"hash.zig:Map.init", "hash.zig:Map.put", "hash.zig:IntMap"}
    assert called["Map.put"] == {"hash.zig:Map.check"}  # `self: *@This()`
    imported = edges_of(PROJECT, "auto", ids=True, kind="imports")
    assert {(s, t) for s, t in imported if s.startswith("src/main.zig")} == {
        ("src/main.zig:", "src/list.zig:"), ("src/main.zig:", "src/geo.zig:"), ("src/main.zig:", "?std")}
    assert ("src/use_counter.zig:", "src/Counter.zig:") in imported


@pytest.mark.parametrize("text,name", [
    ("*const Node", "Node"), ("?*std.mem.Allocator", "std.mem.Allocator"), ("std.ArrayList(u8)", "std.ArrayList()"),
    ("Allocator.Error!Self", "Self"), ("*@This()", zig.THIS), ("[]const u8", ""), ("u32", ""), ("[*]Node", "Node"),
])
def test_declared_types_are_read_as_paths(text, name):
    assert zig.type_name(text) == name


def test_a_function_result_is_what_its_signature_says():
    assert zig.returns("pub fn init(a: Allocator) !Self") == "Self"
    assert zig.returns("fn get(self: *const Map, key: K) ?*V") == "V"
    assert zig.returns("fn run(f: fn (u8) void) callconv(.c) void") == ""


def test_a_zig_project_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "shapes", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="shapes")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    callers = {c["qualname"] for c in engine.symbol_graph("Point.scale", "callers", project="shapes")["results"]}
    assert callers == {"main"}
    callers = {c["qualname"] for c in engine.symbol_graph("Map.put", "callers", project="shapes")["results"]}
    assert callers == {"put"}
    imported_by = engine.symbol_graph("src/geo.zig", "imported_by", project="shapes")["results"]
    assert [c["path"] for c in imported_by] == ["src/main.zig"]
    top = engine.search_code("sum the points", project="shapes", limit=3)[0]  # the doc comment's words
    assert (top.record["path"], top.title) == ("src/main.zig", "fn sum")

"""Swift: classes, structs, enums, protocols and extensions are symbols; calls go through declared types,
protocols and extensions; ``#if`` between a switch's cases no longer hides a whole class."""

from __future__ import annotations

import textwrap

from conftest import edges_of

from codebase.chunker import parse_file
from codebase.languages.swift import for_parser

SWIFT = {
    "Sources/Store/Store.swift": """
        import Foundation

        protocol Storing {
            func save(_ value: Int)
        }

        /// Keeps values on disk.
        final class DiskStore: NSObject, Storing {
            func save(_ value: Int) { print(value) }
        }

        struct Point { var x: Int; func norm() -> Int { x * x } }

        enum Kind { case small, large }
        """,
    "Sources/App/Cache.swift": """
        public class Cache<T> {
            private var items: [String: T] = [:]
            let store: DiskStore

            init(store: DiskStore) { self.store = store }

            func get(_ key: String) -> T? {
                return items[key]
            }
        }

        extension Cache: Codable {
            func flush() { store.save(1); reset() }
            func reset() {}
        }

        func persist(_ target: Storing, into cache: Cache<Int>?) {
            target.save(2)
            let fresh = Cache<Int>(store: DiskStore())
            fresh.flush()
        }
        """,
}


def test_swift_declarations_are_symbols_of_their_kinds():
    text = textwrap.dedent(SWIFT["Sources/Store/Store.swift"])
    symbols = {s.qualname: (s.kind, s.start_line) for s in parse_file("Store.swift", text, "swift").symbols}
    assert symbols["Storing"] == ("interface", 4) and symbols["Storing.save"][0] == "method"
    assert symbols["DiskStore"] == ("class", 8)  # its doc comment joins it
    assert symbols["Point"][0] == "struct" and symbols["Point.norm"][0] == "method"
    assert symbols["Kind"][0] == "enum" and symbols["Kind.small"][0] == "attribute"
    cache = {s.qualname: s.kind for s in parse_file("Cache.swift", textwrap.dedent(SWIFT["Sources/App/Cache.swift"]),
                                                     "swift").symbols}
    assert cache["extension Cache"] == "impl" and cache["Cache.flush"] == "method"  # the extended type's member
    assert cache["Cache.store"] == "attribute" and cache["Cache.items"] == "attribute"  # `let store: DiskStore`


def test_swift_calls_go_through_declared_types_protocols_and_extensions():
    edges = edges_of(SWIFT, "swift")
    assert ("Cache.flush", "DiskStore.save") in edges  # `store` is a property of type DiskStore
    assert ("Cache.flush", "Cache.reset") in edges  # a bare call in an extension is the type's own
    assert ("persist", "Storing.save") in edges  # a parameter typed by a protocol
    assert ("persist", "Cache") in edges and ("persist", "Cache.flush") in edges  # `Cache<Int>(...)`, not Int
    assert ("persist", "DiskStore") in edges
    assert not any(target.endswith("items") for _, target in edges)  # a subscript is no call
    bases = edges_of(SWIFT, "swift", kind="implements") | edges_of(SWIFT, "swift", kind="extends")
    assert ("DiskStore", "Storing") in bases


def test_conditional_compilation_in_a_switch_keeps_the_class():
    text = textwrap.dedent("""
        final class Lifecycle {
            func handle(_ name: String) {
                switch name {
                #if os(iOS)
                case "active":
                    resume()
                #elseif os(macOS)
                case "unhide":
                    resume()
                #endif
                default:
                    return
                }
            }

            func resume() {}
        }
        """)
    parsed = parse_file("Lifecycle.swift", text, "swift")
    assert {s.qualname for s in parsed.symbols} >= {"Lifecycle", "Lifecycle.handle", "Lifecycle.resume"}
    assert not parsed.parse_error
    blanked = for_parser(text.encode())
    assert len(blanked) == len(text.encode()) and b"unhide" not in blanked and b'"active"' in blanked
    # every line is still in a chunk, the other branch too
    assert any('case "unhide":' in c.content for c in parsed.chunks)

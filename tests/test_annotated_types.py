"""Calls resolved through TypeScript's type annotations (private fields, constructor parameter properties, result
types, a library's types) and through what another variable holds (``self.store = store``), no stores involved."""

from __future__ import annotations

import textwrap

from conftest import edges_of, write_files

from codebase import index_project
from codebase.chunker import parse_file
from codebase.typed import declared_type

CACHES = {
    "queryCache.ts": """
        export class QueryCache {
          build(key: string): Query { return new Query() }
          get(hash: string) { return undefined }
          notify(event: string) {}
        }
        export class Query {
          fetch() {}
        }
        """,
    "queryClient.ts": """
        import { QueryCache } from './queryCache'
        export class QueryClient {
          #queryCache: QueryCache
          constructor() { this.#queryCache = new QueryCache() }
          getQueryCache(): QueryCache { return this.#queryCache }
          maybeCache(): QueryCache | undefined { return undefined }
        }
        """,
    "index.ts": """
        export { QueryClient } from './queryClient'
        export { QueryCache } from './queryCache'
        """,
    "observer.ts": """
        import type { QueryClient } from './queryClient'
        import { Disk, Store } from './store'

        export class Observer {
          #client: QueryClient
          #seen = new Map<string, number>()
          constructor(client: QueryClient, private readonly store: Store, public other?: Store, helper: Disk) {
            this.#client = client
          }
          update(): void {
            const c = this.#client.getQueryCache()
            const q = c.build('k')
            q.fetch()
            this.helper.spin()
            this.#client.maybeCache().notify('x')
            this.#seen.get('k')
            this.store.save()
            this.other.save()
          }
          read(names: string[], label: string): void {
            names.filter(Boolean)
            label.trim()
          }
        }
        """,
    "store.ts": """
        export class Disk {
          save() {}
          build() {}
          fetch() {}
          spin() {}
        }
        export class Store {
          spin() {}
          save() {}
          filter() {}
          trim() {}
        }
        """,
    "__tests__/observer.test.ts": """
        import { QueryClient } from '..'
        let client: QueryClient
        client = new QueryClient()
        client.getQueryCache()
        """,
}


def test_typescript_calls_go_through_private_fields_parameter_properties_and_result_types():
    edges = edges_of(CACHES, language="auto")
    # `#client` holds the constructor's `client: QueryClient`; getQueryCache(): QueryCache, build(): Query, so
    # `const c = this.#client.getQueryCache()` holds a QueryCache and `c.build()` a Query
    assert ("Observer.update", "QueryClient.getQueryCache") in edges
    assert ("Observer.update", "QueryCache.build") in edges
    assert ("Observer.update", "Query.fetch") in edges
    assert ("Observer.update", "QueryCache.notify") in edges  # `QueryCache | undefined` is a QueryCache
    # `private readonly store: Store` and `public other?: Store` are the class's attributes
    assert ("Observer.update", "Store.save") in edges
    assert sorted(t for s, t in edges if s == "Observer.update" and t.endswith("save")) == ["Store.save"]
    # a parameter without a modifier is no attribute: `this.helper` is unknown, whatever `helper: Disk` says
    assert ("Observer.update", "Disk.spin") not in edges


def test_typescript_library_types_leave_their_calls_unresolved():
    edges = edges_of(CACHES, language="auto")
    # a Map, an array and a string: the project's QueryCache.get, Store.filter and Store.trim are never guessed
    assert ("Observer.update", "?get") in edges
    assert ("Observer.read", "?filter") in edges
    assert ("Observer.read", "?trim") in edges
    assert not {t for s, t in edges if s.startswith("Observer") and t in ("QueryCache.get", "Store.filter",
                                                                         "Store.trim")}


def test_an_import_from_the_parent_folder_reaches_the_root_index():
    edges = edges_of(CACHES, language="auto", ids=True)
    # `from '..'` in __tests__/ is the project root's index.ts, which re-exports QueryClient
    assert ("__tests__/observer.test.ts:", "queryClient.ts:QueryClient.getQueryCache") in edges


def test_python_attributes_hold_what_the_assigned_parameter_is_annotated_with():
    files = {
        "app/store.py": """
            class Store:
                def save(self): ...
                def read(self): ...

            class Node:
                def render(self): ...

            def traverse(obj) -> Node:
                return Node()
            """,
        "app/service.py": """
            import typing as t
            from app.store import Store, traverse

            class Service:
                def __init__(self, store: Store, stream: t.BinaryIO):
                    self.store = store
                    self.stream = stream

                def run(self):
                    self.store.save()
                    self.stream.read()

            def pretty(obj: t.Any, node_given: bool):
                if node_given:
                    node = obj
                else:
                    node = traverse(obj)
                node.render()
            """,
    }
    edges = edges_of(files)
    assert ("Service.run", "Store.save") in edges
    assert ("Service.run", "?read") in edges  # a BinaryIO's read, not Store.read
    # what a variable is assigned from another outweighs nothing: `traverse` says it returns a Node
    assert ("pretty", "Node.render") in edges


def test_declared_type_drops_typescript_null_and_undefined_from_a_union():
    assert declared_type("Store | undefined") == "Store"
    assert declared_type("null | Store") == "Store"
    assert declared_type("Store | null | undefined") == "Store"
    assert declared_type("Store | Cache") == ""
    assert declared_type("Map<string, Store>") == "Map"


OBSERVERS = {
    "types.ts": """
        export interface Observer<T> {
          next: (value: T) => void;
          error(err: unknown): void;
          readonly closed?: boolean;
        }
        export interface Options {
          observer: Observer<number>;
          sink: Store;
        }
        export interface Store {
          save(): void;
        }
        """,
    "subject.ts": """
        import { Observer, Options } from './types'

        export abstract class Subject implements Observer<number> {
          abstract error(err: unknown): void;
          next(value: number) { this.error(value) }
          relay(o: Observer<number>, options: Options) {
            o.next(1)
            o.error(2)
            options.sink.save()
          }
        }

        export class Overloaded {
          run(a: string): void;
          run(a: number): void;
          run(a: unknown) {}
          save() {}
        }
        """,
}


def test_typescript_interface_members_are_symbols_that_typed_calls_reach():
    symbols = {s.qualname: s.kind for s in parse_file("types.ts", textwrap.dedent(OBSERVERS["types.ts"]),
                                                      "typescript").symbols}
    assert {q: k for q, k in symbols.items() if q.startswith("Observer.")} == {
        "Observer.next": "attribute", "Observer.error": "method", "Observer.closed": "attribute"}
    subject = {s.qualname: (s.kind, s.start_line) for s in parse_file(
        "subject.ts", textwrap.dedent(OBSERVERS["subject.ts"]), "typescript").symbols}
    assert subject["Subject.error"][0] == "method"  # an abstract method
    # an overload signature is no symbol of its own: the method is the definition after them
    assert [q for q in subject if q.startswith("Overloaded.run")] == ["Overloaded.run"]
    assert subject["Overloaded.run"][1] == 17
    edges = edges_of(OBSERVERS, "typescript")
    assert {("Subject.relay", "Observer.next"), ("Subject.relay", "Observer.error"),
            ("Subject.next", "Subject.error"), ("Subject.relay", "Store.save")} <= edges


def test_callers_of_a_typescript_method_list_those_through_its_interface(engine, tmp_path):
    index_project(engine, write_files(tmp_path / "obs", OBSERVERS), project="obs")
    callers = engine.symbol_graph("Subject.next", "callers", project="obs")["results"]
    assert [(r["qualname"], r.get("through")) for r in callers] == [("Subject.relay", "Observer.next")]
    chunks = engine.lance.query("code_chunks", "project = 'obs' AND path = 'types.ts'", ["name"]).to_pylist()
    # the members stay in their interface's chunk
    assert sorted(c["name"] for c in chunks) == ["Observer", "Options", "Store"]


def test_an_import_through_a_bundlers_source_alias_reaches_the_project_file():
    files = {
        "src/lib/utils.ts": "export function cn() {}\nexport class Store { save() {} }\n",
        "src/components/utils.ts": "export function cn() {}\nexport class Store { save() {} }\n",
        "src/app/page.tsx": "import { cn, Store } from '@/lib/utils'\nimport * as c from '~/components/utils'\n"
                            "export function Page() { cn(); const s = new Store(); s.save(); c.cn() }\n",
    }
    # `@/` and `~/` are the source folder (Next.js's and Vite's `"@/*": ["./src/*"]`, Remix's `~/`), never a package
    assert edges_of(files, language="auto", paths=True) == {
        ("Page", "src/lib/utils.ts:cn"), ("Page", "src/lib/utils.ts:Store"), ("Page", "src/lib/utils.ts:Store.save"),
        ("Page", "src/components/utils.ts:cn")}
    assert edges_of(files, language="auto", kind="imports", paths=True) == {
        ("", "src/lib/utils.ts:"), ("", "src/components/utils.ts:")}

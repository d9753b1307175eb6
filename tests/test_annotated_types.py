"""Calls resolved through TypeScript's type annotations (private fields, constructor parameter properties, result
types, a library's types), through what another variable holds (``self.store = store``) and through what awaiting
a call gives (``await repo.get()``); no stores involved."""

from __future__ import annotations

import textwrap

from conftest import edges_of, write_files

from codebase import index_project
from codebase.chunker import parse_file
from codebase.typed import awaited_type, declared_type, result_type

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


ASYNC_PY = {
    "app/models.py": """
        from contextlib import asynccontextmanager
        from typing import AsyncIterator, Awaitable

        class User:
            def rename(self): ...
            def close(self): ...

        class Account:
            def rename(self): ...
            def close(self): ...

        class Conn:
            def execute(self): ...

        class Cursor:
            def execute(self): ...

        class Repo:
            async def get(self, i) -> User: ...
            def find(self, i) -> User: ...
            def later(self) -> Awaitable[User]: ...
            @asynccontextmanager
            async def connect(self) -> AsyncIterator[Conn]: ...

        class Store:
            def find(self, i) -> Account: ...
            async def get(self, i) -> Account: ...
            def load(self) -> User: ...

        async def open_repo() -> Repo: ...
        """,
    "app/service.py": """
        import click
        from app.models import Repo, Store, open_repo
        from somewhere import make_repo

        async def awaited(repo: Repo):
            account = await repo.get(1)
            account.rename()

        async def chained():
            r = await open_repo()
            account = await r.get(2)
            account.rename()

        async def parenthesised(repo: Repo):
            (await repo.get(3)).rename()

        async def declared_awaitable(repo: Repo):
            account = await repo.later()
            account.rename()

        async def not_awaited(repo: Repo):
            account = repo.get(4)
            account.close()

        async def entered(repo: Repo):
            async with repo.connect() as c:
                c.execute()

        def through_the_receivers_type(store: Repo):
            account = store.find(5)
            account.rename()

        async def awaited_through_the_receivers_type(store: Repo):
            account = await store.get(6)
            account.rename()

        def through_a_library_result():
            repo = make_repo()
            account = repo.find(7)
            account.rename()

        def chain_on_a_library_result(ctx: click.Context):
            ctx.ensure_object(Store).load()
        """,
}


def test_python_awaited_calls_hold_what_the_async_function_is_annotated_with():
    edges = edges_of(ASYNC_PY)
    # `account` resembles Account; what `await repo.get()` gives is the User `async def get() -> User` names
    for source in ("awaited", "chained", "parenthesised", "declared_awaitable"):
        assert (source, "User.rename") in edges, source
        assert (source, "Account.rename") not in edges, source
    # not awaited, an async def gives a coroutine: no User's method is called on it
    assert ("not_awaited", "User.close") not in edges
    assert ("entered", "Conn.execute") in edges  # `async with`: what the AsyncIterator yields
    # `store: Repo`, so `store.find()` is Repo.find, whose User is what `account` holds (not Store.find's Account)
    for source in ("through_the_receivers_type", "awaited_through_the_receivers_type"):
        assert (source, "User.rename") in edges, source
        assert (source, "Account.rename") not in edges, source
    # `repo` holds what a library's function returns: its `find` is still the one of the type its name resembles
    assert ("through_a_library_result", "User.rename") in edges
    # in Python, what a library's method returns is unknown (not the library's): `load` is found by its name
    assert ("chain_on_a_library_result", "Store.load") in edges


ASYNC_TS = {
    "repo.ts": """
        export class User { rename() {} }
        export class Account { rename() {} }
        export class Subscription { unsubscribe() {} }
        export class Repo {
          async get(i: number): Promise<User> { return new User() }
          async all(): Promise<Map<string, User>> { return new Map() }
        }
        export async function openRepo(): Promise<Repo> { return new Repo() }
        """,
    "service.ts": """
        import { Repo, openRepo } from './repo'
        export async function awaited(repo: Repo) {
          const account = await repo.get(1)
          account.rename()
        }
        export async function chained() {
          const r = await openRepo()
          const account = await r.get(2)
          account.rename()
        }
        export async function parenthesised(repo: Repo) {
          (await repo.get(3)).rename()
        }
        export async function notAwaited(repo: Repo) {
          const account = repo.get(4)
          account.then()
        }
        export async function libraryResult(repo: Repo) {
          const accounts = await repo.all()
          accounts.get('a')
        }
        export function assignedFromALibrary(lookup: Map<string, Subscription>) {
          const subscription = lookup.get('a')
          subscription.unsubscribe()
        }
        export function chainedOnALibrary(lookup: Map<string, Subscription>) {
          lookup.get('b').unsubscribe()
        }
        """,
}


def test_typescript_awaited_calls_hold_the_promised_type():
    edges = edges_of(ASYNC_TS, language="auto")
    for source in ("awaited", "chained", "parenthesised"):
        assert (source, "User.rename") in edges, source
        assert (source, "Account.rename") not in edges, source
    assert ("notAwaited", "?then") in edges  # a Promise's then: the library's
    assert ("libraryResult", "?get") in edges  # a Map's get, not Repo.get
    assert ("libraryResult", "Repo.get") not in edges
    # a variable assigned a Map's `get` (a name the project defines too) is as unknown as before its Map was
    # known, so its name still finds Subscription; a chain written out on a library's result stays unresolved
    assert ("assignedFromALibrary", "Subscription.unsubscribe") in edges
    assert ("chainedOnALibrary", "?unsubscribe") in edges


def test_csharp_awaited_calls_hold_the_tasks_result():
    files = {
        "Repo.cs": """
            using System.Threading.Tasks;
            public class User { public void Rename() {} }
            public class Account { public void Rename() {} }
            public class Repo {
                public async Task<User> GetAsync(int id) { return new User(); }
            }
            public class Service {
                public async Task Run(Repo repo) {
                    var account = await repo.GetAsync(1);
                    account.Rename();
                }
                public async Task Chain(Repo repo) {
                    (await repo.GetAsync(2)).Rename();
                }
            }
            """,
    }
    edges = edges_of(files, language="auto")
    for source in ("Service.Run", "Service.Chain"):
        assert (source, "User.Rename") in edges, source
        assert (source, "Account.Rename") not in edges, source


def test_awaited_type_unwraps_promises_tasks_and_awaitables():
    assert awaited_type("Promise<User>") == "User"
    assert awaited_type("Task<Dictionary<string, User>>") == "Dictionary<string, User>"
    assert awaited_type("typing.Coroutine[Any, Any, User]") == "User"
    assert awaited_type("Awaitable[Optional[User]]") == "Optional[User]"
    assert awaited_type("User") == "User"  # awaiting a plain value gives it
    assert awaited_type("PromiseCache<User>") == "PromiseCache<User>"
    # C#'s and Java's result types keep their type arguments, which awaiting unwraps
    assert result_type("public async Task<Dictionary<string, User>> GetAsync(int i)", "R.cs", "GetAsync") == \
        "Task<Dictionary<string, User>>"
    assert result_type("public static <T extends Foo> List<T> make(int id)", "R.java", "make") == "List<T>"

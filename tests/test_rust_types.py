"""Rust calls resolved through declared types: parameters, `let`s, struct fields, `Self`, what a function's
`-> Result<Self, E>` gives through `?`, `.unwrap()` and `.await`; no stores involved."""

from __future__ import annotations

from conftest import edges_of

from codebase.chunker import parse_file
from codebase.typed import result_type, rust_type, rust_unwrapped

STORE = {
    "src/store.rs": """
        pub struct Store { path: String }
        impl Store {
            pub fn open(path: &str) -> Result<Store, Error> { Ok(Store { path: path.into() }) }
            pub fn new() -> Self { Store { path: String::new() } }
            pub fn save(&self) {}
            pub fn cursor(&self) -> Cursor { Cursor }
            pub async fn fetch(&self) -> Option<Cursor> { None }
        }
        pub struct Cursor;
        impl Cursor { pub fn next(&mut self) {} }
        pub struct Disk;
        impl Disk { pub fn save(&self) {} pub fn next(&self) {} }
        """,
    "src/server.rs": """
        use crate::store::{Store, Cursor};
        pub struct Server { db: Store, cur: Option<Cursor> }
        impl Server {
            pub fn field(&self) { self.db.save(); }
            pub fn param(&self, other: &mut Store) { other.save(); }
            pub fn boxed(&self, boxed: std::sync::Arc<Store>) { boxed.save(); }
            pub fn built(&self) { let s = Store::new(); s.save(); }
            pub fn tried(&self) { let t = Store::open("x")?; t.save(); }
            pub fn annotated(&self) { let u: Store = make(); u.save(); }
            pub fn method_result(&self) { let mut c = self.db.cursor(); c.next(); }
            pub fn literal(&self) { let d = Store { path: String::new() }; d.save(); }
            pub fn selfish(&self) { let me = Self::make(); me.run(); }
            pub fn make() -> Self { Server { db: Store::new(), cur: None } }
            pub fn run(&self) {}
            pub async fn awaited(&self) { let c = self.db.fetch().await.unwrap(); c.next(); }
            pub async fn chain(&self) { Store::open("y")?.save(); }
            pub fn unwrapped(&self) { let s = Store::open("y").unwrap(); s.save(); }
            pub fn untried(&self) { let r = Store::open("z"); r.save(); }
            pub fn unwrap_chain(&self) { Store::open("y").unwrap().save(); }
            pub fn expect_chain(&self) { Store::open("y").expect("a store").cursor().next(); }
            pub fn library(&self, names: Vec<Store>) { names.save(); }
        }
        pub struct Holder<S> { inner: S }
        impl Holder<Store> { pub fn generic(&self) { self.inner.cursor(); } }
        """,
}


def test_rust_calls_go_through_declared_and_built_types():
    edges = edges_of(STORE, language="auto")
    # Disk defines save and next too: only a known type tells them apart
    for source in ("field", "param", "boxed", "built", "tried", "annotated", "literal", "chain", "unwrapped",
                   "unwrap_chain"):
        assert (f"Server.{source}", "Store.save") in edges, source
        assert (f"Server.{source}", "Disk.save") not in edges, source
    for source in ("method_result", "awaited", "expect_chain"):
        assert (f"Server.{source}", "Cursor.next") in edges, source
    assert ("Server.selfish", "Server.run") in edges  # `-> Self` in `impl Server`
    # without `?`, `open` gives a Result; a Vec is the standard library's: neither is guessed
    assert ("Server.untried", "?save") in edges
    assert ("Server.library", "?save") in edges
    # a field of a type parameter's type is not taken for a library's: the method's name still finds it
    assert ("Holder<Store>.generic", "Store.cursor") in edges


def test_rust_types_read_through_references_pointers_and_paths():
    assert rust_type("&'a mut crate::store::Store") == "Store"
    assert rust_type("std::sync::Arc<store::Store>") == "Store"
    assert rust_type("Box<dyn Handler>") == "Handler"
    assert rust_type("Vec<Store>") == "Vec"
    assert rust_type("(Store, Disk)") == ""
    assert rust_unwrapped("io::Result<Self>") == "Self"
    assert rust_unwrapped("Result<HashMap<K, V>, E>") == "HashMap<K, V>"
    assert rust_unwrapped("Store") == "Store"
    assert result_type("pub fn f<F: Fn(u8) -> u8>(f: F) -> io::Result<Self> where F: Clone", "a.rs") == \
        "io::Result<Self>"
    assert result_type("fn run(&self)", "a.rs") == ""


def test_rust_method_calls_see_through_deref_and_library_results():
    files = {
        "src/store.rs": """
            use std::ops::Deref;
            use std::sync::Mutex;
            pub struct Stream;
            impl Stream { pub fn is_closed(&self) -> bool { true } }
            pub struct Other;
            impl Other { pub fn is_closed(&self) -> bool { false } }
            pub struct Ptr<'a> { stream: &'a Stream }
            impl<'a> Deref for Ptr<'a> {
                type Target = Stream;
                fn deref(&self) -> &Stream { self.stream }
            }
            pub struct Inner { streams: Vec<Stream> }
            impl Inner { pub fn resolve(&self) {} }
            pub struct Table;
            impl Table { pub fn resolve(&self) {} }
            pub struct Streams { inner: Mutex<Inner> }
            impl Streams {
                pub fn through_deref(&self, ptr: Ptr) { ptr.is_closed(); }
                pub fn through_a_guard(&self) { let inner = self.inner.lock().unwrap(); inner.resolve(); }
            }
            """,
    }
    edges = edges_of(files, language="auto")
    # `impl Deref for Ptr { type Target = Stream }`: Ptr's calls reach Stream's methods
    assert ("Streams.through_deref", "Stream.is_closed") in edges
    # a Mutex's lock() is std's, but what it hands back is no known library type: the name `inner` decides
    assert ("Streams.through_a_guard", "Inner.resolve") in edges


def test_rust_super_and_self_paths_are_relative_to_the_files_module():
    files = {
        "src/lib.rs": "mod frame;\nmod other;\npub struct Client;\nimpl Client { pub fn stream_id(&self) {} }\n",
        "src/other.rs": "pub struct StreamId;\nimpl StreamId { pub fn is_zero(&self) -> bool { false } }\n",
        "src/frame/mod.rs": "mod head;\nmod stream_id;\npub use self::head::Head;\n"
                            "pub use self::stream_id::StreamId;\n",
        "src/frame/stream_id.rs": "pub struct StreamId(u32);\n"
                                  "impl StreamId { pub fn is_zero(&self) -> bool { true } }\n",
        "src/frame/head.rs": """
            use super::StreamId;
            pub struct Head { stream_id: StreamId }
            impl Head { pub fn stream_id(&self) -> StreamId { StreamId(0) } }
            """,
        "src/frame/ping.rs": """
            use super::Head;
            use crate::Client;
            pub fn load(head: Head, client: Client) { head.stream_id().is_zero(); client.stream_id(); }
            """,
    }
    # `super::` in frame/head.rs is frame/mod.rs, which re-exports StreamId (not other.rs's); `crate::` is the root
    assert {("load", "src/frame/head.rs:Head.stream_id"), ("load", "src/frame/stream_id.rs:StreamId.is_zero"),
            ("load", "src/lib.rs:Client.stream_id")} <= edges_of(files, language="auto", paths=True)


def test_a_rust_type_imported_along_a_path_a_macro_hides_is_the_projects_one_type_of_that_name():
    files = {
        "src/lib.rs": "mod proto;\n",
        "src/proto/mod.rs": "cfg_feature! {\n    pub(crate) mod h1;\n    pub(crate) use self::h1::Conn;\n}\n",
        "src/proto/h1/mod.rs": "mod conn;\nmod dispatch;\npub(crate) use self::conn::Conn;\n",
        "src/proto/h1/conn.rs": "pub(crate) struct Conn;\nimpl Conn { pub fn close(&self) {} }\n",
        "src/proto/h1/state.rs": "pub(crate) struct State;\nimpl State { pub fn close(&self) {} }\n",
        "src/proto/h1/dispatch.rs": """
            use crate::proto::Conn;
            pub(crate) struct Dispatcher { conn: Conn }
            impl Dispatcher { pub fn shut(&self) { self.conn.close(); } }
            """,
    }
    # tree-sitter reads no `use` inside the macro, so `crate::proto::Conn` leads nowhere: still the project's
    assert ("Dispatcher.shut", "Conn.close") in edges_of(files, language="auto")


def test_a_rust_type_parameter_is_the_trait_it_is_bound_by():
    files = {
        "src/pipe.rs": """
            use std::io;
            pub trait Sink { fn put(&mut self); }
            pub trait Source { fn take(&mut self); }
            pub struct Buffer;
            impl Buffer { pub fn put(&mut self) {} pub fn take(&mut self) {} pub fn read_line(&self) {} }
            pub struct Pipe<W> { out: W }
            impl<W> Pipe<W> where W: Sink {
                pub fn flush<R: Clone + Source>(&mut self, input: R, w: &mut W) { input.take(); w.put(); }
                pub fn spill(&self, sink: impl Sink) { sink.put(); }
                pub fn loose<Out>(&self, buffer: Out) { buffer.put(); }
                pub fn stdlib<R>(&self, reader: R) where R: Send + io::BufRead { reader.read_line(); }
                pub fn short(&self, buffer: &KA) { buffer.put(); }
            }
            pub struct KA;
            impl KA { pub fn put(&self) {} }
            """,
    }
    edges = edges_of(files, language="auto")
    # `R: Clone + Source` is a Source (Clone says nothing of `take`), `W: Sink` from the impl's where clause
    assert {("Pipe<W>.flush", "Source.take"), ("Pipe<W>.flush", "Sink.put"), ("Pipe<W>.spill", "Sink.put")} <= edges
    assert not {("Pipe<W>.flush", "Buffer.take"), ("Pipe<W>.flush", "Buffer.put")} & edges
    # an unbound parameter says nothing (the name `buffer` decides); a std trait's call is no project method's
    assert ("Pipe<W>.loose", "Buffer.put") in edges
    assert ("Pipe<W>.stdlib", "?read_line") in edges
    assert ("Pipe<W>.short", "KA.put") in edges  # a short name no generics declare is a type


def test_rust_trait_signatures_and_enum_variants_are_symbols_and_call_targets():
    files = {
        "src/frame.rs": """
            pub trait Codec { fn encode(&self) -> Vec<u8>; fn name(&self) -> &str { "codec" } }
            pub enum Frame { Data(Vec<u8>), Ping { ack: bool }, Close }
            pub struct Data;
            pub fn wrap(bytes: Vec<u8>, c: &dyn Codec) -> Frame { c.encode(); Frame::Data(bytes) }
            """,
    }
    symbols = {(s.qualname, s.kind) for s in parse_file("src/frame.rs", files["src/frame.rs"], "rust").symbols}
    assert {("Codec.encode", "method"), ("Codec.name", "method"), ("Frame.Data", "attribute"),
            ("Frame.Ping", "attribute"), ("Frame.Close", "attribute")} <= symbols
    assert not {q for q, _ in symbols if q.endswith(".ack")}  # a variant's field is not the enum's
    edges = edges_of(files, language="auto")
    assert {("wrap", "Codec.encode"), ("wrap", "Frame.Data")} <= edges  # the variant, not the struct Data

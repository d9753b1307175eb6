"""Scala: classes, traits, objects and enums are symbols, a companion object's members its class's, an import's
selectors bind names, and calls (and reads of parameterless methods) go through the types code declares."""

from __future__ import annotations

import textwrap

from conftest import called_by, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file
from codebase.languages import detect_language

ITEM = """
    package shop.model

    /** Something with a price. */
    trait Priced {
      def price: BigDecimal
      def total(n: Int): BigDecimal = price * n
    }

    case class Book(title: String, price: BigDecimal) extends Priced {
      def label(): String = title.toUpperCase() + price
    }

    enum Color { case Red, Green }
    """

CART = """
    package shop

    import shop.model.{Book, Priced => P, Color => _}
    import shop.util._

    object Cart {
      val MaxItems = 100
      def empty(): Cart = new Cart(Nil, Store("main"))
    }

    class Cart(val items: List[P], store: Store) {
      private val log = Logger("cart")
      def add(b: Book): Cart = {
        log.info(b.label())
        b.total(1)
        new Cart(b :: items, store)
      }
      def checkout(): Unit = { store.pay(sum()); audit.run() }
      def sum(): BigDecimal = items.map(_.price).sum
      def report(): String =
        store.name + store.balance + count.balance

      def size: Int = items.length
    }

    extension (c: Cart)
      def isEmpty: Boolean = c.size == 0
    """

STORE = """
    package shop

    case class Store(name: String) {
      def pay(amount: BigDecimal): Unit = Logger("pay").info("paid")
      def balance: Int = 0
    }
    """

LOGGER = """
    package shop.util

    case class Logger(name: String) {
      def info(msg: String): Unit = println(msg)
    }

    class Counter { def balance: Int = 0 }

    object Report { def show(): String = "b" + balance }
    """

MAIN = """
    package shop

    import shop.model.Book

    object Main extends App {
      val cart = Cart.empty()
      cart.add(Book("x", 1))
      val s: Store = make()
      s.pay(1)
      cart.isEmpty
    }
    """

PROJECT = {
    "src/main/scala/shop/model/Item.scala": ITEM,
    "src/main/scala/shop/Cart.scala": CART,
    "src/main/scala/shop/Store.scala": STORE,
    "src/main/scala/shop/util/Logger.scala": LOGGER,
    "src/main/scala/shop/Main.scala": MAIN,
}


def _parsed(text: str, path: str = "src/main/scala/shop/Cart.scala"):
    return parse_file(path, textwrap.dedent(text), "scala")


def _symbols(text: str) -> dict[str, tuple[str, int, int]]:
    return spans(_parsed(text))


def test_types_members_and_a_companion_object():
    assert _symbols(ITEM) == {
        "Priced": ("trait", 4, 8),  # with its doc comment
        "Priced.price": ("method", 6, 6),  # a declaration: what Book implements
        "Priced.total": ("method", 7, 7),
        "Book": ("class", 10, 12),
        "Book.title": ("attribute", 10, 10),  # a case class's parameters are its fields
        "Book.price": ("attribute", 10, 10),
        "Book.label": ("method", 11, 11),
        "Color": ("enum", 14, 14), "Color.Red": ("attribute", 14, 14), "Color.Green": ("attribute", 14, 14),
    }
    symbols = _symbols(CART)
    # the object beside class Cart is its companion: its members are Cart's
    assert symbols["object Cart"] == ("impl", 7, 10)
    assert symbols["Cart.empty"] == ("method", 9, 9) and symbols["Cart.MaxItems"][0] == "attribute"
    assert symbols["Cart"] == ("class", 12, 25)
    # `val items` is a field, a plain constructor parameter (`store`) is not
    assert "Cart.items" in symbols and "Cart.store" not in symbols and "Cart.log" in symbols
    # an indented body ends at its last line, not at the next definition's
    assert symbols["Cart.report"] == ("method", 21, 22) and symbols["Cart.size"] == ("method", 24, 24)
    assert symbols["Cart.isEmpty"] == ("method", 28, 28)  # an extension method is its type's
    chunks = _parsed(CART).chunks
    assert any(c.breadcrumb == "object Cart > def empty" for c in chunks)


def test_a_def_without_a_body_is_abstract_in_an_abstract_class_too():
    shape = _parsed("abstract class Shape {\n  def area: Double\n  def name(): String = \"s\"\n}\n")
    signatures = {s.qualname: s.signature for s in shape.symbols}
    # what `callees` of a call of it lists the implementations of, as a trait's; a body's `=` is no signature's
    assert signatures["Shape.area"] == "abstract def area: Double" and signatures["Shape.name"] == "def name(): String"


def test_imports_bind_selectors_renames_and_wildcards():
    parsed = _parsed(CART)
    assert parsed.imports == {"Book": "shop.model.Book", "P": "shop.model.Priced", "*shop.util": "shop.util"}
    assert {r.name for r in parsed.refs if r.kind == "imports"} == {
        "shop.model.Book", "shop.model.Priced", "shop.util"}  # `Color => _` hides Color: no import
    two = _parsed("import a.b.C, x.y.{Z, W => V}\nimport q.r.*\n")
    assert two.imports == {"C": "a.b.C", "Z": "x.y.Z", "V": "x.y.W", "*q.r": "q.r"}
    assert {detect_language(p) for p in ("build.sbt", "scripts/release.sc", "src/A.scala")} == {"scala"}


def _called() -> dict[str, set[str]]:
    return called_by(PROJECT, "src/main/scala/shop/")


def test_calls_go_through_declared_types_and_companions():
    called = _called()
    # a field's type (`log = Logger(...)`, a case class's apply), a parameter's (b: Book), a trait's method
    # inherited by Book, a constructor parameter's (store: Store); an unknown `audit` stays unresolved
    assert called["Cart.add"] == {"util/Logger.scala:Logger.info", "model/Item.scala:Book.label",
                                  "model/Item.scala:Priced.total", "Cart.scala:Cart"}
    assert called["Cart.checkout"] == {"Store.scala:Store.pay", "Cart.scala:Cart.sum", "?run"}
    # the companion's method, a variable holding what it returns (`: Cart`), a declared `val s: Store`, an
    # extension method read without parentheses
    assert called["Main"] >= {"Cart.scala:Cart.empty", "Cart.scala:Cart.add", "model/Item.scala:Book",
                              "Store.scala:Store.pay", "Cart.scala:Cart.isEmpty"}
    assert called["Cart.isEmpty"] == {"Cart.scala:Cart.size"}


def test_a_member_read_is_a_call_only_of_a_known_types_method():
    called = _called()
    # `store.balance` reads Store's def balance: a call; `store.name` a field: none; `count.balance`, on a
    # receiver of unknown type, is not guessed to be Counter's or Store's
    assert called["Cart.report"] == {"Store.scala:Store.balance"}
    assert called["Cart.sum"] == {"?map"}  # `items.map(...).sum` reads a library's member: no edge
    # a bare name: the class's own parameterless def (`price * n`); Book's `price` is its field, and Report
    # has no `balance` of its own (Counter's, in the same file, is not Report's)
    assert called["Priced.total"] == {"model/Item.scala:Priced.price"}
    assert called["Book.label"] == {"?toUpperCase"} and "Report.show" not in called


def test_a_scala_project_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "shop", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="shop")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    callers = {c["name"] for c in engine.symbol_graph("Cart.empty", "callers", project="shop")["results"]}
    assert callers == {"Main"}
    readers = {c["name"] for c in engine.symbol_graph("Store.balance", "callers", project="shop")["results"]}
    assert readers == {"report"}  # `store.balance`, read without parentheses
    members = {c["name"] for c in engine.symbol_graph("Cart", "members", project="shop")["results"]}
    assert {"empty", "MaxItems", "add", "isEmpty"} <= members  # the companion's and the extension's too

"""Dart: a function's signature and body (siblings in the grammar) are one definition, classes, mixins,
extensions and enums are symbols, imports of files bring in their names, and calls (and getter reads) go through
the types declarations state."""

from __future__ import annotations

import textwrap

from conftest import called_by, edges_of, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file

ITEM = """
    /// Something with a price.
    abstract class Priced {
      double get price;
      double total(int n) => price * n;
      String describe();
    }

    class Item extends Priced {
      final String name;
      @override
      final double price;

      Item(this.name, this.price);

      String label() => name.toUpperCase();

      @override
      String describe() => label();
    }

    enum Color { red, green }
    """

STORE = """
    import 'item.dart';

    class Store {
      final String name;
      Store(this.name);

      void pay(double amount) {
        Logger('pay').info('paid');
      }

      int get balance => 0;

      Future<Receipt> checkout() async => Receipt();
    }

    class Receipt {
      void print() {}
    }

    class Logger {
      final String tag;
      Logger(this.tag);
      void info(String message) {}
    }
    """

CART = """
    import 'package:shop/src/item.dart';
    import 'store.dart' show Store, Logger;
    import 'dart:math' as math;

    mixin Audited {
      void audit(String what) => print(what);
    }

    class Cart with Audited {
      final List<Item> items = [];
      final Store store;
      final log = Logger('cart');

      Cart(this.store);
      Cart.empty() : this(Store('main'));
      factory Cart.of(String name) => Cart(Store(name));

      void add(Item item,
          {int count = 1}) {
        log.info(item.label());
        item.total(count);
        items.add(item);
        audit('add');
        math.max(1, 2);
      }

      Future<void> pay() async {
        store.pay(sum);
        final receipt = await store.checkout();
        receipt.print();
      }

      double get sum => items.fold(0, (a, b) => a + b.price);

      String report() => store.name + '${store.balance}' + '$sum';

      String show(Priced p) => p.describe();

      void onTap() => schedule(pay);
    }

    extension CartSize on Cart {
      int get size => items.length;
      bool get isEmpty => size == 0;
    }
    """

LIBRARY = """
    library shop;

    export 'src/cart.dart';
    export 'src/item.dart';
    """

MAIN = """
    import 'package:shop/shop.dart';

    void main() {
      final cart = Cart.empty();
      cart.add(Item('x', 1));
      var other = Cart.of('b')..add(Item('y', 2));
      if (other.isEmpty) {
        cart.pay();
      }
    }
    """

PROJECT = {
    "lib/src/item.dart": ITEM,
    "lib/src/store.dart": STORE,
    "lib/src/cart.dart": CART,
    "lib/shop.dart": LIBRARY,
    "bin/main.dart": MAIN,
}


def _parsed(text: str, path: str = "lib/src/cart.dart"):
    return parse_file(path, textwrap.dedent(text), "dart")


def _symbols(text: str) -> dict[str, tuple[str, int, int]]:
    return spans(_parsed(text))


def test_a_signature_and_its_body_are_one_definition():
    assert _symbols(ITEM) == {
        "Priced": ("class", 2, 7),  # with its doc comment
        "Priced.price": ("method", 4, 4),  # abstract: what Item implements
        "Priced.total": ("method", 5, 5), "Priced.describe": ("method", 6, 6),
        "Item": ("class", 9, 20),
        "Item.name": ("attribute", 10, 10), "Item.price": ("attribute", 12, 12),
        "Item.Item": ("method", 14, 14),  # a constructor, named like its class as Java's
        "Item.label": ("method", 16, 16),
        "Item.describe": ("method", 18, 19),  # with its annotation
        "Color": ("enum", 22, 22), "Color.red": ("attribute", 22, 22), "Color.green": ("attribute", 22, 22),
    }
    parsed = _parsed(ITEM)
    signatures = {s.qualname: s.signature for s in parsed.symbols}
    # a method without a body is abstract: `callees` of a call of it lists its implementations
    assert signatures["Priced.price"] == "abstract double get price"
    assert signatures["Priced.total"] == "double total(int n)"
    symbols = _symbols(CART)
    # a multi-line signature, then its body: one chunk, one symbol
    assert symbols["Cart.add"] == ("method", 19, 26)
    assert {"Cart.empty", "Cart.of", "Cart.store", "Cart.log", "Cart.sum"} <= set(symbols)
    assert symbols["Audited"] == ("class", 6, 8) and symbols["extension Cart"][0] == "impl"
    assert symbols["Cart.size"] == ("method", 44, 44)  # an extension's members are its type's
    chunks = {c.breadcrumb: c for c in _parsed(CART).chunks}
    add = chunks["class Cart > method add"]
    assert add.content.count("log.info(item.label());") == 1 and "{int count = 1}" in add.content
    assert add.signature == "void add(Item item, {int count = 1})"
    # a top-level variable's words are siblings of its name in the grammar
    top = _parsed("late final Map<String, int> cache;\nconst limit = 3;\n", "lib/config.dart").symbols
    assert [(s.qualname, s.kind, s.signature) for s in top[1:]] == [
        ("cache", "variable", "late final Map<String, int> cache"), ("limit", "variable", "const limit = 3")]


def test_imports_are_of_files_with_show_and_as():
    parsed = _parsed(CART)
    assert parsed.imports == {"*package:shop/src/item.dart": "package:shop/src/item.dart",
                              "Store": "./store.dart", "Logger": "./store.dart", "math": "dart:math"}
    library = _parsed(LIBRARY, "lib/shop.dart")  # a library's exports re-export its files' names
    assert library.imports == {"*./src/cart.dart": "./src/cart.dart", "*./src/item.dart": "./src/item.dart"}
    # `package:shop/...` is the package's lib/ folder; a relative path is the importing file's neighbour
    imported = edges_of(PROJECT, "auto", ids=True, kind="imports")
    assert imported == {("bin/main.dart:", "lib/shop.dart:"), ("lib/shop.dart:", "lib/src/cart.dart:"),
                        ("lib/shop.dart:", "lib/src/item.dart:"), ("lib/src/cart.dart:", "?dart:math"),
                        ("lib/src/cart.dart:", "lib/src/item.dart:"), ("lib/src/cart.dart:", "lib/src/store.dart:"),
                        ("lib/src/store.dart:", "lib/src/item.dart:")}


def _called() -> dict[str, set[str]]:
    return called_by(PROJECT, "lib/src/")


def test_calls_go_through_declared_types_imports_and_chains():
    called = _called()
    # a field's class (`log = Logger(...)`), a parameter's (Item item), a method Item inherits from Priced, a
    # mixin's method called bare, a library's list and `math.max` left unresolved rather than guessed
    assert called["Cart.add"] == {"store.dart:Logger.info", "item.dart:Item.label", "item.dart:Priced.total",
                                  "?add", "cart.dart:Audited.audit", "?max"}
    # a field's declared type, a getter read bare (`sum`), an awaited method's result (Future<Receipt>)
    assert called["Cart.pay"] == {"store.dart:Store.pay", "cart.dart:Cart.sum", "store.dart:Store.checkout",
                                  "store.dart:Receipt.print"}
    # a getter read on a typed field; a field (`store.name`) is no call
    assert called["Cart.report"] == {"store.dart:Store.balance", "cart.dart:Cart.sum"}
    assert called["Priced.total"] == {"item.dart:Priced.price"}  # a bare getter of its own class
    assert called["Cart.isEmpty"] == {"cart.dart:Cart.size"}  # of its extension
    assert called["Cart.empty"] == {"store.dart:Store", "cart.dart:Cart.Cart"}  # `: this(...)`, a constructor
    assert called["Cart.onTap"] == {"?schedule", "cart.dart:Cart.pay"}  # a method torn off is called by who has it
    assert called["Audited.audit"] == {"?print"}  # not Receipt.print: a bare call is no other class's method
    # through `package:shop/shop.dart`'s exports: a named constructor, a factory's result and its cascade,
    # an extension's getter read on the variable it typed
    assert called["main"] >= {"cart.dart:Cart.empty", "cart.dart:Cart.add", "item.dart:Item", "cart.dart:Cart.of",
                              "cart.dart:Cart.isEmpty", "cart.dart:Cart.pay"}


def test_a_dart_project_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "shop", {"pubspec.yaml": "name: shop\n",
                                           **{p: textwrap.dedent(t) for p, t in PROJECT.items()}})
    report = index_project(engine, root, project="shop")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT) + 1
    callers = {c["name"] for c in engine.symbol_graph("Cart.empty", "callers", project="shop")["results"]}
    assert callers == {"main"}
    readers = {c["name"] for c in engine.symbol_graph("Store.balance", "callers", project="shop")["results"]}
    assert readers == {"report"}  # `store.balance`, a getter read without parentheses
    members = {c["name"] for c in engine.symbol_graph("Cart", "members", project="shop")["results"]}
    assert {"empty", "of", "add", "size", "isEmpty"} <= members  # the extension's too
    # a call of an abstract method may run what implements it
    shown = engine.symbol_graph("Cart.show", "callees", project="shop")["results"]
    assert [(c["qualname"], c.get("through")) for c in shown] == [("Priced.describe", None),
                                                                   ("Item.describe", "Priced.describe")]

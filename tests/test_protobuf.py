"""Protocol Buffers: messages, enums, services and rpcs are symbols named by their full names, fields and enum
values their members, imports of other .proto files imports, and a type a field or an rpc names a use of the
message or enum it means, looked up from the innermost scope outwards as protoc does."""

from __future__ import annotations

import textwrap

from conftest import called_by, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file

CART = """
    syntax = "proto3";
    package shop.v1;

    import "shop/v1/common.proto";
    import "google/protobuf/timestamp.proto";

    // A customer's cart.
    message Cart {
      string id = 1;
      repeated Line lines = 2;
      google.protobuf.Timestamp created = 3;
      message Line { string sku = 1; Money price = 2; }
      enum State { STATE_UNSPECIFIED = 0; OPEN = 1; }
      State state = 4;
      map<string, Line> by_sku = 5;
      oneof owner { string user = 6; Cart parent = 7; }
    }

    service Carts {
      // Gets a cart by its id.
      rpc GetCart(GetCartRequest)
          returns (Cart) { option idempotency_level = NO_SIDE_EFFECTS; }
      rpc Watch(stream GetCartRequest) returns (stream .shop.v1.Cart);
    }

    message GetCartRequest { string id = 1; Line hint = 2; Cart.Line exact = 3; }
    """

PROJECT = {
    "proto/shop/v1/cart.proto": CART,
    "proto/shop/v1/common.proto": """
        syntax = "proto3";
        package shop.v1;
        message Money { int64 units = 1; }
        message Line { string text = 1; }
        extend google.protobuf.FieldOptions { Money default_price = 5001; }
        """,
    "proto/billing/v2/invoice.proto": """
        syntax = "proto3";
        package billing.v2;
        import "shop/v1/cart.proto";
        message Money { string amount = 1; }
        message Invoice { shop.v1.Cart cart = 1; Money total = 2; shop.v1.Cart.State state = 3; }
        """,
    "app/money.py": "class Money:\n    pass\n",
}


def test_messages_enums_services_and_rpcs_are_symbols_by_full_name():
    parsed = parse_file("proto/shop/v1/cart.proto", textwrap.dedent(CART), "protobuf")
    kinds = spans(parsed)
    assert kinds["shop.v1.Cart"] == ("struct", 8, 18)  # with its comment
    assert kinds["shop.v1.Cart.Line"] == ("struct", 13, 13)
    assert kinds["shop.v1.Cart.State"] == ("enum", 14, 14)
    assert kinds["shop.v1.Carts"] == ("interface", 20, 25)
    assert kinds["shop.v1.Carts.GetCart"] == ("method", 21, 23)
    # fields, map fields, oneof fields and enum values are members, in their message's or enum's chunk
    members = {q for q, (kind, _, _) in kinds.items() if kind == "attribute"}
    assert members == {f"shop.v1.Cart.{f}" for f in ("id", "lines", "created", "state", "by_sku", "user", "parent")} | {
        "shop.v1.Cart.Line.sku", "shop.v1.Cart.Line.price", "shop.v1.Cart.State.STATE_UNSPECIFIED",
        "shop.v1.Cart.State.OPEN", "shop.v1.GetCartRequest.id", "shop.v1.GetCartRequest.hint",
        "shop.v1.GetCartRequest.exact"}
    signatures = {s.qualname: s.signature for s in parsed.symbols}
    assert signatures["shop.v1.Carts.GetCart"] == "rpc GetCart(GetCartRequest) returns (Cart)"
    assert signatures["shop.v1.Cart"] == "message Cart"
    assert {c.breadcrumb for c in parsed.chunks} >= {"message Cart", "message Cart > message Line",
                                                    "message Cart > enum State", "service Carts > rpc GetCart"}
    assert [r.name for r in parsed.refs if r.kind == "imports"] == ["shop/v1/common.proto",
                                                                   "google/protobuf/timestamp.proto"]


def test_a_type_named_is_a_use_of_the_nearest_one():
    called = called_by(PROJECT, "proto/")
    # `Line` in Cart is its own nested message; in GetCartRequest the package's, from another file
    assert called["shop.v1.Cart"] == {"shop/v1/cart.proto:shop.v1.Cart.Line", "shop/v1/cart.proto:shop.v1.Cart.State",
                                      "shop/v1/cart.proto:shop.v1.Cart", "?Timestamp"}
    assert called["shop.v1.Cart.Line"] == {"shop/v1/common.proto:shop.v1.Money"}
    assert called["shop.v1.GetCartRequest"] == {"shop/v1/common.proto:shop.v1.Line",
                                                "shop/v1/cart.proto:shop.v1.Cart.Line"}
    assert called["shop.v1.Carts.GetCart"] == {"shop/v1/cart.proto:shop.v1.GetCartRequest",
                                               "shop/v1/cart.proto:shop.v1.Cart"}
    assert called["shop.v1.Carts.Watch"] == called["shop.v1.Carts.GetCart"]  # `.shop.v1.Cart`: a full name
    # a top-level `extend` names its types from the file's package
    assert called[""] == {"shop/v1/common.proto:shop.v1.Money"}
    # another package's Money is its own, never shop.v1's or Python's
    assert called["billing.v2.Invoice"] == {"shop/v1/cart.proto:shop.v1.Cart", "shop/v1/cart.proto:shop.v1.Cart.State",
                                            "billing/v2/invoice.proto:billing.v2.Money"}


def test_a_proto_project_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "shop", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="shop")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    callers = engine.symbol_graph("shop.v1.Cart", "callers", project="shop")["results"]
    assert {c["qualname"] for c in callers} == {"shop.v1.Carts.GetCart", "shop.v1.Carts.Watch", "billing.v2.Invoice"}
    imported = engine.symbol_graph("proto/billing/v2/invoice.proto", "imports", project="shop")["results"]
    assert [c["path"] for c in imported] == ["proto/shop/v1/cart.proto"]
    hits = engine.search_code("get a cart by its id", project="shop", limit=3)
    assert hits[0].record["path"] == "proto/shop/v1/cart.proto" and hits[0].title == "service Carts > rpc GetCart"

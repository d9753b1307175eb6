"""Elixir: modules by their full names (nested ones below their module), functions of every clause one
definition, protocols and their implementations, and calls through aliases, imports and the module itself."""

from __future__ import annotations

import textwrap

from conftest import called_by, edges_of, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file

CART = """
    defmodule Shop.Cart do
      @moduledoc "A cart of items."
      alias Shop.{Item, Price}
      import Shop.Helpers, only: [round_to: 2]
      require Logger

      defstruct items: [], owner: nil

      @doc "Adds an item."
      @spec add(t, Item.t()) :: t
      def add(%__MODULE__{} = cart, item) do
        Logger.info("adding")
        %{cart | items: [item | cart.items]}
        |> recount()
      end

      def total(cart), do: Enum.reduce(cart.items, 0, &Price.of/1) |> round_to(2)

      defp recount(%{items: []} = cart), do: cart

      # every other cart
      defp recount(cart) do
        Enum.each(cart.items, &check/1)
        cart
      end

      defp check(item), do: Item.valid?(item)

      defmodule Line do
        def new(item), do: %{item: item, price: Price.of(item)}
      end

      def lines(cart), do: Enum.map(cart.items, &Line.new/1)
    end
    """

PROJECT = {
    "lib/shop/cart.ex": CART,
    "lib/shop/item.ex": """
        defmodule Shop.Item do
          defstruct [:name, :price]
          def valid?(%__MODULE__{price: p}) when p > 0, do: true
          def valid?(_), do: false
        end
        """,
    "lib/shop/price.ex": """
        defmodule Shop.Price do
          @timeout 5_000
          def of(item), do: item.price
          def add(a, b), do: a + b
        end
        """,
    "lib/shop/helpers.ex": """
        defmodule Shop.Helpers do
          def round_to(x, n), do: Float.round(x, n)
          def check(_), do: :helpers
        end
        """,
    "lib/shop/sized.ex": """
        defprotocol Shop.Sized do
          @doc "How many things it holds."
          def size(x)
        end

        defimpl Shop.Sized, for: Shop.Cart do
          def size(cart), do: length(cart.items)
        end

        defimpl Shop.Sized, for: List do
          def size(list), do: length(list)
        end
        """,
    "lib/shop/store.ex": """
        defmodule Shop.Store do
          @callback save(term) :: :ok
        end

        defmodule Shop.DiskStore do
          @behaviour Shop.Store
          alias Shop.Cart, as: C
          plug :log

          @impl true
          def save(cart) do
            C.total(cart)
            Shop.Sized.size(cart)
            __MODULE__.log(cart)
            add(1, 2)
          end

          def log(_), do: :ok
        end
        """,
    "test/cart_test.exs": """
        defmodule Shop.CartTest do
          use ExUnit.Case
          alias Shop.Cart

          test "adds" do
            assert Cart.add(%Cart{}, 1).items == [1]
          end
        end
        """,
}


def _parsed(text: str, path: str = "lib/shop/cart.ex"):
    return parse_file(path, textwrap.dedent(text), "elixir")


def test_modules_functions_and_their_clauses_are_symbols():
    assert spans(_parsed(CART)) == {
        "Shop.Cart": ("namespace", 2, 35),
        "Shop.Cart.add": ("function", 10, 16),  # with its @doc and @spec
        "Shop.Cart.total": ("function", 18, 18),
        "Shop.Cart.recount": ("function", 20, 26),  # both clauses, the comment between them too
        "Shop.Cart.check": ("function", 28, 28),
        "Shop.Cart.Line": ("namespace", 30, 32),  # a nested module is named below its module
        "Shop.Cart.Line.new": ("function", 31, 31),
        "Shop.Cart.lines": ("function", 34, 34),
    }
    parsed = _parsed(CART)
    signatures = {s.qualname: s.signature for s in parsed.symbols}
    assert signatures["Shop.Cart.add"] == "def add(%__MODULE__{} = cart, item)"
    assert signatures["Shop.Cart.total"] == "def total(cart)"  # not its `do:` body
    chunks = {c.breadcrumb: c for c in parsed.chunks}
    assert set(chunks) == {"defmodule Shop.Cart", "defmodule Shop.Cart > def add", "defmodule Shop.Cart > def total",
                           "defmodule Shop.Cart > defp recount", "defmodule Shop.Cart > defp check",
                           "defmodule Shop.Cart > defmodule Line", "defmodule Shop.Cart > defmodule Line > def new",
                           "defmodule Shop.Cart > def lines"}
    assert chunks["defmodule Shop.Cart > defp recount"].content.count("defp recount(") == 2
    assert parsed.imports == {"Item": "Shop.Item", "Price": "Shop.Price", "*Shop.Helpers": "Shop.Helpers",
                              "Line": "Shop.Cart.Line"}
    # a protocol's functions are what its implementations define; an implementation is the module Protocol.Type
    sized = spans(_parsed(PROJECT["lib/shop/sized.ex"], "lib/shop/sized.ex"))
    assert sized == {"Shop.Sized": ("interface", 2, 5), "Shop.Sized.size": ("function", 3, 4),
                     "Shop.Sized.Shop.Cart": ("namespace", 7, 9), "Shop.Sized.Shop.Cart.size": ("function", 8, 8),
                     "Shop.Sized.List": ("namespace", 11, 13), "Shop.Sized.List.size": ("function", 12, 12)}


def test_calls_go_through_aliases_imports_and_the_module_itself():
    called = called_by(PROJECT, "lib/shop/")
    # a bare call is the module's own function; Logger's and Enum's are a library's, never guessed
    assert called["Shop.Cart.add"] == {"?info", "cart.ex:Shop.Cart.recount"}
    # a capture through an alias, and a bare call of what `import` brings in
    assert called["Shop.Cart.total"] == {"?reduce", "price.ex:Shop.Price.of", "helpers.ex:Shop.Helpers.round_to"}
    assert called["Shop.Cart.recount"] == {"?each", "cart.ex:Shop.Cart.check"}  # its own check, not the import's
    assert called["Shop.Cart.check"] == {"item.ex:Shop.Item.valid?"}
    assert called["Shop.Cart.Line.new"] == {"price.ex:Shop.Price.of"}  # the outer module's alias holds inside
    assert called["Shop.Cart.lines"] == {"?map", "cart.ex:Shop.Cart.Line.new"}  # a nested module by its short name
    # `as:`, a protocol's function, __MODULE__; a bare `add` is not Shop.Price.add, which nothing imports
    assert called["Shop.DiskStore.save"] == {"cart.ex:Shop.Cart.total", "sized.ex:Shop.Sized.size",
                                             "store.ex:Shop.DiskStore.log", "?add"}
    assert called["Shop.DiskStore"] == {"store.ex:Shop.DiskStore.log"}  # `plug :log`: its own function
    assert "Shop.Item.valid?" not in called  # a head (`valid?(...) when p > 0`) is no call of itself
    assert "Shop.Price" not in called  # `@timeout 5_000` sets an attribute: nothing is called
    # aliases, imports and requires are imports of the files defining those modules, wherever they are
    imported = edges_of(PROJECT, "auto", ids=True, kind="imports")
    assert {(s, t) for s, t in imported if s.startswith("lib/shop/cart.ex")} == {
        ("lib/shop/cart.ex:", "lib/shop/item.ex:"), ("lib/shop/cart.ex:", "lib/shop/price.ex:"),
        ("lib/shop/cart.ex:", "lib/shop/helpers.ex:"), ("lib/shop/cart.ex:", "?Logger")}
    implemented = edges_of(PROJECT, "auto", kind="implements")
    assert implemented == {("Shop.Sized.Shop.Cart", "Shop.Sized"), ("Shop.Sized.List", "Shop.Sized"),
                           ("Shop.DiskStore", "Shop.Store")}  # @behaviour too


def test_an_elixir_project_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "shop", {"mix.exs": "defmodule Shop.MixProject do\n  use Mix.Project\nend\n",
                                           **{p: textwrap.dedent(t) for p, t in PROJECT.items()}})
    report = index_project(engine, root, project="shop")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT) + 1
    callers = {c["qualname"] for c in engine.symbol_graph("Shop.Cart.add", "callers", project="shop")["results"]}
    assert callers == {"Shop.CartTest"}  # the test module, through its alias
    callers = {c["qualname"] for c in engine.symbol_graph("Shop.Price.of", "callers", project="shop")["results"]}
    assert callers == {"Shop.Cart.total", "Shop.Cart.Line.new"}
    # a call of a protocol's function may run any of its implementations
    shown = engine.symbol_graph("Shop.DiskStore.save", "callees", project="shop")["results"]
    through = {(c["qualname"], c.get("through")) for c in shown}
    assert {("Shop.Sized.size", None), ("Shop.Sized.Shop.Cart.size", "Shop.Sized.size"),
            ("Shop.Sized.List.size", "Shop.Sized.size")} <= through
    implementers = engine.symbol_graph("Shop.Store", "subclasses", project="shop")["results"]
    assert [c["qualname"] for c in implementers] == ["Shop.DiskStore"]

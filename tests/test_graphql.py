"""GraphQL: a schema's types, interfaces, enums, inputs, unions, scalars and directives and a document's
operations and fragments are symbols, fields and enum values members; a type a field names is the field's use,
and a field an operation or a fragment selects is a use of the schema's field, followed through the types the
fields before it return."""

from __future__ import annotations

import textwrap

from conftest import called_by, edges_of, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file

SCHEMA = '''
    """Something with an id."""
    interface Node { id: ID! }

    """A customer's cart."""
    type Cart implements Node @key(fields: "id") {
      id: ID!
      "Its lines, first first."
      lines(first: Int = 10): [Line!]!
      owner: Owner
      state: State
    }

    type Line { sku: String! }
    type User { name: String }
    type Team { title: String }
    union Owner = User | Team
    enum State { OPEN CLOSED }
    input CartInput { sku: String!, state: State }

    type Query {
      cart(id: ID!): Cart
    }

    type Mutation {
      addLine(input: CartInput!): Cart @deprecated(reason: "use addLines")
    }

    directive @key(fields: String!) on OBJECT
    '''

PROJECT = {
    "schema/schema.graphql": SCHEMA,
    "schema/me.graphql": "extend type Query { me: User }\n",
    "client/cart.graphql": """
        fragment CartParts on Cart {
          id
          lines { sku }
          owner { ... on User { name } }
        }

        query GetCart($id: ID!) {
          cart(id: $id) { ...CartParts state }
          me { name }
        }

        mutation AddLine($input: CartInput!) {
          addLine(input: $input) { id __typename }
        }
        """,
    "app/models.py": "class Cart:\n    owner = None\n",
    "client/types.d.ts": "export interface Node { id: string }\n",  # as a code generator writes it
}


def test_types_fields_operations_and_fragments_are_symbols():
    parsed = parse_file("schema/schema.graphql", textwrap.dedent(SCHEMA), "graphql")
    kinds = spans(parsed)
    assert kinds["Cart"] == ("class", 5, 12)  # with its description
    assert kinds["Node"] == ("interface", 2, 3)
    assert kinds["Owner"] == ("type", 17, 17) and kinds["State"] == ("enum", 18, 18)
    assert kinds["CartInput"] == ("struct", 19, 19) and kinds["key"] == ("function", 29, 29)
    assert {q for q, (kind, _, _) in kinds.items() if kind == "attribute"} == {
        "Node.id", "Cart.id", "Cart.lines", "Cart.owner", "Cart.state", "Line.sku", "User.name", "Team.title",
        "State.OPEN", "State.CLOSED", "CartInput.sku", "CartInput.state"}
    # a root type's field is an operation of the API: a definition with its own chunk
    assert kinds["Query.cart"] == ("method", 22, 22) and kinds["Mutation.addLine"] == ("method", 26, 26)
    signatures = {s.qualname: s.signature for s in parsed.symbols}
    assert signatures["Cart"] == 'type Cart implements Node @key(fields: "id")'
    assert signatures["Cart.lines"] == "lines(first: Int = 10): [Line!]!"  # without its description
    assert signatures["Owner"] == "union Owner = User | Team"
    assert {c.breadcrumb for c in parsed.chunks} == {"interface Node", "type Cart", "type Line", "type User",
                                                     "type Team", "union Owner", "enum State", "input CartInput",
                                                     "type Query", "type Mutation", "directive key",
                                                     "type Query > cart", "type Mutation > addLine"}
    client = parse_file("client/cart.graphql", textwrap.dedent(PROJECT["client/cart.graphql"]), "graphql")
    assert {c.breadcrumb for c in client.chunks} == {"fragment CartParts", "query GetCart", "mutation AddLine"}
    extension = parse_file("schema/me.graphql", PROJECT["schema/me.graphql"], "graphql")
    assert [(s.qualname, s.kind) for s in extension.symbols[1:]] == [("extend Query", "impl"), ("Query.me", "method")]


def test_a_fields_type_is_its_use_and_a_selection_uses_the_schemas_field():
    called = called_by(PROJECT, "schema/")
    assert called["Cart.lines"] == {"schema.graphql:Line"}
    assert called["Cart.owner"] == {"schema.graphql:Owner"}
    assert called["Mutation.addLine"] == {"schema.graphql:CartInput", "schema.graphql:Cart"}  # builtins: none
    assert called["Cart"] == {"schema.graphql:key"}  # a directive used; never app/models.py's Cart
    assert called["Owner"] == {"schema.graphql:User", "schema.graphql:Team"}
    assert ("Cart", "Node") in edges_of(PROJECT, "auto", kind="implements")
    # a selection through the types its fields return, a fragment's on its type, an inline fragment's on its
    assert called["CartParts"] == {"schema.graphql:Cart", "schema.graphql:Cart.id", "schema.graphql:Cart.lines",
                                   "schema.graphql:Line.sku", "schema.graphql:Cart.owner", "schema.graphql:User",
                                   "schema.graphql:User.name"}
    assert called["GetCart"] == {"schema.graphql:Query.cart", "client/cart.graphql:CartParts",
                                 "schema.graphql:Cart.state", "me.graphql:Query.me", "schema.graphql:User.name"}
    assert called["AddLine"] == {"schema.graphql:CartInput", "schema.graphql:Mutation.addLine",
                                 "schema.graphql:Cart.id"}  # __typename is no field of the schema's


def test_a_graphql_project_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "shop", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="shop")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    # who reads a field before it changes: the operations and fragments selecting it
    callers = engine.symbol_graph("schema/schema.graphql:Cart.owner", "callers", project="shop")["results"]
    assert [(c["path"], c["qualname"]) for c in callers] == [("client/cart.graphql", "CartParts")]
    callers = engine.symbol_graph("Query.cart", "callers", project="shop")["results"]
    assert [c["qualname"] for c in callers] == ["GetCart"]
    # the schema's Node, not the declaration generated from it
    implementing = engine.symbol_graph("Node", "subclasses", project="shop")["results"]
    assert [c["qualname"] for c in implementing] == ["Cart"]
    hits = engine.search_code("customer", project="shop", limit=3)
    assert hits[0].record["path"] == "schema/schema.graphql" and hits[0].title == "type Cart"


ROOTED = {  # Shopify's Storefront API names its root QueryRoot
    "api/schema.graphql": '''
        schema { query: QueryRoot mutation: Mutation }
        type QueryRoot { cart(id: ID!): Cart }
        type Mutation { cartCreate: Cart }
        type Cart { id: ID! }
        type Query { note: String }
        ''',
    "api/extend.graphql": "extend schema { subscription: Events }\ntype Events { cartChanged: Cart }\n",
    "web/cart.graphql": "query GetCart { cart(id: 1) { id } }\nmutation New { cartCreate { id } }\n",
}


def test_a_schema_definition_names_the_root_types():
    parsed = parse_file("api/schema.graphql", textwrap.dedent(ROOTED["api/schema.graphql"]), "graphql")
    kinds = spans(parsed)
    assert kinds["QueryRoot.cart"] == ("method", 3, 3) and kinds["Mutation.cartCreate"] == ("method", 4, 4)
    assert kinds["Query.note"][0] == "attribute"  # a type named Query is no root once the schema names another
    assert kinds["schema"] == ("type", 2, 2)
    assert {s.qualname: s.signature for s in parsed.symbols}["schema"] == \
        "schema { query: QueryRoot mutation: Mutation }"
    # an extension adds a root to the ones a schema without a definition has
    extension = spans(parse_file("api/extend.graphql", ROOTED["api/extend.graphql"], "graphql"))
    assert extension["Events.cartChanged"][0] == "method"
    called = called_by(ROOTED, "api/")
    assert called["schema"] == {"schema.graphql:QueryRoot", "schema.graphql:Mutation"}
    # an operation's selections start at the root the schema names, not at a type called Query
    assert called["GetCart"] == {"schema.graphql:QueryRoot.cart", "schema.graphql:Cart.id"}
    assert called["New"] == {"schema.graphql:Mutation.cartCreate", "schema.graphql:Cart.id"}


CLIENT = '''
    import { gql } from "@apollo/client";
    import { OWNER_NAME } from "./fragments";
    import * as fragments from "./fragments";
    export const GET_OWNER = gql`
      query Owner($id: ID!) {
        cart(id: $id) { owner { ... on User { name } } ...CartParts }
      }
      ${OWNER_NAME}
      ${fragments.TEAM_TITLE}
    `;
    export function useLines(id: string) {
      return useQuery(graphql(`query Lines { cart(id: 1) { lines { sku } } }`), { variables: { id } });
    }
    const LINE = `#graphql
      fragment Line on Line { sku }
    ` as const;
    const MARKED = /* GraphQL */ `query Marked { cart(id: 2) { ...Line } }`;
    const SQL = `select * from cart`;
    '''


FRAGMENTS = "export const OWNER_NAME = gql`fragment OwnerName on User { name }`;\n" \
            "export const TEAM_TITLE = gql`fragment TeamTitle on Team { title }`;\n"


def test_a_document_in_code_uses_the_schemas_fields():
    parsed = parse_file("web/cart.ts", textwrap.dedent(CLIENT), "typescript")
    assert [(r.source, r.line, r.receiver) for r in parsed.refs if r.name == "owner"] == [
        ("GET_OWNER", 7, "Query.cart")]  # the line in the file, the variable the document is assigned to
    called = called_by({**PROJECT, "web/cart.ts": CLIENT, "web/fragments.ts": FRAGMENTS}, "schema/")
    # and the document whose fragment it interpolates, so callers of a field reach the queries spreading it
    assert called["GET_OWNER"] == {"schema.graphql:Query.cart", "schema.graphql:Cart.owner", "schema.graphql:User",
                                   "schema.graphql:User.name", "client/cart.graphql:CartParts",
                                   "web/fragments.ts:OWNER_NAME", "web/fragments.ts:TEAM_TITLE"}
    assert called["OWNER_NAME"] == {"schema.graphql:User", "schema.graphql:User.name"}
    assert called["useLines"] == {"?useQuery", "schema.graphql:Query.cart", "schema.graphql:Cart.lines",
                                  "schema.graphql:Line.sku"}
    # Hydrogen's `#graphql` and prettier's `/* GraphQL */` mark a plain template string; a spread in code is of a
    # fragment, never of the type that has its name
    assert called["LINE"] == {"schema.graphql:Line", "schema.graphql:Line.sku"}
    assert called["MARKED"] == {"schema.graphql:Query.cart"} and "SQL" not in called
    # Python's gql client: its quotes are no GraphQL string
    python = 'from gql import gql\n\nOWNERS = gql("""\n  query Owners { cart(id: 1) { owner { ... on Team {' \
             ' title } } } }\n""")\n'
    assert called_by({**PROJECT, "tools/report.py": python}, "schema/")["OWNERS"] == {
        "schema.graphql:Query.cart", "schema.graphql:Cart.owner", "schema.graphql:Team", "schema.graphql:Team.title"}
    # a project without the schema: nothing to resolve, and no unresolved edge for each field
    assert called_by({"web/cart.ts": CLIENT, "web/fragments.ts": FRAGMENTS})["GET_OWNER"] == {
        "web/fragments.ts:OWNER_NAME", "web/fragments.ts:TEAM_TITLE"}


def test_the_code_reading_a_field_is_among_its_callers(engine, tmp_path):
    files = {**PROJECT, "web/cart.ts": CLIENT, "web/fragments.ts": FRAGMENTS}
    root = write_files(tmp_path / "shop", {p: textwrap.dedent(t) for p, t in files.items()})
    assert index_project(engine, root, project="shop").parse_errors == 0
    callers = engine.symbol_graph("User.name", "callers", project="shop")["results"]
    assert {(c["path"], c["qualname"]) for c in callers} == {
        ("client/cart.graphql", "CartParts"), ("client/cart.graphql", "GetCart"), ("web/cart.ts", "GET_OWNER"),
        ("web/fragments.ts", "OWNER_NAME")}
    # a query is among the callers, at depth 2, of the fields its interpolated fragment selects
    deeper = engine.symbol_graph("Team.title", "callers", depth=2, project="shop")["results"]
    assert [(c["qualname"], c["distance"]) for c in deeper] == [("TEAM_TITLE", 1), ("GET_OWNER", 2)]


def test_an_escape_in_a_string_is_no_parse_error():
    schema = '"A cart.\\nIts lines are \\"items\\"."\ntype Cart { id: ID! }\n' \
             '"Its owner.\\n"\ntype Owner { cart: Cart }\n'
    parsed = parse_file("schema.graphql", schema, "graphql")
    assert not parsed.parse_error
    assert spans(parsed)["Owner"] == ("class", 3, 4) and "Owner.cart" in spans(parsed)

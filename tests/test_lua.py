"""Lua: a module is the table its file returns, a table with methods a class, ``require`` an import; a bare name
is a local or a global, never another module's function. CommonJS ``require`` is an import too."""

from __future__ import annotations

import textwrap

from conftest import edges_of, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file

UTILS = """
    --- Utilities.
    local utils = {}
    local insert = table.insert

    --- Check an argument's type.
    -- @param n its position
    function utils.assert_arg(n, val, tp)
      if type(val) ~= tp then utils.raise("bad argument " .. n) end
      return val
    end

    function utils.raise(msg) error(msg, 2) end

    function utils.type(obj) return type(obj) end

    utils.quote = function(s) return ('%q'):format(s) end

    local defaults = {
      on_attach = function(client)
        local scratch = 1
        client:stop()
      end,
    }

    return utils
    """

LIST = """
    local utils = require 'pl.utils'
    local assert_arg = utils.assert_arg
    local tinsert, concat = table.insert, table.concat

    local List = {}
    List.__index = List

    function List.new(t)
      return setmetatable(t or {}, List)
    end

    function List:append(x)
      assert_arg(1, x, 'number')
      tinsert(self, x)
      return self
    end

    function List:extend(other)
      for _, x in ipairs(other) do self:append(x) end
      return self
    end

    function List:insert(i, x) tinsert(self, i, x) end

    return List
    """

APP = """
    local List = require("pl.List")
    local pl = require "pl"
    local log = require "app.log"

    function setup(opts)
      local l = List.new()
      l:append(1)
      pl.utils.raise("x")
      log.warn("ready")
      table.insert(opts, l)
      opts:flush()
      return vim.lsp.util.make_params()
    end

    local function helper() return setup({}) end
    """

PROJECT = {
    "lua/pl/utils.lua": UTILS,
    "lua/pl/List.lua": LIST,
    "lua/pl/init.lua": "local pl = {}\npl.utils = require 'pl.utils'\nreturn pl\n",
    "lua/app/main.lua": APP,
    "lua/app/log.lua": "local log = {}\nfor _, level in ipairs({'warn'}) do log[level] = print end\nreturn log\n",
    "lua/app/other.lua": "local function warn() end\nlocal function flush() end\n"
                         "function boot() setup({}); helper() end\n",
    "lua/vim/lsp/util.lua": "local M = {}\nfunction M.make_params() return {} end\nreturn M\n",
}


def _symbols(text: str, path: str = "lua/pl/utils.lua") -> dict[str, tuple[str, int, int]]:
    return spans(parse_file(path, textwrap.dedent(text), "lua"))


def test_a_modules_functions_are_its_own_and_its_table_no_symbol():
    assert _symbols(UTILS) == {
        "assert_arg": ("function", 6, 11),  # with the doc comment above it
        "raise": ("function", 13, 13),
        "type": ("function", 15, 15),
        "quote": ("function", 17, 17),  # an assigned function
        "defaults": ("variable", 19, 24),  # not `insert` (an alias), `utils` (the module) or `scratch`
    }


def test_a_table_with_methods_is_a_class():
    symbols = _symbols(LIST, "lua/pl/List.lua")
    assert symbols["List"] == ("class", 6, 6)
    assert {q: k for q, (k, *_) in symbols.items() if q.startswith("List.")} == {
        "List.new": "method", "List.append": "method", "List.extend": "method", "List.insert": "method"}
    assert "assert_arg" not in symbols and "tinsert" not in symbols and "utils" not in symbols
    chunks = parse_file("lua/pl/List.lua", textwrap.dedent(LIST), "lua").chunks
    assert any(c.breadcrumb == "function List.append" for c in chunks)


def test_calls_follow_requires_aliases_and_the_modules_own_table():
    edges = edges_of(PROJECT, "auto", paths=True)
    called = {}
    for source, target in edges:
        called.setdefault(source, set()).add(target)
    # an alias of an imported module's function, then `self:` in a class
    assert called["List.append"] == {"lua/pl/utils.lua:assert_arg", "?insert"}
    assert called["List.extend"] == {"lua/pl/List.lua:List.append", "?ipairs"}
    # `utils.raise()` in utils' own file is its function; a bare `type()` is the builtin, not utils.type
    assert called["assert_arg"] == {"lua/pl/utils.lua:raise", "?type"}
    assert called["type"] == {"?type"}
    # a class from a require, an instance's method, a package's init.lua, a module without `warn` (no
    # guess at other.lua's local warn), the standard library (not List:insert), a method of an unknown table
    # (no other file's local function), a Neovim-style module path
    assert called["setup"] == {"lua/pl/List.lua:List.new", "lua/pl/List.lua:List.append", "lua/pl/utils.lua:raise",
                               "?warn", "?insert", "?flush", "lua/vim/lsp/util.lua:make_params"}
    # a global function is reached from any file; a local one only from its own
    assert called["boot"] == {"lua/app/main.lua:setup", "?helper"}
    imports = edges_of(PROJECT, "auto", paths=True, kind="imports")
    assert ("<module>", "lua/pl/init.lua:") in {(s or "<module>", t) for s, t in imports}


def test_commonjs_require_is_an_import():
    files = {
        "lib/utils.js": """
            exports.isAbsolute = function (p) { return p[0] === '/' }
            exports.merge = function (a, b) { return Object.assign(a, b) }
            function sign(v) { return v }
            module.exports.sign = sign
            """,
        "lib/response.js": """
            var utils = require('./utils');
            var isAbsolute = require('./utils').isAbsolute;
            var { merge } = require('./utils');
            var sign = require('cookie-signature').sign;

            function send(path) {
              if (!isAbsolute(path)) utils.merge({}, {});
              merge({}, {});
              return sign(path);
            }
            """,
    }
    files["lib/server.ts"] = "const utils = require('./utils')\nexport function start() { utils.merge({}, {}) }\n"
    assert edges_of(files, "auto", paths=True) >= {("send", "lib/utils.js:isAbsolute"), ("send", "lib/utils.js:merge"),
                                                   ("send", "?sign"), ("start", "lib/utils.js:merge")}
    assert ("send", "lib/utils.js:sign") not in edges_of(files, "auto", paths=True)  # a library's sign
    parsed = parse_file("lib/response.js", textwrap.dedent(files["lib/response.js"]), "javascript")
    assert {s.name for s in parsed.symbols} == {"response", "send"}  # imports are no variables
    assert parsed.imports == {"utils": "./utils", "isAbsolute": "./utils", "merge": "./utils",
                              "sign": "cookie-signature"}
    assert not any(r.name == "require" for r in parsed.refs)


def test_a_lua_project_is_indexed_and_its_dotted_paths_found(engine, tmp_path):
    root = write_files(tmp_path / "proj", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="proj")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    found = engine.find_symbols("pl.utils.assert_arg", project="proj")
    assert [(s["path"], s["start_line"]) for s in found][:1] == [("lua/pl/utils.lua", 6)]
    callers = {c["name"] for c in engine.symbol_graph("pl.List.append", "callers", project="proj")["results"]}
    assert callers == {"setup", "extend"}


def test_typescript_import_equals_require_binds_its_name():
    files = {"lib/utils.ts": "export function merge(a: object) { return a }\n",
             "lib/a_other.ts": "export function merge(a: object) { return a }\n",
             "lib/client.ts": "import u = require('./utils')\nexport function connect() { u.merge({}) }\n"}
    parsed = parse_file("lib/client.ts", files["lib/client.ts"], "typescript")
    assert parsed.imports == {"u": "./utils"}
    # the module it names, not the first file defining a merge
    assert edges_of(files, "auto", paths=True) == {("connect", "lib/utils.ts:merge")}

"""tsconfig.json's module aliases (compilerOptions.paths) lead imports to the project's files."""

from __future__ import annotations

import pytest
from conftest import write_files

from codebase import index_project
from codebase.scanner import scan
from codebase.languages.tsconfig import alias_targets, loads_jsonc, path_aliases

MONOREPO = {
    "tsconfig.base.json": """
        // shared by every package
        {
          "compilerOptions": {
            "baseUrl": ".",
            /* the libraries, by their package names */
            "paths": {
              "@acme/shared": ["libs/shared/src/index.ts"],
              "@acme/*": ["libs/*/src"],
              "@core/*": ["libs/core/src/*", "libs/core/legacy/*"],
            },
          },
        }
        """,
    "packages/web/tsconfig.json": """
        {"extends": "../../tsconfig.base.json", "compilerOptions": {"paths": {"@/*": ["./src/*"]}}}
        """,
    "packages/admin/tsconfig.json": '{"extends": "../../tsconfig.base", "include": ["src"]}',
    "packages/api/tsconfig.json": """
        {"compilerOptions": {"baseUrl": "src", "paths": {"@/*": ["*"], "outside/*": ["../../../../elsewhere/*"]}}}
        """,
    "packages/api/src/types/tsconfig.json": '{"compilerOptions": {"paths": {"*": ["../shims/*"]}}}',
    "packages/api/src/shims/left-pad.ts": "export function leftPad(s: string): string { return ' ' + s; }\n",
    "packages/api/src/types/check.ts": """
        import { leftPad } from "left-pad";
        import { Store } from "libs/core/src/store";

        export function check(store: Store): string { store.save(); return leftPad("x"); }
        """,
    "node_modules/lib/tsconfig.json": '{"compilerOptions": {"paths": {"@x/*": ["y/*"]}}}',
    "libs/shared/src/index.ts": "export function formatName(n: string): string { return n.trim(); }\n",
    "libs/core/src/store.ts": "export class Store { save(): void {} }\n",
    "libs/ui/src/index.ts": "export function button(): string { return 'b'; }\n",
    "packages/web/src/util.ts": "export function slugify(s: string): string { return s; }\n",
    "packages/api/src/util.ts": "export function slugify(s: string): string { return s + '-api'; }\n",
    "packages/web/src/page.ts": """
        import { formatName } from "@acme/shared";
        import { button } from "@acme/ui";
        import { Store } from "@core/store";
        import { slugify } from "@/util";

        export function render(store: Store): string {
          store.save();
          return formatName(slugify(button()));
        }
        """,
    "packages/api/src/handler.ts": """
        import { slugify } from "@/util";

        export function handle(): string { return slugify("x"); }
        """,
}


def aliases_of(root):
    """The aliases of the configs ``scan`` finds under a folder, as an index run reads them."""
    return path_aliases(root, scan(root).configs)


def test_a_config_with_comments_and_trailing_commas_is_read():
    assert loads_jsonc('{"a": "http://x // not a comment", /* c */ "b": [1, 2,], // end\n}') == \
        {"a": "http://x // not a comment", "b": [1, 2]}


def test_aliases_are_read_from_every_config_outside_vendored_folders(tmp_path):
    aliases = aliases_of(write_files(tmp_path, MONOREPO))
    assert ("", "@core/*", ("libs/core/src/*", "libs/core/legacy/*")) in aliases
    assert ("packages/web", "@/*", ("packages/web/src/*",)) in aliases
    assert ("packages/api", "@/*", ("packages/api/src/*",)) in aliases  # from its baseUrl
    assert not any(a[1] == "outside/*" for a in aliases)  # its one target is outside the project
    assert not any(a[1] == "@x/*" for a in aliases)  # node_modules
    # a config without paths has those of the one it extends, governing its own folder
    assert ("packages/admin", "@acme/*", ("libs/*/src",)) in aliases


def test_the_nearest_config_and_the_longest_prefix_win(tmp_path):
    aliases = aliases_of(write_files(tmp_path, MONOREPO))
    assert alias_targets("@/util", "packages/web/src/page.ts", aliases) == ["packages/web/src/util"]
    assert alias_targets("@/util", "packages/api/src/handler.ts", aliases) == ["packages/api/src/util"]
    assert alias_targets("@/util", "libs/ui/src/index.ts", aliases) == []  # no config above it says @/
    assert alias_targets("@acme/shared", "packages/web/src/page.ts", aliases)[0] == "libs/shared/src/index.ts"
    assert alias_targets("@core/store", "x.ts", aliases) == ["libs/core/src/store", "libs/core/legacy/store"]
    assert alias_targets("lodash", "x.ts", aliases) == []


@pytest.mark.parametrize("broken", ['{"compilerOptions": {"paths": ', '[1, 2]', '{"compilerOptions": 3}'])
def test_a_config_that_cannot_be_read_is_skipped(tmp_path, broken, caplog):
    write_files(tmp_path, {"tsconfig.json": broken, "a/tsconfig.json": '{"compilerOptions": {"paths": {"~x": ["b"]}}}'})
    assert aliases_of(tmp_path) == [("a", "~x", ("a/b",))]
    assert "could not read the module aliases" in caplog.text


def test_imports_through_aliases_reach_the_files_they_name(engine, tmp_path):
    root = write_files(tmp_path / "mono", MONOREPO)
    index_project(engine, root, project="mono")

    def callees(symbol):
        return sorted((r["path"], r["qualname"]) for r in
                      engine.symbol_graph(symbol, "callees", project="mono")["results"])

    assert callees("render") == [("libs/core/src/store.ts", "Store.save"),
                                 ("libs/shared/src/index.ts", "formatName"), ("libs/ui/src/index.ts", "button"),
                                 ("packages/web/src/util.ts", "slugify")]
    assert callees("handle") == [("packages/api/src/util.ts", "slugify")]
    # a catch-all "*" alias leads where it says, and a module it does not lead to is found as without it
    assert callees("check") == [("libs/core/src/store.ts", "Store.save"), ("packages/api/src/shims/left-pad.ts",
                                                                           "leftPad")]
    imports = engine.symbol_graph("packages/web/src/page.ts", "imports", project="mono")["results"]
    assert sorted(r["path"] for r in imports) == ["libs/core/src/store.ts", "libs/shared/src/index.ts",
                                                  "libs/ui/src/index.ts", "packages/web/src/util.ts"]
    # a changed config re-resolves on the next run, though no code file changed
    (root / "packages/web/tsconfig.json").write_text('{"compilerOptions": {"paths": {"@/*": ["../api/src/*"]}}}')
    index_project(engine, root, project="mono")
    assert ("packages/api/src/util.ts", "slugify") in callees("render")

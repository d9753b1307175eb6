"""Vue and Svelte components are indexed as their scripts' code, with their markup's lines kept and its uses
of components and functions as calls."""

from __future__ import annotations

from codebase import index_project
from codebase.languages.components import component_source, markup_refs

from conftest import write_files

NAV_BAR = """<script setup lang="ts">
import { ref } from 'vue'
import SearchButton from './SearchButton.vue'

const open = ref(false)

function toggleMenu(): void {
  open.value = !open.value
}

function label(count: number): string {
  return `${count} pages`
}
</script>

<template>
  <nav class="nav-bar">
    <!-- <OldSearch /> is gone -->
    <SearchButton @click="toggleMenu" />
    <site-footer :title="label(3)" />
    <p>{{ label(pages.length) }} (see help (here))</p>
  </nav>
</template>

<style scoped>
.nav-bar { display: flex; }
</style>
"""

BADGE = """<script>import { createEventDispatcher } from "svelte";
import Close from "./Close.svelte";
export let dismissable = false;
const dispatch = createEventDispatcher();
function dismiss() {
  dispatch("close");
}
</script>

{#if dismissable}
  <Close on:click={dismiss} label={caption("x")} />
  <my-widget></my-widget>
{/if}
"""


def test_a_component_is_parsed_as_its_script_over_the_same_lines():
    source, language = component_source(NAV_BAR)
    assert language == "typescript"
    lines, original = source.split("\n"), NAV_BAR.split("\n")
    assert len(lines) == len(original)
    assert lines[7] == original[7] == "  open.value = !open.value"  # script lines stay where they are
    assert lines[16].startswith("//") and lines[16].endswith("<nav class=\"nav-bar\">")
    assert lines[25].startswith("//") and ".nav-bar" in lines[25]  # style is markup too
    source, language = component_source(BADGE)  # code on the script tag's own line
    assert language == "javascript"
    assert source.split("\n")[0] == 'import { createEventDispatcher } from "svelte";'
    assert component_source("<template><p>hi</p></template>") == ("//\u2063<template><p>hi</p></template>",
                                                                    "javascript")
    assert component_source("<p>\u2028alert(1)</p>")[0].count("\n") == 0  # markup never escapes its comment


def test_markup_renders_components_and_calls_functions():
    refs = {(r.name, r.line) for r in markup_refs(NAV_BAR, "vue")}
    assert refs == {("SearchButton", 19), ("toggleMenu", 19), ("SiteFooter", 20), ("label", 20), ("label", 21)}
    refs = {(r.name, r.line) for r in markup_refs(BADGE, "svelte")}
    # a kebab-case tag in Svelte is a custom element, no component; a string's words are no call
    assert refs == {("Close", 11), ("dismiss", 11), ("caption", 11)}


def test_components_are_chunks_symbols_and_callers(engine, tmp_path):
    root = write_files(tmp_path / "site", {
        "src/NavBar.vue": NAV_BAR,
        "src/SearchButton.vue": "<script setup>\nfunction openSearch() {}\n</script>\n<template>\n"
                                "  <button @click=\"openSearch\">Search</button>\n</template>\n",
        "src/SiteFooter.vue": "<template>\n  <footer>made with care</footer>\n</template>\n",
        "src/Badge.svelte": BADGE,
        "src/Close.svelte": "<button on:click>close</button>\n"})
    report = index_project(engine, root, project="site")
    assert report.files_indexed == 5 and report.parse_errors == 0
    sym = {(s["name"], s["kind"], s["start_line"], s["end_line"])
           for s in engine.find_symbols("toggleMenu", project="site")}
    assert sym == {("toggleMenu", "function", 7, 9)}

    def callers(name: str) -> set[str]:
        return {c["path"] for c in engine.symbol_graph(name, "callers", project="site")["results"]}

    assert callers("src/SearchButton.vue:1") == {"src/NavBar.vue"}  # imported, then rendered
    assert callers("src/SiteFooter.vue:1") == {"src/NavBar.vue"}  # registered globally, <site-footer>
    assert callers("src/Close.svelte:1") == {"src/Badge.svelte"}  # a 6-letter extension is a path too
    assert callers("toggleMenu") == {"src/NavBar.vue"}  # an event handler
    assert callers("openSearch") == {"src/SearchButton.vue"}
    assert callers("dismiss") == {"src/Badge.svelte"}

    hits = engine.search_code("nav bar flex display", project="site", languages=["vue"])
    assert hits and {h.record["language"] for h in hits} == {"vue"}
    chunks = engine.get_chunks([h.id for h in hits])
    markup = next(c for c in chunks if "<nav class" in c["content"])
    first = markup["start_line"]
    # the chunk shows the file's own lines, uncommented, at the lines it names
    assert markup["content"].split("\n") == NAV_BAR.split("\n")[first - 1:markup["end_line"]]

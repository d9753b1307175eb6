"""Objective-C: headers are told from C ones, interfaces, implementations, protocols, methods and properties are
symbols, and messages are calls that reach the class's methods."""

from __future__ import annotations

import textwrap

from conftest import edges_of

from codebase.chunker import parse_file
from codebase.languages import detect_language

OBJC = {
    "EXStore.h": """
        #import <Foundation/Foundation.h>

        @protocol EXSaving <NSObject>
        - (void)put:(int)value forKey:(NSString *)key;
        @end

        @interface EXStore : NSObject <EXSaving>
        @property (nonatomic, strong) NSString *name;
        + (instancetype)sharedStore;
        @end
        """,
    "EXStore.m": """
        #import "EXStore.h"

        @implementation EXStore

        + (instancetype)sharedStore
        {
          return [[EXStore alloc] init];
        }

        - (void)put:(int)value forKey:(NSString *)key
        {
          log_value(value);
        }

        @end

        static void log_value(int v) { NSLog(@"%d", v); }
        """,
    "EXApp.m": """
        #import "EXStore.h"

        @implementation EXApp

        - (void)start
        {
          [[EXStore sharedStore] put:1 forKey:@"a"];
          [self stop];
        }

        - (void)stop {}

        @end
        """,
}


def test_an_objective_c_header_is_told_from_a_c_one():
    assert detect_language("EXStore.h", textwrap.dedent(OBJC["EXStore.h"]).encode()) == "objc"
    assert detect_language("lua.h", b"#include <stdio.h>\nint lua_gettop(lua_State *L);\n") == "c"
    assert detect_language("EXStore.m") == "objc" and detect_language("EXHost.mm") == "objc"
    source = textwrap.dedent(OBJC["EXStore.m"]).encode()
    assert detect_language("EXStore.m", source) == "objc"
    # MATLAB writes .m files too: no Objective-C grammar for them (line windows, no parse error each)
    assert detect_language("fit_line.m", b"function y = fit_line(x)\n% least squares\ny = x;\nend\n") == "matlab"


def test_objective_c_declarations_are_symbols():
    header = {s.qualname: s.kind for s in parse_file("EXStore.h", textwrap.dedent(OBJC["EXStore.h"]), "objc").symbols}
    assert header["EXSaving"] == "interface" and header["EXSaving.put"] == "method"
    assert header["EXStore"] == "class" and header["EXStore.name"] == "attribute"
    assert header["EXStore.sharedStore"] == "method"
    source = {s.qualname: s.kind for s in parse_file("EXStore.m", textwrap.dedent(OBJC["EXStore.m"]), "objc").symbols}
    # an @implementation's methods are its class's
    assert source["@implementation EXStore"] == "impl" and source["EXStore.put"] == "method"
    assert source["log_value"] == "function"


def test_messages_are_calls_to_the_classes_methods():
    edges = edges_of(OBJC, "auto", paths=True)
    assert ("EXApp.start", "EXStore.h:EXStore.sharedStore") in edges  # [EXStore sharedStore]
    assert ("EXApp.start", "EXApp.m:EXApp.stop") in edges  # [self stop]
    assert ("EXStore.put", "EXStore.m:log_value") in edges  # a C call
    bases = edges_of(OBJC, "auto", kind="implements")
    assert ("EXStore", "EXSaving") in bases

"""Solidity: contracts, interfaces and libraries with their functions, modifiers, events, errors, constructors
and state variables; imports of files; calls, modifiers, `emit` and `revert` as calls."""

from __future__ import annotations

import textwrap

from conftest import called_by, edges_of, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file

TOKEN = """
    // SPDX-License-Identifier: MIT
    pragma solidity ^0.8.20;

    import "./IERC20.sol";
    import {Math} from "./Math.sol";
    import "./Base.sol" as B;

    /// @title A token with an owner
    contract Token is IERC20, Base {
        mapping(address => uint256) private balances;

        error Insufficient(uint256 have, uint256 want);

        constructor(uint256 supply) Base(msg.sender) {
            balances[msg.sender] = supply;
        }

        /// @notice Moves tokens to another account.
        function transfer(address to, uint256 value) external onlyOwner returns (bool) {
            _move(msg.sender, to, value);
            emit Transfer(msg.sender, to, value);
            return true;
        }

        function _move(address from, address to, uint256 value) internal {
            if (balances[from] < value) revert Insufficient(balances[from], value);
            balances[to] += Math.max(value, 0);
            balances[from] -= value;
        }

        function _hook() internal override {}

        receive() external payable {}
    }
    """

PROJECT = {
    "contracts/Token.sol": TOKEN,
    "contracts/IERC20.sol": """
        interface IERC20 {
            event Transfer(address indexed from, address indexed to, uint256 value);
            function transfer(address to, uint256 value) external returns (bool);
        }
        """,
    "contracts/Math.sol": """
        library Math {
            function max(uint256 a, uint256 b) internal pure returns (uint256) {
                return a > b ? a : b;
            }
        }
        """,
    "contracts/Base.sol": """
        abstract contract Base {
            address internal owner;

            constructor(address first) { owner = first; }

            modifier onlyOwner() {
                require(msg.sender == owner, "not the owner");
                _;
            }

            function _hook() internal virtual;

            function run() public onlyOwner {
                _hook();
            }
        }
        """,
}


def _parsed(text: str, path: str = "contracts/Token.sol"):
    return parse_file(path, textwrap.dedent(text), "solidity")


def test_contracts_and_their_members_are_symbols():
    assert spans(_parsed(TOKEN)) == {
        "Token": ("class", 9, 35),  # with its NatSpec comment
        "Token.balances": ("attribute", 11, 11), "Token.Insufficient": ("method", 13, 13),
        "Token.constructor": ("method", 15, 17), "Token.transfer": ("method", 19, 24),
        "Token._move": ("method", 26, 30), "Token._hook": ("method", 32, 32), "Token.receive": ("method", 34, 34),
    }
    parsed = _parsed(TOKEN)
    chunks = {c.breadcrumb for c in parsed.chunks}
    assert {"contract Token > error Insufficient", "contract Token > constructor",
            "contract Token > function transfer", "contract Token > receive"} <= chunks
    signatures = {s.qualname: s.signature for s in parsed.symbols}
    assert signatures["Token.transfer"] == \
        "function transfer(address to, uint256 value) external onlyOwner returns (bool)"
    assert signatures["Token.Insufficient"] == "error Insufficient(uint256 have, uint256 want)"
    base = {s.qualname: s.signature for s in _parsed(PROJECT["contracts/Base.sol"], "contracts/Base.sol").symbols}
    assert base["Base._hook"] == "abstract function _hook() internal virtual"  # what a derived contract implements
    assert base["Base.onlyOwner"] == "modifier onlyOwner()"
    # `import "x"` brings in every name of x, `{Math}` that one, `as B` the file as B
    assert parsed.imports == {"*./IERC20.sol": "./IERC20.sol", "Math": "./Math.sol", "B": "./Base.sol"}


def test_calls_modifiers_events_and_errors_are_calls():
    called = called_by(PROJECT, "contracts/")
    # a modifier runs before the body; `emit` names the interface's event, `revert` the contract's error
    assert called["Token.transfer"] == {"Base.sol:Base.onlyOwner", "Token.sol:Token._move",
                                        "IERC20.sol:IERC20.Transfer"}
    assert called["Token._move"] == {"Token.sol:Token.Insufficient", "Math.sol:Math.max"}
    assert called["Token.constructor"] == {"Base.sol:Base"}  # the base's constructor, by its contract
    assert called["Base.run"] == {"Base.sol:Base.onlyOwner", "Base.sol:Base._hook"}
    assert called["Base.onlyOwner"] == {"?require"}
    bases = edges_of(PROJECT, "auto", kind="extends")
    assert bases == {("Token", "IERC20"), ("Token", "Base")}


def test_a_solidity_project_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "token", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="token")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    callers = {c["qualname"] for c in engine.symbol_graph("Base.onlyOwner", "callers", project="token")["results"]}
    assert callers == {"Token.transfer", "Base.run"}
    # a call of a function declared without a body may run what a derived contract defines
    shown = engine.symbol_graph("Base.run", "callees", project="token")["results"]
    assert ("Token._hook", "Base._hook") in {(c["qualname"], c.get("through")) for c in shown}
    hits = engine.search_code("onlyOwner", project="token", limit=3)
    assert hits[0].record["path"] == "contracts/Base.sol" and hits[0].title == "contract Base > modifier onlyOwner"

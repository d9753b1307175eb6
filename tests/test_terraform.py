"""Terraform: top-level blocks are symbols named by their addresses, ``locals`` entries bindings, and a
reference in an expression a use of what it names in the same folder (a Terraform module is a folder)."""

from __future__ import annotations

import textwrap

from conftest import edges_of, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file
from codebase.languages import detect_language

MAIN = """
    # Bucket for the load balancer's access logs.
    resource "aws_s3_bucket" "logs" {
      bucket = "${var.prefix}-logs"
      tags   = local.tags
    }

    locals {
      tags = { env = var.env }
    }

    module "network" {
      source = "./modules/network"
      cidr   = var.cidr
    }

    data "aws_iam_policy_document" "read" {
      statement {
        resources = [for b in [aws_s3_bucket.logs] : b.arn]
      }
    }

    resource "aws_subnet" "private" {
      for_each   = { for k, v in var.subnets : k => v if v.enabled }
      vpc_id     = module.network.vpc_id
      cidr_block = each.value
      tags       = merge(local.tags, { Name = "${var.prefix}-${each.key}" })
      policy     = data.aws_iam_policy_document.read.json
    }

    output "bucket_arn" {
      value = aws_s3_bucket.logs.arn
    }
    """

PROJECT = {
    "infra/main.tf": MAIN,
    "infra/variables.tf": 'variable "prefix" {\n  type = string\n}\nvariable "env" {}\nvariable "cidr" {}\n'
                          'variable "subnets" {}\n',
    "infra/modules/network/main.tf": 'variable "cidr" {}\nresource "aws_vpc" "this" {\n  cidr_block = var.cidr\n}\n'
                                     'output "vpc_id" {\n  value = aws_vpc.this.id\n}\n',
    "staging/main.tf": 'variable "env" {}\nresource "aws_s3_bucket" "logs" {\n  bucket = var.env\n}\n',
}


def test_blocks_are_symbols_named_by_their_addresses():
    assert detect_language("infra/main.tf") == "hcl"
    parsed = parse_file("infra/main.tf", textwrap.dedent(MAIN), "hcl")
    assert not parsed.parse_error
    symbols = spans(parsed)
    assert symbols == {
        "aws_s3_bucket.logs": ("resource", 2, 6),  # with the comment above it
        "local.tags": ("variable", 9, 9),
        "module.network": ("module_call", 12, 15),
        "data.aws_iam_policy_document.read": ("data", 17, 21),
        "aws_subnet.private": ("resource", 23, 29),
        "output.bucket_arn": ("output", 31, 33),
    }
    chunks = {c.breadcrumb for c in parsed.chunks}
    assert {"resource aws_s3_bucket.logs", "module module.network", "data data.aws_iam_policy_document.read"} <= chunks


def test_references_resolve_in_their_own_folder():
    edges = edges_of(PROJECT, "auto", ids=True)
    used = {}
    for source, target in edges:
        used.setdefault(source.split(":", 1)[1] if source.startswith("infra/") else source, set()).add(target)
    assert used["aws_s3_bucket.logs"] == {"infra/variables.tf:var.prefix", "infra/main.tf:local.tags"}
    # a resource in a for expression; each, count and a for expression's variables are no references
    assert used["data.aws_iam_policy_document.read"] == {"infra/main.tf:aws_s3_bucket.logs"}
    # `module.network.vpc_id`: the module block, and the output of the child it reads
    assert used["aws_subnet.private"] == {"infra/variables.tf:var.subnets", "infra/main.tf:module.network",
                                          "infra/modules/network/main.tf:output.vpc_id",
                                          "infra/main.tf:local.tags", "infra/variables.tf:var.prefix",
                                          "infra/main.tf:data.aws_iam_policy_document.read"}
    # the child module's own variable, never the caller's or another root's
    assert used["aws_vpc.this"] == {"infra/modules/network/main.tf:var.cidr"}
    # `cidr = var.cidr` in the module block: the caller's variable, and the child's it sets
    assert used["module.network"] == {"infra/variables.tf:var.cidr", "infra/modules/network/main.tf:var.cidr"}
    assert used["staging/main.tf:aws_s3_bucket.logs"] == {"staging/main.tf:var.env"}
    imports = edges_of(PROJECT, "auto", paths=True, kind="imports")
    assert imports == {("module.network", "infra/modules/network/main.tf:")}


def test_a_registry_modules_arguments_and_outputs_name_nothing():
    files = {"main.tf": 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "5.0"\n'
                        '  cidr    = "10.0.0.0/16"\n}\noutput "id" {\n  value = module.vpc.vpc_id\n}\n',
             "modules/vpc/main.tf": 'variable "cidr" {}\noutput "vpc_id" {\n  value = 1\n}\n'}
    edges = edges_of(files, "auto", ids=True)
    # not the local folder that happens to hold a module of that shape: the registry's is not in the project
    assert edges == {("main.tf:output.id", "main.tf:module.vpc"), ("main.tf:output.id", "?output.vpc_id")}


def test_a_terraform_project_answers_who_uses_a_variable(engine, tmp_path):
    root = write_files(tmp_path / "tf", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="tf")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    found = engine.find_symbols("aws_s3_bucket.logs", project="tf")
    assert {(s["path"], s["kind"]) for s in found} >= {("infra/main.tf", "resource"), ("staging/main.tf", "resource")}
    prefix = next(s["id"] for s in engine.find_symbols("var.prefix", project="tf"))
    users = {(c["path"], c["qualname"]) for c in engine.symbol_graph(prefix, "callers", project="tf")["results"]}
    assert users == {("infra/main.tf", "aws_s3_bucket.logs"), ("infra/main.tf", "aws_subnet.private")}
    child = next(s["id"] for s in engine.find_symbols("var.cidr", project="tf")
                 if s["path"] == "infra/modules/network/main.tf")
    setters = {(c["path"], c["qualname"]) for c in engine.symbol_graph(child, "callers", project="tf")["results"]}
    assert setters == {("infra/main.tf", "module.network"), ("infra/modules/network/main.tf", "aws_vpc.this")}

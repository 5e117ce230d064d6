"""Reads argv the way Python's argparse does, as an oracle for the Java flag reader.

Input (stdin, JSON): {"flags": [{"name": "--x", "arity": "NONE|ONE|ONE_OR_MORE|ZERO_OR_MORE"}],
"underscores": bool, "dotted": bool, "targets": ["--kv-cache-dtype", ...],
"cases": [[token, ...], ...]}.
Output (stdout, JSON): one result per case: {"values": {target: str|bool|[str]|null}} when parsing
succeeds, or {"error": "ambiguous", "candidates": [...]} / {"error": "missing", "option": "--x"} /
{"error": "other", "message": "..."}.

Tokens are first rewritten as the engine release's own preprocessing does: with "underscores"
(vLLM's FlexibleArgumentParser, from 0.5.1) underscores in an option's name, up to its first ".",
become dashes, "--key=value" keeping its value; with "dotted" (vLLM from 0.9.1) a dotted member
"--flag.member" is read as "--flag" (its value is passed through unchanged here; vLLM wraps it in
JSON, which does not change which flag it sets).
"""
import argparse
import json
import re
import sys


class ParseError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ParseError(message)


def build(flags):
    parser = Parser(prog="engine", add_help=False, allow_abbrev=True)
    dests = {}
    for i, flag in enumerate(flags):
        dest = "f%d" % i
        dests[flag["name"]] = dest
        if flag["arity"] == "NONE":
            parser.add_argument(flag["name"], dest=dest, action="store_true")
        elif flag["arity"] == "ONE_OR_MORE":
            parser.add_argument(flag["name"], dest=dest, nargs="+")
        elif flag["arity"] == "ZERO_OR_MORE":
            parser.add_argument(flag["name"], dest=dest, nargs="*")
        else:
            parser.add_argument(flag["name"], dest=dest)
    return parser, dests


KEY = re.compile(r"(?<=--)[^.]*")


def rewrite(argv, underscores, dotted):
    out = []
    for arg in argv:
        if arg.startswith("--"):
            if "=" in arg:
                key, value = arg.split("=", 1)
                out.append(rename(key, underscores, dotted) + "=" + value)
            else:
                out.append(rename(arg, underscores, dotted))
        else:
            out.append(arg)
    return out


def rename(key, underscores, dotted):
    if underscores:
        key = KEY.sub(lambda m: m.group(0).replace("_", "-"), key, count=1)
    if dotted and "." in key[2:]:
        key = key.split(".", 1)[0]
    return key


def main():
    request = json.load(sys.stdin)
    parser, dests = build(request["flags"])
    targets = request["targets"]
    underscores = request.get("underscores", False)
    dotted = request.get("dotted", False)
    results = []
    for argv in request["cases"]:
        argv = rewrite(argv, underscores, dotted)
        try:
            namespace, _ = parser.parse_known_args(argv)
            results.append({"values": {t: getattr(namespace, dests[t]) for t in targets}})
        except ParseError as e:
            message = str(e)
            ambiguous = re.match(r"ambiguous option: (.*?) could match (.*)$", message)
            missing = re.match(r"argument (\S+?)(?:/\S+)?: expected (?:one|at least one) argument", message)
            if ambiguous:
                results.append({"error": "ambiguous", "candidates": ambiguous.group(2).split(", ")})
            elif missing:
                results.append({"error": "missing", "option": missing.group(1)})
            else:
                results.append({"error": "other", "message": message})
    json.dump({"python": sys.version.split()[0], "results": results}, sys.stdout)


main()

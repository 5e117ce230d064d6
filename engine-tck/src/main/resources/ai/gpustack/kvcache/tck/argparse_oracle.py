"""Reads argv the way Python's argparse does, as an oracle for the Java flag reader.

Input (stdin, JSON): {"flags": [{"name": "--x", "arity": "NONE|ONE|ONE_OR_MORE|ZERO_OR_MORE"}],
"underscores": bool, "dotted": bool, "targets": ["--kv-cache-dtype", ...],
"cases": [[token, ...], ...]}.
Output (stdout, JSON): one result per case: {"values": {target: str|bool|[str]|null}} when parsing
succeeds, or {"error": "ambiguous", "candidates": [...]} / {"error": "missing", "option": "--x"} /
{"error": "other", "message": "..."}.

Tokens are first rewritten as the engine release's own preprocessing does: with "underscores"
(vLLM's FlexibleArgumentParser, from 0.5.1) underscores in an option's name, up to its first ".",
become dashes, "--key=value" keeping its value; with "dotted" (vLLM from 0.9.0) every dotted
member "--flag.member=value" or "--flag.member value" is taken out wherever it is and put back at
the end as "--flag value", one pair per flag in the order each first appears (after a bare "--" if
there is one). vLLM passes the members merged into a JSON object; the value kept here is the last
member's, which does not change which flag it sets.
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
    folded = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("--"):
            key, eq, value = arg.partition("=")
            if underscores:
                key = KEY.sub(lambda m: m.group(0).replace("_", "-"), key, count=1)
            if dotted and "." in key:
                if not eq:
                    i += 1
                    value = argv[i] if i < len(argv) else ""
                folded[key.split(".", 1)[0]] = value
            else:
                out.append(key + eq + value)
        else:
            out.append(arg)
        i += 1
    for key, value in folded.items():
        out += [key, value]
    return out


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

#!/usr/bin/env python3
r"""Extract the command line of `lmdeploy serve api_server`, per LMDeploy release.

Example (from examples/engine-lmdeploy):
    git clone --bare https://github.com/InternLM/lmdeploy.git /tmp/lmdeploy.git
    python3 tools/extract_flags.py --git-dir /tmp/lmdeploy.git \
        --out tools/api_server-flags.json \
        --tsv src/main/resources/com/example/kvcache/lmdeploy/api_server-flags.tsv

--git-dir is a (bare) clone of InternLM/lmdeploy with its tags.  --tags is a
comma-separated list of release tags, or a range `FROM..[TO]` over the release
tags (default v0.2.0.., the first release whose CLI is argparse; v0.1.x used
python-fire).  Needs Python 3.10+, git and tar; LMDeploy is not installed.

Why this way: LMDeploy's flags are built by helper functions spread over
lmdeploy/cli/*.py and they change almost every release, so reading the source
by hand (or grepping add_argument) is error-prone.  Instead we run LMDeploy's
OWN parser-building code for each tag, in a fresh interpreter, with every
third-party import (torch, transformers, pydantic, ...) replaced by permissive
stub modules.  argparse itself (the real stdlib one) is then the oracle: we
read the api_server subparser's actions and feed it candidate values.
Nothing from LMDeploy is copied here; its sources are only extracted to a
temporary directory with `git archive`.

Consecutive tags whose parser is identical are grouped into [from, until)
ranges; `until` is the next tag read that differs (or failed), empty for the
newest range.  A range covers every release between those bounds, so with a
comma-separated --tags list, list consecutive releases.  Outputs:
  --out  JSON, everything measured per range (for review).
  --tsv  UTF-8, tab-separated, for readers without a JSON library:
           range  FROM  UNTIL-or-empty  DIALECT  SOURCE
           flag   --name  ARITY                 (one per flag of that range)
           quant-policy  VALUE  PARSED          (one per accepted lowercase value)
         DIALECT is `argparse` (plain ArgumentParser) or `flexible` (LMDeploy's
         FlexibleArgumentParser); ARITY is NONE, ONE, ONE_OR_MORE or ZERO_OR_MORE.
Exit status 1, with the reason on stderr and no TSV written, if a tag failed
to run or has a parser the TSV cannot describe (another parser class,
allow_abbrev off, nargs='?' or nargs=N>1).  The JSON is still written.
"""
import argparse
import importlib.abc
import importlib.machinery
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import types
from contextlib import redirect_stderr, redirect_stdout

REPO = 'InternLM/lmdeploy'
TOOL = 'tools/extract_flags.py'
# Candidate --quant-policy values; values named by the tag's own source
# (argparse choices, QuantPolicy enum members) are added per tag.
QP_CANDIDATES = ['0', '1', '2', '4', '8', '16', '17', '42', 'int4', 'int8', 'INT8', 'fp8',
                 'fp8_e4m3', 'fp8_e5m2', 'fp8_ds_mla', 'turbo_quant', 'turboquant', 'none',
                 'auto', 'bf16', 'bfloat16', 'fp16', 'float16']
# Integers outside QP_CANDIDATES: if all of them parse to themselves, the flag
# takes any integer (`type=int` without choices, as before 0.4.0).
QP_ANY_INTEGER_PROBES = ['3', '5', '-1', '1000003']
RELEASE_TAG = re.compile(r'^v?(\d+)\.(\d+)\.(\d+)(?:\.post(\d+))?$')  # finals + .postN
# The arities the TSV (and its Java reader) can express.
TSV_ARITIES = ('NONE', 'ONE', 'ONE_OR_MORE', 'ZERO_OR_MORE')


# --------------------------------------------------------------------------
# Stubs.  A stub "thing" is a class whose metaclass answers every attribute,
# call, index and operator with another stub, so module-level code such as
# `class X(BaseModel)`, `@torch.no_grad()`, `Optional[torch.Tensor]`,
# `torch.float16` or `field(default=torch.float32)` all evaluate.
# --------------------------------------------------------------------------
def _new_stub(name='Stub'):
    return _StubMeta(name, (), {'_is_stub': True})


class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith('__') and name.endswith('__'):
            raise AttributeError(name)
        value = _new_stub(name)
        setattr(cls, name, value)  # cache: `torch.float16 is torch.float16`
        return value

    def __call__(cls, *args, **kwargs):
        if not cls.__dict__.get('_is_stub'):  # a real subclass of a stub
            return super().__call__(*args, **kwargs)
        # Decorator passthrough: stub(fn) / stub(cls) returns it unchanged.
        if len(args) == 1 and not kwargs and isinstance(args[0], (type, types.FunctionType)):
            return args[0]
        return _new_stub()

    def __getitem__(cls, item):
        return _new_stub()

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __bool__(cls):
        return False

    def __contains__(cls, item):
        return False

    def __int__(cls):
        return 0

    __index__ = __int__

    def __float__(cls):
        return 0.0

    def __hash__(cls):  # keep hashable: stdlib dataclasses reject unhashable defaults
        return id(cls)

    def __eq__(cls, other):
        return cls is other

    def __lt__(cls, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def _op(cls, *other):
        return _new_stub()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _op
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __pow__ = __neg__ = _op
    __and__ = __rand__ = __xor__ = __lshift__ = __rshift__ = _op


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith('__') and name.endswith('__'):
            raise AttributeError(name)
        value = _new_stub(name)
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Real import for the stdlib and for lmdeploy's own .py sources; a stub
    for everything else (third-party packages and lmdeploy's compiled
    extensions such as lmdeploy.lib._turbomind, which have no source)."""

    def __init__(self):
        self.stubbed = set()

    def find_spec(self, name, path, target=None):
        top = name.partition('.')[0]
        if top in sys.stdlib_module_names:
            return None
        if top == 'lmdeploy':
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is not None:
                return spec
        self.stubbed.add(name)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__all__ = []
        return module

    def exec_module(self, module):
        pass


# --------------------------------------------------------------------------
# Worker: runs in a fresh interpreter with one tag's sources on sys.path.
# --------------------------------------------------------------------------
class _Captured(Exception):
    pass


def _arity(action):
    n = action.nargs
    if n == 0:
        return 'NONE'  # store_true/false/const, count, help, version
    if n is None or n == 1:
        return 'ONE'
    return {'+': 'ONE_OR_MORE', '*': 'ZERO_OR_MORE', '?': 'OPTIONAL'}.get(n, 'EXACTLY_%s' % n)


def _subparser(parser, name):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    raise KeyError(name)


def _jsonable(value):
    try:
        json.dumps(value)
        return value
    except TypeError:
        return repr(value)


def _lmdeploy_file(src, obj=None):
    """The tag's source file (relative to src) that defines `obj` (a function
    or class), or, without obj, the innermost LMDeploy frame on the stack,
    i.e. the LMDeploy line that called into argparse.  None if not LMDeploy."""
    if obj is None:
        frame = sys._getframe(1)
        while frame and not frame.f_code.co_filename.startswith(src + os.sep):
            frame = frame.f_back
        path = frame.f_code.co_filename if frame else None
    elif isinstance(obj, types.FunctionType):
        path = obj.__code__.co_filename
    else:
        path = getattr(sys.modules.get(getattr(obj, '__module__', None)), '__file__', None)
    if path and path.startswith(src + os.sep):
        return os.path.relpath(path, src)
    return None


def _replace_duplicate_subparsers(replaced):
    """Python < 3.11 compatibility, for one case only: a subcommand name
    registered twice.  Up to 3.10, argparse's _SubParsersAction.add_parser
    silently replaced the earlier parser of that name; 3.11 made it an error
    ("conflicting subparser").  LMDeploy v0.3.0 relies on the old behaviour:
    importing lmdeploy/cli/chat.py registers `chat`, and CLI.add_parser_chat
    registers it again, so under 3.11+ `lmdeploy` would not even start, while
    under the Pythons it supported it ran with the second `chat`.  We restore
    the 3.10 behaviour (forget the old entry, then add as usual) and record the
    name, so the driver reports it.  Duplicate aliases still fail."""
    if sys.version_info < (3, 11):
        return  # argparse already behaves this way
    real_add_parser = argparse._SubParsersAction.add_parser

    def add_parser(self, name, **kwargs):
        if name in self._name_parser_map:
            replaced.append(name)
            del self._name_parser_map[name]
        return real_add_parser(self, name, **kwargs)

    argparse._SubParsersAction.add_parser = add_parser


def worker(src):
    finder = _StubFinder()
    sys.meta_path.insert(0, finder)
    sys.path.insert(0, src)
    replaced = []
    _replace_duplicate_subparsers(replaced)

    # Remember which LMDeploy file added each action, to name in the SOURCE
    # line only the files that actually define the api_server parser.
    origin = {}
    real_add_argument = argparse._ActionsContainer.add_argument

    def add_argument(self, *a, **kw):
        action = real_add_argument(self, *a, **kw)
        origin[action] = _lmdeploy_file(src)
        return action

    argparse._ActionsContainer.add_argument = add_argument

    # The CLI entry point (setup.py: `lmdeploy = lmdeploy.cli:run`) builds all
    # parsers and then calls parse_args(); we run it as-is and stop it at the
    # first parse, keeping the parser object.
    real_parse_known_args = argparse.ArgumentParser.parse_known_args
    capturing = [True]

    def parse_known_args(self, *a, **kw):
        if capturing[0]:
            raise _Captured(self)
        return real_parse_known_args(self, *a, **kw)

    argparse.ArgumentParser.parse_known_args = parse_known_args
    # argv[1] matters: v0.3.0's run() looks at it to pick between chat CLIs.
    sys.argv = ['lmdeploy', 'serve', 'api_server', 'MODEL']
    import lmdeploy.cli
    try:
        with redirect_stdout(io.StringIO()):
            lmdeploy.cli.run()
        raise RuntimeError('lmdeploy.cli.run() returned without parsing')
    except _Captured as c:
        root = c.args[0]
    capturing[0] = False
    api = _subparser(_subparser(root, 'serve'), 'api_server')

    flags, positionals = [], []
    for action in api._actions:
        if not action.option_strings:
            positionals.append({'dest': action.dest, 'arity': _arity(action)})
            continue
        longs = [s for s in action.option_strings if s.startswith('--')]
        shorts = [s for s in action.option_strings if not s.startswith('--')]
        entry = {'name': longs[0] if longs else shorts[0], 'arity': _arity(action)}
        if action.nargs == 1:
            entry['nargs1'] = True  # ONE, but the parsed value is a 1-element list
        if isinstance(action, argparse._AppendAction):
            entry['repeatable'] = True
        if len(longs) > 1:
            entry['aliases'] = longs[1:]
        if shorts and longs:
            entry['short'] = shorts
        flags.append(entry)
    flags.sort(key=lambda f: f['name'])

    def parse(argv):
        """Parse through the ROOT parser, exactly as `lmdeploy ...` would."""
        try:
            with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
                return root.parse_args(['serve', 'api_server', 'MODEL'] + argv)
        except SystemExit:
            return None

    # Dialect, probed behaviourally.  `lmdeploy` calls parse_args() on the
    # ROOT parser, so any argv rewriting is done by the root parser's class.
    underscores = getattr(parse(['--server_port', '1234']), 'server_port', None) == 1234
    abbrev = getattr(parse(['--server-po', '1234']), 'server_port', None) == 1234
    probe = type(root)(prog='probe')
    probe.add_argument('--ab-cd', type=str)
    def probe_parse(argv):
        try:
            with redirect_stderr(io.StringIO()):
                return probe.parse_args(argv).ab_cd
        except SystemExit:
            return None
    dotted = probe_parse(['--ab-cd.k', '1']) == '{"k": 1}'

    # --quant-policy oracle.
    qp = None
    qp_action = next((a for a in api._actions if '--quant-policy' in a.option_strings), None)
    if qp_action is not None:
        def parsed(value):
            ns = parse(['--quant-policy', value])
            return (True, ns.quant_policy) if ns is not None else (False, None)

        candidates = list(QP_CANDIDATES)
        extra = [str(c) for c in (qp_action.choices or [])]
        qp_enum = getattr(sys.modules.get('lmdeploy.messages'), 'QuantPolicy', None)
        if isinstance(qp_enum, type) and not qp_enum.__dict__.get('_is_stub'):
            extra += [m.name.lower() for m in qp_enum] + [str(int(m)) for m in qp_enum]
        candidates += [c for c in extra if c not in candidates]
        accepted = {}
        for value in candidates:
            ok, result = parsed(value)
            if ok:
                accepted[value] = _jsonable(result)
        any_integer = all(parsed(v) == (True, int(v)) for v in QP_ANY_INTEGER_PROBES)
        assert any_integer == (qp_action.type is int and qp_action.choices is None), \
            '--quant-policy: any-integer probe disagrees with type/choices'
        ns = parse([])
        qp = {'default': _jsonable(ns.quant_policy) if ns else None,
              'anyInteger': any_integer, 'accepted': accepted}
        if isinstance(qp_enum, type) and not qp_enum.__dict__.get('_is_stub'):
            qp['enum'] = {m.name: int(m) for m in qp_enum}  # lmdeploy/messages.py QuantPolicy

    listen = {}
    for a in api._actions:
        if a.dest in ('server_name', 'server_port'):
            listen[a.option_strings[0]] = _jsonable(a.default)

    assert abbrev == api.allow_abbrev, 'allow_abbrev attribute disagrees with behaviour'

    # The files that define this parser: where each of its actions was added
    # (and the add_parser('api_server') call, which adds --help), where its
    # type converters / action classes and the parser classes live, and
    # messages.py when --quant-policy takes QuantPolicy's names.
    files = {origin.get(a) for a in api._actions}
    files |= {_lmdeploy_file(src, o) for a in api._actions for o in (a.type, type(a))}
    files |= {_lmdeploy_file(src, type(p)) for p in (root, api)}
    if qp and 'enum' in qp:
        files.add('lmdeploy/messages.py')
    files.discard(None)

    json.dump({
        'parser': type(api).__name__,
        'rootParser': type(root).__name__,
        'allowAbbrev': abbrev,  # behaviour (asserted equal to api.allow_abbrev)
        'underscoresAsDashes': underscores,
        'dotted': dotted,
        'pythonDashM': os.path.exists(os.path.join(src, 'lmdeploy', '__main__.py')),
        'positionals': positionals,
        'listen': listen,
        'flags': flags,
        'quantPolicy': qp,
        '_sourceFiles': sorted(files),
        '_replacedSubparsers': replaced,
        '_stubbedLmdeploy': sorted(n for n in finder.stubbed if n.startswith('lmdeploy')),
    }, sys.stdout)


# --------------------------------------------------------------------------
# Driver.
# --------------------------------------------------------------------------
def git(git_dir, *args):
    return subprocess.run(['git', '--git-dir', git_dir] + list(args), check=True,
                          capture_output=True, text=True).stdout


def _version_key(tag):
    return tuple(int(x or 0) for x in RELEASE_TAG.match(tag).groups())


def release_tags(git_dir):
    return sorted((t for t in git(git_dir, 'tag').split() if RELEASE_TAG.match(t)),
                  key=_version_key)


def select_tags(git_dir, spec):
    if '..' not in spec:
        tags = spec.split(',')
        bad = [t for t in tags if not RELEASE_TAG.match(t)]
        if bad:
            sys.exit('not release tags: %s' % ', '.join(bad))
        return sorted(tags, key=_version_key)  # ranges need version order
    lo, hi = spec.split('..')
    return [t for t in release_tags(git_dir) if _version_key(lo) <= _version_key(t)
            and (not hi or _version_key(t) <= _version_key(hi))]


def extract(git_dir, tag):
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(['git', '--git-dir', git_dir, 'archive', 'refs/tags/' + tag,
                                  'lmdeploy'], check=True, capture_output=True).stdout
        subprocess.run(['tar', '-x', '-C', tmp], input=archive, check=True)
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), '--worker', tmp],
                              capture_output=True, text=True, cwd=tmp)
    if proc.returncode != 0:
        err = proc.stderr.strip()
        raise RuntimeError(err.splitlines()[-1] if err else 'failed')
    return json.loads(proc.stdout)


def dialect(data):
    """The TSV's DIALECT for one tag, or raise: the Java reader knows exactly
    these two, so anything else must be looked at by a human first."""
    if data['parser'] != data['rootParser']:
        raise ValueError('root parser %s but api_server parser %s'
                         % (data['rootParser'], data['parser']))
    if not data['allowAbbrev']:
        raise ValueError('allow_abbrev is False (abbreviated flags are rejected)')
    behaviour = (data['underscoresAsDashes'], data['dotted'])
    if data['parser'] == 'ArgumentParser' and behaviour == (False, False):
        return 'argparse'
    if data['parser'] == 'FlexibleArgumentParser' and behaviour == (True, True):
        return 'flexible'
    raise ValueError('parser class %s with underscoresAsDashes=%s, dotted=%s'
                     % ((data['parser'],) + behaviour))


def source_line(rng):
    """One line naming the tags of a range, the commit that was read and the
    LMDeploy files that define the parser there."""
    tags, commit = rng['tags'], rng['commit'][:7]
    where = ('(commit %s)' % commit if len(tags) == 1
             else '(commit %s of %s)' % (commit, tags[0]))
    return '%s %s %s %s: api_server parser, run with %s' % (
        REPO, ', '.join(tags), where, ', '.join(rng['sourceFiles']), TOOL)


def ranges_from_release_facts(path):
    """The TSV's ranges from tools/engine-facts' data file: one wheel per PyPI release, each read
    by this tool's --worker; consecutive releases with the same flags, dialect and --quant-policy
    values form one range, and a release that could not be read closes the range before it."""
    with open(path, encoding='utf-8') as f:
        releases = json.load(f)['releases']
    flags, ranges = {}, []
    for r in releases:
        inv = r.get('inventory') or {}
        for n in inv.get('removed', []):
            flags.pop(n, None)
        for fl in inv.get('added', []) + inv.get('changed', []):
            flags[fl['name']] = fl
        qp = r.get('quantPolicy')
        if not qp:
            if ranges and ranges[-1]['until'] is None:
                ranges[-1]['until'] = r['version']
            continue
        p = r['parser']
        data = dialect({'parser': p['class'], 'rootParser': p['root'], 'allowAbbrev': p['allowAbbrev'],
                        'underscoresAsDashes': p['underscoresAsDashes'], 'dotted': p['dotted']})
        key = {'dialect': data,
               'flags': [{'name': n, 'arity': flags[n]['arity']} for n in sorted(flags)],
               'quantPolicy': {'accepted': qp['accepted'], 'anyInteger': qp['anyInteger']}}
        if ranges and ranges[-1]['until'] is None and \
                {k: ranges[-1][k] for k in key} == key:
            ranges[-1]['releases'].append(r['version'])
            continue
        if ranges and ranges[-1]['until'] is None:
            ranges[-1]['until'] = r['version']
        ranges.append(dict(key, **{'from': r['version'], 'until': None, 'releases': [r['version']],
                                   'file': r['file'], 'files': r['entry']['files'],
                                   'quantPolicyAt': qp.get('at')}))
    for rng in ranges:
        rng['source'] = 'lmdeploy %s, PyPI wheel%s (%s%s): %s (--quant-policy at %s): api_server' \
            ' parser, run with %s --worker' % (
                ', '.join(rng['releases']), 's' if len(rng['releases']) > 1 else '',
                'first ' if len(rng['releases']) > 1 else '', rng['file'],
                ', '.join(rng['files']), rng['quantPolicyAt'], TOOL)
    return ranges


def write_tsv(path, ranges, origin=REPO):
    lines = ['# generated by %s from %s; do not edit by hand' % (TOOL, origin)]
    for rng in ranges:
        lines.append('\t'.join(['range', rng['from'], rng['until'] or '', rng['dialect'],
                                rng['source']]))
        lines += ['\t'.join(['flag', f['name'], f['arity']]) for f in rng['flags']]
        qp = rng['quantPolicy'] or {'accepted': {}}
        # Uppercase spellings (INT8) are the same values case-folded; the JSON keeps them.
        lines += ['\t'.join(['quant-policy', value, str(code)])
                  for value, code in qp['accepted'].items() if value == value.lower()]
    for line in lines:
        assert '\n' not in line and line.count('\t') <= 4, repr(line)
    with open(path, 'w', encoding='utf-8', newline='\n') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--git-dir', help='a (bare) git clone of ' + REPO)
    ap.add_argument('--release-facts', metavar='JSON',
                    help='read the releases from this release-facts.json (every PyPI wheel, written'
                         ' by tools/engine-facts/extract.py lmdeploy) instead of git tags')
    ap.add_argument('--tags', default='v0.2.0..',
                    help='TAG,TAG,... or FROM..[TO] over release tags (default: %(default)s)')
    ap.add_argument('--out', metavar='JSON', help='write every measurement, per range, as JSON')
    ap.add_argument('--tsv', metavar='TSV', help='write the ranges as tab-separated records')
    if sys.argv[1:2] == ['--worker']:  # internal: one tag in its own interpreter, see extract()
        return worker(sys.argv[2])
    opts = ap.parse_args()
    if not (opts.out or opts.tsv):
        ap.error('give --out and/or --tsv')
    if bool(opts.git_dir) == bool(opts.release_facts):
        ap.error('give --git-dir or --release-facts')
    if opts.release_facts:
        ranges = ranges_from_release_facts(opts.release_facts)
        print('%d ranges from %s' % (len(ranges), opts.release_facts), file=sys.stderr)
        if opts.out:
            with open(opts.out, 'w', encoding='utf-8') as f:
                json.dump({'releaseFacts': opts.release_facts, 'extractedBy': TOOL,
                           'ranges': ranges}, f, indent=1)
                f.write('\n')
        if opts.tsv:
            write_tsv(opts.tsv, ranges, 'PyPI wheels (%s)' % os.path.basename(opts.release_facts))
        return

    ranges, skipped, problems = [], [], []
    for tag in select_tags(opts.git_dir, opts.tags):
        version = tag.lstrip('v')
        try:
            data = extract(opts.git_dir, tag)
        except Exception as e:  # report, never guess
            skipped.append({'tag': tag, 'why': str(e)})
            problems.append('%s: could not run its parser: %s' % (tag, e))
            if ranges and ranges[-1]['until'] is None:
                ranges[-1]['until'] = version  # a range never spans a tag we did not read
            continue
        files, replaced = data.pop('_sourceFiles'), data.pop('_replacedSubparsers')
        stubbed = data.pop('_stubbedLmdeploy')
        try:
            data = dict({'dialect': dialect(data)}, **data)
        except ValueError as e:
            data = dict({'dialect': None}, **data)
            problems.append('%s: no TSV dialect: %s' % (tag, e))
        odd = ['%s nargs=%s' % (f['name'], f['arity']) for f in data['flags']
               if f['arity'] not in TSV_ARITIES]
        if odd:
            problems.append('%s: flags the TSV cannot express: %s' % (tag, ', '.join(odd)))
        qp_values = (data['quantPolicy'] or {'accepted': {}})['accepted']
        not_int = ['%s -> %r' % (v, code) for v, code in qp_values.items()
                   if type(code) is not int]
        if not_int:  # the TSV's PARSED column is an integer code
            problems.append('%s: --quant-policy parses to non-integers: %s'
                            % (tag, ', '.join(not_int)))
        note = None
        if replaced:
            note = ('%s registers subcommand(s) %s twice; run with the later one, as Python < 3.11'
                    ' argparse did' % (tag, ', '.join(replaced)))
        print('%s: %d flags, dialect=%s, stubbed lmdeploy modules=%s%s' % (
            tag, len(data['flags']), data['dialect'], stubbed, '; NOTE ' + note if note else ''),
            file=sys.stderr)

        if ranges and ranges[-1]['until'] is None and {k: ranges[-1][k] for k in data} == data:
            ranges[-1]['tags'].append(tag)
        else:
            if ranges and ranges[-1]['until'] is None:
                ranges[-1]['until'] = version
            commit = git(opts.git_dir, 'rev-list', '-n1', 'refs/tags/' + tag).strip()
            ranges.append(dict({'from': version, 'until': None, 'tags': [tag], 'commit': commit,
                                'source': None, 'sourceFiles': files, 'notes': []}, **data))
        if note:
            ranges[-1]['notes'].append(note)
    for rng in ranges:
        rng['source'] = source_line(rng)  # after grouping: it names all tags of the range

    if opts.out:
        result = {'repository': REPO, 'extractedBy': TOOL, 'ranges': ranges, 'skipped': skipped}
        with open(opts.out, 'w', encoding='utf-8') as f:
            json.dump(result, f, indent=1)
            f.write('\n')
    distinct = {json.dumps(r['flags'], sort_keys=True) for r in ranges}
    print('%d ranges, %d distinct flag lists, %d skipped'
          % (len(ranges), len(distinct), len(skipped)), file=sys.stderr)
    if problems:
        print('FAILED%s:\n  %s' % (' (TSV not written)' if opts.tsv else '', '\n  '.join(problems)),
              file=sys.stderr)
        sys.exit(1)
    if opts.tsv:
        write_tsv(opts.tsv, ranges)


if __name__ == '__main__':
    main()

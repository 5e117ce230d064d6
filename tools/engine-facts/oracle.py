"""The argparse oracle: a release's own serve parser, built by running that release's code with its
third-party imports stubbed (no torch, no CUDA), then read and probed with the real stdlib argparse.

    python3 tools/engine-facts/extract.py oracle vllm            # first and last of each range
    python3 tools/engine-facts/extract.py oracle sglang --all    # every release
    python3 tools/engine-facts/extract.py oracle vllm --versions 0.4.2,0.34.0

Each release runs in a fresh interpreter (`oracle.py --worker ENGINE SRC`) over its .py files
extracted to a temporary folder.  The stubs are examples/engine-lmdeploy/tools/extract_flags.py's
(imported, not copied), with one addition: a stubbed `dataclass` decorator (pydantic's) applies
the stdlib dataclass, so config classes still have fields.  Pure-Python libraries that are
installed here (pydantic, typing_extensions, yaml, packaging) stay real only if listed in REAL.
The entry point is the one a user runs, stopped at its first parse_args:
  vLLM: `vllm serve` (vllm.entrypoints.cli.main:main, else vllm.scripts:main), else
        `python -m vllm.entrypoints.openai.api_server`;
  SGLang: `python -m sglang.launch_server`.
Results: tools/engine-facts/oracle-results.json, and a section of comparison.md.
"""
import argparse
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import types
import zipfile
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LMDEPLOY_TOOL = os.path.join(REPO, 'examples/engine-lmdeploy/tools/extract_flags.py')
REAL = {'typing_extensions', 'yaml', 'packaging', 'annotated_types', 'msgspec'}
# optional pure libraries the oracle may use for real (pip install --target this msgspec)
LIBS = os.path.join(os.path.expanduser('~'), '.cache', 'kvcache', 'oracle-libs')
PROBE_SPELLINGS = ['auto', 'bf16', 'bfloat16', 'float16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'nvfp4',
                   'not_a_dtype']


def _stub_tool():
    spec = importlib.util.spec_from_file_location('lmdeploy_extract_flags', LMDEPLOY_TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# dunder attributes a release reads off a stubbed class at import time
DUNDERS = {'__class_validators__': (), '__version__': '99.0.0', 'ns': 'stub_ns'}
# device namespaces a stubbed torch must not pretend to have (`hasattr(torch, "npu")`)
NO_DEVICE = {'npu', 'hpu', 'musa', 'mlu', 'xpu'}
# accelerator runtimes that must look absent (an importable stub would make a platform plugin
# claim the machine)
NOT_INSTALLED = {'libtpu', 'tpu_info', 'tpu_commons', 'tpu_inference', 'torch_xla',
                 'habana_frameworks', 'intel_extension_for_pytorch', 'oneccl_bindings_for_pytorch',
                 'torch_npu', 'vllm_ascend', 'amdsmi', 'neuronxcc', 'transformers_neuronx',
                 'torch_neuronx', 'neuronx_distributed_inference', 'neuronx_distributed', 'openvino', 'torch_musa', 'torch_mlu', 'vllm_gaudi', 'mindie'}


# lowercase stubbed callables that take a class or function and are not decorators
NOT_DECORATORS = {'dumps', 'dump', 'loads', 'load', 'infer_schema', 'getsource', 'signature'}


def _infer_schema(fn=None, *a, **k):
    """torch.library.infer_schema, as far as vLLM's vllm/ir/op.py parses it at import: one Tensor
    per parameter, one Tensor returned per activation (parameters named x...)."""
    import inspect
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = ['x']
    n = max(1, sum(1 for p in params if p.startswith('x')))
    returns = 'Tensor' if n == 1 else '(%s)' % ', '.join(['Tensor'] * n)
    return '(%s) -> %s' % (', '.join('Tensor ' + p for p in params), returns)


# stubbed callables whose result a release parses at import time
CALL_RESULTS = {'infer_schema': _infer_schema}


class _Captured(Exception):
    pass


def worker(engine, src, release_version='0.0.0', cases_path=None):
    tool = _stub_tool()
    package = engine

    import abc

    class Meta(tool._StubMeta, abc.ABCMeta):  # ABCMeta: `class M(BaseModel, ABC)` with a stub base
        def __getattr__(cls, name):
            if name in DUNDERS:
                return DUNDERS[name]
            return tool._StubMeta.__getattr__(cls, name)

        def __new__(mcs, name, bases, ns, **kw):  # `class X(msgspec.Struct, frozen=True)`
            return super().__new__(mcs, name, bases, ns)

        def __init__(cls, name, bases, ns, **kw):
            super().__init__(name, bases, ns)

        def __eq__(cls, other):  # `assert x.itemsize == _dtype.itemsize` at import time
            if cls is other or isinstance(other, (int, float)) and not isinstance(other, bool):
                return True
            return isinstance(other, Meta) and other.__dict__.get('_is_stub') and \
                cls.__dict__.get('_is_stub') and other.__name__ == cls.__name__

        def __ne__(cls, other):
            return not Meta.__eq__(cls, other)

        def register(cls, *a, **k):  # transformers' AutoConfig.register(name, Config)
            return new_stub()

        def __setitem__(cls, key, value):
            pass

        __hash__ = tool._StubMeta.__hash__

        def __str__(cls):
            return cls.__name__

        def __format__(cls, spec):
            return cls.__name__

        def __call__(cls, *args, **kwargs):
            if not cls.__dict__.get('_is_stub'):
                return type.__call__(cls, *args, **kwargs)
            if args and isinstance(args[0], type) and cls.__name__ == 'dataclass':
                import dataclasses
                return dataclasses.dataclass(args[0])
            decorator = (not cls.__name__[:1].isupper() or cls.__name__ == 'Stub') and \
                cls.__name__ not in NOT_DECORATORS
            if len(args) == 1 and not kwargs and decorator and \
                    isinstance(args[0], (type, types.FunctionType)):
                return args[0]  # `@stub` / `@stub(...)` on a function or class
            if cls.__name__ in CALL_RESULTS:
                return CALL_RESULTS[cls.__name__](*args, **kwargs)
            if not args and cls.__name__ == 'dataclass':
                import dataclasses
                return lambda c: dataclasses.dataclass(c) if isinstance(c, type) else c
            return new_stub()

    def _init(self, *a, **k):  # a release class deriving from a stub calls super().__init__(x)
        pass

    def _call(self, *a, **k):  # `@DynamicGradMode()`: an instance of a class with a stub base
        return a[0] if len(a) == 1 and not k and callable(a[0]) else new_stub()

    def new_stub(name='Stub'):
        ns = {'_is_stub': True, '__init__': _init}
        if engine == 'sglang':
            ns['__call__'] = _call
        return Meta(name, (), ns)

    tool._new_stub = new_stub  # the module's attribute lookups build stubs through this

    class StubModule(tool._StubModule):
        def __getattr__(self, name):
            if name in NO_DEVICE:
                raise AttributeError(name)
            return tool._StubModule.__getattr__(self, name)

    class Finder(tool._StubFinder):
        def create_module(self, spec):
            module = super().create_module(spec)
            module.__version__ = '99.0.0'  # `packaging.version.parse(torch.__version__)`
            module.__file__ = os.path.join('/nonexistent-stub', *spec.name.split('.'),
                                           '__init__.py')
            module.__class__ = StubModule
            return module

        def find_spec(self, name, path, target=None):
            top = name.partition('.')[0]
            if top in sys.stdlib_module_names or top in REAL:
                return None
            if top in NOT_INSTALLED:
                raise ModuleNotFoundError('No module named %r' % name, name=name)
            if top == package:
                spec = importlib.machinery.PathFinder.find_spec(name, path)
                if spec is not None:
                    return spec
            self.stubbed.add(name)
            return importlib.machinery.ModuleSpec(name, self, is_package=True)

    import re as _re
    sys.modules.setdefault('regex', _re)  # vLLM's `import regex as re`: the stdlib re will do
    finder = Finder()
    sys.meta_path.insert(0, finder)
    sys.path.insert(0, src)
    if os.path.isdir(LIBS):
        sys.path.insert(1, LIBS)
    # stdlib submodules a release reaches as attributes after its real deps imported them
    import concurrent.futures  # noqa: F401
    import importlib.metadata as md
    import logging.handlers  # noqa: F401
    import multiprocessing.connection  # noqa: F401
    real_version = md.version

    def version(name):  # installed metadata of a stubbed package: a version that passes checks
        try:
            return real_version(name)
        except md.PackageNotFoundError:
            # "+cpu": vLLM then picks its CPU platform instead of probing GPUs through stubs
            return release_version + '+cpu' if name.replace('-', '_') == package else '99.0.0'
    md.version = version
    import builtins
    real_getattr, real_hasattr = builtins.getattr, builtins.hasattr

    def is_stub(x):
        return isinstance(x, Meta) and x.__dict__.get('_is_stub')

    def getattr_(obj, name, *default):  # `getattr(torch, device)` with a stubbed device name
        if is_stub(name):
            return default[0] if default else new_stub()
        return real_getattr(obj, name, *default)

    def hasattr_(obj, name):
        return False if is_stub(name) else real_hasattr(obj, name)
    builtins.getattr, builtins.hasattr = getattr_, hasattr_
    if engine == 'sglang':
        # `is_hip()` is `torch.version.hip is not None`: a stub would make SGLang 0.4.6.post4 to
        # 0.5.3rc2 take the ROCm path at import (fp8_utils compares get_device_capability())
        import torch
        torch.version = new_stub('version')
        type.__setattr__(torch.version, 'hip', None)
    import json as _json
    real_default = _json.JSONEncoder.default

    def default(self, o):  # json.dumps({"callable": dill.dumps(cls).hex()})
        return o.__name__ if is_stub(o) else real_default(self, o)
    _json.JSONEncoder.default = default
    import asyncio
    real_policy = asyncio.set_event_loop_policy

    def set_policy(p):  # uvloop.EventLoopPolicy() is a stub
        if p is None or isinstance(p, asyncio.AbstractEventLoopPolicy):
            real_policy(p)
    asyncio.set_event_loop_policy = set_policy
    real_pka = argparse.ArgumentParser.parse_known_args
    real_pa = argparse.ArgumentParser.parse_args
    capturing = [True]

    def pka(self, *a, **kw):
        if capturing[0]:
            raise _Captured(self)
        return real_pka(self, *a, **kw)

    argparse.ArgumentParser.parse_known_args = pka
    root, how = None, None
    t0 = time.time()
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            if engine == 'vllm':
                if os.path.exists(os.path.join(src, 'vllm/entrypoints/cli/main.py')):
                    sys.argv = ['vllm', 'serve', 'MODEL']
                    how = 'vllm serve (vllm.entrypoints.cli.main:main)'
                    import vllm.entrypoints.cli.main as m
                    m.main()
                elif os.path.exists(os.path.join(src, 'vllm/scripts.py')) and \
                        'serve' in open(os.path.join(src, 'vllm/scripts.py')).read():
                    sys.argv = ['vllm', 'serve', 'MODEL']
                    how = 'vllm serve (vllm.scripts:main)'
                    import vllm.scripts as m
                    m.main()
                else:
                    import runpy
                    sys.argv = ['api_server', '--model', 'MODEL']
                    how = 'python -m vllm.entrypoints.openai.api_server'
                    runpy.run_module('vllm.entrypoints.openai.api_server', run_name='__main__')
            else:
                import runpy
                sys.argv = ['launch_server', '--model-path', 'MODEL']
                how = 'python -m sglang.launch_server'
                runpy.run_module('sglang.launch_server', run_name='__main__')
        raise RuntimeError('the entry point returned without parsing')
    except _Captured as c:
        root = c.args[0]
    capturing[0] = False
    argparse.ArgumentParser.parse_known_args = real_pka
    parser = root
    for a in root._actions:
        if isinstance(a, argparse._SubParsersAction) and 'serve' in a.choices:
            parser = a.choices['serve']
    flags = {}
    # every registered option string (what abbreviation matching sees, hidden ones included)
    for s, a in parser._option_string_actions.items():
        if not s.startswith('--'):
            continue
        n = a.nargs
        flags[s] = 'NONE' if n == 0 else 'ONE' if n in (None, 1) else \
            {'+': 'ONE_OR_MORE', '*': 'ZERO_OR_MORE', '?': 'OPTIONAL'}.get(n, 'NARGS:%s' % n)
    if cases_path:
        lead = ['serve', 'MODEL'] if parser is not root else \
            ['--model-path', 'MODEL'] if engine == 'sglang' else \
            ['MODEL'] if any(not a.option_strings and a.required and
                             not isinstance(a, argparse._SubParsersAction)
                             for a in parser._actions) else []
        out = run_cases(root, parser, lead, cases_path)
        out.update({'entry': how, 'parser': type(parser).__name__})
        json.dump(out, sys.stdout)
        return
    dtype = next((a for a in parser._actions if '--kv-cache-dtype' in a.option_strings), None)

    def parse(argv):
        try:
            with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
                ns = real_pa(parser, argv) if type(parser).parse_args is real_pa else \
                    parser.parse_args(argv)
            return ns
        except SystemExit:
            return None
        except Exception:
            return None

    positional = ['MODEL'] if any(not a.option_strings and a.dest not in ('help',)
                                  and not isinstance(a, argparse._SubParsersAction)
                                  and a.nargs != '?' and a.required
                                  for a in parser._actions) else []
    if engine == 'sglang':
        positional = ['--model-path', 'MODEL']
    accepted = None
    if dtype is not None:
        accepted = [s for s in PROBE_SPELLINGS + sorted(map(str, dtype.choices or []))
                    if getattr(parse(positional + ['--kv-cache-dtype', s]), dtype.dest,
                               None) == s]
        accepted = sorted(set(accepted))
    # the dialect, probed on a fresh parser of the same class
    try:
        probe = type(parser)(prog='probe')
        probe.add_argument('--ab-cd', type=str)
        probe.add_argument('--ab-cdef', type=str)

        def pp(argv):
            try:
                with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
                    return probe.parse_args(argv).ab_cd
            except (SystemExit, Exception):
                return None
        dialect = {'underscores': pp(['--ab_cd', 'x']) == 'x',
                   'dotted': pp(['--ab-cd.k', '1']) not in (None,),
                   'abbrev': pp(['--ab-c', 'x']) == 'x' or pp(['--ab-c', 'x']) is None and
                   probe.allow_abbrev}
    except Exception as e:
        dialect = {'probeError': repr(e)}
    out = {
        'ran': True, 'entry': how, 'parser': type(parser).__name__,
        'count': len({a for a in parser._actions if a.option_strings}),
        'flags': flags, 'seconds': round(time.time() - t0, 1),
        'dtype': None if dtype is None else {
            'choices': sorted(map(str, dtype.choices)) if dtype.choices else None,
            'default': dtype.default if isinstance(dtype.default, (str, type(None))) else
            repr(dtype.default), 'accepted': accepted},
        'stubbedOwn': sorted(n for n in finder.stubbed if n.split('.')[0] == package),
    }
    out.update(dialect)
    json.dump(out, sys.stdout)


# ------------------------------------------------------------------------------ cases
# The generated cases of engine-tck's ArgparseDifferentialTest (written when the system property
# kvcache.argparse.cases names a folder), run through the release's own parser and compared with
# what the Java FlagReader read, with the semantics of ArgparseDifferentialTest.compare and
# argparse_oracle.py.
class _ParseError(Exception):
    pass


_UNSET = object()
AMBIGUOUS = re.compile(r'ambiguous option: (.*?) could match (.*)$', re.S)
MISSING = re.compile(r'argument (\S+): expected (?:one|at least one) argument')
SHOWN = 6  # mismatches kept per release


def run_cases(root, parser, lead, cases_path):
    """Parses every case of cases_path with `root.parse_args(lead + argv)` (the release's own
    parse_args: FlexibleArgumentParser's underscore, dotted and --config handling happens there)
    and compares each target flag with the reader's answer."""
    with open(cases_path) as f:
        data = json.load(f)
    targets = [t['name'] for t in data['targets']]
    arity = {t['name']: t['arity'] for t in data['targets']}
    actions = {t: parser._option_string_actions.get(t) for t in targets}
    absent = [t for t, a in actions.items() if a is None]
    known = set(parser._option_string_actions)
    # values are not under test: no choices, no type conversion (the cases pass v0, v1, ...);
    # defaults of the targets become "unset", so a value is only what the argv set
    for a in parser._actions:
        a.choices = None
        a.type = None
    for t, a in actions.items():
        if a is not None:
            a.default = _UNSET
            for p in (parser, root):
                p._defaults.pop(a.dest, None)
    last = [None]
    real_pka = root.parse_known_args

    def pka(args=None, namespace=None):  # the namespace parse_args has before "unrecognized"
        last[0] = real_pka(args, namespace)
        return last[0]
    root.parse_known_args = pka

    def error(message):
        raise _ParseError(message)
    for p in {root, parser}:
        p.error = error

    def values(ns):
        out = {}
        for t, a in actions.items():
            if a is None:
                continue
            v = getattr(ns, a.dest, _UNSET)
            if v is _UNSET or v is None or v is False:
                out[t] = None
            elif isinstance(v, list):
                out[t] = ' '.join(map(str, v))
            else:
                out[t] = v if isinstance(v, str) else True if v is True else str(v)
        return {'values': out}

    def owner(option):  # the target whose action an error message names
        for t, a in actions.items():
            if a is not None and option in a.option_strings:
                return t
        return option

    def verdict(argv):
        last[0] = None
        try:
            with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
                return values(root.parse_args(lead + argv))
        except _ParseError as e:
            message = str(e)
            if message.startswith('unrecognized arguments:') and last[0] is not None:
                # argparse_oracle.py uses parse_known_args; the release itself would exit here
                return dict(values(last[0][0]), leftover=last[0][1])
            m = AMBIGUOUS.match(message)
            if m:
                return {'error': 'ambiguous', 'candidates': m.group(2).split(', ')}
            m = MISSING.match(message)
            if m:
                return {'error': 'missing', 'option': owner(m.group(1).split('/')[0])}
            return {'error': 'other', 'message': message}
        except SystemExit as e:
            return {'error': 'other', 'message': 'exit %s' % e.code}
        except Exception as e:  # the release's own preprocessing raised (vLLM's --config file)
            return {'error': 'other', 'message': '%s: %s' % (type(e).__name__, e),
                    'exception': True}

    t0 = time.time()
    bare = verdict([])
    res = {'ran': True, 'lead': lead, 'targetsAbsent': absent, 'cases': 0, 'compared': 0,
           'agree': 0, 'mismatch': 0, 'mismatches': [], 'kinds': {}, 'exceptions': {},
           'candidatesDiffer': 0, 'dottedJson': 0, 'mismatchKinds': {}}
    shown = set()
    if 'error' in bare:
        res.update({'ran': False, 'why': 'the parser refuses %s alone: %s' % (lead, bare)})
        return res
    for case in data['cases']:
        argv, reader = case['argv'], case['reader']
        theirs = verdict(argv)
        res['cases'] += 1
        kind = theirs.get('error', 'value')
        res['kinds'][kind] = res['kinds'].get(kind, 0) + 1
        if theirs.get('exception'):
            m = re.sub(r'\bv\d+\b', 'vN', theirs['message'])[:120]
            res['exceptions'][m] = res['exceptions'].get(m, 0) + 1
        compared, bad = False, []
        for t in targets:
            if t in absent:
                continue
            outcome = compare(t, arity[t], reader, theirs, res)
            if outcome is None:
                continue
            compared = True
            if outcome:
                bad.append(outcome)
        if compared:
            res['compared'] += 1
            if bad:
                res['mismatch'] += 1
                why = category(argv, reader, known)
                res['mismatchKinds'][why] = res['mismatchKinds'].get(why, 0) + 1
                if len(res['mismatches']) < SHOWN or why not in shown:
                    shown.add(why)
                    res['mismatches'].append({'argv': argv, 'release': theirs, 'reader': reader,
                                              'why': bad, 'kind': why})
            else:
                res['agree'] += 1
    res['seconds'] = round(time.time() - t0, 1)
    return res


def _dotted(token):
    return token.startswith('-') and '.' in token.split('=', 1)[0]


def category(argv, reader, known):
    """Which part of the argv a mismatch involves (for the report)."""
    lacks = sorted({c for lists in (reader.get('ambiguous') or {}).values() for cs in lists
                    for c in cs if c not in known})
    if lacks:
        return 'the reader finds a prefix ambiguous with %s, which the release lacks' % \
            ', '.join(lacks)
    if '--' in argv and any(_dotted(t) for t in argv[:argv.index('--')]):
        return 'dotted member before a bare --'
    if any(_dotted(t) for t in argv):
        return 'dotted member'
    if '--' in argv:
        return 'bare --'
    return 'other'


def _leaves(v):
    if isinstance(v, dict):
        for x in v.values():
            yield from _leaves(x)
    else:
        yield v


def compare(target, arity, reader, theirs, res):
    """ArgparseDifferentialTest.compare: None when the case does not bear on target, '' when the
    reader agrees, else why not.  Two readings of the release's parser are allowed for: an
    ambiguous prefix's candidates are every option the release has with that prefix, while the
    inventory lists only those that decide the reading (the reader's candidates must be among the
    release's); and vLLM folds a dotted member `--flag.key v` into `--flag '{"key": "v"}'` (the
    reader's value must be one of that JSON's leaves).  The reader lists the candidates of each
    ambiguous prefix of the target; agreeing needs one of them (as the Java test needs one equal)."""
    amb = (reader.get('ambiguous') or {}).get(target)
    kind = theirs.get('error')
    if kind is None:
        v = theirs['values'].get(target)
        if arity == 'ONE':
            ours = reader['values'].get(target)
            if amb is None and ours == v:
                return ''
            if amb is None and isinstance(v, str) and v.startswith('{'):
                try:
                    folded = json.loads(v)
                except ValueError:
                    folded = None
                if isinstance(folded, dict) and ours in [str(x) for x in _leaves(folded)]:
                    res['dottedJson'] += 1
                    return ''
            return 'the release sets %s to %r, the reader reads %r%s' % (
                target, v, ours, ' and ambiguous' if amb is not None else '')
        ours = reader['values'].get(target) is not None
        if amb is None and ours == (v is not None):
            return ''
        return 'the release %s %s, the reader %s%s' % (
            'sets' if v is not None else 'does not set', target,
            'finds it' if ours else 'does not', ' and ambiguous' if amb is not None else '')
    if kind == 'missing':
        if theirs['option'] != target:
            return None
        return '' if target in (reader.get('missing') or []) else \
            'the release finds %s without a value, the reader does not' % target
    if kind == 'ambiguous':
        if target not in theirs['candidates']:
            return None
        candidates = set(theirs['candidates'])
        fits = [set(c) for c in amb or [] if set(c) <= candidates]
        if fits:
            if candidates not in fits:
                res['candidatesDiffer'] += 1
            return ''
        return 'the release says ambiguous among %s, the reader %s' % (
            ' '.join(theirs['candidates']), 'finds other candidates' if amb else
            'finds no ambiguous prefix')
    return None


def in_range(version, lo, hi):
    from packaging.version import Version
    v = Version(version)
    return (lo is None or v >= Version(lo)) and (hi is None or v < Version(hi))


def run_cases_all(engine, folder, records, jobs=1):
    """The first and last release inside each range file's bounds, each on that range's cases."""
    import glob
    import pypi
    from concurrent.futures import ThreadPoolExecutor
    from packaging.version import Version
    files = sorted(glob.glob(os.path.join(folder, '*.json')))
    ranges = []
    for path in files:
        with open(path) as f:
            head = json.load(f)
        if head.get('engine', '').lower() != engine:
            continue
        inside = sorted((r['version'] for r in records if r.get('file') and
                         in_range(r['version'], head.get('from'), head.get('until'))),
                        key=Version)
        picked = list(dict.fromkeys(inside[:1] + inside[-1:]))
        ranges.append((path, head, picked))
    ranges.sort(key=lambda x: Version(x[1]['from'] or '0'))
    jobs_list = [(path, head, v) for path, head, picked in ranges for v in picked]

    def one(job):
        path, head, v = job
        rec = next(r for r in records if r['version'] == v)
        archive = os.path.join(pypi.cache_root(), engine, v, rec['file'])
        t = time.time()
        if not os.path.exists(archive):
            res = {'ran': False, 'why': 'not in the cache: %s' % archive}
        else:
            res = run_one(engine, v, archive, cases=path)
        res['wall'] = round(time.time() - t, 1)
        print('%s %s on %s: %s (%.0fs)' % (
            engine, v, head['versions'], '%d/%d agree, %d mismatch' % (
                res['agree'], res['compared'], res['mismatch']) if res.get('ran') else
            'NOT RUN: ' + res.get('why', ''), res['wall']), file=sys.stderr, flush=True)
        return job, res

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        done = dict(((p, v), r) for (p, _, v), r in pool.map(one, jobs_list))
    out = []
    for path, head, picked in ranges:
        out.append({'versions': head['versions'], 'from': head['from'], 'until': head['until'],
                    'dialect': head['dialect'], 'targets': [t['name'] for t in head['targets']],
                    'caseCount': len(head['cases']), 'file': os.path.basename(path),
                    'releases': {v: done[(path, v)] for v in picked},
                    'noRelease': not picked})
    return out


# ------------------------------------------------------------------------------ driver
def _extract(archive, package, dest):
    if archive.endswith('.whl'):
        with zipfile.ZipFile(archive) as z:
            for n in z.namelist():
                if n.startswith(package + '/') and n.endswith('.py'):
                    z.extract(n, dest)
    else:
        with tarfile.open(archive) as t:
            for m in t:
                name = m.name.split('/', 1)[1] if '/' in m.name else m.name
                if name.startswith('python/'):
                    name = name[len('python/'):]
                if m.isfile() and name.startswith(package + '/') and name.endswith('.py'):
                    m.name = name
                    t.extract(m, dest)


def run_one(engine, version, archive, cases=None):
    with tempfile.TemporaryDirectory() as tmp:
        _extract(archive, engine, tmp)
        last = None
        for py in [sys.executable] + [p for p in ('python3.12', 'python3.13')]:
            try:
                proc = subprocess.run([py, os.path.abspath(__file__), '--worker', engine, tmp,
                                       version] + ([os.path.abspath(cases)] if cases else []),
                                      capture_output=True, text=True, cwd=tmp,
                                      timeout=3600 if cases else 600)
            except (FileNotFoundError, subprocess.TimeoutExpired) as e:
                last = repr(e)
                continue
            if proc.returncode == 0:
                res = json.loads(proc.stdout)
                res['python'] = subprocess.run([py, '-c', 'import sys;print(sys.version.split()[0])'],
                                               capture_output=True, text=True).stdout.strip()
                return res
            err = proc.stderr.strip().splitlines()
            last = err[-1] if err else 'exit %d' % proc.returncode
            frames = [l.strip() for l in err if l.strip().startswith('File "' + tmp)]
            if frames:  # where in the release it stopped
                f = frames[-1][len('File "' + tmp) + 1:]
                last += ' (at %s)' % f.replace('", line ', ':').split(',')[0]
            if 'SyntaxError' not in last:
                break  # another Python only helps with newer syntax
        return {'ran': False, 'why': _why(last)}


def _why(last):
    return (last or 'failed')[:300]


def pick(records):
    """First and last release of every range of identical spellings (releases without the flag
    form their own range)."""
    out, prev, start = [], object(), None
    rows = [(r['version'], tuple((r.get('dtypeFlag') or {}).get('spellings') or ['<no flag>']))
            for r in records if r.get('file')]
    for i, (v, key) in enumerate(rows):
        if key != prev:
            if i:
                out.append(rows[i - 1][0])
            out.append(v)
            prev = key
    if rows:
        out.append(rows[-1][0])
    seen, res = set(), []
    for v in out:
        if v not in seen:
            seen.add(v)
            res.append(v)
    return res


def main(argv):
    if argv[:1] == ['--worker']:
        return worker(argv[1], argv[2], argv[3] if len(argv) > 3 else '0.0.0',
                      argv[4] if len(argv) > 4 else None)
    sys.path.insert(0, HERE)
    import extract
    import pypi
    from astkit import jsonable  # noqa: F401
    ap = argparse.ArgumentParser(prog='extract.py oracle')
    ap.add_argument('engine', choices=['vllm', 'sglang'])
    ap.add_argument('--versions', help='comma-separated releases')
    ap.add_argument('--all', action='store_true', help='every release read by extract')
    ap.add_argument('--cases', metavar='DIR',
                    help='ArgparseDifferentialTest\'s cases (-Dkvcache.argparse.cases=DIR): run'
                         ' the first and last release of each range on them')
    ap.add_argument('--jobs', type=int, default=1, help='releases run at once (--cases)')
    opts = ap.parse_args(argv)
    data = extract.load_data(opts.engine)
    if data is None:
        sys.exit('run extract.py %s first' % opts.engine)
    records = data['releases']
    if opts.cases:
        return cases_main(opts.engine, opts.cases, records, opts.jobs)
    versions = opts.versions.split(',') if opts.versions else \
        [r['version'] for r in records if r.get('file')] if opts.all else pick(records)
    full = extract.expand(records)
    path = os.path.join(HERE, 'oracle-results.json')
    results = {}
    if os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
    mine = results.setdefault(opts.engine, {})
    for v in versions:
        rec = next((r for r in records if r['version'] == v), None)
        if rec is None or not rec.get('file'):
            continue
        archive = os.path.join(pypi.cache_root(), opts.engine, v, rec['file'])
        if not os.path.exists(archive):
            doc = pypi.project(opts.engine)
            f = pypi.choose(dict(pypi.releases(doc))[v])
            archive, _ = pypi.fetch(opts.engine, v, f, doc['_url'])
        t = time.time()
        res = run_one(opts.engine, v, archive)
        if res.get('ran'):
            ast_flags = {}
            for f in full.get(v, {}).values():
                for s in [f['name']] + f.get('aliases', []) + [f[k] for k in (
                        'negative', 'inverse') if f.get(k)]:
                    ast_flags[s] = f['arity']
            run_flags = res.pop('flags')
            res['diff'] = {
                'onlyInRun': sorted(set(run_flags) - set(ast_flags)),
                'onlyInAst': sorted(set(ast_flags) - set(run_flags)),
                'arity': sorted('%s %s/%s' % (n, ast_flags[n], run_flags[n]) for n in
                                set(ast_flags) & set(run_flags) if ast_flags[n] != run_flags[n]),
            }
            d = rec.get('dtypeFlag') or {}
            if res.get('dtype') and d:
                ch = res['dtype']['choices']
                if ch is not None and sorted(ch) != sorted(x for x in d.get('spellings') or []
                                                           if x is not None):
                    res['diff']['dtypeChoices'] = ['run %s, AST %s' % (ch, d.get('spellings'))]
        mine[v] = res
        print('%s %s: %s (%.0fs)' % (opts.engine, v, 'ran' if res.get('ran') else
                                     'NOT RUN: ' + res.get('why', ''), time.time() - t),
              file=sys.stderr, flush=True)
        with open(path, 'w') as f:
            json.dump(results, f, indent=1, sort_keys=True)
            f.write('\n')


CASES_KEY = 'releaseParsersOnGeneratedCases'


def cases_main(engine, folder, records, jobs):
    t = time.time()
    ranges = run_cases_all(engine, folder, records, jobs)
    path = os.path.join(HERE, 'oracle-results.json')
    results = {}
    if os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
    results.setdefault(CASES_KEY, {})[engine] = {'ranges': ranges,
                                                 'wallSeconds': round(time.time() - t),
                                                 'jobs': jobs}
    with open(path, 'w') as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write('\n')
    import compare
    compare.splice_cases_section(results[CASES_KEY])
    print('%s: %d ranges in %.0fs; oracle-results.json[%r] and comparison.md written' % (
        engine, len(ranges), time.time() - t, CASES_KEY), file=sys.stderr)


if __name__ == '__main__':
    main(sys.argv[1:])

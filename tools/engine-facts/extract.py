#!/usr/bin/env python3
r"""Engine facts from every release's own files on PyPI (issue 32).

    python3 tools/engine-facts/extract.py [ENGINE...]            # fetch, read, write, compare
    python3 tools/engine-facts/extract.py oracle ENGINE [--all | --versions V,V]
    python3 tools/engine-facts/extract.py oracle ENGINE --cases DIR [--jobs N]
    python3 tools/engine-facts/extract.py compare                # report only, from the data files
    python3 tools/engine-facts/extract.py suggest ENGINE         # proposed table rows (suggest.py)

ENGINE is vllm, sglang, lmdeploy or tensorrt-llm (default: all four).  Run from anywhere; paths are
relative to the repository that holds this file.  Not part of the Maven build or the default test
run: it needs PyPI and, for the comparison, a JDK and the built kvcache.jar (see README.md).

extract (the default):
  1. lists every release on PyPI's JSON API (pre-, post-, rc and yanked ones included) and fetches
     one file per release into the cache (~/.cache/kvcache/pypi, or $KVCACHE_PYPI_CACHE), see
     pypi.py;
  2. reads each release WITHOUT importing it (AST over its own .py files, facts.py/parsers.py):
     the --kv-cache-dtype spellings and default, the serve parser's whole flag inventory, the
     flags that change the KV representation, the dtype report (metric / server-info route), the
     spelling -> element dtype statements, each with file:line;
  3. writes one data file per engine (release-facts.json next to the engine module's classes);
  4. writes tools/engine-facts/comparison.md: every row where the release files and the Java
     engine modules' tables disagree.
  LMDeploy is read by examples/engine-lmdeploy/tools/extract_flags.py's own worker (it runs the
  release's parser with stubbed imports, the approach that tool established), applied to the
  PyPI wheel instead of a git tag.  TensorRT-LLM's PyPI files are checked and recorded as what
  they are (placeholders that redirect pip to NVIDIA's own index).

oracle: runs a release's own parser-building code (vLLM's FlexibleArgumentParser + serve
  subparser, SGLang's ServerArgs.add_cli_args) in a fresh interpreter with every third-party
  import stubbed (no torch), reads the parser it builds and compares it with the AST inventory.
  By default the first and last release of every spelling range; results go to
  tools/engine-facts/oracle-results.json and into comparison.md.  With --cases DIR (the files
  ArgparseDifferentialTest writes under -Dkvcache.argparse.cases=DIR) it runs the first and last
  release of each range's own parser on that range's generated cases and compares it with the
  Java FlagReader's answers (README.md, "The releases' own parsers on the Java test's cases").
"""
import argparse
import hashlib
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
REPO = os.path.dirname(os.path.dirname(HERE))

import pypi  # noqa: E402

ENGINES = ('vllm', 'sglang', 'lmdeploy', 'tensorrt-llm')
OUT = {
    'vllm': 'engine-vllm/src/main/resources/ai/gpustack/kvcache/engine/vllm/release-facts.json',
    'sglang': 'engine-sglang/src/main/resources/ai/gpustack/kvcache/engine/sglang/'
              'release-facts.json',
    'lmdeploy': 'examples/engine-lmdeploy/src/main/resources/com/example/kvcache/lmdeploy/'
                'release-facts.json',
    'tensorrt-llm': 'examples/engine-trtllm/src/main/resources/com/example/kvcache/trtllm/'
                    'release-facts.json',
}
PACKAGE = {'vllm': 'vllm', 'sglang': 'sglang', 'lmdeploy': 'lmdeploy',
           'tensorrt-llm': 'tensorrt_llm'}
TOOL = 'tools/engine-facts/extract.py'
LINE = re.compile(r'(\.py):\d+')


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def unlined(v):
    """v with file:line references reduced to the file, for 'did it change' comparisons."""
    if isinstance(v, str):
        return LINE.sub(r'\1', v)
    if isinstance(v, list):
        return [unlined(x) for x in v]
    if isinstance(v, dict):
        return {k: unlined(x) for k, x in v.items()}
    return v


def _cap(v, n=160):
    s = json.dumps(v, sort_keys=True)
    return v if len(s) <= n else {'expr': s[:n] + '...'}


def _flag_entry(f):
    out = {k: f[k] for k in ('name', 'arity', 'at') if k in f}
    for k in ('aliases', 'short', 'negative', 'inverse', 'choices', 'default', 'action', 'nargs',
              'conditional', 'from', 'unresolvedNames', 'unresolvedKwargs', 'metavar'):
        if k in f:
            out[k] = _cap(f[k]) if k in ('default', 'choices', 'metavar') else f[k]
    return out


def _flag_key(f):
    return json.dumps(unlined({k: v for k, v in f.items() if k != 'at'}), sort_keys=True)


def compact(records):
    """Per release: its own facts, the flag inventory as a change list against the release
    before it (the first release lists every flag), and long texts only when they change."""
    prev_flags, prev = {}, {}
    out = []
    for r in records:
        r = dict(r)
        flags = {f['name']: _flag_entry(f) for f in r.pop('flags', [])}
        added = [flags[n] for n in sorted(flags) if n not in prev_flags]
        removed = sorted(n for n in prev_flags if n not in flags)
        changed = [flags[n] for n in sorted(flags) if n in prev_flags and
                   _flag_key(flags[n]) != _flag_key(prev_flags[n])]
        digest = hashlib.sha256(json.dumps(
            [json.loads(_flag_key(flags[n])) for n in sorted(flags)],
            sort_keys=True).encode()).hexdigest()[:16]
        inv = {'count': len(flags), 'sha256_16': digest}
        if added:
            inv['added'] = added
        if removed:
            inv['removed'] = removed
        if changed:
            inv['changed'] = changed
        r['inventory'] = inv
        prev_flags = flags
        # long facts: kept when they change (line numbers aside), else named as unchanged
        same = []
        for key in ('help', 'labels', 'dtypeMap', 'dtypeBranches'):
            holder, k = (r.get('dtypeFlag') or {}, 'help') if key == 'help' else \
                ((r.get('report') or {}), 'labels') if key == 'labels' else (r, key)
            if k in holder:
                if key in prev and unlined(prev[key]) == unlined(holder[k]):
                    holder.pop(k)
                    same.append(key)
                else:
                    prev[key] = holder[k]
        if same:
            r['unchangedSincePrevious'] = same
        out.append(r)
    return out


def expand(records):
    """The full flag inventory of each release again, from compact()'s change lists."""
    flags, out = {}, {}
    for r in records:
        inv = r.get('inventory') or {}
        for n in inv.get('removed', []):
            flags.pop(n, None)
        for f in inv.get('added', []) + inv.get('changed', []):
            flags[f['name']] = f
        out[r['version']] = dict(flags)
    return out


# ------------------------------------------------------------------------------ reading
def read_release(engine, path):
    from astkit import Release
    import facts
    rel = Release(path, PACKAGE[engine])
    return getattr(facts, engine)(rel)


def lmdeploy_release(path, version):
    """extract_flags.py's worker on the wheel's lmdeploy/ tree (see that tool's README)."""
    import subprocess
    import tempfile
    import zipfile
    tool = os.path.join(REPO, 'examples/engine-lmdeploy/tools/extract_flags.py')
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(path) as z:
            for n in z.namelist():
                if n.startswith('lmdeploy/') and n.endswith('.py'):
                    z.extract(n, tmp)
        proc = subprocess.run([sys.executable, tool, '--worker', tmp], capture_output=True,
                              text=True, cwd=tmp, timeout=300)
        qp_at = None
        for root, _, files in os.walk(os.path.join(tmp, 'lmdeploy')):
            for f in files:
                p = os.path.join(root, f)
                with open(p, encoding='utf-8', errors='replace') as fh:
                    for i, line in enumerate(fh, 1):
                        if "'--quant-policy'" in line or '"--quant-policy"' in line:
                            qp_at = qp_at or '%s:%d' % (os.path.relpath(p, tmp), i)
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines()
        why = err[-1] if err else 'failed'
        if 'returned without parsing' in why:
            why += ' (no argparse parser: this release\'s CLI is python-fire, as'
            why += ' extract_flags.py\'s README says of releases before v0.2.0)'
        return {'problems': ['its parser could not be run: ' + why]}
    data = json.loads(proc.stdout)
    flags = [{'name': f['name'], 'arity': f['arity'], **({'aliases': f['aliases']}
                                                            if 'aliases' in f else {})}
             for f in data['flags']]
    return {
        'problems': [],
        'entry': {'command': 'lmdeploy serve api_server',
                  'files': data.get('_sourceFiles')},
        'parser': {'class': data['parser'], 'root': data['rootParser'],
                   'allowAbbrev': data['allowAbbrev'],
                   'underscoresAsDashes': data['underscoresAsDashes'], 'dotted': data['dotted']},
        'quantPolicy': dict(data['quantPolicy'] or {}, at=qp_at),
        'flags': flags,
        'read': 'run with stubbed imports by examples/engine-lmdeploy/tools/extract_flags.py'
                ' --worker',
    }


def trtllm_release(path):
    import tarfile
    names, backend, index, error = [], None, None, None
    with tarfile.open(path) as t:
        for m in t:
            names.append(m.name)
            if m.name.endswith('ERROR.txt'):
                error = ' '.join(t.extractfile(m).read().decode('utf-8', 'replace').split())[:200]
            if m.name.endswith('pyproject.toml'):
                txt = t.extractfile(m).read().decode('utf-8', 'replace')
                b = re.search(r'build-backend\s*=\s*"([^"]+)"', txt)
                i = re.search(r'index_url\s*=\s*"([^"]+)"', txt)
                backend = b.group(1) if b else None
                index = i.group(1) if i else None
    py = [n for n in names if n.endswith('.py') and '/tensorrt_llm/' in '/' + n]
    out = {'files': len(names), 'packageFiles': len(py), 'buildBackend': backend,
           'redirectsTo': index}
    if error:
        out['errorTxt'] = error
    if not py:
        out['problems'] = ['placeholder sdist without tensorrt_llm sources: %s' % (
            'its build backend %s fetches the real wheel from %s at install time, which this'
            ' machine cannot reach' % (backend, index or "NVIDIA's index") if backend else
            'its setup.py only points at NVIDIA\'s index (ERROR.txt: "%s")' % (error or '?'))]
    return out


def extract(engine, timings):
    t0 = time.time()
    doc = pypi.project(engine)
    rels = pypi.releases(doc)
    records, fetched_bytes, fetch_t, read_t = [], 0, 0.0, 0.0
    for version, files in rels:
        f = pypi.choose(files)
        rec = {'version': version}
        if any(x.get('yanked') for x in files):
            rec['yanked'] = True
        if f is None:
            rec['problems'] = ['PyPI lists no file for this release']
            records.append(rec)
            continue
        rec['file'] = f['filename']
        rec['uploaded'] = f.get('upload_time', '')[:10]
        t = time.time()
        try:
            path, how = pypi.fetch(engine, version, f, doc['_url'])
        except Exception as e:  # record, never guess
            rec['problems'] = ['could not fetch: %s' % e]
            records.append(rec)
            log(engine, version, 'FETCH FAILED', e)
            continue
        fetch_t += time.time() - t
        fetched_bytes += os.path.getsize(path)
        rec['fetchedBy'] = how.split(' (')[0]
        t = time.time()
        try:
            if engine == 'lmdeploy':
                facts = lmdeploy_release(path, version)
            elif engine == 'tensorrt-llm':
                facts = trtllm_release(path)
            else:
                facts = read_release(engine, path)
        except Exception as e:
            facts = {'problems': ['could not be read: %s: %s' % (type(e).__name__, e)]}
        read_t += time.time() - t
        probs = facts.pop('problems', [])
        rec.update(facts)
        if probs:
            rec['problems'] = probs
        records.append(rec)
        log('%s %s: %d flags%s' % (engine, version, len(rec.get('flags', [])),
                                   ('; ' + '; '.join(probs)) if probs else ''))
    timings[engine] = {'releases': len(rels), 'fetchSeconds': round(fetch_t, 1),
                       'readSeconds': round(read_t, 1), 'totalSeconds': round(time.time() - t0, 1),
                       'bytes': fetched_bytes}
    return records, doc


def write_data(engine, records):
    data = {
        'engine': engine,
        'generatedBy': TOOL,
        'pypi': 'https://pypi.org/project/%s/ (JSON API)' % engine,
        'how': ('one file per release (the sdist, else the smallest wheel), read without importing'
                ' it: AST over its own .py files. file:line refers to paths inside that file.'
                ' "inventory" lists the serve parser\'s flags as changes against the release'
                ' listed before it (the first release lists them all; "at" is where a flag was'
                ' read in the release that added or changed it); help, labels and dtype maps'
                ' are kept only where they change ("unchangedSincePrevious").'
                if engine in ('vllm', 'sglang') else
                'one wheel per release; its lmdeploy/ tree is given to'
                ' examples/engine-lmdeploy/tools/extract_flags.py --worker, which runs'
                ' LMDeploy\'s own parser with stubbed third-party imports'
                if engine == 'lmdeploy' else
                'each release\'s PyPI file opened and checked for sources'),
        'releases': compact(records) if engine != 'tensorrt-llm' else records,
    }
    path = os.path.join(REPO, OUT[engine])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(dump(data))
    return path


def dump(data):
    """Deterministic JSON, one release per block and one flag per line, so a diff shows what a
    new release changed."""
    def one(v):
        return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(',', ':'))
    out = ['{']
    head = [k for k in sorted(data) if k != 'releases']
    for k in head:
        out.append(' %s:%s,' % (one(k), one(data[k])))
    out.append(' "releases":[')
    rels = data['releases']
    for i, r in enumerate(rels):
        r = dict(r)
        inv = r.pop('inventory', None)
        lines = ['  {' + one(r)[1:-1]]
        if inv is not None:
            parts = []
            for k in sorted(inv):
                v = inv[k]
                if isinstance(v, list) and v and isinstance(v[0], dict):
                    parts.append('   %s:[\n%s]' % (one(k), ',\n'.join('    ' + one(x) for x in v)))
                else:
                    parts.append('   %s:%s' % (one(k), one(v)))
            lines[0] += (',' if len(lines[0]) > 3 else '') + '\n  "inventory":{\n' + \
                ',\n'.join(parts) + '}'
        out.append(lines[0] + '}' + (',' if i < len(rels) - 1 else ''))
    out.append(' ]')
    out.append('}')
    text = '\n'.join(out) + '\n'
    json.loads(text)  # still JSON
    return text


def load_data(engine):
    path = os.path.join(REPO, OUT[engine])
    if not os.path.exists(path):
        return None
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == 'oracle':
        import oracle
        return oracle.main(argv[1:])
    if argv and argv[0] == 'compare':
        import compare
        return compare.main(argv[1:])
    if argv and argv[0] == 'suggest':
        import suggest
        return suggest.main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('engines', nargs='*', choices=list(ENGINES) + [[]], default=[])
    ap.add_argument('--java-cp', help='kvcache.jar (or a classpath) holding api and spi; default:'
                    ' operator-runtime/target/kvcache.jar of this repository')
    ap.add_argument('--no-compare', action='store_true', help='write the data files only')
    opts = ap.parse_args(argv)
    engines = opts.engines or list(ENGINES)
    timings = {}
    t0 = time.time()
    for e in engines:
        records, _ = extract(e, timings)
        log('wrote', write_data(e, records))
    timings['_all'] = {'seconds': round(time.time() - t0, 1),
                       'cacheBytes': pypi.cache_size(), 'cache': pypi.cache_root()}
    p = os.path.join(HERE, 'last-run.json')
    old = {}
    if os.path.exists(p):
        with open(p) as f:
            old = json.load(f)
    old.update(timings)  # engines not run this time keep their last measurement
    timings = old
    with open(p, 'w') as f:
        json.dump(timings, f, indent=1, sort_keys=True)
        f.write('\n')
    log(json.dumps(timings, indent=1, sort_keys=True))
    if not opts.no_compare:
        import compare
        compare.main(['--java-cp', opts.java_cp] if opts.java_cp else [])


if __name__ == '__main__':
    main()

"""The comparison report: what each release's files say against what the Java engine modules claim
(spelling ranges, KV formats, flag inventories and their KV-format flags, dtype reports).

The Java side is read by compiling the engine modules' sources of this work tree against the api
and spi classes of a built kvcache.jar and running DumpEngines.java (nothing is changed).
    python3 tools/engine-facts/extract.py compare [--java-cp operator-runtime/target/kvcache.jar]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from packaging.version import Version

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import extract  # noqa: E402

ENGINE_CLASSES = {
    'vllm': ('ai.gpustack.kvcache.engine.vllm.VllmEngine', 'engine-vllm'),
    'sglang': ('ai.gpustack.kvcache.engine.sglang.SglangEngine', 'engine-sglang'),
    'lmdeploy': ('com.example.kvcache.lmdeploy.LmdeployEngine', 'examples/engine-lmdeploy'),
    'tensorrt-llm': ('com.example.kvcache.trtllm.TrtllmEngine', 'examples/engine-trtllm'),
}
# torch dtypes the release code assigns -> KvFormat ids of api/KvFormat.java
# element type of a KvFormat with scales, to compare with the torch dtype a release stores
ELEMENT = {'mxfp8': 'float8_e4m3fn', 'fp8_ds_mla': 'float8_e4m3fn',
           'float8_e4m3fn_per_token_head': 'float8_e4m3fn'}
TORCH_TO_FORMAT = {
    'torch.float8_e5m2': 'float8_e5m2', 'torch.float8_e4m3fn': 'float8_e4m3fn',
    'torch.float8_e4m3fnuz': 'float8_e4m3fnuz', 'torch.float8_e5m2fnuz': 'float8_e5m2fnuz',
    'torch.bfloat16': 'bfloat16', 'torch.float16': 'float16', 'torch.half': 'float16',
}


# ------------------------------------------------------------------------------ Java side
def java_side(java_cp=None):
    """DumpEngines.java's JSON for the four engines, compiled from this work tree's sources."""
    jar = java_cp or os.path.join(REPO, 'operator-runtime/target/kvcache.jar')
    if not os.path.exists(jar.split(os.pathsep)[0]):
        raise RuntimeError('no %s: build it (./mvnw -B -q -o package -pl operator-runtime -am'
                           ' -DskipTests) or pass --java-cp' % jar)
    annotations = sorted(glob.glob(os.path.expanduser(
        '~/.m2/repository/com/google/auto/service/auto-service-annotations/*/*.jar')))
    tmp = tempfile.mkdtemp(prefix='engine-facts-java-')
    try:
        lib = os.path.join(tmp, 'lib')
        classes = os.path.join(tmp, 'classes')
        os.makedirs(classes)
        cp = []
        for part in jar.split(os.pathsep):
            if part.endswith('.jar'):  # may carry a launcher prefix javac cannot read: unpack
                with zipfile.ZipFile(part) as z:
                    z.extractall(lib)
                cp.append(lib)
            else:
                cp.append(part)
        cp += annotations[-1:]
        sources = []
        for _, (cls, module) in ENGINE_CLASSES.items():
            for root, _, files in os.walk(os.path.join(REPO, module, 'src/main/java')):
                sources += [os.path.join(root, f) for f in files if f.endswith('.java')]
            res = os.path.join(REPO, module, 'src/main/resources')
            if os.path.isdir(res):
                shutil.copytree(res, classes, dirs_exist_ok=True)
        subprocess.run(['javac', '-proc:none', '-nowarn', '-d', classes, '-cp',
                        os.pathsep.join(cp)] + sources, check=True, capture_output=True,
                       cwd=tmp)
        out = subprocess.run(['java', '-cp', os.pathsep.join([classes] + cp),
                              os.path.join(HERE, 'DumpEngines.java')] +
                             [c for c, _ in ENGINE_CLASSES.values()], check=True,
                             capture_output=True, text=True, cwd=tmp).stdout
        data = json.loads(out)
        return {k: e for k, e in zip(ENGINE_CLASSES, data['engines'])}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------------------ helpers
def V(s):
    return Version(s)


def covers(row, version):
    v = V(version)
    return (row['from'] is None or v >= V(row['from'])) and \
        (row['until'] is None or v < V(row['until']))


def row_of(rows, version):
    for r in rows:
        if covers(r, version):
            return r
    return None


def rng(row):
    if row is None:
        return 'no row'
    return '[%s, %s)' % (row['from'] or '', row['until'] or '')


class Rows:
    """Disagreement rows grouped over consecutive releases."""

    def __init__(self):
        self.rows = []  # [versions, key, text]
        self.last = {}

    def add(self, index, version, key, text):
        prev = self.last.get(key)
        if prev is not None and prev[0] == index - 1:
            prev[1][0].append(version)
            self.last[key] = (index, prev[1])
            return
        row = [[version], key, text]
        self.rows.append(row)
        self.last[key] = (index, row)


def span(versions):
    if len(versions) == 1:
        return versions[0]
    if len(versions) <= 4:
        return ', '.join(versions)
    return '%s … %s (%d releases: %s)' % (versions[0], versions[-1], len(versions),
                                           ', '.join(versions))


def option_strings(flags):
    """Every option string a release's parser knows (long names, aliases, --no- forms)."""
    out = set()
    for f in flags.values():
        out.add(f['name'])
        out.update(f.get('aliases', []))
        for k in ('negative', 'inverse'):
            if f.get(k):
                out.add(f[k])
    return {s for s in out if isinstance(s, str) and s.startswith('--')}


def verdict(options, token):
    if token in options:
        return ('exact', token)
    c = sorted(o for o in options if o.startswith(token))
    if len(c) == 1:
        return ('unique', c[0])
    if not c:
        return ('none',)
    return ('ambiguous',) + tuple(c)


# ------------------------------------------------------------------------------ one engine
def compare_argparse_engine(engine, data, java):
    releases = data['releases']
    full = extract.expand(releases)
    spell = Rows()
    fmt = Rows()
    kv = Rows()
    prefix = Rows()
    prefix_amb = Rows()
    arity = Rows()
    report = Rows()
    notes = []
    read_flags = set(java['dtypeFlags']) | set(java['ownedFlags']) | set(java['listenFlags'])
    if engine == 'sglang':
        read_flags |= {'--enable-hierarchical-cache'}
    flag_index = 0
    for i, r in enumerate(releases):
        v = r['version']
        d = r.get('dtypeFlag')
        srow = row_of(java['spellings'], v)
        # ---- spellings
        if d is None:
            if srow is not None:
                spell.add(i, v, ('noflag', rng(srow)),
                          'Java row %s claims spellings, but the release has no --kv-cache-dtype'
                          ' in its serve parser' % rng(srow))
        else:
            rel = set(s for s in (d.get('spellings') or []) if isinstance(s, str))
            at = d.get('spellingsAt') or d.get('at')
            if srow is None:
                spell.add(i, v, ('norow', tuple(sorted(rel))),
                          'no Java row; the release accepts %s (%s)' % (
                              ' '.join(sorted(rel)), _file(at)))
            else:
                jv = set(srow['spellings'])
                refused = set((d.get('refusedAtStartup') or {}))
                missing = sorted(rel - jv - refused)
                extra = sorted(jv - rel)
                if missing:
                    why = []
                    for s_ in missing:
                        for n_ in ((d.get('deprecationNotes') or {}).get(s_) or [])[:1]:
                            why.append('the release itself says of `%s` at `%s`: "%s"' % (
                                s_, n_['at'], n_['text'][:160]))
                        if s_ in srow['source']:
                            why.append('the Java row\'s source mentions `%s`' % s_)
                    spell.add(i, v, ('missing', rng(srow), tuple(missing)),
                              'Java row %s lacks %s, which the release accepts (%s): an'
                              ' over-refusal%s' % (rng(srow), ' '.join(missing), _file(at),
                                                   ('; ' + '; '.join(why)) if why else ''))
                if extra:
                    spell.add(i, v, ('extra', rng(srow), tuple(extra)),
                              'Java row %s accepts %s, which the release does not (%s): its'
                              ' Pods would fail argument parsing' % (rng(srow), ' '.join(extra),
                                                                     _file(at)))
                if d.get('enforcedBy', '').startswith('after parsing') and \
                        (d.get('validatorAt') or '').split(':')[0] not in srow['source']:
                    spell.add(i, v, ('enforce',),
                              'argparse takes any value here (the annotation is `CacheDType |'
                              ' str`, %s); the spellings are checked after parsing by %s, and'
                              ' platform plugins can register more (%s)' % (
                                  _file(d.get('spellingsAt')), _file(d.get('validatorAt')),
                                  _file(d.get('pluginSpellings'))))
                # ---- formats the release states in code or in the flag's help
                for s, claim in code_formats(engine, r, releases, i).items():
                    j = srow['formats'].get(s)
                    if j is not None and claim[0] != j and ELEMENT.get(j) != claim[0] and \
                            j != 'model-dependent':
                        fmt.add(i, v, ('fmt', s, j, claim[0]),
                                '`%s`: Java says %s, the release says %s (%s)' % (
                                    s, j, claim[0], claim[1]))
        # ---- flag inventory
        flags = full.get(v, {})
        irow = row_of(java['inventories'], v)
        if not flags:
            continue
        if irow is None:
            if d is not None:
                kv.add(i, v, ('noinv',), 'no Java flag inventory covers this release')
            continue
        rel_opts = option_strings(flags)
        java_opts = {f['name'] for f in irow['flags']}
        # the kit requires the dtype, owned, listen and rendered flags in every inventory; a
        # release without them cannot attach a cache (it exits on the rendered flag)
        kit = (set(java['dtypeFlags']) | set(java['ownedFlags']) | set(java['listenFlags']) |
               set(irow.get('rendered', []))) & java_opts
        for f in sorted(kit - rel_opts):
            notes.append((v, f, rng(irow)))
        rel_opts = rel_opts | kit
        java_kv = {f['name'] for f in irow['flags'] if f['kvEffect']}
        rel_kv = {k['flag'] for k in r.get('kvFlags', []) if k['why'] == 'listed by the project'}
        rel_kv_all = {k['flag'] for k in r.get('kvFlags', [])}
        rel_kv_candidates = {k['flag'] for k in r.get('kvFlags', [])
                             if k['why'] != 'listed by the project'}
        for f in sorted(rel_kv - java_kv):
            kv.add(i, v, ('kvmissing', rng(irow), f),
                   'Java inventory %s does not mark `%s` as changing the KV format; the release'
                   ' has it (%s)' % (rng(irow), f, _file(flags.get(f, {}).get('at'))))
        for f in sorted(java_kv - rel_kv_all):
            kv.add(i, v, ('kvextra', rng(irow), f),
                   'Java inventory %s marks `%s`, which the release does not have' % (rng(irow), f))
        for f in sorted(rel_kv_candidates - java_kv):
            kv.add(i, v, ('kvcandidate', f),
                   '`%s` (%s): named like a KV-format flag, not in the Java inventory;'
                   ' review' % (f, _file(flags.get(f, {}).get('at'))))
        only = sorted(java_opts - rel_opts)
        if only:
            arity.add(i, v, ('javaonly', rng(irow), tuple(only)),
                      'Java inventory %s lists %s, which the release does not have' % (
                          rng(irow), ', '.join('`%s`' % f for f in only)))
        for jf in irow['flags']:
            rf = flags.get(jf['name'])
            if rf and rf['arity'] != jf['arity']:
                arity.add(i, v, ('arity', jf['name'], jf['arity'], rf['arity']),
                          '`%s`: Java arity %s, release %s (%s)' % (
                              jf['name'], jf['arity'], rf['arity'], _file(rf.get('at'))))
        # dialect
        jd = irow['dialect']
        flex = (r.get('parser') or {}).get('class') == 'FlexibleArgumentParser'
        if jd['underscores'] != flex:
            arity.add(i, v, ('dialect', rng(irow), jd['underscores'], flex),
                      'Java dialect %s says underscores=%s; the release parser is %s (%s)' % (
                          rng(irow), jd['underscores'], (r.get('parser') or {}).get('class'),
                          _file((r.get('parser') or {}).get('at'))))
        # prefix verdicts of the flags the project reads
        for t in sorted(read_flags | java_kv):
            if t not in rel_opts:
                continue
            for n in range(3, len(t) + 1):
                tok = t[:n]
                rv, jvd = verdict(rel_opts, tok), verdict(java_opts, tok)
                if (rv[0] in ('exact', 'unique')) != (jvd[0] in ('exact', 'unique')) or \
                        (rv[0] in ('exact', 'unique') and rv[1] != jvd[1]):
                    if rv[0] == 'ambiguous':
                        needed = sorted(set(rv[1:]) - java_opts)
                        what = ('`%s`: the release exits on it (ambiguous among %d options);'
                                ' the Java inventory reads it as `%s`; it lacks %s' % (
                                    tok, len(rv) - 1, jvd[1] if len(jvd) > 1 else '?',
                                    ', '.join('`%s`' % x for x in needed[:6]) +
                                    (' and %d more' % (len(needed) - 6) if len(needed) > 6
                                     else '')))
                        prefix_amb.add(i, v, ('prefix', t, tuple(needed)), what)
                        break
                    else:
                        what = ('`%s` reads as `%s` in the release; the Java inventory says %s'
                                % (tok, rv[1] if len(rv) > 1 else '-',
                                   ' '.join(jvd[:1]) + (' (' + ', '.join(jvd[1:]) + ')'
                                                        if len(jvd) > 1 else '')))
                        key = ('prefix2', t, tok)
                    prefix.add(i, v, key, what)
                    break  # the shortest disagreeing prefix per read flag is enough
        # ---- dtype report
        compare_report(engine, i, r, java, report)
    return {'spellings': spell.rows, 'formats': fmt.rows, 'kvFlags': kv.rows,
            'prefixes': prefix.rows, 'prefixesAmbiguous': prefix_amb.rows, 'inventory': arity.rows, 'reports': report.rows,
            'notes': notes}


def _file(at):
    return '`%s`' % at if at else 'n/a'


HELP_FP8 = [
    (re.compile(r'fp8 \(=fp8_e4m3\)', re.I), 'fp8', 'float8_e4m3fn'),
    (re.compile(r'FP8_E5M2 \(without scaling\)', re.I), 'fp8', 'float8_e5m2'),
]


def code_formats(engine, r, releases, i):
    """spelling -> (KvFormat id, where) the release states: its flag help text (vLLM: what fp8
    means) and the torch dtypes its code assigns per spelling (the default-platform branch)."""
    out = {}
    help_text, help_at = None, None
    for j in range(i, -1, -1):  # help is stored only where it changed
        h = (releases[j].get('dtypeFlag') or {}).get('help')
        if h:
            help_text, help_at = h, (releases[j].get('dtypeFlag') or {}).get('at')
            break
    spellings = set((r.get('dtypeFlag') or {}).get('spellings') or [])
    if help_text and 'fp8' in spellings:
        for rx, s, f in HELP_FP8:
            if rx.search(help_text):
                out[s] = (f, 'the flag\'s help in %s: "%s"' % (help_at, rx.pattern.replace('\\', '')))
                break
    branches = None
    for j in range(i, -1, -1):
        if releases[j].get('dtypeBranches') is not None:
            branches = releases[j]['dtypeBranches']
            break
        if 'dtypeBranches' not in (releases[j].get('unchangedSincePrevious') or []):
            break
    if engine == 'sglang' and branches:
        for s, hits in branches.items():
            if s not in spellings:
                continue
            stores = [x for h in hits for x in h['stores']]
            fmts = {TORCH_TO_FORMAT[x] for x in stores if x in TORCH_TO_FORMAT}
            plain = {f for f in fmts if not f.endswith('fnuz')}
            if len(plain) == 1:
                out[s] = (plain.pop(), 'the release assigns %s at %s' % (
                    ', '.join(sorted(stores)[:3]), hits[0]['at']))
    return out


def compare_report(engine, i, r, java, rows):
    v = r['version']
    rep = r.get('report') or {}
    jrows = [x for x in java['reports'] if covers(x, v)]
    if engine == 'vllm':
        has = any(k.startswith('vllm:cache_config') for k in rep)
        if jrows and not has:
            rows.add(i, v, ('nometric',), 'Java reads `vllm:cache_config_info` here; the release'
                     ' defines no cache-config metric')
        if has and not jrows:
            rows.add(i, v, ('norow',), 'the release defines %s, Java has no report row' % (
                ', '.join('`%s` (%s)' % (k, rep[k]['at'][0]) for k in rep if k.startswith('vllm:'))))
        if has and jrows:
            labels = rep.get('labels') or {}
            if labels and not labels.get('cacheDtypeLabel', True):
                rows.add(i, v, ('nolabel',), 'CacheConfig has no `cache_dtype` field here (%s)'
                         % labels.get('from'))
        if rep.get('autoResolvedBeforeReport') and not any(
                rep['autoResolvedBeforeReport'].split(':')[0] in x['source'] for x in jrows):
            rows.add(i, v, ('resolved',),
                     '`auto` is resolved to a concrete dtype before CacheConfig is built (%s), so'
                     ' the `cache_dtype` label reports the resolved spelling, not the one passed'
                     % rep['autoResolvedBeforeReport'])
    elif engine == 'sglang':
        routes = (rep or {}).get('routes') or {}
        jpaths = {x['path'] for x in jrows}
        for p in sorted(jpaths - set(routes)):
            rows.add(i, v, ('jonly', p), 'Java reads `%s`, which the release does not serve' % p)
        for p in sorted(set(routes) - jpaths):
            if routes[p].get('deprecated') and any(p in x['source'] for x in jrows):
                continue  # a deprecated alias the Java row names
            rows.add(i, v, ('ronly', p), 'the release serves `%s` (%s), which no Java report row'
                     ' for this release reads' % (p, routes[p]['at']))


def compare_lmdeploy(data, java):
    rows = Rows()
    tsv = os.path.join(REPO, 'examples/engine-lmdeploy/src/main/resources/com/example/kvcache/'
                             'lmdeploy/api_server-flags.tsv')
    for i, r in enumerate(data['releases']):
        v = r['version']
        qp = (r.get('quantPolicy') or {})
        if not qp:
            if row_of(java['spellings'], v):
                rows.add(i, v, ('noqp',), 'Java has a row; the release could not be read: %s' % (
                    '; '.join(r.get('problems', []))))
            continue
        accepted = set(k for k in qp.get('accepted', {}) if k == k.lower())
        srow = row_of(java['spellings'], v)
        if srow is None:
            rows.add(i, v, ('norow',), 'no Java row; --quant-policy accepts %s' % (
                ' '.join(sorted(accepted))))
            continue
        jv = set(srow['spellings'])
        if qp.get('anyInteger'):
            accepted = {a for a in accepted}  # any integer: compare the listed candidates only
        miss, extra = sorted(accepted - jv), sorted(jv - accepted)
        if miss:
            rows.add(i, v, ('miss', rng(srow), tuple(miss)),
                     'Java row %s lacks %s (the release accepts them; `%s`)' % (
                         rng(srow), ' '.join(miss), qp.get('at')))
        if extra and not qp.get('anyInteger'):
            rows.add(i, v, ('extra', rng(srow), tuple(extra)),
                     'Java row %s accepts %s; the release does not (`%s`)' % (
                         rng(srow), ' '.join(extra), qp.get('at')))
        irow = row_of(java['inventories'], v)
        flags = extract.expand(data['releases']).get(v, {})
        if irow is not None and flags:
            jf = {f['name']: f['arity'] for f in irow['flags']}
            rf = {n: f['arity'] for n, f in flags.items()}
            if jf != rf:
                diff = sorted(set(jf.items()) ^ set(rf.items()))
                rows.add(i, v, ('inv', rng(irow), tuple(diff)),
                         'flag inventory %s differs from the release: %s' % (
                             rng(irow), ', '.join('%s %s' % d for d in diff[:12])))
    return {'spellings': rows.rows}


# ------------------------------------------------------------------------------ report
def render(results, datas, java_note, timings, oracle):
    L = ['# Engine facts: release files against the Java engine tables', '',
         'Generated by `python3 tools/engine-facts/extract.py` (see README.md). Every row names',
         'the release(s), the file and line inside that release\'s PyPI file, and what disagrees.',
         'Consecutive releases with the same disagreement share a row. Nothing here changes the',
         'Java modules; ReleaseFactsTest (engine-tck) makes the same comparison in every build.', '']
    if java_note:
        L += ['**Java side:** ' + java_note, '']
    if timings:
        a = timings.get('_all', {})
        L += ['## The run', '',
              '| engine | releases on PyPI | read without a problem noted | fetch s | read s | bytes |',
              '|---|---|---|---|---|---|']
        for e in extract.ENGINES:
            t = timings.get(e)
            d = datas.get(e)
            if t and d:
                ok = sum(1 for r in d['releases'] if not r.get('problems') or r.get('flags') or
                         r.get('quantPolicy'))
                L.append('| %s | %d | %d | %s | %s | %d |' % (
                    e, t['releases'], ok, t['fetchSeconds'], t['readSeconds'], t['bytes']))
        L += ['', 'Whole run %s s; cache %s holds %.2f GB.' % (
            a.get('seconds'), a.get('cache'), (a.get('cacheBytes') or 0) / 1e9), '']
    for e in extract.ENGINES:
        d = datas.get(e)
        if not d:
            continue
        probs = [(r['version'], p) for r in d['releases'] for p in r.get('problems', [])]
        if probs and e != 'tensorrt-llm':
            L += ['### Releases of %s not (fully) read' % e, '']
            grouped = {}
            for v, p in probs:
                grouped.setdefault(p, []).append(v)
            for p, vs in grouped.items():
                L.append('- %s: %s' % (span(vs), p))
            L.append('')
    sections = [('spellings', 'Spellings (DtypeSpellings rows)'),
                ('formats', 'KV format per spelling'),
                ('kvFlags', 'Flags that change the KV representation'),
                ('prefixes', 'Prefixes of a flag the project reads that the release reads as that'
                 ' flag (or another one) while the Java inventory does not'),
                ('prefixesAmbiguous', 'Prefixes the release refuses as ambiguous that the Java'
                 ' inventory resolves (the engine exits on them anyway; the Java reader only'
                 ' names them wrongly)'),
                ('inventory', 'Flag inventory and dialect'),
                ('reports', 'Dtype report')]
    for e in ('vllm', 'sglang'):
        res = results.get(e)
        if not res:
            continue
        L += ['## %s' % e, '']
        kit = {}
        for v, f, row in res.get('notes') or []:
            kit.setdefault((f, row), []).append(v)
        if kit:
            L += ['### Listed for the contract kit, absent from the release (%d rows)' % len(kit), '',
                  'The kit requires every dtype, owned, listen and rendered flag in every'
                  ' inventory; these releases lack the flag, so no cache attaches to them (the'
                  ' engine would exit on it). ReleaseFactsTest allows exactly these.', '',
                  '| releases | flag | Java inventory |', '|---|---|---|']
            for (f, row), vs in kit.items():
                L.append('| %s | `%s` | %s |' % (span(vs), f, row))
            L.append('')
        for key, title in sections:
            rows = res.get(key) or []
            L += ['### %s (%d rows)' % (title, len(rows)), '']
            if not rows:
                L += ['No disagreement.', '']
                continue
            L += ['| releases | disagreement |', '|---|---|']
            for versions, _, text in rows:
                L.append('| %s | %s |' % (span(versions), text.replace('|', '\\|')))
            L.append('')
    if results.get('lmdeploy'):
        rows = results['lmdeploy']['spellings']
        L += ['## lmdeploy', '', '`--quant-policy` values and the api_server flag list, from each'
              ' PyPI wheel, against LmdeployEngine (which reads the TSV grouped from them).', '']
        if rows:
            L += ['| releases | disagreement |', '|---|---|']
            for versions, _, text in rows:
                L.append('| %s | %s |' % (span(versions), text.replace('|', '\\|')))
        else:
            L.append('No disagreement.')
        L.append('')
    d = datas.get('tensorrt-llm')
    if d:
        backends = {}
        for r in d['releases']:
            key = (r.get('buildBackend'), r.get('redirectsTo'), r.get('packageFiles'))
            backends.setdefault(key, []).append(r['version'])
        L += ['## tensorrt-llm', '',
              'Skipped: every file PyPI holds for `tensorrt-llm` is a placeholder sdist without'
              ' any `tensorrt_llm` source; its build backend fetches the real wheel from NVIDIA\'s'
              ' own index at install time, which this machine cannot reach (only PyPI). Per'
              ' release:', '']
        for (b, idx, py), vs in backends.items():
            L.append('- %s, %s `tensorrt_llm` .py files: %s' % (
                'build backend `%s` (index %s)' % (b, idx or 'not named') if b else
                'setup.py placeholder with ERROR.txt', py, span(vs)))
        L.append('')
    if oracle:
        L += ['## The argparse oracle: each release\'s own parser, run with stubbed imports', '',
              '`python3 tools/engine-facts/extract.py oracle ENGINE` builds the release\'s serve'
              ' parser from its own code (third-party imports stubbed, no torch) and compares it'
              ' with the AST inventory above.', '',
              '| engine | release | ran | parser | dialect probe | --kv-cache-dtype values'
              ' argparse accepts (probed) | AST vs run |',
              '|---|---|---|---|---|---|---|']
        for e in sorted(k for k in oracle if k != CASES_KEY):
            for v in sorted(oracle[e], key=V):
                o = oracle[e][v]
                if o.get('ran'):
                    diff = o.get('diff') or {}
                    dd = 'agree (%d flags)' % o['count'] if not any(diff.values()) else \
                        '; '.join('%s: %s' % (k, ', '.join(x)) for k, x in diff.items() if x)
                    dt = o.get('dtype') or {}
                    acc = dt.get('accepted')
                    if acc is None:
                        acc_s = 'no flag'
                    elif dt.get('choices') is None:
                        acc_s = 'any string (%s)' % ' '.join(acc)
                    else:
                        acc_s = ' '.join(acc)
                    L.append('| %s | %s | yes | %s | underscores=%s dotted=%s abbrev=%s | %s | %s |'
                             % (e, v, o.get('parser'), o.get('underscores'), o.get('dotted'),
                                o.get('abbrev'), acc_s, dd.replace('|', '\\|')))
                else:
                    L.append('| %s | %s | no | | | | %s |' % (e, v, (o.get('why') or '').replace(
                        '|', '\\|')))
        L.append('')
    if oracle and oracle.get(CASES_KEY):
        L += cases_section(oracle[CASES_KEY])
    return '\n'.join(L) + '\n'


CASES_KEY = 'releaseParsersOnGeneratedCases'
CASES_TITLE = '### The releases\' own parsers on the generated cases'


def _answer(v):
    if 'error' in v:
        return '%s %s' % (v['error'], v.get('option') or
                          (' '.join(v['candidates'][:4]) + (' ...' if len(v['candidates']) > 4
                                                            else '') if v.get('candidates')
                           else v.get('message', '')))
    return (', '.join('%s=%s' % (k, x) for k, x in v['values'].items() if x is not None) or
            'none set') + (' (then exits: unrecognized arguments %s)' % ' '.join(v['leftover'])
                           if v.get('leftover') else '')


def cases_section(data):
    """Markdown for oracle.py --cases: per engine, per range, the first and last release."""
    L = [CASES_TITLE, '',
         'ArgparseDifferentialTest\'s generated cases (written with'
         ' `-Dkvcache.argparse.cases=DIR`, with what the Java FlagReader read) run through the'
         ' first and last release of each range\'s own serve parser'
         ' (`python3 tools/engine-facts/extract.py oracle ENGINE --cases DIR`): the entry point a'
         ' user runs, its own `parse_args` (vLLM: FlexibleArgumentParser\'s underscore, dotted'
         ' and `--config` handling), choices and type conversions removed and the targets\''
         ' defaults unset so that only what the argv sets counts, leftover arguments ignored as'
         ' argparse_oracle.py\'s `parse_known_args` does. A case is compared as'
         ' ArgparseDifferentialTest compares it (a release error other than a missing value or'
         ' an ambiguous prefix of a target does not bear on the reader); an ambiguous prefix'
         ' agrees when the reader\'s candidates are among the release\'s (the inventory lists'
         ' only the options that decide a prefix), a dotted member when the reader\'s value is'
         ' a leaf of the JSON vLLM folds it into.', '']
    for engine in sorted(data):
        d = data[engine]
        L += ['#### %s (%d ranges, wall %s s, %s at once)' % (
            engine, len(d['ranges']), d.get('wallSeconds'), d.get('jobs', 1)), '',
            '| range | release | cases | compared | agree | mismatch | release errors'
            ' (not bearing unless on a target) | notes |', '|---|---|---|---|---|---|---|---|']
        shown = []
        for r in d['ranges']:
            if r.get('noRelease'):
                L.append('| %s | none on PyPI in the cache | %d | | | | | |' % (
                    r['versions'], r['caseCount']))
            for v, o in r['releases'].items():
                if not o.get('ran'):
                    L.append('| %s | %s | %d | not run | | | | %s |' % (
                        r['versions'], v, r['caseCount'],
                        (o.get('why') or '').replace('|', '\\|')))
                    continue
                kinds = ', '.join('%s %d' % kv for kv in sorted(o['kinds'].items())
                                  if kv[0] != 'value')
                notes = []
                if o.get('targetsAbsent'):
                    notes.append('targets the release lacks (not compared): %s' %
                                 ' '.join(o['targetsAbsent']))
                if o.get('candidatesDiffer'):
                    notes.append('%d ambiguous with more candidates in the release' %
                                 o['candidatesDiffer'])
                if o.get('dottedJson'):
                    notes.append('%d dotted values folded into JSON' % o['dottedJson'])
                for m, n in sorted(o.get('mismatchKinds', {}).items()):
                    notes.append('**%d mismatches: %s**' % (n, m))
                for m, n in sorted(o.get('exceptions', {}).items()):
                    notes.append('%d raised %s' % (n, ' '.join(m.split())))
                notes.append('argv after `%s`, Python %s, %s s' % (
                    ' '.join(o.get('lead') or []) or '(nothing)', o.get('python'),
                    o.get('seconds')))
                L.append('| %s | %s | %d | %d | %d | %d | %s | %s |' % (
                    r['versions'], v, o['cases'], o['compared'], o['agree'], o['mismatch'],
                    kinds or 'none', '; '.join(notes).replace('|', '\\|')))
                for m in o['mismatches']:
                    shown.append((r['versions'], v, m))
        L.append('')
        if shown:
            L += ['First mismatches (at most %d per release):' % 6, '',
                  '| range | release | argv | release\'s parser | reader | why |',
                  '|---|---|---|---|---|---|']
            for rng_, v, m in shown:
                reader = _answer(m['reader']) + (' (ambiguous: %s)' % ', '.join(
                    m['reader']['ambiguous']) if m['reader'].get('ambiguous') else '')
                cells = [rng_, v, '`%s`' % ' '.join(m['argv']), _answer(m['release']), reader,
                         '; '.join(m['why'])]
                L.append('| %s |' % ' | '.join(c.replace('|', '\\|') for c in cells))
            L.append('')
    return L


def splice_cases_section(data):
    """Replaces (or appends) the cases section of comparison.md without regenerating the rest."""
    p = os.path.join(HERE, 'comparison.md')
    with open(p, encoding='utf-8') as f:
        text = f.read()
    section = '\n'.join(cases_section(data)) + '\n'
    start = text.find(CASES_TITLE)
    if start < 0:
        text = text.rstrip('\n') + '\n\n' + section
    else:
        end = text.find('\n## ', start)
        text = text[:start] + section + (text[end + 1:] if end >= 0 else '')
    with open(p, 'w', encoding='utf-8') as f:
        f.write(text)


def main(argv):
    ap = argparse.ArgumentParser(prog='extract.py compare')
    ap.add_argument('--java-cp')
    ap.add_argument('--java-json', help='use this DumpEngines output instead of compiling')
    opts = ap.parse_args(argv)
    datas = {e: extract.load_data(e) for e in extract.ENGINES}
    java, note = None, None
    try:
        if opts.java_json:
            with open(opts.java_json) as f:
                java = json.load(f)
        else:
            java = java_side(opts.java_cp)
        note = ('compiled from this work tree\'s engine sources against %s' % (
            opts.java_json or opts.java_cp or 'operator-runtime/target/kvcache.jar'))
    except Exception as e:
        note = 'not available (%s); only the release facts are listed' % e
    results = {}
    if java:
        for e in ('vllm', 'sglang'):
            if datas.get(e):
                results[e] = compare_argparse_engine(e, datas[e], java[e])
        if datas.get('lmdeploy'):
            results['lmdeploy'] = compare_lmdeploy(datas['lmdeploy'], java['lmdeploy'])
    timings = None
    p = os.path.join(HERE, 'last-run.json')
    if os.path.exists(p):
        with open(p) as f:
            timings = json.load(f)
    oracle = None
    p = os.path.join(HERE, 'oracle-results.json')
    if os.path.exists(p):
        with open(p) as f:
            oracle = json.load(f)
    text = render(results, datas, note, timings, oracle)
    with open(os.path.join(HERE, 'comparison.md'), 'w', encoding='utf-8') as f:
        f.write(text)
    print('wrote tools/engine-facts/comparison.md', file=sys.stderr)

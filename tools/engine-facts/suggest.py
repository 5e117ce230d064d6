"""Proposed table rows for an engine module, from its release-facts.json: the spelling ranges
(consecutive releases accepting the same spellings) and the flag-inventory ranges (consecutive
releases whose parser reads the flags the project reads the same way), each with the release and
file:line that starts it.  It writes nothing: the module's tables are code a person writes from this,
and ReleaseFactsTest (engine-tck) compares them with the same data file in every build.

    python3 tools/engine-facts/extract.py suggest vllm
    python3 tools/engine-facts/extract.py suggest sglang

An inventory holds, per range: the flags the project reads (READS below: the module's dtype, owned,
listen and defaulted flags, plus the flags that change the KV format); every option sharing a
prefix of three characters or more with a dtype flag (an ambiguous prefix of it is refused naming
every candidate); and, for each other read flag, one option sharing its longest common prefix with
it (so every prefix resolves as the release resolves it: the same flag, or ambiguous).  Flags the
module renders or owns that a release lacks stay listed (the contract kit requires them in every
inventory; such a release cannot attach a cache).  Options with nargs='?' are avoided as
witnesses (FlagArity cannot say so).  Ranges are as long as one such list serves every release in
them.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import extract  # noqa: E402

# What the Java module reads on each engine: Engine.dtypeFlags(), ownedFlags(), listenFlags() and
# the flags its attachment renders (connector and defaulted args).  A new engine adds a line.
READS = {
    'vllm': {'dtype': ['--kv-cache-dtype'], 'other': ['--kv-transfer-config', '--host', '--port'],
             'rendered': {'--kv-transfer-config': 'ONE'}},
    'sglang': {'dtype': ['--kv-cache-dtype'],
               'other': ['--hicache-storage-backend', '--hicache-storage-backend-extra-config',
                         '--host', '--port', '--enable-hierarchical-cache'],
               'rendered': {'--hicache-storage-backend': 'ONE',
                            '--hicache-storage-backend-extra-config': 'ONE',
                            '--enable-hierarchical-cache': 'NONE'}},
}


def options(flags):
    out = {}
    for f in flags.values():
        out[f['name']] = f['arity']
        for a in f.get('aliases', []):
            out[a] = f['arity']
        for k in ('negative', 'inverse'):
            if f.get(k):
                out[f[k]] = 'NONE'
    return {k: v for k, v in out.items() if k.startswith('--')}


def common(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def needs(opts, dtype, other):
    """flag -> (kind, key, choices): what the inventory must hold for that flag's prefixes."""
    out = {}
    for t in dtype:
        out[t] = ('all', tuple(sorted(o for o in opts if o != t and common(o, t) >= 3)), ())
    for t in other:
        others = [o for o in opts if o != t]
        m = max([common(o, t) for o in others] + [0])
        exact = tuple(sorted(o for o in others if t.startswith(o)))
        witnesses = tuple(sorted(o for o in others if common(o, t) == m)) if m >= 3 else ()
        out[t] = ('witness', (m if m >= 3 else 0, exact), witnesses)
    return out


def rows(engine, data):
    cfg = READS[engine]
    full = extract.expand(data['releases'])
    out = []
    for r in data['releases']:
        if not r.get('dtypeFlag'):
            continue
        opts = options(full[r['version']])
        for k, arity in cfg['rendered'].items():
            opts.setdefault(k, arity)
        kv = tuple(sorted(k['flag'] for k in r.get('kvFlags', [])))
        p = r.get('parser') or {}
        dialect = (p.get('class'), bool(p.get('dottedMembersAt')))
        other = [t for t in cfg['other'] + list(kv) if t in opts]
        out.append({'release': r, 'opts': opts, 'kv': kv, 'dialect': dialect,
                    'need': needs(opts, cfg['dtype'], other)})
    return out


def feasible(seg, prefer):
    """The inventory serving every release of seg, or None."""
    if len({(x['kv'], x['dialect']) for x in seg}) > 1:
        return None
    first = seg[0]['need']
    for x in seg[1:]:
        if {t: n[:2] for t, n in x['need'].items()} != {t: n[:2] for t, n in first.items()}:
            return None
    shared = set(seg[0]['opts'].items())
    for x in seg[1:]:
        shared &= set(x['opts'].items())
    shared = dict(shared)
    inv = {}
    for t, (kind, key, witnesses) in first.items():
        if t not in shared:
            return None
        inv[t] = shared[t]
        if kind == 'all':
            for o in key:
                if o not in shared:
                    return None
                inv[o] = shared[o]
            continue
        m, exact = key
        for e in exact:
            if e not in shared:
                return None
            inv[e] = shared[e]
        if m:
            ok = [w for w in witnesses if w in shared and shared[w] != 'OPTIONAL']
            if not ok:
                return None
            w = next((w for w in ok if w in prefer), ok[0])
            inv[w] = shared[w]
    return inv


def inventory_ranges(engine, data):
    rs = rows(engine, data)
    out, i, prev = [], 0, {}
    while i < len(rs):
        j = i + 1
        while j < len(rs) and feasible(rs[i:j + 1], prev) is not None:
            j += 1
        inv = feasible(rs[i:j], prev)
        out.append((rs[i], rs[j]['release']['version'] if j < len(rs) else None, inv))
        prev, i = inv, j
    return out


def spelling_ranges(data):
    out, prev = [], None
    for r in data['releases']:
        d = r.get('dtypeFlag')
        key = (tuple(d['spellings']), tuple(sorted(d.get('refusedAtStartup') or {})),
               d.get('enforcedBy')) if d else None
        if key != prev:
            out.append(r)
        prev = key
    return out


def main(argv):
    engine = argv[0] if argv else 'vllm'
    data = extract.load_data(engine)
    print('# %s: spelling ranges' % engine)
    before = set()
    for r in spelling_ranges(data):
        d = r.get('dtypeFlag')
        if not d:
            print('%s  no %s' % (r['version'], 'flag'))
            continue
        now = set(d['spellings'])
        print('%s  %s: %s  +%s -%s  (%s)%s%s' % (
            r['version'], r['file'], d.get('spellingsAt'), sorted(now - before),
            sorted(before - now), d.get('enforcedBy'),
            '  validator %s' % d['validatorAt'] if d.get('validatorAt') else '',
            '  refused at startup %s' % json.dumps(d['refusedAtStartup'])
            if d.get('refusedAtStartup') else ''))
        before = now
    print('\n# %s: inventory ranges' % engine)
    prev = {}
    full = extract.expand(data['releases'])
    for first, until, inv in inventory_ranges(engine, data):
        r = first['release']
        p = r.get('parser') or {}
        print('[%s, %s)  %s  parser %s %s underscores %s dotted %s  kv %s' % (
            r['version'], until or '', r['file'], p.get('class'), p.get('at'),
            p.get('underscoresAsDashesAt'), p.get('dottedMembersAt'), list(first['kv'])))
        for name in sorted(set(inv) - set(prev)):
            at = (full[r['version']].get(name) or {}).get('at', 'rendered by the module')
            print('    + %s %s  %s' % (name, inv[name], at))
        for name in sorted(set(prev) - set(inv)):
            print('    - %s' % name)
        prev = inv


if __name__ == '__main__':
    main(sys.argv[1:])

"""Per-release facts of vLLM and SGLang, read from the AST of the release's own files."""
import ast
import re

import parsers
from astkit import LiteralType, Resolver, Unknown, functions, jsonable, text

# Flags this project already treats as changing the KV representation (FlagSpec.withKvEffect).
KNOWN_KV_FLAGS = ('--calculate-kv-scales', '--kv-cache-dtype-skip-layers',
                  '--quantization-param-path', '--config')
# Any other flag whose name says it touches the KV cache's bytes is listed for review.
KV_NAME = re.compile(r'kv[-_]?cache[-_](dtype|recipe|layout|quant|scale)|kv[-_]scale|kv[-_]quant|'
                     r'fp[48][-_]kv|kv[-_]fp[48]|kv[-_]dtype')
DTYPE_FLAG = '--kv-cache-dtype'


def _flag_json(f):
    longs = f.longs
    name = longs[0] if longs else (f.strings[0] if f.strings else None)
    out = {'name': name if isinstance(name, str) else jsonable(name), 'at': f.at,
           'arity': f.arity()}
    if len(longs) > 1:
        out['aliases'] = longs[1:]
    if f.shorts:
        out['short'] = f.shorts
    if any(isinstance(s, Unknown) for s in f.strings):
        out['unresolvedNames'] = [s.text for s in f.strings if isinstance(s, Unknown)]
    for k in ('action', 'nargs', 'choices', 'default', 'metavar', 'const'):
        if k in f.kwargs:
            v = f.kwargs[k]
            if k == 'action' and isinstance(v, Unknown):
                v = v.text
            out[k] = jsonable(v)
    if f.kwargs.get('**') is not None:
        out['unresolvedKwargs'] = f.kwargs['**'].text
    if f.conditional:
        out['conditional'] = True
    if f.generated:
        out['from'] = f.generated
    act = out.get('action')
    if isinstance(act, str) and ('BooleanOptionalAction' in act or 'EnableDisableAction' in act) \
            and name and name.startswith('--'):
        out['negative'] = '--no-' + name[2:]
        if 'EnableDisableAction' in act:  # vLLM 0.33+: --enable-x pairs with --disable-x
            for a, b in (('--enable-', '--disable-'), ('--disable-', '--enable-')):
                if name.startswith(a):
                    out['inverse'] = b + name[len(a):]
    return out


def action_arity(rel, res, name, depth=0):
    """The arity of a custom argparse Action class, read from its definition."""
    short = name.split('.')[-1]
    if short in ('_StoreTrueAction', '_StoreFalseAction', '_StoreConstAction', '_CountAction',
                 '_HelpAction', '_VersionAction', '_AppendConstAction', 'BooleanOptionalAction'):
        return 'NONE'
    if short in ('_StoreAction', '_AppendAction', '_ExtendAction', 'Action'):
        return 'ONE'
    found = _class(rel, res, short)
    if found is None or depth > 4:
        return None
    path, cls = found
    src = ast.get_source_segment(rel.files[path], cls) or ''
    m = re.search(r"nargs\s*=\s*(0|'[?+*]'|\"[?+*]\")", src)
    if m:
        v = m.group(1).strip('\'"')
        return {'0': 'NONE', '?': 'OPTIONAL', '+': 'ONE_OR_MORE', '*': 'ZERO_OR_MORE'}[v]
    for b in cls.bases:
        r = action_arity(rel, res, text(b), depth + 1)
        if r:
            return r
    return 'ONE'


def inventory(flags, rel=None, res=None, add_help=True):
    """Flags keyed by canonical name; a name registered twice keeps its first registration and
    notes the others (argparse would raise on a real conflict).  argparse's own -h/--help is
    added unless the parser is built with add_help=False."""
    out, dupes = {}, []
    if add_help:
        out['--help'] = {'name': '--help', 'short': ['-h'], 'arity': 'NONE', 'action': 'help',
                         'at': 'argparse.ArgumentParser(add_help=True)'}
    for f in flags:
        if f.strings and all(isinstance(x, str) and not x.startswith('-') for x in f.strings):
            continue  # a positional (model_tag), not an option
        j = _flag_json(f)
        if j['arity'].startswith('ACTION:') and 'nargs' in f.kwargs and f.kwargs['nargs'] is None:
            j['arity'] = 'ONE'  # an explicit nargs=None overrides the Action class's own default
        if j['arity'].startswith('ACTION:') and rel is not None:
            a = action_arity(rel, res, j['arity'][len('ACTION:'):])
            if a:
                j['arity'] = a
        if not isinstance(j['name'], str):
            dupes.append('unnamed flag at %s' % j['at'])
            continue
        if j['name'] in out:
            dupes.append('%s at %s and %s' % (j['name'], out[j['name']]['at'], j['at']))
            continue
        out[j['name']] = j
    return [out[k] for k in sorted(out)], dupes


def kv_flags(inv):
    out = []
    for f in inv:
        names = [f['name']] + f.get('aliases', [])
        if any(n in KNOWN_KV_FLAGS for n in names):
            out.append({'flag': f['name'], 'at': f['at'], 'why': 'listed by the project'})
        elif f['name'] != DTYPE_FLAG and any(KV_NAME.search(n) for n in names):
            out.append({'flag': f['name'], 'at': f['at'], 'why': 'name mentions the KV cache'})
    return out


def if_chain_map(rel, res, path_filter, subject=re.compile(r'kv_cache_dtype$|cache_dtype$')):
    """spelling -> [assigned expressions] from `if X.kv_cache_dtype == "s": y = <expr>` chains,
    with the file:line of each comparison."""
    out = {}
    for path in sorted(rel.files):
        if not path_filter(path) or '/test' in path or 'mamba' in path:
            continue
        src = rel.files[path]
        if 'kv_cache_dtype' not in src and 'cache_dtype' not in src:
            continue
        try:
            tree = rel.tree(path)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
                continue
            t = node.test
            if len(t.ops) != 1 or not subject.search(text(t.left)):
                continue
            if isinstance(t.ops[0], ast.Eq) and isinstance(t.comparators[0], ast.Constant):
                spellings = [t.comparators[0].value]
            elif isinstance(t.ops[0], ast.In) and isinstance(t.comparators[0],
                                                             (ast.Tuple, ast.List, ast.Set)):
                spellings = [e.value for e in t.comparators[0].elts if isinstance(e, ast.Constant)]
            else:
                continue
            exprs = []
            for sub in node.body:
                for n in ast.walk(sub):
                    if isinstance(n, ast.Assign) and any(
                            re.search(r'kv_cache_dtype$|cache_dtype$|dtype$', text(x))
                            for x in n.targets):
                        exprs.append(text(n.value))
                    elif isinstance(n, ast.Return) and n.value is not None:
                        exprs.append(text(n.value))
            if not exprs:
                continue
            for s in spellings:
                if isinstance(s, str):
                    out.setdefault(s, []).append({'at': '%s:%d' % (path, node.lineno),
                                                  'stores': exprs[:4]})
    return out


def refusing_branches(rel, path_filter, subject=re.compile(r'kv_cache_dtype$|cache_dtype$')):
    """spelling -> [{at, text}] for `if <dtype> == "s": raise ...` whose body starts by raising:
    a spelling the parser takes that the release refuses once it starts."""
    out = {}
    for path in sorted(rel.files):
        if not path_filter(path) or '/test' in path:
            continue
        src = rel.files[path]
        if 'raise' not in src or 'cache_dtype' not in src:
            continue
        try:
            tree = rel.tree(path)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
                continue
            t = node.test
            if len(t.ops) != 1 or not isinstance(t.ops[0], ast.Eq) or \
                    not subject.search(text(t.left)) or \
                    not isinstance(t.comparators[0], ast.Constant) or \
                    not node.body or not isinstance(node.body[0], ast.Raise):
                continue
            exc = node.body[0].exc
            msg = ''
            if isinstance(exc, ast.Call) and exc.args:
                parts = [a.value for a in ast.walk(exc.args[0])
                         if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                msg = ''.join(parts)
            out.setdefault(t.comparators[0].value, []).append(
                {'at': '%s:%d' % (path, node.lineno), 'text': msg[:200]})
    return out


def dict_maps(rel, res, names):
    """Module-level dicts such as STR_DTYPE_TO_TORCH_DTYPE: name -> {at, map}."""
    out = {}
    for path in sorted(rel.files):
        src = rel.files[path]
        if not any(n in src for n in names) or '/test' in path:
            continue
        try:
            tree = rel.tree(path)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id in names and isinstance(node.value, ast.Dict):
                        m = {}
                        for k, v in zip(node.value.keys, node.value.values):
                            if isinstance(k, ast.Constant):
                                m[k.value] = text(v)
                        out.setdefault(t.id, []).append({'at': '%s:%d' % (path, node.lineno),
                                                         'map': m})
    return out


def find_strings(rel, needles, path_filter=lambda p: True):
    """Where string constants equal to one of `needles` occur: needle -> [file:line]."""
    out = {}
    for path in sorted(rel.files):
        if not path_filter(path) or '/test' in path:
            continue
        src = rel.files[path]
        if not any(n in src for n in needles):
            continue
        try:
            tree = rel.tree(path)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in needles:
                out.setdefault(node.value, []).append('%s:%d' % (path, node.lineno))
    return out


def _field_doc(res, path, cls, field):
    """The docstring written under a dataclass field (vLLM's help text), if any."""
    body = cls.body
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and \
                stmt.target.id == field and i + 1 < len(body):
            nxt = body[i + 1]
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and \
                    isinstance(nxt.value.value, str):
                return nxt.value.value
    return None


def deprecation_notes(rel, spellings, prefix):
    """String constants in the release that name a spelling and call it deprecated or
    unsupported: spelling -> [{at, text}] (what a parser's choices cannot show)."""
    out = {}
    want = [x for x in spellings if isinstance(x, str) and x not in ('auto',)]
    for path in sorted(rel.files):
        if not path.startswith(prefix) or '/test' in path:
            continue
        src = rel.files[path]
        if 'eprecat' not in src:
            continue
        if not any(w in src for w in want):
            continue
        try:
            tree = rel.tree(path)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Constant, ast.JoinedStr)):
                t = node.value if isinstance(node, ast.Constant) else text(node)
                if not isinstance(t, str) or 'eprecat' not in t:
                    continue
                for w in want:
                    if re.search(r'(?<![a-z0-9_])%s(?![a-z0-9_])' % re.escape(w), t):
                        lst = out.setdefault(w, [])
                        if len(lst) < 3:
                            lst.append({'at': '%s:%d' % (path, node.lineno), 'text': _short(t, 200)})
    return out


def _short(s, n=400):
    if not isinstance(s, str):
        return s
    s = ' '.join(s.split())
    return s if len(s) <= n else s[:n] + '...'


# ============================================================================ vLLM
def vllm(rel):
    res = Resolver(rel)
    facts = {'problems': []}
    arg_utils = 'vllm/engine/arg_utils.py'
    rules_src = rel.files.get(arg_utils, '')
    rules = parsers.vllm_field_rules(rules_src)
    walker = parsers.Walker(rel, res, lambda p, c, s: rules(res, p, c, s))

    # ---- the serve parser's root
    entry = None
    serve = 'vllm/entrypoints/cli/serve.py'
    if serve in rel.files:
        tree = rel.tree(serve)
        for q, fn in functions(tree):
            if q.endswith('.subparser_init') and 'serve' in q.lower():
                owner = q.split('.')[0]
                found = res.lookup(serve, owner)
                walker.walk_function(serve, fn, (found[2], found[1]) if found and
                                     found[0] == 'class' else None, skip=())
                entry = {'command': 'vllm serve', 'at': '%s:%d' % (serve, fn.lineno)}
                break
    if entry is None and 'vllm/scripts.py' in rel.files and '"serve"' in rel.files['vllm/scripts.py']:
        tree = rel.tree('vllm/scripts.py')
        for q, fn in functions(tree):
            if q == 'main':
                walker.walk_function('vllm/scripts.py', fn, None, skip=('!serve',))
                entry = {'command': 'vllm serve', 'at': 'vllm/scripts.py:%d' % fn.lineno}
    if entry is None:
        for path, fname in (('vllm/entrypoints/openai/cli_args.py', 'make_arg_parser'),
                            ('vllm/entrypoints/openai/api_server.py', 'parse_args')):
            if path in rel.files:
                for q, fn in functions(rel.tree(path)):
                    if q == fname:
                        walker.walk_function(path, fn, None, skip=())
                        entry = {'command': 'python -m vllm.entrypoints.openai.api_server',
                                 'at': '%s:%d' % (path, fn.lineno)}
                        break
            if entry:
                break
    if entry is None and 'vllm/entrypoints/openai/api_server.py' in rel.files:
        walker.walk_main_block('vllm/entrypoints/openai/api_server.py')
        entry = {'command': 'python -m vllm.entrypoints.openai.api_server',
                 'at': 'vllm/entrypoints/openai/api_server.py (__main__ block)'}
    if entry is None:
        facts['problems'].append('no OpenAI server entry point found')
        entry = {}
    facts['entry'] = entry
    inv, dupes = inventory(walker.flags, rel, res)
    # vLLM 0.33+: FlexibleArgumentParser registers EnableDisableAction in place of
    # BooleanOptionalAction (--enable-x pairs with --disable-x; --no-x stays, hidden)
    for path in sorted(rel.files):
        m = re.search(r'register\(\s*["\']action["\'],\s*(?:argparse\.)?BooleanOptionalAction,'
                      r'\s*EnableDisableAction\s*\)', rel.files[path])
        if m:
            swap = '%s:%d' % (path, rel.files[path].count('\n', 0, m.start()) + 1)
            for f in inv:
                if 'BooleanOptionalAction' in str(f.get('action', '')):
                    f['action'] = 'EnableDisableAction (%s)' % swap
                    for a, b in (('--enable-', '--disable-'), ('--disable-', '--enable-')):
                        if f['name'].startswith(a):
                            f['inverse'] = b + f['name'][len(a):]
            break
    facts['flags'] = inv
    if dupes:
        facts['duplicateRegistrations'] = dupes
    facts['problems'] += walker.notes

    # ---- parser class and dialect, from the text of the entry
    flex = [p for p in rel.files if 'class FlexibleArgumentParser' in rel.files[p]]
    entry_file = (entry.get('at') or '').split(':')[0].split(' ')[0]
    candidates = [entry_file, 'vllm/entrypoints/cli/main.py', 'vllm/scripts.py',
                  'vllm/entrypoints/openai/cli_args.py', 'vllm/entrypoints/openai/api_server.py']
    uses_flex = any('FlexibleArgumentParser(' in rel.files.get(c, '') for c in candidates
                    if c in rel.files)
    facts['parser'] = {
        'class': 'FlexibleArgumentParser' if flex and uses_flex else 'argparse.ArgumentParser',
        'at': ('%s:%d' % (flex[0], _line_of(rel.files[flex[0]], 'class FlexibleArgumentParser'))
               if flex and uses_flex else None),
        'allowAbbrevOff': any('allow_abbrev=False' in rel.files.get(c, '') for c in candidates
                              if c in rel.files),
    }
    if flex and uses_flex:
        # what FlexibleArgumentParser.parse_args rewrites: underscores in a flag's name, and
        # (later) --flag.member value pairs folded into one JSON value of --flag
        src = rel.files[flex[0]]
        body = src[src.find('class FlexibleArgumentParser'):]
        m = re.search(r"replace\(\s*['\"]_['\"],\s*['\"]-['\"]\s*\)", body)
        d = re.search(r"startswith\(['\"]--?['\"]\) and ['\"]\.['\"] in processed_arg", body)
        base = len(src) - len(body)
        facts['parser']['underscoresAsDashesAt'] = (
            '%s:%d' % (flex[0], src.count('\n', 0, base + m.start()) + 1) if m else None)
        facts['parser']['dottedMembersAt'] = (
            '%s:%d' % (flex[0], src.count('\n', 0, base + d.start()) + 1) if d else None)

    # ---- --kv-cache-dtype
    dtype = next((f for f in walker.flags if DTYPE_FLAG in f.strings), None)
    facts['dtypeFlag'] = vllm_dtype_flag(rel, res, dtype) if dtype else None
    if facts['dtypeFlag']:
        notes = deprecation_notes(rel, facts['dtypeFlag'].get('spellings') or [], 'vllm/')
        if notes:
            facts['dtypeFlag']['deprecationNotes'] = notes
    if dtype is None:
        facts['problems'].append('no --kv-cache-dtype in the serve parser')

    facts['kvFlags'] = kv_flags(inv)

    # ---- the dtype report: the metric and its labels
    metric = find_strings(rel, {'vllm:cache_config_info', 'vllm:cache_config',
                                'vllm:vllm_config_info'}, lambda p: 'metrics' in p)
    report = {}
    for name, where in sorted(metric.items()):
        report[name] = {'at': where}
    info = None
    for path in sorted(rel.files):
        if 'def metrics_info' in rel.files[path] and 'class CacheConfig' in rel.files[path]:
            info = '%s:%d' % (path, _line_of(rel.files[path], 'def metrics_info'))
    cache_cls = _class(rel, res, 'CacheConfig')
    labels = []
    if cache_cls:
        cpath, cnode = cache_cls
        labels = [f for f, _, _ in res.class_fields(cpath, cnode)]
        init = next((s for s in cnode.body if isinstance(s, ast.FunctionDef) and
                     s.name == '__init__'), None)
        if init is not None:  # pre-dataclass CacheConfig: self.x = ... in __init__
            for n in ast.walk(init):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                        n.value.id == 'self' and isinstance(n.ctx, ast.Store) and n.attr not in labels:
                    labels.append(n.attr)
    if report:
        report['labels'] = {
            'from': info or 'CacheConfig fields',
            'cacheDtypeLabel': 'cache_dtype' in labels,
            'names': sorted(l for l in labels if not l.startswith('_')),
        }
        resolve = _line_of(rel.files.get(arg_utils, ''), 'resolve_kv_cache_dtype_string(')
        if resolve:
            report['autoResolvedBeforeReport'] = '%s:%d' % (arg_utils, resolve)
    facts['report'] = report or None

    # ---- spelling -> element dtype
    maps = dict_maps(rel, res, {'STR_DTYPE_TO_TORCH_DTYPE', 'kv_cache_dtype_str_to_dtype',
                                'KV_CACHE_DTYPE_TO_TORCH', 'CACHE_DTYPE_TO_TORCH_DTYPE'})
    facts['dtypeMap'] = maps or None
    fp8 = if_chain_map(rel, res, lambda p: p.startswith('vllm/') and (
        'utils' in p or 'platforms' in p or 'cache' in p) and 'kernels' not in p)
    facts['dtypeBranches'] = fp8 or None
    return facts


def _line_of(src, needle):
    i = src.find(needle)
    return src.count('\n', 0, i) + 1 if i >= 0 else None


def _class(rel, res, name):
    for path in sorted(rel.files):
        if ('class %s' % name) in rel.files[path]:
            try:
                tree = rel.tree(path)
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and node.name == name:
                    return path, node
    return None


def vllm_dtype_flag(rel, res, flag):
    out = {'at': flag.at}
    kw = flag.kwargs
    choices = kw.get('choices')
    if choices is None and 'metavar' in kw:
        out['argparseChoices'] = None
        out['spellings'] = jsonable(kw['metavar'])
        out['spellingsAt'] = kw.get('choices@literal')
        out['enforcedBy'] = ('after parsing: the annotation admits any str besides the Literal,'
                             ' so argparse takes any value and the config validator decides')
    elif choices is not None:
        out['spellings'] = jsonable(choices)
        out['spellingsAt'] = kw.get('choices@')
        out['argparseChoices'] = True
        out['enforcedBy'] = 'argparse choices'
    else:
        out['spellings'] = None
        out['enforcedBy'] = 'none found'
    if isinstance(out.get('spellings'), list):
        out['spellings'] = sorted(s for s in out['spellings'] if s is not None) + (
            [None] if None in out['spellings'] else [])
    out['default'] = jsonable(kw.get('default'))
    out['defaultAt'] = kw.get('default@')
    # help text: literal help=, else the CacheConfig.cache_dtype docstring
    h = kw.get('help')
    if not isinstance(h, str) and flag.generated:
        cls_name, field = flag.generated.split('.')
        c = _class(rel, res, cls_name)
        if c:
            h = _field_doc(res, c[0], c[1], field)
    if isinstance(h, str):
        out['help'] = _short(h, 700)
    # validation after parsing (vLLM 0.3x: KV_CACHE_DTYPES / register_kv_cache_dtype)
    for path in sorted(rel.files):
        src = rel.files[path]
        if 'def register_kv_cache_dtype' in src:
            out['pluginSpellings'] = '%s:%d' % (path, _line_of(src, 'def register_kv_cache_dtype'))
        if 'def _validate_cache_dtype' in src and 'config' in path:
            out['validatorAt'] = '%s:%d' % (path, _line_of(src, 'def _validate_cache_dtype'))
    return out


# ============================================================================ SGLang
def sglang(rel):
    res = Resolver(rel)
    facts = {'problems': []}
    sa = 'sglang/srt/server_args.py'
    if sa not in rel.files:
        facts['problems'].append('no sglang/srt/server_args.py')
        return facts
    walker = parsers.Walker(rel, res, None)
    # ServerArgs assembled at import time from namespace classes (0.5.2x): read the list
    extra = _sglang_namespaces(rel, res, sa)
    if extra:
        walker.extra_fields = extra
    tree = rel.tree(sa)
    root = None
    for q, fn in functions(tree):
        if q == 'ServerArgs.add_cli_args':
            root = fn
            found = res.lookup(sa, 'ServerArgs')
            walker.walk_function(sa, fn, (found[2], found[1]) if found and found[0] == 'class'
                                 else None, skip=())
    if root is None:
        facts['problems'].append('no ServerArgs.add_cli_args')
    facts['entry'] = {'command': 'python -m sglang.launch_server',
                      'at': '%s:%d' % (sa, root.lineno) if root else None}
    # prepare_server_args adds flags of its own in some releases (--config handling)
    for q, fn in functions(tree):
        if q == 'prepare_server_args':
            walker.walk_function(sa, fn, None, skip=())
            src = ast.get_source_segment(rel.files[sa], fn) or ''
            facts['parser'] = {
                'class': 'FlexibleArgumentParser' if 'FlexibleArgumentParser(' in src
                else 'argparse.ArgumentParser',
                'at': '%s:%d' % (sa, fn.lineno),
                'allowAbbrevOff': 'allow_abbrev=False' in src,
            }
    if 'parser' not in facts:
        ls = rel.files.get('sglang/launch_server.py', '')
        facts['parser'] = {'class': 'argparse.ArgumentParser', 'at': 'sglang/launch_server.py',
                           'allowAbbrevOff': 'allow_abbrev=False' in ls}
    inv, dupes = inventory(walker.flags, rel, res)
    facts['flags'] = inv
    if dupes:
        facts['duplicateRegistrations'] = dupes
    facts['problems'] += walker.notes
    dtype = next((f for f in walker.flags if DTYPE_FLAG in f.strings), None)
    if dtype is None:
        facts['dtypeFlag'] = None
    else:
        kw = dtype.kwargs
        ch = kw.get('choices')
        d = {'at': dtype.at, 'argparseChoices': ch is not None,
             'enforcedBy': 'argparse choices' if ch is not None else 'none found',
             'spellings': sorted(jsonable(ch), key=str) if isinstance(ch, list) else jsonable(ch),
             'spellingsAt': kw.get('choices@'), 'default': jsonable(kw.get('default')),
             'defaultAt': kw.get('default@')}
        h = kw.get('help')
        if isinstance(h, str):
            d['help'] = _short(h, 700)
        notes = deprecation_notes(rel, d['spellings'] or [], 'sglang/srt/')
        if notes:
            d['deprecationNotes'] = notes
        facts['dtypeFlag'] = d
    facts['kvFlags'] = kv_flags(inv)

    # ---- the dtype report: server-info routes
    routes = {}
    for path in sorted(rel.files):
        if not (path.startswith('sglang/srt/') and ('server' in path.split('/')[-1])) or \
                'multimodal' in path or '/test' in path:
            continue
        src = rel.files[path]
        if 'server_info' not in src and 'get_server_args' not in src:
            continue
        for q, fn in functions(rel.tree(path)):
            for dec in fn.decorator_list:
                if isinstance(dec, ast.Call) and dec.args and isinstance(dec.args[0], ast.Constant):
                    route = dec.args[0].value
                    if route in ('/get_server_info', '/server_info', '/get_server_args'):
                        body = ast.get_source_segment(src, fn) or ''
                        routes[route] = {
                            'at': '%s:%d' % (path, fn.lineno),
                            'handler': fn.name,
                            'deprecated': 'deprecated' in body.lower(),
                            'serverArgsInBody': ('server_args' in body),
                            # a list of per-rank states under its own key (not merged flat)
                            'internalStates': bool(re.search(
                                r'["\']internal_states["\']\s*:', body)),
                        }
    facts['report'] = {'routes': routes, 'field': 'kv_cache_dtype'} if routes else None
    facts['dtypeBranches'] = if_chain_map(rel, res, lambda p: p.startswith('sglang/srt/') and (
        'model_runner' in p or 'kv_cache_dtype' in p or 'mem_cache' in p)) or None
    if facts.get('dtypeFlag'):
        refused = refusing_branches(rel, lambda p: p.startswith('sglang/srt/') and (
            'model_runner' in p or 'kv_cache_dtype' in p or 'mem_cache' in p))
        refused = {k: v for k, v in refused.items() if k in (facts['dtypeFlag']['spellings'] or [])}
        if refused:
            facts['dtypeFlag']['refusedAtStartup'] = refused
    return facts


def _sglang_namespaces(rel, res, sa):
    """{'ServerArgs': [(path, ClassDef), ...]} when server_args.py builds ServerArgs from a list
    of namespace classes (collect_input_fields(_INPUT_NAMESPACES))."""
    src = rel.files[sa]
    if 'collect_input_fields(' not in src:
        return None
    tree = rel.tree(sa)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id ==
                                                '_INPUT_NAMESPACES' for t in node.targets):
            classes = []
            for e in getattr(node.value, 'elts', []):
                found = res.resolve_expr(sa, e)
                if found and found[0] == 'class':
                    classes.append((found[2], found[1]))
            return {'ServerArgs': classes}
    return None

"""The static flag inventory: every add_argument a release's serve parser receives, read from the
AST of the functions that build it (followed through calls such as
`AsyncEngineArgs.add_cli_args(parser)`), with the dataclass-generated arguments (vLLM's
`get_kwargs(Config)`, SGLang's `add_cli_args_from_dataclass`) derived from the fields' annotations
the way that release's generator does.  Nothing is imported or run; the `oracle` subcommand checks
the result against the release's own parser where it can be run with stubs."""
import ast

from astkit import LiteralType, Unknown, call_kwargs, text

PARSERISH = ('parser', 'group', 'subparsers')
DELETED = object()


def _parserish(node):
    return isinstance(node, ast.Name) and any(p in node.id.lower() for p in PARSERISH)


class Flag:
    def __init__(self, strings, at, kwargs, conditional=False, generated=None):
        self.strings = strings
        self.at = at
        self.kwargs = kwargs  # name -> python value or Unknown
        self.conditional = conditional
        self.generated = generated  # 'Class.field' when derived from a dataclass field

    @property
    def longs(self):
        return [s for s in self.strings if isinstance(s, str) and s.startswith('--')]

    @property
    def shorts(self):
        return [s for s in self.strings if isinstance(s, str) and s.startswith('-')
                and not s.startswith('--')]

    def arity(self):
        action = self.kwargs.get('action')
        nargs = self.kwargs.get('nargs')
        a = action if isinstance(action, str) else (action.text if isinstance(action, Unknown)
                                                     else None)
        if a in ('store_true', 'store_false', 'store_const', 'count', 'help', 'version',
                 'append_const') or (a and ('BooleanOptionalAction' in a or
                                             'EnableDisableAction' in a)):
            return 'NONE'
        if nargs is None:
            return 'ONE' if a is None or a in ('store', 'append', 'extend') else \
                'ACTION:' + str(a)
        return {'+': 'ONE_OR_MORE', '*': 'ZERO_OR_MORE', '?': 'OPTIONAL', 1: 'ONE'}.get(
            nargs, 'NARGS:%s' % (nargs.text if isinstance(nargs, Unknown) else nargs))


class Walker:
    """Collects the add_argument calls reachable from some root functions."""

    def __init__(self, release, resolver, dataclass_rules):
        self.rel = release
        self.res = resolver
        self.rules = dataclass_rules  # callable(path, cls_node, field_stmt) -> kwargs dict
        self.flags = []
        self.visited = set()
        self.extra_fields = {}  # class name -> [(path, ClassDef)] assembled at import time
        self.notes = []

    # ------------------------------------------------------------------ roots
    def walk_function(self, path, fn, bound_cls=None, skip=()):
        key = (path, fn.lineno, fn.name, bound_cls[1].name if bound_cls else None)
        if key in self.visited:
            return
        self.visited.add(key)
        env = {'cls': bound_cls} if bound_cls else {}
        self._block(path, fn.body, env, skip, False)

    def walk_main_block(self, path):
        tree = self.rel.tree(path)
        for node in tree.body:
            if isinstance(node, ast.If) and "__name__" in text(node.test) \
                    and '__main__' in text(node.test):
                self._block(path, node.body, {}, (), False)

    # ------------------------------------------------------------------ statements
    def _block(self, path, body, env, skip, conditional):
        for stmt in body:
            self._stmt(path, stmt, env, skip, conditional)

    def _override(self, path, target, env, value):
        """`kw["field"]["key"] = v` / `del kw["field"]["key"]` on a get_kwargs() result."""
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript) and \
                isinstance(target.value.value, ast.Name):
            var = target.value.value.id
            if var in env and env[var][0] == 'kwargs':
                field = self.res.value(path, target.value.slice)
                key = self.res.value(path, target.slice)
                if isinstance(field, str) and isinstance(key, str):
                    env.setdefault(('ovr', var), {}).setdefault(field, {})[key] = value
                    return True
        return False

    def _edit_helper(self, path, call, env):
        """`kw = cls._customize_cli_kwargs(kw)`: walk the helper with its parameter bound to the
        same get_kwargs() result, so its `kw["f"]["k"] = v` edits apply."""
        args = [a for a in call.args if isinstance(a, ast.Name) and a.id in env and
                env[a.id][0] == 'kwargs']
        if not args:
            return
        var = args[0].id
        f = call.func
        target = None
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and \
                text(f.value.func) == 'super' and env.get('cls'):
            cpath, cls = env['cls']
            for b in cls.bases:
                found = self.res.resolve_expr(cpath, b)
                if found and found[0] == 'class':
                    m = self.res.class_attr(found[2], found[1], f.attr)
                    if m and m[0] == 'func':
                        target = (m[2], m[1], (found[2], found[1]))
                        break
        else:
            target = self._resolve_callable(path, f, env)
        if target is None:
            return
        fpath, fn, bound = target
        key = ('edit', fpath, fn.lineno, id(env.get(('ovr', var))))
        if key in self.visited:
            return
        self.visited.add(key)
        params = [a.arg for a in fn.args.args if a.arg not in ('self', 'cls')]
        if not params:
            return
        local = {'cls': bound or env.get('cls')}
        local[params[0]] = env[var]
        local[('ovr', params[0])] = env.setdefault(('ovr', var), {})
        self._block(fpath, fn.body, local, (), False)

    def _stmt(self, path, stmt, env, skip, conditional):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and self._override(
                path, stmt.targets[0], env, self._eval(path, stmt.value, env)):
            return
        if isinstance(stmt, (ast.Assign, ast.Return)) and isinstance(stmt.value, ast.Call):
            self._edit_helper(path, stmt.value, env)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == 'pop' \
                and stmt.value.args and self._override(
                    path, ast.Subscript(value=stmt.value.func.value,
                                        slice=stmt.value.args[0]), env, DELETED):
            return
        if isinstance(stmt, ast.Delete):
            for t in stmt.targets:
                self._override(path, t, env, DELETED)
            return
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            v = stmt.value
            kw = self._kwargs_source(path, v, env)
            if kw is not None:
                env[name] = ('kwargs', kw)
            elif isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and \
                    v.func.attr == 'add_parser' and v.args:
                sub = v.args[0]
                env[name] = ('subparser', sub.value if isinstance(sub, ast.Constant) else
                             text(sub))
        if isinstance(stmt, ast.For):
            self._for(path, stmt, env, skip, conditional)
            return
        if isinstance(stmt, (ast.If, ast.Try, ast.With)):
            for part in ('body', 'orelse', 'finalbody'):
                self._block(path, getattr(stmt, part, []) or [], env, skip, True)
            for h in getattr(stmt, 'handlers', []):
                self._block(path, h.body, env, skip, True)
            if isinstance(stmt, ast.If):
                self._expr_calls(path, stmt.test, env, skip, True)
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                self._call(path, node, env, skip, conditional, {})

    def _expr_calls(self, path, expr, env, skip, conditional):
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                self._call(path, node, env, skip, conditional, {})

    def _for(self, path, stmt, env, skip, conditional):
        """`for key, value in kwargs.items(): group.add_argument(f"--{key...}", **value)`."""
        it = stmt.iter
        src = None
        ovr = {}
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                it.func.attr == 'items':
            base = it.func.value
            if isinstance(base, ast.Name) and base.id in env and env[base.id][0] == 'kwargs':
                src = env[base.id][1]
                ovr = env.get(('ovr', base.id), {})
            else:
                src = self._kwargs_source(path, base, env)
        if src is None:
            seq = self.res.value(path, it)
            names = [e.id for e in stmt.target.elts if isinstance(e, ast.Name)] \
                if isinstance(stmt.target, ast.Tuple) else \
                ([stmt.target.id] if isinstance(stmt.target, ast.Name) else [])
            if isinstance(seq, (list, tuple)) and names and all(
                    (len(names) == 1) or (isinstance(x, (list, tuple)) and len(x) == len(names))
                    for x in seq):
                for item in seq:  # `for arg, type in [("--a", str), ...]:`
                    local = dict(env)
                    values = [item] if len(names) == 1 else list(item)
                    for n, v in zip(names, values):
                        local[n] = ('str', v) if isinstance(v, str) else ('val', v)
                    self._block(path, stmt.body, local, skip, conditional)
                return
        if src is None or not isinstance(stmt.target, ast.Tuple) or len(stmt.target.elts) != 2:
            self._block(path, stmt.body, env, skip, True)
            return
        kname, vname = [e.id for e in stmt.target.elts]
        cpath, cls = src
        for field, fstmt, fpath in self.res.class_fields(cpath, cls):
            local = dict(env)
            local[kname] = ('str', field)
            local[vname] = ('field', (fpath, cls, fstmt, field, ovr.get(field, {})))
            for node in stmt.body:
                for call in ast.walk(node):
                    if isinstance(call, ast.Call):
                        self._call(path, call, local, skip, conditional, {})

    def _kwargs_source(self, path, v, env):
        """(path, ClassDef) when `v` is get_kwargs(Config) (possibly wrapped in a call)."""
        if not isinstance(v, ast.Call):
            return None
        fn = text(v.func).split('.')[-1]
        if fn in ('get_kwargs', '_compute_kwargs') and v.args:
            target = v.args[0]
            if isinstance(target, ast.Name) and target.id == 'cls' and env.get('cls'):
                return env['cls']
            found = self.res.resolve_expr(path, target)
            if found and found[0] == 'class':
                return (found[2], found[1])
            return None
        for a in v.args:  # cls._customize_cli_kwargs(get_kwargs(cls)) and the like
            if isinstance(a, ast.Name) and a.id in env and env[a.id][0] == 'kwargs':
                return env[a.id][1]
            inner = self._kwargs_source(path, a, env)
            if inner is not None:
                return inner
        return None

    # ------------------------------------------------------------------ calls
    def _call(self, path, call, env, skip, conditional, _):
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr == 'add_argument':
            recv = f.value
            if isinstance(recv, ast.Name) and recv.id in env and env[recv.id][0] == 'subparser' \
                    and (env[recv.id][1] in skip or ('!serve' in skip and
                                                     env[recv.id][1] != 'serve')):
                return
            self._add_argument(path, call, env, conditional)
            return
        name = text(f).split('.')[-1]
        if name == 'add_cli_args_from_dataclass' and len(call.args) >= 2:
            self._from_dataclass(path, call, env, conditional)
            return
        if not any(_parserish(a) for a in call.args) and not any(
                _parserish(k.value) for k in call.keywords):
            return
        if '!serve' in skip and any(
                isinstance(a, ast.Name) and a.id in env and env[a.id][0] == 'subparser' and
                env[a.id][1] != 'serve' for a in call.args):
            return
        target = self._resolve_callable(path, f, env)
        if target is not None:
            fpath, fn, bound = target
            self.walk_function(fpath, fn, bound, skip)

    def _resolve_callable(self, path, f, env):
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id == 'cls' and env.get('cls'):
            cpath, cls = env['cls']
            found = self.res.class_attr(cpath, cls, f.attr)
            if found and found[0] == 'func':
                return found[2], found[1], env['cls']
            return None
        if isinstance(f, ast.Attribute):
            owner = self.res.resolve_expr(path, f.value)
            if owner and owner[0] == 'class':
                found = self.res.class_attr(owner[2], owner[1], f.attr)
                if found and found[0] == 'func':
                    return found[2], found[1], (owner[2], owner[1])
                return None
        found = self.res.resolve_expr(path, f)
        if found and found[0] == 'func':
            return found[2], found[1], None
        return None

    # ------------------------------------------------------------------ add_argument
    def _eval(self, path, node, env):
        if isinstance(node, ast.Name) and node.id in env and env[node.id][0] in ('str', 'val'):
            return env[node.id][1]
        if isinstance(node, ast.JoinedStr):
            out = ''
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out += str(part.value)
                else:
                    v = self._eval(path, part.value, env)
                    if not isinstance(v, str):
                        return Unknown(text(node))
                    out += v
            return out
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == 'replace' and len(node.args) == 2:
            base = self._eval(path, node.func.value, env)
            a, b = (self.res.value(path, x) for x in node.args)
            if isinstance(base, str) and isinstance(a, str) and isinstance(b, str):
                return base.replace(a, b)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self._eval(path, node.left, env), self._eval(path, node.right, env)
            if isinstance(a, str) and isinstance(b, str):
                return a + b
        return self.res.value(path, node)

    def _add_argument(self, path, call, env, conditional):
        strings = []
        for a in call.args:
            if isinstance(a, ast.Starred):
                strings.append(Unknown('*' + text(a.value)))
            else:
                strings.append(self._eval(path, a, env))
        named, splats = call_kwargs(call)
        kwargs = {}
        generated = None
        flat = []
        for s in splats:  # `**{**kw["field"], "default": None}`
            if isinstance(s, ast.Dict):
                for k, v in zip(s.keys, s.values):
                    if k is None:
                        flat.append(v)
                    elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                        named.setdefault(k.value, v)
            else:
                flat.append(s)
        for s in flat:
            fld = None
            if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name) and \
                    s.value.id in env and env[s.value.id][0] == 'kwargs':
                cpath, cls = env[s.value.id][1]
                key = self.res.value(path, s.slice)
                if isinstance(key, str):
                    found = self.res.class_attr(cpath, cls, key)
                    if found and found[0] == 'field':
                        fld = (found[2], cls, found[1], key,
                               env.get(('ovr', s.value.id), {}).get(key, {}))
            elif isinstance(s, ast.Name) and s.id in env and env[s.id][0] == 'field':
                fld = env[s.id][1]
            if fld is not None:
                fpath, cls, fstmt, fname, over = fld
                kwargs.update(self.rules(fpath, cls, fstmt))
                for k, v in over.items():
                    if v is DELETED:
                        kwargs.pop(k, None)
                    else:
                        kwargs[k] = v
                generated = '%s.%s' % (cls.name, fname)
            else:
                kwargs['**'] = Unknown(text(s))
        for k, v in named.items():
            kwargs[k] = self._eval(path, v, env)
            if k in ('choices', 'default'):
                kwargs[k + '@'] = self.res.where_of(path, v)
        if any(isinstance(s, Unknown) for s in strings) and generated and not any(
                isinstance(s, str) and s.startswith('--') for s in strings):
            pass
        self.flags.append(Flag(strings, '%s:%d' % (path, call.lineno), kwargs, conditional,
                               generated))
        if kwargs.get('action') is not None and 'BooleanOptionalAction' in str(
                getattr(kwargs['action'], 'text', kwargs['action'])):
            pass

    def _from_dataclass(self, path, call, env, conditional):
        """SGLang's add_cli_args_from_dataclass(parser, Cls, fields=[...])."""
        target = call.args[1]
        found = self.res.resolve_expr(path, target)
        if not found or found[0] != 'class':
            self.notes.append('%s:%d: add_cli_args_from_dataclass(%s) not resolved' % (
                path, call.lineno, text(target)))
            return
        named, _ = call_kwargs(call)
        only = self.res.value(path, named['fields']) if 'fields' in named else None
        fields = []
        for cpath, cnode in self.extra_fields.get(found[1].name, []):
            fields += self.res.class_fields(cpath, cnode)
        fields += self.res.class_fields(found[2], found[1])
        for field, fstmt, fpath in fields:
            if isinstance(only, list) and field not in only:
                continue
            spec = sglang_field(self.res, fpath, fstmt)
            if spec is None:
                continue
            strings, kwargs = spec
            self.flags.append(Flag(strings, '%s:%d' % (fpath, fstmt.lineno), kwargs,
                                   conditional, '%s.%s' % (found[1].name, field)))


# ---------------------------------------------------------------------- dataclass rules
def vllm_field_rules(release_src):
    """The kwargs vLLM's get_kwargs derives from a config field, as that release's
    arg_utils.py does (its rules are read from the release's own source text)."""
    optional_bool_str = 'type_hints == {bool, str, type(None)}' in release_src
    boolean_optional = 'BooleanOptionalAction' in release_src
    enable_disable = 'EnableDisableAction' in release_src
    str_literal_metavar = 'metavar' in release_src and 'literal_to_kwargs' in release_src

    def rules(res, path, cls, stmt):
        atoms = res.annotation_type(path, stmt.annotation)
        names = atoms['names']
        kw = {}
        if stmt.value is not None:
            d = res.value(path, stmt.value)
            kw['default'] = d
            kw['default@'] = '%s:%d' % (path, stmt.lineno)
        core = {n for n in names if n != 'None'}
        if any(n.startswith('class:') for n in core) and not any(
                n.startswith('enum:') for n in core):
            kw['type'] = Unknown('dataclass json')
        elif optional_bool_str and core == {'bool', 'str'} and 'None' in names:
            kw['nargs'] = '?'
        elif 'bool' in core:
            kw['action'] = Unknown('EnableDisableAction') if enable_disable else \
                Unknown('argparse.BooleanOptionalAction') if boolean_optional else 'store_true'
        elif atoms['literals']:
            vals = []
            for lit in atoms['literals']:
                if isinstance(lit, LiteralType):
                    vals += lit.values
            if 'str' in core and str_literal_metavar:
                kw['metavar'] = vals
                kw['choices@literal'] = atoms['literals'][0].where if isinstance(
                    atoms['literals'][0], LiteralType) else None
            else:
                kw['choices'] = vals
                kw['choices@'] = atoms['literals'][0].where if isinstance(
                    atoms['literals'][0], LiteralType) else None
        elif core & {'tuple', 'list', 'set'}:
            kw['nargs'] = '+'
        return kw
    return rules


def sglang_field(res, path, stmt):
    """(option strings, kwargs) for one `A[T, Arg(...)]` field, as SGLang's
    add_cli_args_from_dataclass does; None when the field has no CLI metadata."""
    atoms = res.annotation_type(path, stmt.annotation)
    meta = None
    for m in atoms['meta']:
        if isinstance(m, ast.Constant) and isinstance(m.value, str):
            meta = {}
            break
        if isinstance(m, ast.Call) and text(m.func).split('.')[-1] == 'Arg':
            meta = {k.arg: k.value for k in m.keywords if k.arg}
            break
    if meta is None:
        return None
    if 'no_cli' in meta and res.value(path, meta['no_cli']) is True:
        return None
    name = stmt.target.id
    cli = res.value(path, meta['cli_name']) if 'cli_name' in meta else '--' + name.replace('_', '-')
    aliases = res.value(path, meta['aliases']) if 'aliases' in meta else []
    strings = [cli] + (aliases if isinstance(aliases, list) else [Unknown(str(aliases))])
    kw = {}
    if stmt.value is not None:
        kw['default'] = res.value(path, stmt.value)
        kw['default@'] = '%s:%d' % (path, stmt.lineno)
    core = {n for n in atoms['names'] if n != 'None'}
    if 'action' in meta:
        kw['action'] = res.value(path, meta['action'])
        if isinstance(kw['action'], Unknown):
            kw['action'] = Unknown(text(meta['action']))
        if 'action_kwargs' in meta:
            ak = res.value(path, meta['action_kwargs'])
            if isinstance(ak, dict):
                kw.update(ak)
        return strings, kw
    if atoms['literals']:
        vals = []
        for lit in atoms['literals']:
            if isinstance(lit, LiteralType):
                vals += lit.values
        kw['choices'] = vals
        kw['choices@'] = atoms['literals'][0].where if isinstance(atoms['literals'][0],
                                                                 LiteralType) else None
        if 'choices' in meta:
            kw['choices'] = res.value(path, meta['choices'])
            kw['choices@'] = res.where_of(path, meta['choices'])
        return strings, kw
    if 'list' in core and 'type_parser' not in meta:
        kw['nargs'] = res.value(path, meta['nargs']) if 'nargs' in meta else '+'
        if 'choices' in meta:
            kw['choices'] = res.value(path, meta['choices'])
            kw['choices@'] = res.where_of(path, meta['choices'])
        return strings, kw
    if core == {'bool'}:
        kw['action'] = 'store_true'
        return strings, kw
    if 'nargs' in meta:
        kw['nargs'] = res.value(path, meta['nargs'])
    if 'choices' in meta:
        kw['choices'] = res.value(path, meta['choices'])
        kw['choices@'] = res.where_of(path, meta['choices'])
    if 'const' in meta:
        kw['const'] = res.value(path, meta['const'])
    return strings, kw

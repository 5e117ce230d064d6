"""Reading a release's Python files without importing them: the archive, its modules, and a small
static evaluator over their AST (constants, lists, names resolved through imports, class fields,
Literal aliases).  Nothing here executes release code."""
import ast
import io
import os
import tarfile
import zipfile


class Unknown:
    """A value the static reader could not compute; keeps the source text for the record."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return '<%s>' % self.text

    def __eq__(self, other):
        return isinstance(other, Unknown) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


class LiteralType:
    """typing.Literal[...] with its values and where they were written."""

    def __init__(self, values, where):
        self.values = values
        self.where = where


class Release:
    """One distribution file's Python sources of one top-level package, by path
    (`vllm/engine/arg_utils.py`), read once from the archive."""

    def __init__(self, path, package):
        self.path = path
        self.package = package
        self.kind = 'wheel' if path.endswith('.whl') else 'sdist'
        self.files = {}
        self.other = {}  # non-.py files of interest (entry points, pyproject)
        if self.kind == 'wheel':
            with zipfile.ZipFile(path) as z:
                for n in z.namelist():
                    self._take(n, lambda n=n: z.read(n))
        else:
            with tarfile.open(path) as t:
                for m in t:
                    if not m.isfile():
                        continue
                    name = m.name.split('/', 1)[1] if '/' in m.name else m.name
                    self._take(name, lambda m=m: t.extractfile(m).read())
        self._trees = {}

    def _take(self, name, read):
        if name.startswith('python/'):  # some monorepo sdists keep the package under python/
            name = name[len('python/'):]
        if name.endswith('.py') and name.startswith(self.package + '/'):
            self.files[name] = read().decode('utf-8', 'replace')
        elif name.endswith(('entry_points.txt', 'pyproject.toml', 'PKG-INFO', 'setup.py')) \
                and name.count('/') <= 1:
            self.other[name] = read().decode('utf-8', 'replace')

    def tree(self, path):
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(self.files[path], filename=path)
            except SyntaxError as e:
                self._trees[path] = e
        t = self._trees[path]
        if isinstance(t, SyntaxError):
            raise t
        return t

    def module_path(self, dotted):
        base = dotted.replace('.', '/')
        for p in (base + '.py', base + '/__init__.py'):
            if p in self.files:
                return p
        return None

    def where(self, path, node):
        return '%s:%d' % (path, node.lineno)


def text(node):
    try:
        return ast.unparse(node)
    except Exception:
        return '?'


def _module_of(path):
    p = path[:-3]
    if p.endswith('/__init__'):
        p = p[:-len('/__init__')]
    return p.replace('/', '.')


class Resolver:
    """Names to definitions across a release's modules, statically."""

    def __init__(self, release):
        self.rel = release
        self._scopes = {}

    def scope(self, path):
        """Module-level names of `path`: name -> (kind, node, path) with kind in
        assign/class/func/import."""
        if path in self._scopes:
            return self._scopes[path]
        names = {}
        self._scopes[path] = names
        try:
            tree = self.rel.tree(path)
        except (SyntaxError, KeyError):
            return names
        pkg = _module_of(path)
        is_pkg = path.endswith('__init__.py')

        def visit(body):
            for node in body:
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            if t.id in names and names[t.id][0] == 'class':
                                continue  # `X = make_struct(X...)` keeps reading class X
                            names[t.id] = ('assign', node.value, path, node)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    if node.value is not None:
                        names[node.target.id] = ('assign', node.value, path, node)
                elif isinstance(node, ast.ClassDef):
                    names[node.name] = ('class', node, path, node)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names[node.name] = ('func', node, path, node)
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ''
                    if node.level:
                        parts = pkg.split('.')
                        if not is_pkg:
                            parts = parts[:-1]
                        parts = parts[:len(parts) - (node.level - 1)]
                        base = '.'.join(parts + ([base] if base else []))
                    for a in node.names:
                        names.setdefault(a.asname or a.name, ('import', (base, a.name), path, node))
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        names.setdefault(a.asname or a.name.split('.')[0],
                                         ('module', a.name if a.asname else a.name.split('.')[0],
                                          path, node))
                elif isinstance(node, (ast.If, ast.Try)):
                    # TYPE_CHECKING blocks and try/except imports: take the first definition
                    visit(node.body)
                    for h in getattr(node, 'handlers', []):
                        visit(h.body)
                    visit(getattr(node, 'orelse', []))
        visit(tree.body)
        return names

    def lookup(self, path, name, depth=0):
        """(kind, node, path, stmt) for `name` as seen from module `path`, following imports."""
        if depth > 12 or path is None:
            return None
        entry = self.scope(path).get(name)
        if entry is None:
            return None
        if entry[0] == 'import':
            module, attr = entry[1]
            target = self.rel.module_path(module)
            if target is not None:
                found = self.lookup(target, attr, depth + 1)
                if found is not None:
                    return found
            sub = self.rel.module_path(module + '.' + attr)
            if sub is not None:
                return ('modref', sub, sub, entry[3])
            return ('external', module + '.' + attr, path, entry[3])
        if entry[0] == 'module':
            target = self.rel.module_path(entry[1])
            return ('modref', target, target, entry[3]) if target else \
                ('external', entry[1], path, entry[3])
        return entry

    def resolve_expr(self, path, node):
        """A Name/Attribute to its definition: (kind, node, path, stmt) or None."""
        if isinstance(node, ast.Name):
            return self.lookup(path, node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve_expr(path, node.value)
            if base is None:
                return None
            if base[0] == 'modref':
                return self.lookup(base[1], node.attr)
            if base[0] == 'class':
                return self.class_attr(base[2], base[1], node.attr)
        return None

    def class_attr(self, path, cls, attr, depth=0):
        """A class-level assignment or annotated field `attr` of `cls`, searching bases."""
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and stmt.target.id == attr:
                return ('field', stmt, path, stmt)
            if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                return ('assign', stmt.value, path, stmt)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                return ('func', stmt, path, stmt)
        if depth < 8:
            for b in cls.bases:
                found = self.resolve_expr(path, b)
                if found and found[0] == 'class':
                    r = self.class_attr(found[2], found[1], attr, depth + 1)
                    if r:
                        return r
        return None

    def class_fields(self, path, cls, depth=0):
        """Annotated fields of a (data)class in definition order, bases first:
        [(name, AnnAssign, path)]."""
        out = []
        if depth < 8:
            for b in cls.bases:
                found = self.resolve_expr(path, b)
                if found and found[0] == 'class':
                    for f in self.class_fields(found[2], found[1], depth + 1):
                        out = [o for o in out if o[0] != f[0]]
                        out.append(f)
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                ann = text(stmt.annotation)
                if ann.startswith('ClassVar') or 'ClassVar[' in ann or 'InitVar' in ann:
                    continue
                out = [o for o in out if o[0] != stmt.target.id]
                out.append((stmt.target.id, stmt, path))
        return out

    # ---------------------------------------------------------------- evaluation
    def value(self, path, node, depth=0):
        """The Python value of an expression, or Unknown(text)."""
        if depth > 20:
            return Unknown(text(node))
        try:
            return ast.literal_eval(node)
        except Exception:
            pass
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.value(path, e.value, depth + 1)
                    if isinstance(v, (list, tuple, set, frozenset, dict)):
                        out.extend(v)
                    else:
                        return Unknown(text(node))
                else:
                    out.append(self.value(path, e, depth + 1))
            return out if isinstance(node, ast.List) else tuple(out)
        if isinstance(node, ast.Dict):
            keys = [self.value(path, k, depth + 1) if k is not None else None for k in node.keys]
            if any(isinstance(k, Unknown) for k in keys):
                return Unknown(text(node))
            out = {}
            for k, v in zip(keys, node.values):
                if k is None:
                    inner = self.value(path, v, depth + 1)
                    if isinstance(inner, dict):
                        out.update(inner)
                    else:
                        return Unknown(text(node))
                else:
                    out[k] = self.value(path, v, depth + 1)
            return out
        if isinstance(node, ast.Subscript):
            base = text(node.value)
            if base.split('.')[-1] == 'Literal':
                sl = node.slice
                elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
                vals = [self.value(path, e, depth + 1) for e in elts]
                return LiteralType(vals, '%s:%d' % (path, node.lineno))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.value(path, node.left, depth + 1), self.value(path, node.right, depth + 1)
            if isinstance(a, list) and isinstance(b, list):
                return a + b
            if isinstance(a, str) and isinstance(b, str):
                return a + b
        if isinstance(node, ast.Call):
            fn = text(node.func)
            if fn in ('list', 'tuple', 'sorted', 'set', 'frozenset') and len(node.args) == 1:
                v = self.value(path, node.args[0], depth + 1)
                if isinstance(v, LiteralType):
                    v = v.values
                if isinstance(v, dict):
                    v = list(v)
                if isinstance(v, (list, tuple, set, frozenset)) and not any(
                        isinstance(x, Unknown) for x in v):
                    return sorted(v, key=str) if fn == 'sorted' else list(v)
            if fn.split('.')[-1] == 'get_args' and len(node.args) == 1:
                v = self.value(path, node.args[0], depth + 1)
                if isinstance(v, LiteralType):
                    return list(v.values)
            if isinstance(node.func, ast.Attribute) and node.func.attr == 'keys' and not node.args:
                v = self.value(path, node.func.value, depth + 1)
                if isinstance(v, dict):
                    return list(v)
        if isinstance(node, (ast.Name, ast.Attribute)):
            found = self.resolve_expr(path, node)
            if found is not None:
                kind, n, p, _ = found
                if kind == 'assign':
                    return self.value(p, n, depth + 1)
                if kind == 'field' and n.value is not None:
                    return self.value(p, n.value, depth + 1)
        return Unknown(text(node))

    def where_of(self, path, node):
        """file:line of the definition a Name/Attribute resolves to, else of the node itself."""
        found = self.resolve_expr(path, node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if found is not None and found[3] is not None:
            return '%s:%d' % (found[2], found[3].lineno)
        return '%s:%d' % (path, node.lineno)

    def annotation_type(self, path, node, depth=0):
        """A field annotation as a set of atoms: ('literal', LiteralType) | ('name', 'bool') |
        ('generic', 'list') | ('annotated', inner, [meta nodes]) ... kept simple for the kwargs
        emulation: returns dict(literal=LiteralType|None, names=set(str), path=..)."""
        out = {'literals': [], 'names': set(), 'meta': []}
        self._atoms(path, node, out, depth)
        return out

    def _atoms(self, path, node, out, depth):
        if depth > 12 or node is None:
            return
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:  # string annotation (from __future__ import annotations is not this; quoted)
                self._atoms(path, ast.parse(node.value, mode='eval').body, out, depth + 1)
            except SyntaxError:
                out['names'].add('str?')
            return
        if isinstance(node, ast.Constant) and node.value is None:
            out['names'].add('None')
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self._atoms(path, node.left, out, depth + 1)
            self._atoms(path, node.right, out, depth + 1)
            return
        if isinstance(node, ast.Subscript):
            base = text(node.value).split('.')[-1]
            sl = node.slice
            elts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
            if base == 'Literal':
                out['literals'].append(self.value(path, node, depth + 1))
                return
            if base in ('Optional',):
                out['names'].add('None')
                self._atoms(path, elts[0], out, depth + 1)
                return
            if base == 'Union':
                for e in elts:
                    self._atoms(path, e, out, depth + 1)
                return
            if base in ('InitVar', 'Final', 'Required', 'NotRequired'):
                self._atoms(path, elts[0], out, depth + 1)
                return
            if base in ('Annotated', 'A'):
                self._atoms(path, elts[0], out, depth + 1)
                out['meta'].extend(elts[1:])
                return
            out['names'].add(base.lower() if base in ('List', 'Dict', 'Tuple', 'Set') else base)
            out.setdefault('args', {})[base.lower()] = elts
            return
        if isinstance(node, ast.Name) or isinstance(node, ast.Attribute):
            nm = text(node).split('.')[-1]
            if nm in ('str', 'int', 'float', 'bool', 'list', 'dict', 'tuple', 'set', 'None',
                      'Any', 'bytes'):
                out['names'].add(nm)
                return
            found = self.resolve_expr(path, node)
            if found is not None and found[0] == 'assign':
                self._atoms(found[2], found[1], out, depth + 1)
                return
            if found is not None and found[0] == 'class':
                cls = found[1]
                bases = {text(b).split('.')[-1] for b in cls.bases}
                if bases & {'Enum', 'IntEnum', 'StrEnum', 'str'}:
                    out['names'].add('enum:' + nm)
                    return
                out['names'].add('class:' + nm)
                return
            out['names'].add(nm)
            return
        out['names'].add(text(node))


def call_kwargs(call):
    """{name: node} for keyword arguments and [(node)] for **kwargs splats."""
    named, splats = {}, []
    for k in call.keywords:
        if k.arg is None:
            splats.append(k.value)
        else:
            named[k.arg] = k.value
    return named, splats


def functions(tree):
    """Every (qualname, FunctionDef) in a module."""
    out = []

    def visit(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + node.name, node))
                visit(node.body, prefix + node.name + '.')
            elif isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + '.')
    visit(tree.body, '')
    return out


def jsonable(v):
    if isinstance(v, Unknown):
        return {'expr': v.text}
    if isinstance(v, LiteralType):
        return {'literal': [jsonable(x) for x in v.values], 'at': v.where}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted((jsonable(x) for x in v), key=str)
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, float) and (v != v or v in (float('inf'), float('-inf'))):
        return str(v)
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return repr(v)

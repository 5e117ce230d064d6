"""PyPI side of the engine-facts tool: list an engine's releases and fetch one file per release.

Releases come from PyPI's JSON API (https://pypi.org/pypi/<name>/json): every version with at
least one file, pre-, post- and release candidates and yanked ones included (a yanked release is
still installable when pinned exactly, so users can run it; it is marked).

One distribution file per release is kept, under the cache (never the work tree):
    $KVCACHE_PYPI_CACHE or ~/.cache/kvcache/pypi / <name> / <version> / <file>
The sdist when the release has one (it holds the same .py files as the wheels, at a fraction of a
vLLM wheel's 300-500 MB), else the smallest wheel.

How it is fetched:
  * a wheel with `pip download --no-deps --only-binary :all:` and that wheel's own platform,
    Python and ABI tags, so pip picks exactly that file (pip never builds or runs anything);
  * an sdist over HTTPS from the URL the JSON API lists.  `pip download` cannot be used for an
    sdist: it always prepares the sdist's metadata by running its build backend in an isolated
    environment, and vLLM's declares `torch==<pinned>` and cmake as build requirements (observed:
    `pip download --no-deps --no-binary :all: vllm==0.4.2` fails with "No matching distribution
    found for torch==2.3.0" after building cmake from source), i.e. it would download torch and
    run the release's setup.py, which this tool must never do.
Either way the file's sha256 is checked against the digest the JSON API lists.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from packaging.utils import parse_wheel_filename
from packaging.version import InvalidVersion, Version

INDEX = os.environ.get('KVCACHE_PYPI_JSON', 'https://pypi.org/pypi/%s/json')


def cache_root():
    return os.environ.get('KVCACHE_PYPI_CACHE',
                          os.path.join(os.path.expanduser('~'), '.cache', 'kvcache', 'pypi'))


def _get(url, attempts=4):
    for i in range(attempts):
        try:
            with urllib.request.urlopen(url, timeout=300) as r:
                return r.read()
        except Exception:  # network hiccup: retry, then give up loudly
            if i == attempts - 1:
                raise
            time.sleep(2 * (i + 1))


def project(name):
    """The JSON API document of `name`, saved in the cache as index.json (refreshed each run)."""
    url = INDEX % name
    data = _get(url)
    doc = json.loads(data)
    os.makedirs(os.path.join(cache_root(), name), exist_ok=True)
    with open(os.path.join(cache_root(), name, 'index.json'), 'wb') as f:
        f.write(data)
    doc['_url'] = url
    return doc


def releases(doc):
    """[(version, [file, ...])] in PEP 440 order, versions without files left out."""
    out = []
    for v, files in doc['releases'].items():
        try:
            Version(v)
        except InvalidVersion:
            continue
        out.append((v, files))
    out.sort(key=lambda p: Version(p[0]))
    return out


def choose(files):
    """The file to read: the sdist, else the smallest wheel; None when the release has neither."""
    sdists = [f for f in files if f['packagetype'] == 'sdist']
    if sdists:
        return sdists[0]
    wheels = [f for f in files if f['packagetype'] == 'bdist_wheel']
    if wheels:
        return min(wheels, key=lambda f: (f['size'], f['filename']))
    return None


def _sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def _pip_wheel(name, version, file, dest):
    """pip download of exactly this wheel, selected by its own tags."""
    _, _, _, tags = parse_wheel_filename(file['filename'])
    tag = sorted(tags, key=str)[0]
    interp = tag.interpreter  # cp311, cp38, py3
    digits = ''.join(c for c in interp if c.isdigit())
    pyver = digits[0] + ('.' + digits[1:] if len(digits) > 1 else '')
    cmd = [sys.executable, '-m', 'pip', 'download', '--no-deps', '--only-binary', ':all:',
           '--no-cache-dir', '--progress-bar', 'off', '--quiet', '--dest', dest,
           '--ignore-requires-python',  # abi3 wheels: the tag's cp38 is below Requires-Python
           '--python-version', pyver, '--platform', tag.platform,
           '--abi', tag.abi, '--implementation', interp[:2] if interp[:2] in ('cp', 'pp') else 'py',
           '%s==%s' % (name, version)]
    env = dict(os.environ, PIP_FIND_LINKS='')  # only PyPI, never a local wheel directory
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError('pip download failed: ' + (proc.stderr.strip().splitlines() or ['?'])[-1])
    return 'pip download --no-deps --only-binary :all: --platform %s --python-version %s --abi %s' % (
        tag.platform, pyver, tag.abi)


def fetch(name, version, file, doc_url):
    """The cached path of `file` (downloaded on first use) and how it was fetched."""
    folder = os.path.join(cache_root(), name, version)
    path = os.path.join(folder, file['filename'])
    meta = path + '.fetched'
    if os.path.exists(path) and os.path.exists(meta):
        with open(meta) as f:
            return path, f.read().strip()
    os.makedirs(folder, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=folder, prefix='.part-')
    try:
        if file['packagetype'] == 'bdist_wheel':
            how = _pip_wheel(name, version, file, tmp)
        else:
            url = urllib.parse.urljoin(doc_url, file['url'])
            with open(os.path.join(tmp, file['filename']), 'wb') as f:
                f.write(_get(url))
            how = 'https GET of the sdist URL listed by the PyPI JSON API (see pypi.py for why not pip)'
        got = os.path.join(tmp, file['filename'])
        if not os.path.exists(got):
            raise RuntimeError('expected %s, got %s' % (file['filename'], os.listdir(tmp)))
        digest = _sha256(got)
        if digest != file['digests']['sha256']:
            raise RuntimeError('sha256 mismatch for %s' % file['filename'])
        os.replace(got, path)
        with open(meta, 'w') as f:
            f.write(how + '\n')
        return path, how
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cache_size(name=None):
    root = os.path.join(cache_root(), name) if name else cache_root()
    total = 0
    for d, _, files in os.walk(root):
        for f in files:
            total += os.path.getsize(os.path.join(d, f))
    return total

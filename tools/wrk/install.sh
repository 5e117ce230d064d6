#!/usr/bin/env bash
# Puts wrk, the load generator the webhook benchmarks drive, into a cache outside the work tree:
# Debian bookworm's packages at pinned versions, fetched with `apt-get download` and unpacked with
# `dpkg-deb -x` (no root, nothing installed system-wide). Prints `wrk: <path>` last: a wrapper that
# finds the unpacked LuaJIT. Cold: about 2 s; cached: at once.
#   tools/wrk/install.sh
set -euo pipefail
WRK=4.1.0-3+b2
LUAJIT=2.1.0~beta3+git20220320+dfsg-4.1+deb12u1
CACHE=${KVCACHE_CACHE:-$HOME/.cache/kvcache}/wrk/$WRK-luajit-$LUAJIT
if [[ ! -x $CACHE/wrk ]]; then
  for tool in apt-get dpkg-deb; do
    command -v $tool > /dev/null || { echo "install.sh: $tool is missing: wrk comes from Debian's packages" >&2; exit 3; }
  done
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get download -q "wrk=$WRK" "libluajit-5.1-2=$LUAJIT" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || {
    echo "install.sh: apt-get download of wrk $WRK and libluajit-5.1-2 $LUAJIT failed (apt-get update refreshes the package lists)" >&2
    exit 3
  }
  mkdir -p "$work/root"
  for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
  rm -rf "$CACHE" && mkdir -p "$CACHE"
  cp -a "$work/root/usr" "$CACHE/"
  cat > "$CACHE/wrk" <<WRAPPER
#!/bin/sh
LD_LIBRARY_PATH="$CACHE/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$CACHE/usr/bin/wrk" "\$@"
WRAPPER
  chmod +x "$CACHE/wrk"
fi
# wrk --version prints its version and exits 1
[[ $("$CACHE/wrk" --version 2>&1 || true) == wrk\ * ]] || { echo "install.sh: $CACHE/wrk does not run" >&2; exit 3; }
echo "wrk: $CACHE/wrk"

#!/usr/bin/env bash
# Assembles the operator image's root filesystem with no Docker engine and no registry: a jlink
# runtime holding only the modules kvcache uses, the shared libraries that runtime links against
# (taken from this machine), and the few files a JVM expects. Jib layers it under the application.
#
# usage: root.sh ROOT MODULES
set -euo pipefail
root=$1
modules=$2

rm -rf "$root"
mkdir -p "$root/opt" "$root/etc" "$root/tmp"
jlink --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$root/opt/java"

# Every library the runtime's binaries load, and the dynamic loader they name, at their own paths.
# AWT, sound and image codecs come with java.desktop (for java.beans) but never load headless.
find "$root/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) \
    ! -name 'libawt*' ! -name 'libfontmanager*' ! -name 'libjavajpeg*' ! -name 'liblcms*' \
    ! -name 'libsplashscreen*' ! -name 'libjsound*' ! -name 'libmlib_image*' ! -name 'libjawt*' \
    -print0 \
  | xargs -0 ldd 2>/dev/null \
  | awk '$2 == "=>" && $3 ~ /^\// { print $3 } NF == 2 && $1 ~ /^\// { print $1 }' \
  | grep -v "^$root/" \
  | sort -u \
  | while read -r lib; do
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    done

# A user to run as (not root), and name resolution from /etc/hosts then DNS.
printf 'root:x:0:0:root:/root:/sbin/nologin\nkvcache:x:65532:65532:kvcache:/tmp:/sbin/nologin\n' \
  > "$root/etc/passwd"
printf 'root:x:0:\nkvcache:x:65532:\n' > "$root/etc/group"
printf 'hosts: files dns\n' > "$root/etc/nsswitch.conf"

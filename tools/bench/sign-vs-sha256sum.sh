#!/usr/bin/env bash
# Times signing and verifying a package of about 1 GiB against `sha256sum` (and OpenSSL's SHA-256,
# which uses the CPU's SHA instructions as swift-crypto does) of the same file, in
# one run, with hyperfine (issue 35): `mapbook sign` checks every entry against the manifest and
# writes the signed copy; the first `mapbook toc` of a signed file checks its signature and every
# entry (docs/FORMAT.md "Signature"); a later one finds the file already checked.
#
#   tools/bench/sign-vs-sha256sum.sh [ENTRIES] [MiB]
set -euo pipefail
cd "$(dirname "$0")/../.."
entries=${1:-100}
mib=${2:-1024}

command -v hyperfine >/dev/null || {
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get install -y -qq hyperfine >/dev/null
}

swift build -c release --static-swift-stdlib --product mapbook
(cd tools/bench && swift build -c release --product make-large-package)

work=.build/bench/signing
rm -rf "$work"
mkdir -p "$work/home"
package=.build/bench/large-${entries}-${mib}.mmpk
[ -f "$package" ] || tools/bench/.build/release/make-large-package "$package" "$entries" "$mib"
ls -l "$package"

mapbook=$PWD/.build/release/mapbook
export MAPBOOK_HOME=$PWD/$work/home
"$mapbook" keys create "$work/key" >/dev/null
"$mapbook" sign "$package" --key "$work/key" -o "$work/signed.mmpk" >/dev/null
# Warm the page cache so every command reads from memory.
cat "$package" "$work/signed.mmpk" >/dev/null
# hyperfine takes one --prepare per command, in order: only the first open forgets the check.
hyperfine --warmup 1 --runs 10 --export-markdown "$work/sign-vs-sha256sum.md" \
    --prepare true --prepare true --prepare true --prepare "rm -rf $work/home/verified" --prepare true --prepare true \
    -n "sha256sum" "sha256sum $package" \
    -n "openssl sha256" "openssl dgst -sha256 $package" \
    -n "mapbook sign" "$mapbook sign $package --key $work/key -o $work/out.mmpk" \
    -n "mapbook toc, first open (verifies)" "$mapbook toc $work/signed.mmpk" \
    -n "mapbook toc, checked before" "$mapbook toc $work/signed.mmpk" \
    -n "mapbook toc, unsigned" "$mapbook toc $package"
cat "$work/sign-vs-sha256sum.md"

#!/usr/bin/env bash
# Puts ccusage's Pi adapter (@ccusage/pi, one package without dependencies, about 400 KB) into one
# folder from the npm registry, for tests/usage/test_ccusage.py, which compares pi-context usage with
# it on the same session folders. It runs on the Node the real-Pi tests install (install_pi.sh).
#
# Usage: tests/support/install_ccusage.sh [folder (default ~/.cache/pi-context-ccusage)] [version (18.0.11)]
# Installing again into the same folder is a no-op for npm when the version is already there.
set -euo pipefail

folder="${1:-$HOME/.cache/pi-context-ccusage}"
version="${2:-18.0.11}"

if ! command -v npm >/dev/null 2>&1; then
	echo "install_ccusage.sh: npm is needed to install @ccusage/pi" >&2
	exit 1
fi
mkdir -p "$folder"
folder="$(cd "$folder" && pwd)"
[ -f "$folder/package.json" ] || printf '{\n  "name": "ccusage-for-tests",\n  "private": true\n}\n' > "$folder/package.json"
npm install --prefix "$folder" --no-audit --no-fund --ignore-scripts --loglevel=error "@ccusage/pi@${version}"
entry="$folder/node_modules/@ccusage/pi/dist/index.js"
[ -f "$entry" ] || { echo "install_ccusage.sh: $entry is missing after the install" >&2; exit 1; }
echo "CCUSAGE_PI=$entry"
